package measure

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/connerr"
	"github.com/tlsbench/tlsbench/internal/counts"
	"github.com/tlsbench/tlsbench/results"
)

// DefaultMinResumption and DefaultMaxErrorRate are the gates tlsbench run
// applies unless told otherwise.
const (
	DefaultMinResumption = 0.99
	DefaultMaxErrorRate  = 0.001
)

// VerdictFailed marks the record of a case that was measured but failed a
// gate (results.Record.Verdict).
const VerdictFailed = "failed"

// iterStat is what the gates need of one measured iteration.
type iterStat struct {
	ok, resumed, failed int64
	// declined: sessions the server refused to resume in the iteration
	// (nil when unknown).
	declined map[string]int64
	// firstUses and reuses count the sessions offered for the first time
	// and again (only with HandshakeCase.TrackTicketUse).
	firstUses, reuses int64
	// hasServer says the server's counts over the iteration are known:
	// srvResumed of srvHandshakes (for the gate of a mix).
	hasServer                 bool
	srvResumed, srvHandshakes int64
	// Dry counts, in a mix, the connections meant to offer a session
	// that found none.
	dry int64
}

// FellIteration is a measured iteration whose resumption rate fell below
// the minimum, or below 100% for a drift note.
type FellIteration struct {
	Iteration         int // 1-based among the measured iterations
	Resumed, Total    int64
	Rate              float64
	ServerDeclined    map[string]int64 // nil when unknown
	FirstUses, Reuses int64
}

func (f FellIteration) String() string {
	s := fmt.Sprintf("iteration %d resumed %.1f%% (%d of %d", f.Iteration, 100*f.Rate, f.Resumed, f.Total)
	if len(f.ServerDeclined) > 0 {
		s += "; the server declined " + counts.List(f.ServerDeclined)
	}
	return s + ")"
}

// ResumptionError is returned when a resume case resumed fewer handshakes
// than required: in its warm-up (nothing was measured, no record), or in
// one or more measured iterations (Measured; the record is returned with
// the error, marked failed): its figures would describe full handshakes.
type ResumptionError struct {
	Case           string
	Resumed, Total int64
	Rate, Required float64
	// Setting is what the user calls the minimum (Words).
	Setting string
	// HasServerCounts says the server's own counts over the warm-up are
	// known: ServerResumed of ServerHandshake.
	HasServerCounts bool
	ServerResumed   int64
	ServerHandshake int64
	// ServerDeclined counts the sessions the server refused, by reason.
	ServerDeclined map[string]int64
	// Measured is set when measured iterations fell short; Fell lists
	// them, of Iterations measured.
	Measured   bool
	Fell       []FellIteration
	Iterations int
	// SingleUse is set when the sessions offered for the first time
	// resumed and those offered again did not: the server's tickets are
	// single-use (seen only with HandshakeCase.TrackTicketUse).
	SingleUse bool
	// AllFell is set when every measured iteration fell short (rather
	// than resumption stopping part-way through the case).
	AllFell bool
	// Hint, when set, replaces the generic advice at the end (that the
	// server may not issue or accept tickets).
	Hint string
}

func (e *ResumptionError) Error() string { return e.Case + ": " + e.reason() }

func (e *ResumptionError) reason() string {
	if e.Measured {
		return e.measuredReason()
	}
	msg := fmt.Sprintf("warm-up resumed %.1f%% of handshakes (%d of %d), below %s %.2f",
		100*e.Rate, e.Resumed, e.Total, e.Setting, e.Required)
	if e.HasServerCounts {
		msg += fmt.Sprintf(" (the server counted %d of %d resumed", e.ServerResumed, e.ServerHandshake)
		if len(e.ServerDeclined) > 0 {
			msg += " and declined " + counts.List(e.ServerDeclined) + " sessions"
		}
		msg += ")"
	}
	if e.Hint != "" {
		// The caller knows more than that the server may not resume
		// (a proxy that ends the client's TLS, single-use tickets).
		return msg + "; " + e.Hint + ", or lower " + e.Setting + " to measure anyway"
	}
	return msg + "; the server may not issue or accept session tickets for this configuration, or its sessions may expire within seconds (check both with tlsbench probe, which shows their lifetime), or lower " + e.Setting + " to measure anyway"
}

func (e *ResumptionError) measuredReason() string {
	msg := fmt.Sprintf("resumption fell below %s %.2f in %d of %d measured iterations: %s",
		e.Setting, e.Required, len(e.Fell), e.Iterations, iterationList(e.Fell))
	hint := e.Hint
	if hint == "" {
		hint = "the server stopped resuming the sessions it issued (ticket keys rotated, tickets turned off by a reload, a session cache that evicts, sessions that outlived a short lifetime such as nginx's ssl_session_timeout?)"
	}
	return msg + "; " + hint + "; the case's figures mix in full handshakes, or lower " + e.Setting + " to measure anyway"
}

// ServerUnusedError is a case whose server, its counts known (the
// built-in one), completed none of the handshakes the client made:
// something between them answered for it (a proxy that ends the client's
// TLS itself and never connects to the server), so that nothing the case
// measured is the server's. Its record is returned with it, marked
// failed, with the server's per-handshake figures null: the server's CPU
// over no handshakes of its own would read as a cost per handshake.
type ServerUnusedError struct {
	Case string
	// Client is the client's successful handshakes.
	Client int64
	// Proxy says the case went through a proxy.
	Proxy bool
}

func (e *ServerUnusedError) Error() string { return e.Case + ": " + e.reason() }

func (e *ServerUnusedError) reason() string {
	who := "something else at its address answered for it"
	if e.Proxy {
		who = "the proxy answered for it (does it end the client's TLS itself without connecting to the server?)"
	}
	return fmt.Sprintf("the server completed none of the client's %d handshakes: %s; no figure of the case is the server's", e.Client, who)
}

// ErrorRateError is a case in which more connections failed than
// HandshakeCase.MaxErrorRate allows. Its record is returned with it,
// marked failed.
type ErrorRateError struct {
	Case          string
	Failed, Total int64 // connections of the measured iterations
	Allowed       float64
	// Setting is what the user calls the maximum (Words).
	Setting string
	Kinds   map[string]int64
	First   error // the first failure, as an example
	// Hint, when set, is added at the end.
	Hint string
	// Warmup is set when the warm-up failed the gate: nothing was
	// measured and there is no record.
	Warmup bool
	// Planned, when set, is how many connections the phase (warm-up or
	// measured iterations) was to make: it was stopped after Total of
	// them, once Failed made the gate impossible to pass whatever the
	// rest would do.
	Planned int64
}

func (e *ErrorRateError) Error() string { return e.Case + ": " + e.reason() }

func (e *ErrorRateError) reason() string {
	var msg string
	switch {
	case e.Planned > 0:
		msg = fmt.Sprintf("%d of the first %d connections failed, more than %s %s allows of all %d the %s was to make: %s",
			e.Failed, e.Total, e.Setting, Percent(e.Allowed), e.Planned, e.phase(), counts.List(e.Kinds))
	default:
		msg = fmt.Sprintf("%d of %d connections failed (%.2f%%), above %s %s: %s",
			e.Failed, e.Total, 100*ratio(e.Failed, e.Total), e.Setting, Percent(e.Allowed), counts.List(e.Kinds))
		if e.Warmup {
			msg = "warm-up: " + msg
		}
	}
	if e.First != nil {
		msg += fmt.Sprintf(" (first: %v)", e.First)
	}
	if e.Hint != "" {
		msg += "; " + e.Hint
	}
	switch {
	case e.Warmup:
		msg += "; the case was stopped before measuring"
	case e.Planned > 0:
		msg += "; the case had failed already and was stopped"
	}
	return msg
}

func (e *ErrorRateError) phase() string {
	if e.Warmup {
		return "case, its warm-up included,"
	}
	return "case"
}

// failureBudget holds the failed connections of a phase (the warm-up, or
// the measured iterations) against the maximum error rate, wave by wave:
// once more have failed than the rate allows of every connection the
// phase is to make, no outcome of the rest can pass the gate, and waiting
// for them (a server that never answers some connections makes each wait
// out the connection timeout) only delays the failure.
type failureBudget struct {
	planned, conns, failed int64
	kinds                  map[string]int64
	first                  error
	firstKind              string
	warmup                 bool
}

func newFailureBudget(planned int64, warmup bool) *failureBudget {
	return &failureBudget{planned: planned, kinds: map[string]int64{}, warmup: warmup}
}

// Add counts one connection's outcome.
func (b *failureBudget) add(c client.Sample) {
	b.conns++
	if c.OK {
		return
	}
	b.failed++
	b.kinds[c.ErrKind]++
	if b.first == nil {
		b.first, b.firstKind = c.Err, c.ErrKind
	}
}

// Lost returns the ErrorRateError of a phase that can no longer pass, or
// nil. While no connection of the phase has succeeded, the iteration goes
// on: one in which every connection fails is a CaseError, whose advice
// (a CA to give, a client certificate) fits a server that refuses all.
// A phase stops early only for failures that cost a timeout each:
// failures that come at once (refused, reset, an alert) cost little to
// count to the end, and the failed case's record then holds them all.
func (hc *HandshakeCase) Lost(b *failureBudget) *ErrorRateError {
	if b == nil || b.failed == 0 || b.failed == b.conns || hc.MaxErrorRate >= 1 ||
		float64(b.failed) <= hc.MaxErrorRate*float64(b.planned) ||
		b.kinds[connerr.Timeout] == 0 {
		return nil
	}
	e := &ErrorRateError{Case: hc.Name, Failed: b.failed, Total: b.conns, Allowed: hc.MaxErrorRate,
		Setting: hc.Words.Name("MaxErrorRate"), Kinds: b.kinds, First: b.first, Warmup: b.warmup}
	if b.conns < b.planned {
		e.Planned = b.planned
	}
	if isPingMismatch(b.firstKind, b.first) {
		e.Hint = hc.Words.AdviceFor(client.AdviceNotEcho)
	}
	return e
}

// Percent writes a share as a percentage: 0.1%.
func Percent(v float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.4f", 100*v), "0"), ".") + "%"
}

// StallError is a wave in which every connection timed out: the server
// accepts connections but does not answer. The case stops at once rather
// than wait out the timeout for every remaining wave.
type StallError struct {
	Case    string
	Wave    int           // connections in the wave
	Stage   string        // "connect", "handshake" or "exchange"
	Timeout time.Duration // the connection timeout they hit
	Err     error         // the first connection's error
	// Setting is what the user calls the connection timeout (Words).
	Setting string
	// Hint, when set, is added at the end (the exchange in use).
	Hint string
}

func (e *StallError) Error() string {
	what := map[string]string{
		"connect":   "while connecting: nothing answers at that address (a firewall dropping packets?)",
		"handshake": "waiting for the TLS handshake: the server accepts connections but does not answer them (is it a TLS server, and is it overloaded?)",
		"exchange":  "after the handshake, waiting for the answer to the request: the server completed the handshakes but does not answer",
	}[e.Stage]
	msg := fmt.Sprintf("%s: every connection of a wave (%d) timed out after %v %s; the case was stopped rather than wait as long for every remaining wave (raise %s if the server is only slow)",
		e.Case, e.Wave, e.Timeout, what, e.Setting)
	if e.Hint != "" {
		msg += "; " + e.Hint
	}
	return msg
}

func (e *StallError) Unwrap() error { return e.Err }

// Stalled returns a StallError when every connection of a wave timed out
// (and ctx did not end).
func (hc *HandshakeCase) Stalled(wave []client.Sample) *StallError {
	if len(wave) == 0 {
		return nil
	}
	for _, c := range wave {
		if c.OK || c.ErrKind != connerr.Timeout {
			return nil
		}
	}
	return &StallError{Case: hc.Name, Wave: len(wave), Stage: wave[0].Stage, Timeout: hc.ConnTimeout, Err: wave[0].Err,
		Setting: hc.Words.Name("ConnTimeout")}
}

// gates checks the measured iterations against the case's minimum
// resumption and maximum error rate. Failures mark rec failed, with the
// reasons in its notes, and come back as the error (joined when both
// fail); a resumption that drifted below 100% but stayed above the bar
// gets a note.
func (hc *HandshakeCase) gates(rec *results.Record, iters []iterStat, firstErr error, firstKind string) error {
	var errs []error
	if hc.ResumeRatio != nil {
		// A mix resumes a share, not all: its own gate holds each
		// iteration to it.
		if e := hc.mixGate(iters, false); e != nil {
			errs = append(errs, e)
			rec.Notes = append(rec.Notes, "failed: "+e.reason())
		}
	} else if hc.Resume {
		if e := hc.resumptionGate(rec, iters); e != nil {
			errs = append(errs, e)
			rec.Notes = append(rec.Notes, "failed: "+e.reason())
		}
	}
	var failed int64
	for _, it := range iters {
		failed += it.failed
	}
	total := failed + rec.Handshakes
	if failed > 0 && ratio(failed, total) > hc.MaxErrorRate {
		e := &ErrorRateError{Case: hc.Name, Failed: failed, Total: total, Allowed: hc.MaxErrorRate,
			Setting: hc.Words.Name("MaxErrorRate"), Kinds: rec.ErrorsByKind, First: firstErr}
		if isPingMismatch(firstKind, firstErr) {
			e.Hint = hc.Words.AdviceFor(client.AdviceNotEcho)
		}
		errs = append(errs, e)
		rec.Notes = append(rec.Notes, "failed: "+e.reason())
	} else if failed > 0 {
		rec.Notes = append(rec.Notes, fmt.Sprintf(
			"%d of %d connections failed (%s); per-handshake figures are per successful handshake and include the failed connections' work",
			failed, total, counts.List(rec.ErrorsByKind)))
	}
	if len(errs) == 0 {
		return nil
	}
	rec.Verdict = VerdictFailed
	return errors.Join(errs...)
}

// resumptionGate checks every measured iteration of a resume case
// against the minimum, when the case has one; a resumption that drifted
// below 100% gets a note either way.
func (hc *HandshakeCase) resumptionGate(rec *results.Record, iters []iterStat) *ResumptionError {
	var fell, drifted []FellIteration
	required := 0.0
	if hc.MinResumption != nil {
		required = *hc.MinResumption
	}
	e := &ResumptionError{Case: hc.Name, Required: required, Setting: hc.Words.Name("MinResumption"), Measured: true, Iterations: len(iters)}
	var again, resumedFell, firstFell int64 // over the iterations that fell
	for i, it := range iters {
		f := FellIteration{Iteration: i + 1, Resumed: it.resumed, Total: it.ok, Rate: ratio(it.resumed, it.ok),
			ServerDeclined: it.declined, FirstUses: it.firstUses, Reuses: it.reuses}
		switch {
		case f.Rate < required:
			fell = append(fell, f)
			e.ServerDeclined = addCounts(e.ServerDeclined, it.declined)
			resumedFell += it.resumed
			firstFell += it.firstUses
			again += it.reuses
		case f.Rate < 1:
			drifted = append(drifted, f)
		}
	}
	if len(drifted) > 0 {
		rec.Notes = append(rec.Notes, hc.driftNote(drifted))
	}
	if len(fell) == 0 {
		return nil
	}
	e.Fell = fell
	e.Resumed, e.Total, e.Rate = rec.Resumed, rec.Handshakes, rec.ResumptionRate
	// Single-use tickets: what resumed were the first uses, and the
	// sessions offered again did not resume.
	e.SingleUse = singleUse(resumedFell, firstFell, again)
	e.AllFell = len(fell) == len(iters)
	return e
}

// driftNote says which iterations resumed less than all handshakes
// without falling below the minimum (or with none to fall below).
func (hc *HandshakeCase) driftNote(drifted []FellIteration) string {
	name := hc.Words.Name("MinResumption")
	bar := "not checked: " + name + " 0"
	if m := hc.MinResumption; m != nil && *m > 0 {
		bar = fmt.Sprintf("above %s %.2f", name, *m)
	}
	return "resumption drifted below 100% (" + bar + "): " + iterationList(drifted)
}

// listedIterations is how many iterations a message names one by one: a
// server that stopped resuming for good falls in every iteration, and a
// line listing 128 of them says no more than the first few and a count.
const listedIterations = 5

// iterationList names the first listedIterations iterations and sums up
// the rest with the range of their rates.
func iterationList(fell []FellIteration) string {
	shown := fell[:min(len(fell), listedIterations)]
	parts := make([]string, len(shown))
	for i, f := range shown {
		parts[i] = f.String()
	}
	s := strings.Join(parts, ", ")
	if rest := fell[len(shown):]; len(rest) > 0 {
		lo, hi := rest[0].Rate, rest[0].Rate
		for _, f := range rest[1:] {
			lo, hi = min(lo, f.Rate), max(hi, f.Rate)
		}
		s += fmt.Sprintf(" and %d more (rates %.1f%%-%.1f%%)", len(rest), 100*lo, 100*hi)
	}
	return s
}

// singleUse tells the mark of single-use tickets in counts of the
// sessions offered: what resumed were (nearly all) the first uses, while
// sessions offered again did not resume.
func singleUse(resumed, firstUses, reuses int64) bool {
	return reuses > 0 && resumed > 0 && resumed <= firstUses && 10*resumed >= 9*firstUses
}

// isPingMismatch reports a ping answered with something else than its
// echo.
func isPingMismatch(kind string, err error) bool {
	return kind == "bad-echo" && err != nil && strings.Contains(err.Error(), "ping answered with")
}
