package runner_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/testchild"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/runner"
)

// undispatchedVar makes this test binary a program that uses the runner
// without dispatching to its children (RunChildIfAsked), its value the
// way that program's main goes on in a child: "run" runs its cases again,
// "exit" exits quietly, "usage" complains of its arguments; "executable"
// runs the server from Plan.Executable instead.
const undispatchedVar = "TLSBENCH_TEST_UNDISPATCHED"

// undispatchedMain is the main of that program: one resumed case against
// the built-in server, its error on stderr.
func undispatchedMain(mode string) int {
	if slices.Contains(os.Args, "--control-fd") {
		switch mode {
		case "exit":
			return 0
		case "usage":
			fmt.Fprintln(os.Stderr, "usage: demo [-v]")
			return 2
		}
	}
	p := runner.Plan{
		Versions: []uint16{tls.VersionTLS13}, Resume: []bool{true}, Concurrency: []int{1},
		Handshakes: 4, Iterations: 1,
	}
	if mode == "executable" {
		// A tlsbench program runs the server: this binary again, as
		// its tests' children are run.
		p.Executable, p.ChildEnv = os.Args[0], []string{undispatchedVar + "=", testchild.Env()}
	}
	err := runner.Run(context.Background(), p, func(*results.Record) error { return nil })
	if err != nil {
		fmt.Fprintln(os.Stderr, "error: "+err.Error())
		return 1
	}
	fmt.Println("ok")
	return 0
}

// TestLibraryWithoutDispatch runs a program that uses the runner but
// whose main does not dispatch to the child it re-runs itself as: the
// run fails at once, saying why and what to do, however that child's
// main goes on; with Plan.Executable it needs no dispatch.
func TestLibraryWithoutDispatch(t *testing.T) {
	t.Parallel()
	const why = "starting the built-in server: this program re-ran itself as the server but does not dispatch to it; " +
		"call runner.RunChildIfAsked() at the start of main, or set Plan.Executable to a tlsbench binary"
	for _, tc := range []struct{ mode, stderr string }{
		{"run", "error: " + why + "\n"},
		{"exit", "error: " + why + "\n"},
		{"usage", "error: " + why + "; its last line on stderr: usage: demo [-v]\n"},
		{"executable", ""},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), undispatchedVar+"="+tc.mode)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			start := time.Now()
			err := cmd.Run()
			if d := time.Since(start); d > 15*time.Second {
				t.Errorf("the run took %v: it must fail at once, not wait for the server", d)
			}
			if got := stderr.String(); got != tc.stderr {
				t.Errorf("stderr:\n%s\nwant:\n%s", got, tc.stderr)
			}
			var exit *exec.ExitError
			switch {
			case tc.stderr == "" && (err != nil || stdout.String() != "ok\n"):
				t.Errorf("exit %v, stdout %q: want a run that succeeds", err, stdout.String())
			case tc.stderr != "" && (!errors.As(err, &exit) || exit.ExitCode() != 1):
				t.Errorf("exit %v, want status 1", err)
			}
		})
	}
}
