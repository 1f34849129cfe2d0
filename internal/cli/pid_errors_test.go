package cli_test

import (
	"bytes"
	"context"
	"net"
	"os/exec"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/internal/cli"
	"github.com/tlsbench/tlsbench/internal/testpki"
)

// TestPIDErrorsNameTheirFlag: a pid of no process is the user's to fix
// (exit 2), in one line naming the flag that gave it, and only that one:
// --proxy-pid's error once said "--server-pid" too.
func TestPIDErrorsNameTheirFlag(t *testing.T) {
	t.Parallel()
	_, _, f := testpki.ServerFiles(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	gone := exitedPID(t)
	addr := ln.Addr().String()
	for _, tt := range []struct {
		args      []string
		want, not string
	}{
		{[]string{"run", "--proxy", "http://" + addr, "--proxy-ca", f.CA, "--proxy-pid", gone, "--tls", "1.3", "--resume", "off", "--concurrency", "1"},
			"--proxy-pid " + gone + ": no such process", "--server-pid"},
		{[]string{"run", "--target", addr, "--insecure", "--server-pid", gone, "--tls", "1.3", "--resume", "off", "--concurrency", "1"},
			"--server-pid " + gone + ": no such process", "--proxy-pid"},
	} {
		var stdout, stderr bytes.Buffer
		err := cli.Run(context.Background(), tt.args, &stdout, &stderr)
		m := cli.Message(err)
		if cli.ExitCode(err) != 2 || !strings.Contains(m, tt.want) || strings.Contains(m, tt.not) || strings.Count(m, gone) != 1 {
			t.Errorf("%v: exit %d, message %q; want exit 2 and %q once, without %q", tt.args, cli.ExitCode(err), m, tt.want, tt.not)
		}
	}
}

// exitedPID is the pid of a process that has exited and been reaped.
func exitedPID(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return itoa(cmd.Process.Pid)
}
