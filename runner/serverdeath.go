package runner

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/connerr"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/server"
)

// ServerDiedError is a case during which the built-in server's process
// ended (killed, crashed): the run cannot go on against it. Err says how
// it ended and its last words (a *server.ExitError). Side names the side
// whose server died in an interleaved run ("" otherwise), and NotRun
// counts the cases after it that the run did not reach.
type ServerDiedError struct {
	Case   string
	Side   string
	NotRun int
	Err    error
}

func (e *ServerDiedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "case %s", e.Case)
	if e.Side != "" {
		fmt.Fprintf(&b, ", side %s", e.Side)
	}
	fmt.Fprintf(&b, ": %v", e.Err)
	switch {
	case e.NotRun == 1:
		b.WriteString("; the run stopped there, 1 more case was not run")
	case e.NotRun > 1:
		fmt.Fprintf(&b, "; the run stopped there, %d more cases were not run", e.NotRun)
	}
	return b.String()
}

func (e *ServerDiedError) Unwrap() error { return e.Err }

// deathWait bounds how long a failure that looks like a dead server
// waits for the child's exit to be seen.
const deathWait = 2 * time.Second

// childDialer dials a child process (the server, or the proxy in front
// of it); a refused connection (the listener is gone) waits for the
// child's death to be confirmed and then ends the case, so that the
// iteration it cuts short is dropped like an interrupted one instead of
// being counted as failed handshakes.
type childDialer struct {
	client.Dialer
	child watchedProcess

	mu     sync.Mutex
	cancel context.CancelFunc // the running case's
}

func (d *childDialer) Dial(ctx context.Context, deadline time.Time) (net.Conn, error) {
	c, err := d.Dialer.Dial(ctx, deadline)
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

func (d *childDialer) setCancel(cancel context.CancelFunc) {
	d.mu.Lock()
	d.cancel = cancel
	d.mu.Unlock()
}

// guardCase runs one case so that the death of a child server (of any
// side), or of the built-in proxy, ends it at once: what was measured
// before is kept (the record of the side whose peer died says so), and
// the error names the case, how the process ended and its last lines on
// stderr.
func (b *builtin) guardCase(ctx context.Context, name string, run func(context.Context) ([]*results.Record, error)) ([]*results.Record, error) {
	dialers := b.childDialers()
	if len(dialers) == 0 {
		return run(ctx)
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := make(chan struct{})
	defer close(stop)
	for _, g := range dialers {
		g.d.setCancel(cancel)
		defer g.d.setCancel(nil)
		go func() {
			select {
			case <-g.d.child.Done():
				cancel()
			case <-stop:
			}
		}()
	}

	recs, err := run(cctx)
	if ctx.Err() == nil && looksLikeDeadServer(err) {
		// The failures may be seen just before the death: wait for it,
		// deathWait in all. A channel closed once the time is up, not
		// time.After's single value: with the server and the proxy both
		// alive, the second wait would never end.
		expired := make(chan struct{})
		timer := time.AfterFunc(deathWait, func() { close(expired) })
		defer timer.Stop()
		for _, g := range dialers {
			select {
			case <-g.d.child.Done():
			case <-expired:
			}
		}
	}
	for _, g := range dialers {
		died := g.d.child.Exited()
		if died == nil {
			continue
		}
		side := b.sideName(g.side)
		for i, rec := range recs {
			switch {
			case rec == nil:
			case i == g.side || g.proxy:
				// Whatever was measured before, the case was cut
				// short by its peer's death: its record must not
				// pass for a valid one (report and compare read
				// the verdict).
				rec.Verdict, rec.StoppedBy = measure.VerdictFailed, results.StoppedFailed
				rec.Notes = append(rec.Notes, "failed: "+died.Error())
			default:
				// Another side's figures stand, but its case
				// ended with the side that failed: the rounds
				// kept are those both sides finished.
				rec.StoppedBy = results.StoppedFailed
				rec.Notes = append(rec.Notes, fmt.Sprintf("cut short: side %s's server died; the rounds both sides finished are kept", side))
			}
		}
		if g.proxy {
			return compact(recs), &ProxyDiedError{Case: name, Err: died}
		}
		return compact(recs), &ServerDiedError{Case: name, Side: side, Err: died}
	}
	return compact(recs), err
}

// sideName names side i of an interleaved run (a, b, a2: the order of
// sides()), or "" when the run has one side.
func (b *builtin) sideName(i int) string {
	if len(b.sides) == 0 {
		return ""
	}
	return []string{results.SideA, results.SideB, results.SideA2}[i]
}

// guardedDialer is a child's dialer, with the side whose record it
// feeds and whether the child is the proxy.
type guardedDialer struct {
	d     *childDialer
	side  int
	proxy bool
}

// childDialers are the dialers of the child processes a case depends
// on: each side's server, and the proxy.
func (b *builtin) childDialers() []guardedDialer {
	var out []guardedDialer
	for i, s := range append([]*builtin{b}, b.sides...) {
		if d, ok := s.dialer.(*childDialer); ok {
			out = append(out, guardedDialer{d: d, side: i})
		}
	}
	if b.proxy != nil {
		if d, ok := b.proxy.dialer.(*childDialer); ok {
			out = append(out, guardedDialer{d: d, proxy: true})
		}
	}
	return out
}

// compact drops the nil records (a side that measured nothing).
func compact(recs []*results.Record) []*results.Record {
	out := recs[:0:0]
	for _, r := range recs {
		if r != nil {
			out = append(out, r)
		}
	}
	return out
}

// looksLikeDeadServer tells the failures a server that died causes (its
// listener gone, its connections reset) from the others, which need not
// wait for anything.
func looksLikeDeadServer(err error) bool {
	var ce *measure.CaseError
	if errors.As(err, &ce) {
		switch ce.Kind {
		case connerr.Refused, connerr.Reset, connerr.EOF:
			return true
		}
	}
	var ee *server.ExitError
	var pe *client.ProxyError
	var te *loadgen.ThroughputError
	if errors.As(err, &te) {
		// A transfer cut by a peer that died: reset, EOF, refused.
		switch connerr.Kind(te.Err) {
		case connerr.Refused, connerr.Reset, connerr.EOF:
			return true
		}
	}
	return errors.As(err, &ee) || errors.As(err, &pe) || errors.Is(err, context.Canceled)
}
