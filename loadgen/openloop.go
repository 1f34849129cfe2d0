package loadgen

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/stats"
)

// An open-loop case (HandshakeCase.Rate > 0) starts connections on a
// schedule, whatever the server does: each iteration is a window of
// equal length in which connections are due at intended start times. A
// connection's latency counts from its intended start, so that a server
// that falls behind shows it in the percentiles instead of slowing the
// load down (no coordinated omission); its service time counts from its
// actual start. A start due while MaxInflight connections are open waits
// for a slot and is counted late; one that finds no slot before its
// window ends is dropped. The schedule itself is never slowed.

// openState is what an open-loop case keeps across its windows.
type openState struct {
	rng   *rand.Rand    // Poisson arrivals: seeded from the case name (and shard)
	slots chan struct{} // one per connection open (MaxInflight)
	// idle hands a connection to a worker waiting for one; a start that
	// finds none starts a worker, which then stays for the case: its
	// stack, grown by its first handshake, stays grown (see caseRunner).
	idle chan func()
	// shard, shards and whole place a shard's constant arrivals in the
	// whole schedule of whole connections per window (shards 0: not a
	// shard).
	shard, shards, whole int
}

func newOpenState(hc *measure.HandshakeCase) *openState {
	h := fnv.New64a()
	h.Write([]byte(hc.Name))
	if hc.Sharded() {
		// Each shard its own arrivals: independent Poisson processes
		// of the shard's rate add up to one of the whole rate.
		fmt.Fprintf(h, "/shard %d of %d", hc.Shard, hc.Shards)
	}
	seed := h.Sum64()
	return &openState{
		rng:   rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		slots: make(chan struct{}, hc.MaxInflight),
		idle:  make(chan func()),
		shard: hc.Shard, shards: hc.Shards, whole: hc.WholeWindow,
	}
}

// run runs f on an idle worker, or a new one.
func (o *openState) run(f func()) {
	select {
	case o.idle <- f:
	default:
		go func() {
			f()
			for f := range o.idle {
				f()
			}
		}()
	}
}

// stop ends the idle workers.
func (o *openState) stop() { close(o.idle) }

// schedule returns the intended starts of a window of n connections
// over length, as offsets from its start: evenly spaced (constant), or
// the arrivals of a Poisson process conditioned on n arrivals in the
// window, which are n uniform times in order. Fixing n keeps the
// windows' counts, and so the rate gate and the late and dropped
// counts, exact for both shapes.
func (o *openState) schedule(arrival string, n int, length time.Duration) []time.Duration {
	at := make([]time.Duration, n)
	for i := range at {
		if arrival == results.ArrivalPoisson {
			at[i] = time.Duration(o.rng.Int64N(int64(length)))
		} else if o.shards > 1 {
			at[i] = shardAt(i, o.shard, o.shards, o.whole, length)
		} else {
			at[i] = time.Duration(int64(length) * int64(i) / int64(n))
		}
	}
	if arrival == results.ArrivalPoisson {
		slices.Sort(at)
	}
	return at
}

// runIteration runs one iteration of the case: a window of the schedule
// (open loop), waves until the window ends (closed loop with a
// Duration), or Handshakes handshakes in waves.
func (r *caseRunner) runIteration(ctx context.Context, lat *stats.Latency) (measure.IterResult, error) {
	hc := r.Case
	switch {
	case hc.Rate > 0:
		return r.window(ctx, lat)
	case hc.Duration > 0:
		r.until = time.Now().Add(hc.WindowLength())
		defer func() { r.until = time.Time{} }()
		return r.iteration(ctx, math.MaxInt, lat)
	}
	return r.iteration(ctx, hc.Handshakes, lat)
}

// windowOver reports that a timed closed-loop iteration has run its time.
func (r *caseRunner) windowOver() bool {
	return !r.until.IsZero() && !time.Now().Before(r.until)
}

// started is one connection of a window that started.
type started struct {
	intended, actual time.Time
	late             bool
}

// window runs one window of an open-loop case: its connections start on
// the schedule, each into res, and are counted once all have ended.
func (r *caseRunner) window(ctx context.Context, lat *stats.Latency) (measure.IterResult, error) {
	hc := r.Case
	plan := r.open.schedule(hc.Arrival, hc.Handshakes, hc.WindowLength())
	ws := measure.NewWindowStats()
	ws.Length, ws.Scheduled = hc.WindowLength(), int64(len(plan))
	res := make([]client.Sample, len(plan))
	starts := make([]started, len(plan))
	var wg sync.WaitGroup
	begin := func(i int, s started) {
		client := r.next % len(hc.Clients)
		r.next++
		wg.Add(1)
		r.open.run(func() {
			defer wg.Done()
			defer func() { <-r.open.slots }()
			s.actual = time.Now()
			starts[i] = s
			res[i] = r.connect(ctx, r.clientFor(client, i), client)
			res[i].Client = client
		})
	}
	p := newPacer()
	start := time.Now()
	n := r.paceWindow(ctx, p, plan, start, ws, begin)
	// The next window's schedule begins where this one's ends, not when
	// its last connection does: a window's last start comes before its
	// end (by the gap between two starts, for a constant schedule), and
	// a window begun right after it would start its connections early,
	// above the rate asked (at 2 starts a window, twice it).
	p.sleepUntil(ctx, start.Add(ws.Length))
	p.close()
	wg.Wait()
	ws.Elapsed = max(ws.Length, startsEnd(starts[:n], start))
	out := measure.NewIterResult()
	out.Open = ws
	out.Wall = ws.Elapsed
	return r.tallyWindow(ctx, out, res[:n], starts[:n], lat)
}

// paceWindow starts the window's connections at their intended times
// (plan, offsets from start) through begin, and returns how many it
// started (in plan order: a drop ends the starts). A start due while every slot is taken waits for one and is
// late; once the window ends while waiting, it and every start after it
// are dropped.
func (r *caseRunner) paceWindow(ctx context.Context, p *pacer, plan []time.Duration, start time.Time, ws *measure.WindowStats,
	begin func(int, started)) int {
	end := start.Add(ws.Length)
	var blockedUntil time.Time // the end of the last wait for a slot
	var timer *time.Timer
	for i, off := range plan {
		if ctx.Err() != nil {
			return i
		}
		intended := start.Add(off)
		s := started{intended: intended, late: intended.Before(blockedUntil)}
		if !s.late && !p.sleepUntil(ctx, intended) {
			return i
		}
		select {
		case r.open.slots <- struct{}{}:
		default:
			s.late = true
			if timer == nil {
				timer = time.NewTimer(time.Until(end))
				defer timer.Stop()
			}
			select {
			case r.open.slots <- struct{}{}:
				blockedUntil = time.Now()
			case <-timer.C:
				ws.Dropped = int64(len(plan) - i)
				return i
			case <-ctx.Done():
				return i
			}
		}
		begin(i, s)
	}
	return len(plan)
}

// startsEnd is when, after start, a window's starts ended: its last
// start's intended time, plus how late its last starts were made (the
// median lateness of its last tenth of starts, at least one). A
// generator that fell behind the schedule ends its starts that much
// late, and the rate achieved counts it; a single late start (a pause
// of the machine at the window's end) does not, which judging by the
// last start alone would: at thousands of starts per second, one pause
// of a few milliseconds there would fail the case.
func startsEnd(starts []started, start time.Time) time.Duration {
	if len(starts) == 0 {
		return 0
	}
	return starts[len(starts)-1].intended.Sub(start) + tailLateness(starts)
}

// tailLateness is the median lateness of the last tenth of starts (at
// least one; of an even number, the mean of the middle two), 0 when they
// were on time.
func tailLateness(starts []started) time.Duration {
	k := max(1, len(starts)/10)
	tail := make([]time.Duration, k)
	for i, s := range starts[len(starts)-k:] {
		tail[i] = s.actual.Sub(s.intended)
	}
	slices.Sort(tail)
	return max(0, (tail[(k-1)/2]+tail[k/2])/2)
}

// tallyWindow counts the connections of a window that started.
func (r *caseRunner) tallyWindow(ctx context.Context, out measure.IterResult, res []client.Sample, starts []started,
	lat *stats.Latency) (measure.IterResult, error) {
	hc, ws := r.Case, out.Open
	ws.Started = int64(len(res))
	for i, c := range res {
		s := starts[i]
		if s.late {
			ws.Late++
		} else {
			ws.Lateness.Record(s.actual.Sub(s.intended))
		}
		if c.OK {
			// connect times from the actual start (the dial) in open
			// loop: that is the service time; the latency adds the
			// wait since the intended start.
			ws.Service.Record(c.Latency)
			c.Latency += s.actual.Sub(s.intended)
			ws.LatSum += c.Latency
		}
		r.Tally(&out, c, lat)
	}
	if ctx.Err() == nil {
		if e := hc.Stalled(res); e != nil {
			return out, e
		}
	}
	if e := hc.Lost(r.Budget); e != nil {
		return out, e
	}
	if out.OK == 0 {
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		if len(res) == 0 {
			return out, fmt.Errorf("%s: a window started none of its %d connections: %d were still open (%s) until it ended",
				hc.Name, ws.Scheduled, hc.MaxInflight, hc.Words.Name("MaxInflight"))
		}
		return out, hc.NoneSucceeded(out)
	}
	return out, nil
}
