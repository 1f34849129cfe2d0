package runner

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/results"
)

// aliveChild is a child process that stays alive.
type aliveChild struct{ done chan struct{} }

func (c aliveChild) Done() <-chan struct{} { return c.done }
func (c aliveChild) Exited() error         { return nil }

// TestGuardCaseBothChildrenAlive: a case through the built-in proxy that
// fails the way a dead child's case does (here the proxy's 502) while the
// server and the proxy both live waits at most deathWait for a death, then
// returns the case's own error. The wait once consumed its one timer value
// on the first child and then waited for the second one's death forever.
func TestGuardCaseBothChildrenAlive(t *testing.T) {
	t.Parallel()
	b := &builtin{
		dialer: &childDialer{child: aliveChild{make(chan struct{})}},
		proxy:  &proxyRun{dialer: &childDialer{child: aliveChild{make(chan struct{})}}},
	}
	refused := &client.ProxyError{Status: 502, Reason: "origin unreachable"}
	done := make(chan error, 1)
	go func() {
		_, err := b.guardCase(context.Background(), "case", func(context.Context) ([]*results.Record, error) { return nil, refused })
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, refused) {
			t.Fatalf("guardCase = %v, want the case's own error", err)
		}
	case <-time.After(20 * deathWait):
		t.Fatal("guardCase still waits for a child that lives, long after deathWait")
	}
}
