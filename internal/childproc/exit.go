package childproc

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// ExitError is a child that ended without being asked to: how it ended
// and its last words on stderr.
type ExitError struct {
	PID int
	// Signal is the signal that killed it ("SIGKILL"), or "" when it
	// exited by itself with Code.
	Signal string
	Code   int
	// Stderr holds its last lines on stderr, oldest first.
	Stderr []string
	// What names the child ("the built-in server").
	What string
}

func (e *ExitError) Error() string {
	var b strings.Builder
	what := e.What
	if what == "" {
		what = "the child process"
	}
	fmt.Fprintf(&b, "%s (pid %d) ", what, e.PID)
	if e.Signal != "" {
		fmt.Fprintf(&b, "was killed by %s", e.Signal)
	} else {
		fmt.Fprintf(&b, "exited with status %d", e.Code)
	}
	if len(e.Stderr) == 0 {
		b.WriteString("; it wrote nothing on stderr")
	} else {
		b.WriteString("; its last lines on stderr: ")
		b.WriteString(strings.Join(e.Stderr, " | "))
	}
	return b.String()
}

// stderrLines is how many of the child's last stderr lines an ExitError
// carries: enough for a reason and what led to it, on one line.
const stderrLines = 3

// Done is closed when the child process has ended, for whatever reason.
func (c *Child) Done() <-chan struct{} { return c.done }

// Exited returns nil while the child runs or after Close stopped it, and
// an *ExitError once it has ended by itself (killed, crashed, exited).
func (c *Child) Exited() error {
	select {
	case <-c.done:
	default:
		return nil
	}
	c.mu.Lock()
	closing := c.closing
	c.mu.Unlock()
	if closing && c.err == nil {
		return nil
	}
	return c.exitError()
}

// exitError describes the ended child; call it after done is closed.
func (c *Child) exitError() *ExitError {
	e := &ExitError{PID: c.cmd.Process.Pid, Stderr: lastLines(c.stderr.String(), stderrLines), What: c.what}
	var exit *exec.ExitError
	if errors.As(c.err, &exit) {
		if e.Signal = exitSignal(exit); e.Signal == "" {
			e.Code = exit.ExitCode()
		}
	}
	return e
}

// lastLines returns the last n non-empty lines of s, trimmed.
func lastLines(s string, n int) []string {
	var out []string
	lines := strings.Split(s, "\n")
	for i := len(lines) - 1; i >= 0 && len(out) < n; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			out = append(out, l)
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}
