package testchild

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/tlsbench/tlsbench/internal/cli"
)

const envVar = "TLSBENCH_TEST_CHILD"

// Env is the environment entry that makes a re-executed test binary act
// as tlsbench.
func Env() string { return envVar + "=1" }

// RunIfChild runs the CLI with the process arguments and exits, when this
// process was started with Env; otherwise it returns at once.
func RunIfChild() {
	if os.Getenv(envVar) != "1" {
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := cli.Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if msg := cli.Message(err); msg != "" {
		fmt.Fprintln(os.Stderr, "tlsbench: "+msg)
	}
	os.Exit(cli.ExitCode(err))
}
