// Command tlsbench measures what TLS handshakes and bulk transfer cost,
// and verifies that resumption really happens. See README.md.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/tlsbench/tlsbench/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := cli.Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if msg := cli.Message(err); msg != "" {
		fmt.Fprintln(os.Stderr, "tlsbench: "+msg)
	}
	os.Exit(cli.ExitCode(err))
}
