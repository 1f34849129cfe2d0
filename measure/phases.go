package measure

import (
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/stats"
)

// A connection's time is split into phases (results.Phase*): the dial,
// the client's handshake from its first byte written, the wait from the
// handshake's end to the first byte read after it, and the time from the
// dial to the first byte of the answer to the request (which, in TLS
// 1.3, may come after the session ticket, the first byte read). Each phase has an
// HDR histogram per iteration, merged into the case's over the kept
// iterations only, as the latency histogram is.

// RecordsPhases says whether the case records phases: always, except in
// the benchmark that measures what recording them costs.
func (r *Measurer) RecordsPhases() bool {
	return r.Case.Hooks == nil || !r.Case.Hooks.NoPhases
}

// clientPhases are the client's phase histograms of one iteration or of
// the kept iterations.
type clientPhases struct {
	connect, handshake, firstByte *stats.Latency
	// FirstResponse runs from the dial to the first byte of the answer,
	// exchange from the end of the handshake to the end of the exchange.
	firstResponse, exchange *stats.Latency
	// Total is the latency of a part of a mix (the case's own is
	// measured.lat); nil otherwise.
	total *stats.Latency
	// parts, in a mix, are the phases of its full ([0]) and resumed
	// ([1]) handshakes apart: the two cost different things, and their
	// sum hides which.
	parts []*clientPhases
	// Work sums a part's connections' measured CPU time, and workLost
	// counts its connections whose time could not be measured whole.
	work     time.Duration
	workLost int64
}

// newClientPhases returns empty phases, with a part for each kind of
// handshake when mix is set.
func newClientPhases(mix bool) *clientPhases {
	p := &clientPhases{connect: newHistogram(), handshake: newHistogram(), firstByte: newHistogram(), firstResponse: newHistogram(),
		exchange: newHistogram()}
	if mix {
		for range 2 {
			part := newClientPhases(false)
			part.total = newHistogram()
			p.parts = append(p.parts, part)
		}
	}
	return p
}

// Release gives p's histograms back for reuse (see freeHistograms).
func (p *clientPhases) release() {
	releaseHistograms(p.connect, p.handshake, p.firstByte, p.firstResponse, p.exchange, p.total)
	for _, part := range p.parts {
		part.release()
	}
}

func (p *clientPhases) reset() {
	p.connect.Reset()
	p.handshake.Reset()
	p.firstByte.Reset()
	p.firstResponse.Reset()
	p.exchange.Reset()
	if p.total != nil {
		p.total.Reset()
	}
	p.work, p.workLost = 0, 0
	for _, part := range p.parts {
		part.reset()
	}
}

func (p *clientPhases) merge(o *clientPhases) {
	p.connect.Merge(o.connect)
	p.handshake.Merge(o.handshake)
	p.firstByte.Merge(o.firstByte)
	p.firstResponse.Merge(o.firstResponse)
	p.exchange.Merge(o.exchange)
	if p.total != nil {
		p.total.Merge(o.total)
	}
	p.work += o.work
	p.workLost += o.workLost
	for i, part := range p.parts {
		part.merge(o.parts[i])
	}
}

// record adds a successful connection's phases, and in a mix its
// latency and phases to its part's.
func (p *clientPhases) record(c *client.Sample) {
	if p.parts != nil {
		part := p.parts[0]
		if c.Resumed {
			part = p.parts[1]
		}
		part.total.Record(c.Latency)
		part.work += c.Work
		if c.WorkLost {
			part.workLost++
		}
		part.record(c)
	}
	if !c.Phases {
		return
	}
	if c.Connect >= 0 {
		p.connect.Record(c.Connect)
	}
	p.handshake.Record(c.Handshake)
	if c.FirstByte >= 0 {
		p.firstByte.Record(c.FirstByte)
	}
	if c.FirstResponse >= 0 {
		p.firstResponse.Record(c.FirstResponse)
	}
	if c.Exchange >= 0 {
		p.exchange.Record(c.Exchange)
	}
}

// phaseOf summarises one phase's histogram for the record; encoded, when
// not empty, is its encoding already made.
func phaseOf(l *stats.Latency, encoded string) results.Phase {
	p := results.Phase{Count: l.Count()}
	if p.Count == 0 {
		return p
	}
	p.P50US, p.P90US, p.P99US, p.P999US = l.PercentileUS(50), l.PercentileUS(90), l.PercentileUS(99), l.PercentileUS(99.9)
	p.MaxUS = l.MaxUS()
	p.Histogram = encoded
	if encoded == "" {
		p.Histogram, _ = l.Encode() // empty when encoding failed, as the record's
	}
	return p
}

// phaseRecords returns the record's phases: the client's (when
// recorded), the total (the latency histogram, already encoded in
// f), and the server's over the kept iterations when it reported them.
func (r *Measurer) phaseRecords(m *Measured, f Figures) map[string]results.Phase {
	out := map[string]results.Phase{results.PhaseTotal: phaseOf(m.lat, f.histogram)}
	r.clientPhaseRecords(out, m.phases)
	if f.serverErr == nil {
		for name, l := range f.server.Phases {
			out[name] = phaseOf(l, "")
		}
	}
	return out
}

// clientPhaseRecords adds the client's phases of p to out, when the case
// records them. A QUIC connection has no connect: its dial is the first
// packet of its handshake, so the phase is left out rather than shown
// as a zero.
func (r *Measurer) clientPhaseRecords(out map[string]results.Phase, p *clientPhases) {
	if !r.RecordsPhases() {
		return
	}
	if r.Case.QUIC == nil {
		out[results.PhaseConnect] = phaseOf(p.connect, "")
	}
	out[results.PhaseHandshake] = phaseOf(p.handshake, "")
	out[results.PhaseFirstByte] = phaseOf(p.firstByte, "")
	out[results.PhaseFirstResponse] = phaseOf(p.firstResponse, "")
	out[results.PhaseExchange] = phaseOf(p.exchange, "")
}

// freeHistograms holds histograms for cases to reuse. A case uses a
// dozen (its latency and phases, kept and of the iteration in progress),
// each over a hundred kilobytes of counts: allocated afresh per case,
// they would make the garbage collector run for them, which is client
// CPU that short cases would pay per handshake. A bounded free list,
// not a sync.Pool: a collection empties a pool, and it is collections
// that reuse is to spare.
var freeHistograms = make(chan *stats.Latency, 64)

// newHistogram returns an empty histogram, reused when one is free.
func newHistogram() *stats.Latency {
	select {
	case l := <-freeHistograms:
		l.Reset()
		return l
	default:
		return stats.NewLatency()
	}
}

// releaseHistograms gives histograms no longer used back (nil ones are
// skipped).
func releaseHistograms(ls ...*stats.Latency) {
	for _, l := range ls {
		if l == nil {
			continue
		}
		select {
		case freeHistograms <- l:
		default:
			return
		}
	}
}
