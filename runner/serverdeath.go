package runner

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/tlsbench/tlsbench/internal/connerr"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/server"
)

// ServerDiedError is a case during which the built-in server's process
// ended (killed, crashed): the run cannot go on against it. Err says how
// it ended and its last words (a *server.ExitError).
type ServerDiedError struct {
	Case string
	Err  error
}

func (e *ServerDiedError) Error() string {
	return fmt.Sprintf("case %s: %v", e.Case, e.Err)
}

func (e *ServerDiedError) Unwrap() error { return e.Err }

// deathWait bounds how long a failure that looks like a dead server
// waits for the child's exit to be seen.
const deathWait = 2 * time.Second

// childDialer dials the child server; a refused connection (the listener
// is gone) waits for the child's death to be confirmed and then ends the
// case, so that the iteration it cuts short is dropped like an
// interrupted one instead of being counted as failed handshakes.
type childDialer struct {
	loadgen.TCPDialer
	child *server.Child

	mu     sync.Mutex
	cancel context.CancelFunc // the running case's
}

func (d *childDialer) Dial(ctx context.Context, deadline time.Time) (net.Conn, error) {
	c, err := d.TCPDialer.Dial(ctx, deadline)
	if err != nil && errors.Is(err, syscall.ECONNREFUSED) {
		select {
		case <-d.child.Done():
			d.endCase()
		case <-time.After(deathWait):
		}
	}
	return c, err
}

func (d *childDialer) endCase() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cancel != nil {
		d.cancel()
	}
}

// guardCase runs one case so that the death of the child server ends it at
// once: what was measured before is kept (the record says the server
// died), and the error names the case, how the server ended and its last
// lines on stderr.
func (b *builtin) guardCase(ctx context.Context, name string, run func(context.Context) (*results.Record, error)) (*results.Record, error) {
	d, ok := b.dialer.(*childDialer)
	if !ok {
		return run(ctx)
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	d.mu.Lock()
	d.cancel = cancel
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		d.cancel = nil
		d.mu.Unlock()
	}()
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		select {
		case <-d.child.Done():
			cancel()
		case <-stop:
		}
	}()

	rec, err := run(cctx)
	if ctx.Err() == nil && looksLikeDeadServer(err) {
		select { // the failures may be seen just before the death
		case <-d.child.Done():
		case <-time.After(deathWait):
		}
	}
	died := d.child.Exited()
	if died == nil {
		return rec, err
	}
	if rec != nil {
		rec.Notes = append(rec.Notes, died.Error())
	}
	return rec, &ServerDiedError{Case: name, Err: died}
}

// looksLikeDeadServer tells the failures a server that died causes (its
// listener gone, its connections reset) from the others, which need not
// wait for anything.
func looksLikeDeadServer(err error) bool {
	var ce *loadgen.CaseError
	if errors.As(err, &ce) {
		switch ce.Kind {
		case connerr.Refused, connerr.Reset, connerr.EOF:
			return true
		}
	}
	var ee *server.ExitError
	return errors.As(err, &ee) || errors.Is(err, context.Canceled)
}
