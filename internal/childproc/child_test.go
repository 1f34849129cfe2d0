//go:build unix

package childproc_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/childproc"
)

// TestStartFailures starts real programs that are not a child service
// and checks that each failure says what happened in words a user can
// act on: not the kill the wait itself sent, nor a reset channel.
func TestStartFailures(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		path    string
		args    []string
		timeout time.Duration
		want    []string
		not     []string
		// ended is how an *EarlyExitError's child ended: "spoke" in
		// a service's words, "unheard" without; "" for another error.
		ended string
	}{
		{
			name:  "exits at once, silently",
			path:  "/bin/true",
			want:  []string{"the test child exited with status 0 before it reported ready and wrote nothing on stderr"},
			not:   []string{"reset", "EOF"},
			ended: "unheard",
		},
		{
			name: "fails silently",
			path: "/bin/sh", args: []string{"-c", "exit 3"},
			want:  []string{"the test child ended before it reported ready (exit status 3) and wrote nothing on stderr"},
			ended: "unheard",
		},
		{
			name: "fails in its own words",
			path: "/bin/sh", args: []string{"-c", "echo 'tlsbench: --listen: address already in use' >&2; exit 1"},
			want:  []string{"--listen: address already in use"},
			not:   []string{"tlsbench: "},
			ended: "spoke",
		},
		{
			// A program that is not a service, run as one: its
			// own words, but not a service's.
			name: "exits in another program's words",
			path: "/bin/sh", args: []string{"-c", "echo 'usage: demo [-v]' >&2; exit 2"},
			want:  []string{"usage: demo [-v]"},
			ended: "unheard",
		},
		{
			name: "never reports ready",
			path: "/bin/sh", args: []string{"-c", "echo 'still loading' >&2; sleep 30"},
			timeout: 300 * time.Millisecond,
			want:    []string{"the test child did not report ready within 300ms and was stopped; its last line on stderr: still loading"},
			not:     []string{"killed"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var hello struct{}
			start := time.Now()
			c, err := childproc.Start(context.Background(), childproc.Options{
				Path: tc.path, Args: tc.args, Config: struct{}{}, What: "the test child", StartTimeout: tc.timeout,
			}, &hello)
			if err == nil {
				c.Close()
				t.Fatal("started, want an error")
			}
			msg := err.Error()
			ended := ""
			if early, ok := errors.AsType[*childproc.EarlyExitError](err); ok {
				ended = "unheard"
				if early.Spoke() {
					ended = "spoke"
				}
			}
			if ended != tc.ended {
				t.Errorf("error %q: ended %q, want %q", msg, ended, tc.ended)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not say %q", msg, w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(msg, n) {
					t.Errorf("error %q says %q", msg, n)
				}
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("error %q is not one line", msg)
			}
			// The sleeping child's process group was killed: the
			// wait did not last its 30 s.
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("the start took %v", d)
			}
		})
	}
}

// TestStartCancelled: ending the context stops a start in progress and
// says so, not as a failure of the child.
func TestStartCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	var hello struct{}
	_, err := childproc.Start(ctx, childproc.Options{Path: "/bin/sh", Args: []string{"-c", "sleep 30"}, Config: struct{}{}, What: "the test child"}, &hello)
	if err != context.DeadlineExceeded {
		t.Fatalf("error %v, want the context's", err)
	}
}

// TestExplainUndispatched turns a re-run program's child that ended
// without a service's word into the caller's explanation, keeping its
// last line; a service's own reason and other errors stay as they are.
func TestExplainUndispatched(t *testing.T) {
	t.Parallel()
	explain := func(command string) string { return "not dispatched to " + command }
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&childproc.EarlyExitError{What: "the test child"}, "not dispatched to serve"},
		{&childproc.EarlyExitError{What: "the test child", LastLine: "usage: demo"}, "not dispatched to serve; its last line on stderr: usage: demo"},
		{&childproc.EarlyExitError{What: "the test child", LastLine: "tlsbench: --listen: address already in use"}, "--listen: address already in use"},
		{errors.New("the test child did not report ready within 30s and was stopped"), "the test child did not report ready within 30s and was stopped"},
	} {
		if got := childproc.ExplainUndispatched(tc.err, "serve", explain).Error(); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.err, got, tc.want)
		}
	}
}
