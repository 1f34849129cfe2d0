package loadgen

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/stats"
)

// A phase (warm-up, measured iterations) is run one iteration at a time,
// each in steps: run it, then keep it (or drop it). A single case keeps
// every iteration it runs; an interleaved case (RunInterleaved) runs one
// iteration of every side and keeps the round only when all of them
// succeeded. Both go through the same steps below.

// warming is a warm-up in progress.
type warming struct {
	ok, resumed  int64
	before       ServerSnapshot
	beforeErr    error
	first, again int64 // ticket uses before the warm-up
	// iters are the warm-up's iterations, for the gate of a mix.
	iters []iterStat
	// listen is what the machine's listeners dropped over them.
	listen listenCount
}

// startWarmup reads what the warm-up's resumption check compares with
// and starts its failure budget.
func (r *measurer) startWarmup() *warming {
	hc := r.hc
	w := &warming{beforeErr: errNoServer}
	if hc.Warmup > 0 && hc.Resume && hc.Server != nil {
		w.before, w.beforeErr = hc.Server.Snapshot()
	}
	w.first, w.again = client.TicketCounts(hc.Clients)
	// The warm-up is discarded, so its failures are judged against the
	// whole case's connections: it stops the case only when they alone
	// are more than every iteration together may have, and only for
	// timeouts (see lost), so one unlucky connection of a cold start
	// does not fail a case whose measured iterations would pass.
	r.budget = hc.failureBudget(hc.Warmup+hc.Iterations, true)
	return w
}

// warmOne runs warm-up iteration i (0-based).
func (r *measurer) warmOne(ctx context.Context, w *warming, i int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	dry := r.dry.Load()
	srv, srvErr := r.mixSnapshot()
	listen := readListen(r.hc.ListenQueue != "")
	it, err := r.iterate(ctx, nil)
	w.listen.add(listen, readListen(listen.on))
	if err != nil {
		return r.hc.listenFailure(err, &w.listen, nil)
	}
	w.ok += it.ok
	w.resumed += it.resumed
	st := iterStat{ok: it.ok, resumed: it.resumed, failed: int64(it.conns()) - it.ok, dry: r.dry.Load() - dry}
	if srvErr == nil {
		if now, err := r.mixSnapshot(); err == nil && now.HasCounts && srv.HasCounts {
			d, back := serverDelta(now, srv)
			st.hasServer, st.srvResumed, st.srvHandshakes = !back.serverCounts, d.Resumed, d.Handshakes
		}
	}
	w.iters = append(w.iters, st)
	r.progress(true, i+1, r.hc.Warmup, it)
	return nil
}

// endWarmup ends the warm-up's failure budget and checks its resumption.
func (r *measurer) endWarmup(w *warming) error {
	hc := r.hc
	r.budget = nil
	if !hc.Resume || hc.Warmup == 0 {
		return nil
	}
	if hc.ResumeRatio != nil {
		if e := hc.mixGate(w.iters, true); e != nil {
			return hc.listenFailure(e, &w.listen, nil)
		}
		return nil
	}
	if e := hc.resumptionCheck(w.resumed, w.ok, w.before, w.beforeErr); e != nil {
		f2, a2 := client.TicketCounts(hc.Clients)
		e.SingleUse = singleUse(w.resumed, f2-w.first, a2-w.again)
		return hc.listenFailure(e, &w.listen, nil)
	}
	return nil
}

// measured is what the kept measured iterations add up to.
type measured struct {
	samples []float64
	// sampleOK is, per sample, the successful handshakes it is from.
	sampleOK []int64
	total    iterResult
	iters    []iterStat
	lat      *stats.Latency
	scratch  *stats.Latency // the latencies of the iteration not yet kept
	// phases are the client's phases of the kept iterations, and
	// scratchPhases those of the iteration not yet kept.
	phases, scratchPhases *clientPhases
	meter                 *meter
	stopErr               error // why measuring stopped early (ctx, a failed iteration)
	firstErr              error // the first failed connection, as an example
	firstKnd              string
	notes                 []string // how measuring went (stopped by the case time)
	// stoppedBy is what ended the measured iterations (results.Stopped*).
	stoppedBy string
	// began and ended are when the measured iterations did.
	began, ended time.Time

	// hsSamples are, in closed loop, the samples' handshake figures
	// (iterResult.handshakes per handshake).
	hsSamples []float64
}

// release gives the histograms of a case whose record is made back for
// reuse: nothing may use m after.
func (m *measured) release() {
	releaseHistograms(m.lat, m.scratch)
	m.phases.release()
	m.scratchPhases.release()
}

// pending is a measured iteration that has run and is yet to be kept
// (or dropped, with its span: see keepOne).
type pending struct {
	it                iterResult
	sp                span
	firstUses, reuses int64
	dry               int64 // offers that found no session (a mix)
}

// startMeasure starts the measured iterations' totals and failure budget.
func (r *measurer) startMeasure() *measured {
	hc := r.hc
	m := &measured{lat: newHistogram(), scratch: newHistogram(), meter: newMeter(hc.Server, hc.Proxy),
		phases: newClientPhases(hc.ResumeRatio != nil), scratchPhases: newClientPhases(hc.ResumeRatio != nil)}
	r.phases = m.scratchPhases
	m.meter.listenOn = hc.ListenQueue != ""
	m.total = newIterResult()
	if hc.Rate > 0 {
		m.total.open = newWindowStats()
	}
	r.budget = hc.failureBudget(hc.Iterations, false)
	return m
}

// runOne runs the next measured iteration, its latencies into m.scratch.
// An error (ctx ended, the iteration failed outright) means it is to be
// dropped: an iteration cut short measures the interruption, not the
// handshakes.
func (r *measurer) runOne(ctx context.Context, m *measured) (pending, error) {
	hc := r.hc
	if err := ctx.Err(); err != nil {
		return pending{}, err
	}
	if len(m.samples) >= hc.Iterations && r.budget != nil {
		// Past the planned iterations (towards a target error), each
		// iteration is one more the case is to make.
		r.budget.planned += int64(hc.Handshakes)
	}
	m.scratch.Reset()
	m.scratchPhases.reset()
	m.meter.begin()
	first, again := client.TicketCounts(hc.Clients)
	dry := r.dry.Load()
	it, err := r.iterate(ctx, m.scratch)
	p := pending{it: it, sp: m.meter.end(), dry: r.dry.Load() - dry}
	f2, a2 := client.TicketCounts(hc.Clients)
	p.firstUses, p.reuses = f2-first, a2-again
	if ctx.Err() != nil {
		return p, ctx.Err()
	}
	if err != nil {
		m.meter.countFailed(p.sp)
	}
	return p, err
}

// keepOne adds an iteration that ran (runOne) to the case's figures and
// reports it.
func (r *measurer) keepOne(m *measured, p pending) {
	m.meter.keep(p.sp)
	m.lat.Merge(m.scratch)
	m.phases.merge(m.scratchPhases)
	m.keep(p.it, p.sp)
	last := &m.iters[len(m.iters)-1]
	last.firstUses, last.reuses, last.dry = p.firstUses, p.reuses, p.dry
	r.progress(false, len(m.samples), r.hc.Iterations, p.it)
}

// stop ends measuring early with err: interrupted when ctx ended, failed
// otherwise.
func (m *measured) stop(ctx context.Context, err error) {
	m.stopErr, m.stoppedBy = err, results.StoppedFailed
	if ctx.Err() != nil {
		m.stopErr, m.stoppedBy = ctx.Err(), results.StoppedInterrupted
	}
}

// measuring calls the case's Measuring hook, when it has one.
func (r *measurer) measuring(begin bool) {
	if r.hc.Measuring != nil {
		r.hc.Measuring(begin)
	}
}

// measuredOrErr returns m, or the error that stopped the case when it
// kept no iteration.
func (r *measurer) measuredOrErr(ctx context.Context, m *measured) (*measured, error) {
	if len(m.samples) > 0 {
		return m, nil
	}
	if m.stopErr == nil {
		m.stopErr = errors.New("no iteration was measured")
	}
	if ctx.Err() == nil && isStop(m.stopErr) {
		return nil, r.hc.listenFailure(m.stopErr, &m.meter.listen, nil)
	}
	return nil, r.hc.listenFailure(fmt.Errorf("%s: %w", r.hc.Name, m.stopErr), &m.meter.listen, nil)
}

// testHooks lower limits that real cases keep fixed, for tests.
type testHooks struct {
	noPhases      bool // record no phases, for the benchmark of their cost
	iterationCap  int  // instead of results.MaxIterations
	comparePaired func(base, cand []float64, alpha float64) stats.PairedComparison
}

// iterationCap is the most iterations the case measures towards a target
// error without a time limit.
func (hc *HandshakeCase) iterationCap() int {
	if hc.hooks != nil && hc.hooks.iterationCap > 0 {
		return hc.hooks.iterationCap
	}
	return results.MaxIterations
}

// comparePaired is stats.ComparePaired, or a test's stand-in.
func (hc *HandshakeCase) comparePaired(base, cand []float64, alpha float64) stats.PairedComparison {
	if hc.hooks != nil && hc.hooks.comparePaired != nil {
		return hc.hooks.comparePaired(base, cand, alpha)
	}
	return stats.ComparePaired(base, cand, alpha)
}
