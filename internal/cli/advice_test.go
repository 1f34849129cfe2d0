package cli_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/cli"
)

// TestWrongServerNameAdvice: a certificate that verifies but is not for
// the name asked for is a --sni mistake, not a missing CA: the advice
// names --sni.
func TestWrongServerNameAdvice(t *testing.T) {
	t.Parallel()
	addr, ca, stop := startServe(t)
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	err := cli.Run(ctx, []string{"run", "--target", addr, "--ca", ca, "--sni", "not-this-server.example",
		"--tls", "1.3", "--resume", "off", "--concurrency", "1", "--handshakes", "4", "--iterations", "1", "--warmup", "0"}, &stdout, &stderr)
	msg := stderr.String() + cli.Message(err) // the reasons, then the last line
	if cli.ExitCode(err) != 1 || !strings.Contains(msg, "give the name it is for with --sni NAME") || strings.Contains(msg, "--ca FILE") {
		t.Fatalf("exit %d, message %q: want the --sni advice", cli.ExitCode(err), msg)
	}
}
