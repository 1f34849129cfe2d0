package testchild

import (
	"os"

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
	os.Exit(cli.Main(os.Args[1:]))
}
