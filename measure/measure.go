package measure

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/usage"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/stats"
)

// A phase (warm-up, measured iterations) is run one iteration at a time,
// each in steps: run it, then keep it (or drop it). A single case keeps
// every iteration it runs; an interleaved case (RunInterleaved) runs one
// iteration of every side and keeps the round only when all of them
// succeeded. Both go through the same steps below.

// Warming is a warm-up in progress.
type Warming struct {
	ok, resumed  int64
	before       ServerSnapshot
	beforeErr    error
	first, again int64 // ticket uses before the warm-up
	// iters are the warm-up's iterations, for the gate of a mix.
	iters []iterStat
	// Listen is what the machine's listeners dropped over them.
	listen usage.ListenCount
}

// StartWarmup reads what the warm-up's resumption check compares with
// and starts its failure budget.
func (r *Measurer) StartWarmup() *Warming {
	hc := r.Case
	w := &Warming{beforeErr: errNoServer}
	if hc.Warmup > 0 && hc.Resume && hc.Server != nil {
		w.before, w.beforeErr = hc.Server.Snapshot()
	}
	w.first, w.again = client.TicketCounts(hc.Clients)
	// The warm-up is discarded, so its failures are judged against the
	// whole case's connections: it stops the case only when they alone
	// are more than every iteration together may have, and only for
	// timeouts (see lost), so one unlucky connection of a cold start
	// does not fail a case whose measured iterations would pass.
	r.Budget = hc.failureBudget(hc.Warmup+hc.Iterations, true)
	return w
}

// WarmOne runs warm-up iteration i (0-based).
func (r *Measurer) WarmOne(ctx context.Context, w *Warming, i int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	dry := r.Dry.Load()
	srv, srvErr := r.mixSnapshot()
	listen := usage.ReadListen(r.Case.ListenQueue != "")
	it, err := r.Iterate(ctx, nil)
	w.listen.Add(listen, usage.ReadListen(listen.On))
	if err != nil {
		return r.Case.ListenFailure(err, &w.listen, nil)
	}
	w.ok += it.OK
	w.resumed += it.resumed
	st := iterStat{ok: it.OK, resumed: it.resumed, failed: int64(it.conns()) - it.OK, dry: r.Dry.Load() - dry}
	if srvErr == nil {
		if now, err := r.mixSnapshot(); err == nil && now.HasCounts && srv.HasCounts {
			d, back := serverDelta(now, srv)
			st.hasServer, st.srvResumed, st.srvHandshakes = !back.serverCounts, d.Resumed, d.Handshakes
		}
	}
	w.iters = append(w.iters, st)
	r.progress(true, i+1, r.Case.Warmup, it)
	return nil
}

// EndWarmup ends the warm-up's failure budget and checks its resumption.
func (r *Measurer) EndWarmup(w *Warming) error {
	hc := r.Case
	r.Budget = nil
	if !hc.Resume || hc.Warmup == 0 {
		return nil
	}
	if hc.ResumeRatio != nil {
		if e := hc.mixGate(w.iters, true); e != nil {
			return hc.ListenFailure(e, &w.listen, nil)
		}
		return nil
	}
	if e := hc.resumptionCheck(w.resumed, w.ok, w.before, w.beforeErr); e != nil {
		f2, a2 := client.TicketCounts(hc.Clients)
		e.SingleUse = singleUse(w.resumed, f2-w.first, a2-w.again)
		return hc.ListenFailure(e, &w.listen, nil)
	}
	return nil
}

// Measured is what the kept measured iterations add up to.
type Measured struct {
	Samples []float64
	// sampleOK is, per sample, the successful handshakes it is from.
	sampleOK []int64
	Total    IterResult
	iters    []iterStat
	lat      *stats.Latency
	scratch  *stats.Latency // the latencies of the iteration not yet kept
	// Phases are the client's phases of the kept iterations, and
	// scratchPhases those of the iteration not yet kept.
	phases, scratchPhases *clientPhases
	Meter                 *Meter
	StopErr               error // why measuring stopped early (ctx, a failed iteration)
	firstErr              error // the first failed connection, as an example
	firstKnd              string
	Notes                 []string // how measuring went (stopped by the case time)
	// StoppedBy is what ended the measured iterations (results.Stopped*).
	StoppedBy string
	// Began and ended are when the measured iterations did.
	Began, Ended time.Time

	// hsSamples are, in closed loop, the samples' handshake figures
	// (iterResult.handshakes per handshake).
	hsSamples []float64
	// costs are the samples' costs per handshake.
	costs costSamples
}

// Release gives the histograms of a case whose record is made back for
// reuse: nothing may use m after.
func (m *Measured) Release() {
	releaseHistograms(m.lat, m.scratch)
	m.phases.release()
	m.scratchPhases.release()
}

// Pending is a measured iteration that has run and is yet to be kept
// (or dropped, with its span: see keepOne).
type Pending struct {
	it                IterResult
	sp                span
	firstUses, reuses int64
	dry               int64 // offers that found no session (a mix)
}

// StartMeasure starts the measured iterations' totals and failure budget.
func (r *Measurer) StartMeasure() *Measured {
	hc := r.Case
	m := &Measured{lat: newHistogram(), scratch: newHistogram(), Meter: NewMeter(hc.Server, hc.Proxy),
		phases: newClientPhases(hc.ResumeRatio != nil), scratchPhases: newClientPhases(hc.ResumeRatio != nil)}
	r.phases = m.scratchPhases
	m.Meter.listenOn = hc.ListenQueue != ""
	m.Total = NewIterResult()
	if hc.Rate > 0 {
		m.Total.Open = NewWindowStats()
	}
	r.Budget = hc.failureBudget(hc.Iterations, false)
	return m
}

// RunOne runs the next measured iteration, its latencies into m.scratch.
// An error (ctx ended, the iteration failed outright) means it is to be
// dropped: an iteration cut short measures the interruption, not the
// handshakes.
func (r *Measurer) RunOne(ctx context.Context, m *Measured) (Pending, error) {
	hc := r.Case
	if err := ctx.Err(); err != nil {
		return Pending{}, err
	}
	if len(m.Samples) >= hc.Iterations && r.Budget != nil {
		// Past the planned iterations (towards a target error), each
		// iteration is one more the case is to make.
		r.Budget.planned += int64(hc.Handshakes)
	}
	m.scratch.Reset()
	m.scratchPhases.reset()
	m.Meter.Begin()
	first, again := client.TicketCounts(hc.Clients)
	dry := r.Dry.Load()
	it, err := r.Iterate(ctx, m.scratch)
	p := Pending{it: it, sp: m.Meter.End(), dry: r.Dry.Load() - dry}
	f2, a2 := client.TicketCounts(hc.Clients)
	p.firstUses, p.reuses = f2-first, a2-again
	if ctx.Err() != nil {
		return p, ctx.Err()
	}
	if err != nil {
		m.Meter.countFailed(p.sp)
	}
	return p, err
}

// KeepOne adds an iteration that ran (runOne) to the case's figures and
// reports it.
func (r *Measurer) KeepOne(m *Measured, p Pending) {
	m.Meter.Keep(p.sp)
	m.lat.Merge(m.scratch)
	m.phases.merge(m.scratchPhases)
	m.keep(p.it, p.sp)
	last := &m.iters[len(m.iters)-1]
	last.firstUses, last.reuses, last.dry = p.firstUses, p.reuses, p.dry
	r.progress(false, len(m.Samples), r.Case.Iterations, p.it)
}

// Stop ends measuring early with err: interrupted when ctx ended, failed
// otherwise.
func (m *Measured) Stop(ctx context.Context, err error) {
	m.StopErr, m.StoppedBy = err, results.StoppedFailed
	if ctx.Err() != nil {
		m.StopErr, m.StoppedBy = ctx.Err(), results.StoppedInterrupted
	}
}

// Measuring calls the case's Measuring hook, when it has one.
func (r *Measurer) Measuring(begin bool) {
	if r.Case.Measuring != nil {
		r.Case.Measuring(begin)
	}
}

// MeasuredOrErr returns m, or the error that stopped the case when it
// kept no iteration.
func (r *Measurer) MeasuredOrErr(ctx context.Context, m *Measured) (*Measured, error) {
	if len(m.Samples) > 0 {
		return m, nil
	}
	if m.StopErr == nil {
		m.StopErr = errors.New("no iteration was measured")
	}
	if ctx.Err() == nil && isStop(m.StopErr) {
		return nil, r.Case.ListenFailure(m.StopErr, &m.Meter.Listen, nil)
	}
	return nil, r.Case.ListenFailure(fmt.Errorf("%s: %w", r.Case.Name, m.StopErr), &m.Meter.Listen, nil)
}

// TestHooks lower limits that real cases keep fixed, for tests.
type TestHooks struct {
	NoPhases      bool // record no phases, for the benchmark of their cost
	IterationCap  int  // instead of results.MaxIterations
	ComparePaired func(base, cand []float64, alpha float64) stats.PairedComparison
}

// IterationCap is the most iterations the case measures towards a target
// error without a time limit.
func (hc *HandshakeCase) IterationCap() int {
	if hc.Hooks != nil && hc.Hooks.IterationCap > 0 {
		return hc.Hooks.IterationCap
	}
	return results.MaxIterations
}

// ComparePaired is stats.ComparePaired, or a test's stand-in.
func (hc *HandshakeCase) ComparePaired(base, cand []float64, alpha float64) stats.PairedComparison {
	if hc.Hooks != nil && hc.Hooks.ComparePaired != nil {
		return hc.Hooks.ComparePaired(base, cand, alpha)
	}
	return stats.ComparePaired(base, cand, alpha)
}
