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
// (usage.ListenCount sums them.)

// ListenNote is what the counts mean for the case, or "" when the
// listeners dropped nothing.
func (hc *HandshakeCase) ListenNote(c *usage.ListenCount, rec *results.Record) string {
	q, known := c.Sum()
	if !known || q.Drops == 0 && q.Overflows == 0 {
		return ""
	}
	atOnce := "the concurrency"
	if hc.Rate > 0 {
		atOnce = "the connections arriving at once"
	}
	n := fmt.Sprintf("%s listen queue overflowed %d times during this case (its accept backlog is smaller than %s, or it accepts too slowly): connections waited for the kernel to retransmit their SYN",
		hc.ListenQueue, q.Overflows, atOnce)
	if q.Overflows == 0 {
		n = fmt.Sprintf("listening sockets on this machine dropped %d connection attempts during this case (not for a full accept queue: a full SYN queue without SYN cookies, or memory): connections waited for the kernel to retransmit their SYN",
			q.Drops)
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
func (r *Measurer) listenFigures(rec *results.Record, c *usage.ListenCount) {
	rec.ListenOverflows, rec.ListenDrops = nil, nil
	q, known := c.Sum()
	if !known {
		return
	}
	rec.ListenOverflows, rec.ListenDrops = results.Int(q.Overflows), results.Int(q.Drops)
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
func (hc *HandshakeCase) ListenFailure(err error, c *usage.ListenCount, rec *results.Record) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		// An interrupted case did not fail.
		return err
	}
	n := hc.ListenNote(c, rec)
	if n == "" {
		return err
	}
	q, _ := c.Sum()
	return &ListenOverflowError{Err: err, Note: n, Overflows: q.Overflows, Drops: q.Drops}
}
