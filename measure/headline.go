package measure

import (
	"fmt"
	"math"
	"runtime"
	"strconv"

	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/stats"
)

// The headline of a closed-loop handshake case is the handshake: an
// iteration's wall time covers the exchange after each handshake too
// (the request that collects TLS 1.3 tickets and the wait for its
// answer), which a server may take any time over for reasons that have
// nothing to do with TLS. So each iteration also records the time its
// waves took up to their last successful handshake, and a note says so
// when the exchange, or a stall of the network stack, is what sets the
// connection rate.

// handshakeSamples are the kept iterations' handshake figures, or nil
// when the case has none (open loop: its samples are latencies already).
func (m *Measured) handshakeSamples() []float64 {
	if len(m.hsSamples) == 0 || len(m.hsSamples) != len(m.Samples) {
		return nil
	}
	return m.hsSamples
}

// Headline is what a case is judged by (its target error, the paired
// ratio of an interleaved run): the handshake figure where there is one.
func (m *Measured) Headline() []float64 {
	if hs := m.handshakeSamples(); hs != nil {
		return hs
	}
	return m.Samples
}

// Thresholds of the notes on the exchange and on stalls.
const (
	// exchangeFloorUS: an exchange shorter than this never sets the
	// connection rate worth a note; exchangeLateUS is "a few ms": an
	// answer this late is named when it also makes the wall time per
	// connection wallShare times the handshake figure.
	exchangeFloorUS = 1000
	exchangeLateUS  = 3000
	wallShare       = 1.5
	// A stall of the network stack: Linux delays an ACK by 40 ms at
	// least (up to 200 ms); Nagle holds a small write until the one
	// before it is acknowledged. Half of a phase's latencies (p25 to
	// p75) lying stallLowUS to stallHighUS above what CPU and queueing
	// for it explain is that signature.
	stallLowUS  = 25_000
	stallHighUS = 100_000
)

// headlineNotes says when the exchange after the handshake sets the
// connection rate, and when a phase stalls the way Nagle meeting delayed
// ACK does, with the figures: one note for each, the exchange's stall
// told in the exchange's note.
func (r *Measurer) headlineNotes(rec *results.Record, m *Measured) []string {
	if !r.RecordsPhases() || m.Total.OK == 0 {
		return nil
	}
	p := m.phases
	var notes []string
	exStall := stallOf(rec, p.exchange)
	if n := exchangeNote(rec, p, exStall); n != "" {
		notes = append(notes, n)
	} else if exStall != nil {
		notes = append(notes, exStall.note("the exchange after the handshake (the request and its answer)"))
	}
	if s := stallOf(rec, p.handshake); s != nil {
		notes = append(notes, s.note("the TLS handshake"))
	}
	return notes
}

// exchangeNote names the exchange after the handshake when it dominates
// a closed-loop case: its median is longer than the connect and the
// handshake together, or the answer comes a few ms late and makes the
// wall time per connection well above the handshake figure. stall, when
// set, is the exchange's stall.
func exchangeNote(rec *results.Record, p *clientPhases, stall *stall) string {
	if rec.HandshakeMeanUS == nil || p.exchange.Count() == 0 {
		return ""
	}
	ex := p.exchange.PercentileUS(50)
	setup := p.handshake.PercentileUS(50)
	if p.connect.Count() > 0 {
		setup += p.connect.PercentileUS(50)
	}
	late := ex >= exchangeLateUS && rec.MeanUS >= wallShare**rec.HandshakeMeanUS
	if ex < exchangeFloorUS || !(ex > setup || late) {
		return ""
	}
	medians := ""
	if p.connect.Count() > 0 {
		medians = "connect " + ms(p.connect.PercentileUS(50)) + ", "
	}
	medians += "handshake " + ms(p.handshake.PercentileUS(50)) + ", exchange " + ms(ex)
	n := fmt.Sprintf("the server's answer came %s after the handshake (delayed ACK / Nagle or the application): the connection rate is set by it, not by TLS (medians: %s; %s µs per connection against %s µs of connect + handshake)",
		ms(ex), medians, num3(rec.MeanUS), num3(*rec.HandshakeMeanUS))
	if stall != nil {
		n += fmt.Sprintf("; the exchange's p25 to p75 (%s to %s) %s", ms(stall.p25), ms(stall.p75), stall.signature())
	}
	return n
}

// stall is a phase whose latencies sit near the delayed-ACK timeout
// above what CPU explains: its p25, p50 and p75, the CPU both ends spent
// per connection (cpu, whose it is), and the wait for CPU the case's
// concurrency explains (bound, with queue connections per CPU).
type stall struct {
	p25, p50, p75, cpu, bound float64
	whose                     string
	concurrency, cores        int
}

// stallOf is the stall of a phase whose histogram is h, or nil: half
// of its latencies (p25 to p75) sit 25 to 100 ms above the CPU both ends
// spent per connection (and the wait for it that the case's concurrency
// explains on the CPUs there are), near the delayed-ACK timeout, and
// that CPU explains at most half of the phase's median.
func stallOf(rec *results.Record, h *stats.Latency) *stall {
	cpu, whose := connectionCPU(rec)
	if cpu < 0 || h.Count() < 4 {
		return nil
	}
	cores := rec.CPUsAvailable
	if cores <= 0 {
		cores = runtime.GOMAXPROCS(0)
	}
	// Connections at once queue for the CPUs: each may wait for the
	// others' work.
	s := &stall{p25: h.PercentileUS(25), p50: h.PercentileUS(50), p75: h.PercentileUS(75), cpu: cpu, whose: whose,
		concurrency: rec.Concurrency, cores: cores}
	s.bound = cpu * max(1, float64(rec.Concurrency)/float64(cores))
	if s.p25-s.bound < stallLowUS || s.p75-s.bound > stallHighUS {
		return nil
	}
	// Far above the CPU: the wait is most of the phase. A long wait of
	// the application's (an answer 350 ms late) beside much CPU (other
	// work in the same process) is not the stack's stall.
	if s.bound > s.p50/2 {
		return nil
	}
	return s
}

// signature says what the stall's figures show.
func (s *stall) signature() string {
	explained := ""
	if s.bound > s.cpu {
		explained = fmt.Sprintf(" (or %s with %d connections at once on %d CPUs)", ms(s.bound), s.concurrency, s.cores)
	}
	return fmt.Sprintf("sit %s above the %s of CPU %s per connection%s, near the delayed-ACK timeout (40 ms): the signature of Nagle on one end (a small write held until the one before it is acknowledged) meeting delayed ACK on the other, a stall of the network stack, not of TLS (a server that sets TCP_NODELAY does not wait)",
		ms(s.p25-s.bound), ms(s.cpu), s.whose, explained)
}

// note is the stall's note, for phase.
func (s *stall) note(phase string) string {
	return fmt.Sprintf("%s took %s at the median; its p25 to p75 (%s to %s) %s", phase, ms(s.p50), ms(s.p25), ms(s.p75), s.signature())
}

// connectionCPU is the CPU per connection both ends spent, in µs, and
// whose it is; -1 when the client's is not known.
func connectionCPU(rec *results.Record) (float64, string) {
	switch {
	case rec.ProcessCPUUS != nil:
		return *rec.ProcessCPUUS, "both ends spent"
	case rec.ClientCPUUS == nil:
		return -1, ""
	case rec.ServerCPUUS != nil:
		return *rec.ClientCPUUS + *rec.ServerCPUUS, "both ends spent"
	}
	return *rec.ClientCPUUS, "the client spent (the server's is not known)"
}

// ms writes µs as milliseconds with three significant digits: "43.9 ms".
func ms(us float64) string { return num3(us/1000) + " ms" }

// num3 writes v with three significant digits (no exponent).
func num3(v float64) string {
	a := math.Abs(v)
	prec := 0
	switch {
	case a < 1:
		prec = 3
	case a < 10:
		prec = 2
	case a < 100:
		prec = 1
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}
