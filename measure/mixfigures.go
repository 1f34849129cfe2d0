package measure

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/tlsbench/tlsbench/internal/counts"
	"github.com/tlsbench/tlsbench/internal/field"
	"github.com/tlsbench/tlsbench/results"
)

// validateMix checks ResumeRatio.
func (hc *HandshakeCase) validateMix() error {
	f := hc.ResumeRatio
	switch {
	case f == nil:
		return nil
	case !(*f >= 0 && *f <= 1):
		return field.Errorf("ResumeRatio", *f, "must be a share between 0 and 1")
	case !hc.Resume:
		return field.Errorf("ResumeRatio", *f, "a mix needs the clients' session caches: set %s", field.Ref("Resume"))
	}
	return nil
}

// MixIteration is an iteration (or window) of a mix whose resumed share
// missed the one asked for by more than the gate allows.
type MixIteration struct {
	Iteration int // 1-based among the measured iterations, or the warm-up's
	// Resumed of Total handshakes the client (or, with Server set, the
	// server) counted; Want is the requested share of Total.
	Resumed, Total int64
	Want           float64
	Server         bool
	// Declined counts the sessions the server refused, by reason (nil
	// when unknown).
	Declined map[string]int64
	// Dry counts the connections meant to offer a session that found
	// none in the client's cache.
	Dry int64
}

func (m MixIteration) String() string {
	who := "the client saw"
	if m.Server {
		who = "the server counted"
	}
	s := fmt.Sprintf("iteration %d: %s %d of %d resumed, want %g", m.Iteration, who, m.Resumed, m.Total, m.Want)
	if len(m.Declined) > 0 {
		s += " (the server declined " + counts.List(m.Declined) + ")"
	}
	if m.Dry > 0 {
		s += fmt.Sprintf(" (%d connections had no session to offer)", m.Dry)
	}
	return s
}

// MixError is a mix whose resumed share, on the client's count or the
// server's, missed the requested share by more than one connection (and
// the iteration's failed connections, which may have been either) in
// some iteration. Its record is returned with it, marked failed, unless
// Warmup is set (nothing was measured).
type MixError struct {
	Case       string
	Ratio      float64
	Setting    string // what the user calls ResumeRatio (Words)
	Fell       []MixIteration
	Iterations int
	Warmup     bool
}

func (e *MixError) Error() string { return e.Case + ": " + e.reason() }

func (e *MixError) reason() string {
	phase := "measured iterations"
	if e.Warmup {
		phase = "warm-up iterations"
	}
	shown := e.Fell[:min(len(e.Fell), listedIterations)]
	parts := make([]string, len(shown))
	for i, f := range shown {
		parts[i] = f.String()
	}
	list := strings.Join(parts, "; ")
	if n := len(e.Fell) - len(shown); n > 0 {
		list += fmt.Sprintf("; and %d more", n)
	}
	msg := fmt.Sprintf("the resumed share missed %s %g by more than one connection in %d of %d %s: %s",
		e.Setting, e.Ratio, len(e.Fell), e.Iterations, phase, list)
	why := "the server did not resume every session offered (ticket keys rotated, tickets turned off, a session cache that evicts, sessions that outlived a short lifetime such as nginx's ssl_session_timeout?)"
	if slices.ContainsFunc(e.Fell, func(f MixIteration) bool { return f.Dry > 0 }) {
		why = "the client had no session to offer for some connections: the server issued fewer sessions than the mix uses (session tickets turned off with no session cache, or single-use sessions not replaced on resumption?)"
	}
	return msg + "; " + why + "; the case's figures do not have the mix asked for"
}

// mixMiss returns the miss of resumed of total against share f, or false
// when it is within one connection plus slack (failed connections, which
// the other side may count as either).
func mixMiss(resumed, total int64, f float64, slack int64) (float64, bool) {
	want := f * float64(total)
	return want, math.Abs(float64(resumed)-want) > float64(1+slack)+1e-9
}

// mixGate checks every iteration of a mix, on the client's count and,
// when known, the server's. Behind a proxy the server's count is the
// proxy–origin leg's and is not judged.
func (hc *HandshakeCase) mixGate(iters []iterStat, warmup bool) *MixError {
	f := *hc.ResumeRatio
	var fell []MixIteration
	for i, it := range iters {
		if want, miss := mixMiss(it.resumed, it.ok, f, it.failed); miss {
			fell = append(fell, MixIteration{Iteration: i + 1, Resumed: it.resumed, Total: it.ok, Want: want,
				Declined: it.declined, Dry: it.dry})
			continue
		}
		if !it.hasServer || hc.Proxy != nil {
			continue
		}
		if want, miss := mixMiss(it.srvResumed, it.srvHandshakes, f, it.failed); miss {
			fell = append(fell, MixIteration{Iteration: i + 1, Resumed: it.srvResumed, Total: it.srvHandshakes, Want: want,
				Server: true, Declined: it.declined})
		}
	}
	if len(fell) == 0 {
		return nil
	}
	return &MixError{Case: hc.Name, Ratio: f, Setting: hc.Words.Name("ResumeRatio"),
		Fell: fell, Iterations: len(iters), Warmup: warmup}
}

// partFigures returns the record's parts of a mix: the handshakes and
// client phases of the full and of the resumed handshakes apart (nil
// outside a mix).
func (r *Measurer) partFigures(m *Measured) map[string]results.PartFigures {
	if r.Case.ResumeRatio == nil {
		return nil
	}
	out := map[string]results.PartFigures{
		results.PartFull:    {Handshakes: m.Total.OK - m.Total.resumed},
		results.PartResumed: {Handshakes: m.Total.resumed},
	}
	for i, name := range []string{results.PartFull, results.PartResumed} {
		p := out[name]
		ph := m.phases.parts[i]
		p.Phases = map[string]results.Phase{results.PhaseTotal: phaseOf(ph.total, "")}
		r.clientPhaseRecords(p.Phases, ph)
		out[name] = p
	}
	return out
}

// mixSnapshot reads the server's counts at a boundary of a warm-up
// iteration of a mix, whose gate holds the server's count to the share
// as the measured iterations' does (errNoServer outside a mix, without a
// server, or behind a proxy, whose leg the server's counts describe).
func (r *Measurer) mixSnapshot() (ServerSnapshot, error) {
	hc := r.Case
	if hc.ResumeRatio == nil || hc.Server == nil || hc.Proxy != nil {
		return ServerSnapshot{}, errNoServer
	}
	return hc.Server.Snapshot()
}

// partCPU splits the CPU time of a mix's client and (built-in) server
// between its parts. The operating system counts a process's CPU, not a
// connection's; so each connection's goroutine measures its own work on
// its thread, from its handshake's start to its end with the waits in
// reads left out (usage.Work), and a part is given its own work per
// handshake plus an equal share per handshake of the rest of the
// process's CPU time: dials and closes, reads, the runtime and its
// collector, the schedule's pacing, the stretches of work that could not
// be measured. The parts' figures so add up to the whole's.
//
// It is an estimate: the rest (a third to a half of the process's time)
// holds costs that come per connection (the dial, the close, the system
// calls of the reads), which equal shares suit, and costs that follow
// the work (the collector), which shares in proportion to the work
// would suit. Set against full-only and resumed-only cases of the same
// run (runner's BenchmarkMixParts, TLS 1.2 at concurrency 1, where a
// resumed handshake does a quarter of a full one's work; four runs of
// five on a shared 2-core machine), equal shares put the resumed part up
// to 30% above its case alone (15% on the median) and the full part
// about 5% below; shares in proportion erred further the other way (the
// resumed part 17-35% below, the full part 7-21% above). In TLS 1.3,
// whose two kinds differ less, both stay within about 10%.
//
// Both sides measure their connections' work in mix cases only (the
// built-in server: runner's axes set MeasureHandshakeCPU for a mix
// alone), at a few system calls per read of a handshake: those calls
// are in a mix's CPU figures, and so in both its parts, but not in the
// full-only and resumed-only cases beside it.
func (r *Measurer) partCPU(rec *results.Record, m *Measured, f Figures) {
	if rec.Parts == nil || len(m.phases.parts) != 2 {
		return
	}
	var client, server [2]*float64
	if rec.ClientCPUUS != nil {
		parts := m.phases.parts
		client = CPUSplit{Who: "client", Total: *rec.ClientCPUUS * float64(m.Total.OK),
			Handshakes: [2]int64{m.Total.OK - m.Total.resumed, m.Total.resumed},
			Work:       [2]float64{us(parts[0].work), us(parts[1].work)}, Lost: parts[0].workLost + parts[1].workLost,
		}.PerHandshake(rec)
	}
	srv := f.server
	if f.serverErr == nil && srv.HasCPU && srv.HandshakeCPU != nil {
		server = CPUSplit{Who: "server", Total: us(srv.CPU),
			Handshakes: [2]int64{srv.Handshakes - srv.Resumed, srv.Resumed},
			Work:       [2]float64{float64(srv.HandshakeCPU[results.PartFull]) / 1e3, float64(srv.HandshakeCPU[results.PartResumed]) / 1e3},
			Lost:       srv.HandshakeCPULost,
		}.PerHandshake(rec)
	}
	for i, name := range []string{results.PartFull, results.PartResumed} {
		p := rec.Parts[name]
		p.ClientCPUUS, p.ServerCPUUS = client[i], server[i]
		rec.Parts[name] = p
	}
}

// maxWorkLost is the share of a mix's handshakes whose work may be
// measured only in part before the record says so.
const maxWorkLost = 0.1

// CPUSplit is one process's CPU time over a mix's kept iterations (µs),
// and its parts' handshakes and measured work (µs), full first.
type CPUSplit struct {
	Who        string
	Total      float64
	Handshakes [2]int64
	Work       [2]float64
	Lost       int64
}

// PerHandshake returns each part's CPU per handshake (full first; nil
// for a part without handshakes), or none, with a note on rec saying why.
func (s CPUSplit) PerHandshake(rec *results.Record) (out [2]*float64) {
	n := s.Handshakes[0] + s.Handshakes[1]
	rest := s.Total - s.Work[0] - s.Work[1]
	switch {
	case n == 0 || s.Total <= 0:
		return out
	case s.Work[0] == 0 && s.Work[1] == 0:
		rec.Notes = append(rec.Notes, "the "+s.Who+"'s CPU per part of the mix is unknown: its connections' own CPU time cannot be measured here")
		return out
	case rest < 0:
		rec.Notes = append(rec.Notes, fmt.Sprintf("the %s's CPU per part of the mix is unknown: its connections measured %.0f µs of work, more than the %.0f µs the process used",
			s.Who, s.Work[0]+s.Work[1], s.Total))
		return out
	}
	for i := range out {
		if s.Handshakes[i] > 0 {
			out[i] = results.Float(s.Work[i]/float64(s.Handshakes[i]) + rest/float64(n))
		}
	}
	// A connection whose stretch of work could not be measured (it
	// moved to another thread, or another connection's work ran on its
	// thread meanwhile: see usage.Work) leaves that stretch in the rest,
	// shared equally: a few percent of connections do; many would blur
	// the difference between the parts. (A stretch that waited and came
	// back to its thread after only unmeasured code ran there is not
	// seen, and is charged that code's time.)
	if float64(s.Lost) > maxWorkLost*float64(n) {
		rec.Notes = append(rec.Notes, fmt.Sprintf("the %s's CPU per part of the mix is blurred: %d of %d handshakes could not be measured whole (they moved between threads, or shared one, while they computed), and the work left out is shared between the parts evenly",
			s.Who, s.Lost, n))
	}
	return out
}

// us is d in microseconds.
func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
