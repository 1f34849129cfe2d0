package measure

import (
	"context"
	"errors"
	"fmt"

	"github.com/tlsbench/tlsbench/internal/usage"
	"github.com/tlsbench/tlsbench/results"
)

// A server whose accept backlog is smaller than the connections that
// arrive at once (gnutls-serv listens with 10), or that accepts too
// slowly, overflows its listen queue: the kernel drops the SYN of the
// connections that do not fit, and they wait for its retransmit (1 s,
// then 3 s...). The case then sees slow connects and timeouts that look
// like the server's TLS. The kernel counts these drops machine-wide
// (usage.ListenQueue): the case counts them over its iterations when
// HandshakeCase.ListenQueue says every listener it reaches is on this
// machine, records them and says so in a note and in its failure.

// ListenCount sums the machine's listen-queue counters over spans of a
// case.
type ListenCount struct {
	q     usage.ListenQueue
	spans int
	// Lost is set when a span's counters could not be read, or went
	// back: the sum is then unknown.
	lost bool
}

// ListenReading is the counters read at one boundary; on is false when
// the case does not count them.
type ListenReading struct {
	Q   usage.ListenQueue
	Err error
	On  bool
}

// Add counts the span between two readings.
func (c *ListenCount) Add(before, after ListenReading) {
	if !before.On || !after.On {
		return
	}
	d, ok := after.Q.Sub(before.Q)
	if before.Err != nil || after.Err != nil || !ok {
		c.lost = true
		return
	}
	c.q = c.q.Add(d)
	c.spans++
}

// known reports whether the sum covers every span counted.
func (c *ListenCount) known() bool { return c != nil && c.spans > 0 && !c.lost }

// merge adds the spans of o.
func (c *ListenCount) merge(o ListenCount) {
	c.q = c.q.Add(o.q)
	c.spans += o.spans
	c.lost = c.lost || o.lost
}

// readListen reads the counters when on (the case counts them).
func readListen(on bool) ListenReading {
	if !on {
		return ListenReading{}
	}
	q, err := usage.ReadListenQueue()
	return ListenReading{Q: q, Err: err, On: true}
}

// ListenNote is what the counts mean for the case, or "" when the
// listeners dropped nothing.
func (hc *HandshakeCase) ListenNote(c *ListenCount, rec *results.Record) string {
	if !c.known() || c.q.Drops == 0 && c.q.Overflows == 0 {
		return ""
	}
	atOnce := "the concurrency"
	if hc.Rate > 0 {
		atOnce = "the connections arriving at once"
	}
	n := fmt.Sprintf("%s listen queue overflowed %d times during this case (its accept backlog is smaller than %s, or it accepts too slowly): connections waited for the kernel to retransmit their SYN",
		hc.ListenQueue, c.q.Overflows, atOnce)
	if c.q.Overflows == 0 {
		n = fmt.Sprintf("listening sockets on this machine dropped %d connection attempts during this case (not for a full accept queue: a full SYN queue without SYN cookies, or memory): connections waited for the kernel to retransmit their SYN",
			c.q.Drops)
	}
	if rec != nil {
		n += connectSignature(rec.Phases[results.PhaseConnect])
	}
	return n
}

// synRetransmit is the kernel's first SYN retransmit timeout: a connect
// on this machine that takes as long waited for it.
const synRetransmitUS = 1e6

// connectSignature says when the connect phase shows the SYN retransmits
// (connects of about 1 s, 3 s), or "".
func connectSignature(p results.Phase) string {
	const near = 0.9 * synRetransmitUS
	switch {
	case p.Count == 0:
		return ""
	case p.P99US >= near:
		return fmt.Sprintf("; the connect phase shows it: its p99 is %s (the kernel retransmits a SYN after 1 s, then 3 s)", ms(p.P99US))
	case p.MaxUS >= near:
		return fmt.Sprintf("; the connect phase shows it: its slowest connect took %s (the kernel retransmits a SYN after 1 s, then 3 s)", ms(p.MaxUS))
	}
	return ""
}

// listenFigures records the counts of the measured iterations in rec,
// with their note.
func (r *Measurer) listenFigures(rec *results.Record, c *ListenCount) {
	rec.ListenOverflows, rec.ListenDrops = nil, nil
	if !c.known() {
		return
	}
	rec.ListenOverflows, rec.ListenDrops = results.Int(c.q.Overflows), results.Int(c.q.Drops)
	if n := r.Case.ListenNote(c, rec); n != "" {
		rec.Notes = append(rec.Notes, n)
	}
}

// ListenOverflowError is a case that failed while listen queues on the
// machine overflowed (or dropped connections): what its connections
// waited for, and likely why they timed out. It wraps the case's own
// error with the note its record has.
type ListenOverflowError struct {
	Err  error
	Note string
	// Overflows and Drops are the counts over the failed phase (the
	// warm-up, or the measured iterations).
	Overflows, Drops int64
}

func (e *ListenOverflowError) Error() string { return e.Err.Error() + "; " + e.Note }

func (e *ListenOverflowError) Unwrap() error { return e.Err }

// ListenFailure wraps err, a failure of the phase c counted, when its
// listeners dropped connections.
func (hc *HandshakeCase) ListenFailure(err error, c *ListenCount, rec *results.Record) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		// An interrupted case did not fail.
		return err
	}
	n := hc.ListenNote(c, rec)
	if n == "" {
		return err
	}
	return &ListenOverflowError{Err: err, Note: n, Overflows: c.q.Overflows, Drops: c.q.Drops}
}
