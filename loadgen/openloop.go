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

	"github.com/tlsbench/tlsbench/internal/field"
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

// DefaultMaxInflight is the most connections an open-loop case keeps
// open at once unless told otherwise.
const DefaultMaxInflight = 4096

// OpenLoopSessions is how many sessions per client identity an open-loop
// resume case primes and should keep (its session pool): enough for the
// connections a schedule has open at once at a few thousand starts per
// second, bounded by the in-flight cap.
func OpenLoopSessions(maxInflight int) int {
	if maxInflight <= 0 {
		maxInflight = DefaultMaxInflight
	}
	return min(maxInflight, 64)
}

// windowStats is the open-loop part of one window (iterResult.open), or
// of the kept windows together (the total's).
type windowStats struct {
	// elapsed is the window's scheduling time: its length, or up to
	// its last start when the generator fell behind and started past it
	// (startsEnd).
	elapsed                           time.Duration
	length                            time.Duration // as planned
	scheduled, started, late, dropped int64
	// latSum sums the latencies (from the intended start) of the
	// successful connections, for the window's sample.
	latSum   time.Duration
	service  *stats.Latency // from the actual start
	lateness *stats.Latency // actual - intended, starts not counted late
}

func newWindowStats() *windowStats {
	return &windowStats{service: stats.NewLatency(), lateness: stats.NewLatency()}
}

// add sums a kept window into the total.
func (w *windowStats) add(o *windowStats) {
	w.elapsed += o.elapsed
	w.length += o.length
	w.scheduled += o.scheduled
	w.started += o.started
	w.late += o.late
	w.dropped += o.dropped
	w.latSum += o.latSum
	w.service.Merge(o.service)
	w.lateness.Merge(o.lateness)
}

// achieved is the starts per second made over the windows.
func (w *windowStats) achieved() float64 {
	if w.elapsed <= 0 {
		return 0
	}
	return float64(w.started) / w.elapsed.Seconds()
}

// offered is the starts per second the schedule asked for: the target
// rate, up to the rounding of a window to whole connections.
func (w *windowStats) offered() float64 {
	if w.length <= 0 {
		return 0
	}
	return float64(w.scheduled) / w.length.Seconds()
}

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

func newOpenState(hc *HandshakeCase) *openState {
	h := fnv.New64a()
	h.Write([]byte(hc.Name))
	if hc.sharded() {
		// Each shard its own arrivals: independent Poisson processes
		// of the shard's rate add up to one of the whole rate.
		fmt.Fprintf(h, "/shard %d of %d", hc.Shard, hc.Shards)
	}
	seed := h.Sum64()
	return &openState{
		rng:   rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		slots: make(chan struct{}, hc.MaxInflight),
		idle:  make(chan func()),
		shard: hc.Shard, shards: hc.Shards, whole: hc.wholeWindow,
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

// windowLength is the length of one window (or closed-loop timed
// iteration): Duration split over the iterations, else the time the
// iteration's handshakes take at the rate.
func (hc *HandshakeCase) windowLength() time.Duration {
	if hc.Duration > 0 {
		return hc.Duration / time.Duration(hc.Iterations)
	}
	return time.Duration(float64(hc.Handshakes) / hc.Rate * float64(time.Second))
}

// openDefaults sets, in an open-loop case given a Duration, the
// connections a window schedules: its length at the rate, in whole
// connections.
func (hc *HandshakeCase) openDefaults() {
	switch {
	case hc.Rate > 0 && hc.Duration > 0 && hc.sharded():
		hc.shardWindow()
	case hc.Rate > 0 && hc.Duration > 0:
		hc.Handshakes = wholeStarts(hc.Rate, hc.windowLength())
	}
}

// wholeStarts is how many connections a window of length schedules at
// rate: its length at the rate, in whole connections, at least one.
func wholeStarts(rate float64, length time.Duration) int {
	return max(1, int(math.Round(rate*length.Seconds())))
}

// MaxRateRounding is the most the whole connections of a window may
// move the rate from the one asked (a share of it) before a case says
// so: tlsbench run refuses such a rate, a search does not try it.
const MaxRateRounding = 0.01

// ScheduledRate returns the rate that windows of length keep when asked
// for rate, in whole connections per window, and how far it is from
// rate, as a share of rate.
func ScheduledRate(rate float64, length time.Duration) (scheduled, off float64) {
	scheduled = float64(wholeStarts(rate, length)) / length.Seconds()
	return scheduled, math.Abs(scheduled-rate) / rate
}

// MinWindow is the shortest window (Duration over Iterations) a case
// may be split into: shorter ones would measure the edges of the windows
// more than the handshakes in them, and a window of nothing would start
// no connection.
const MinWindow = 10 * time.Millisecond

// ShortWindow says why duration split into iterations windows is too
// short (below MinWindow) and how to fix it, naming the two settings as
// given.
func ShortWindow(duration time.Duration, iterations int, durationName, iterationsName string) string {
	if iterations <= 1 {
		return fmt.Sprintf("shorter than the %v a window needs: lengthen %s to at least %v", MinWindow, durationName, MinWindow)
	}
	return fmt.Sprintf("split into %d windows of %v, each shorter than the %v a window needs: lengthen %s to at least %v or lower %s",
		iterations, duration/time.Duration(iterations), MinWindow, durationName, MinWindow*time.Duration(iterations), iterationsName)
}

// validateOpen checks the open-loop settings (Rate, Arrival,
// MaxInflight) and Duration.
func (hc *HandshakeCase) validateOpen() error {
	switch {
	case hc.Duration < 0:
		return field.Errorf("Duration", hc.Duration, "must be positive, or 0 for none")
	case hc.Duration > 0 && hc.Iterations > 0 && hc.Duration/time.Duration(hc.Iterations) < MinWindow:
		return field.Errorf("Duration", hc.Duration, "%s", ShortWindow(hc.Duration, hc.Iterations, "{Duration}", "{Iterations}"))
	case hc.Duration > 0 && hc.TargetError > 0:
		return field.Errorf("TargetError", nil, "a case given {Duration} measures that long: it has no target error")
	case hc.Rate == 0 && (hc.Arrival != "" || hc.MaxInflight != 0):
		return field.Errorf("Rate", nil, "{Arrival} and {MaxInflight} shape a schedule: give {Rate}")
	case hc.Rate == 0:
		return nil
	case !(hc.Rate > 0) || math.IsInf(hc.Rate, 1):
		return field.Errorf("Rate", hc.Rate, "must be a number of starts per second above 0")
	case hc.Arrival != "" && hc.Arrival != results.ArrivalConstant && hc.Arrival != results.ArrivalPoisson:
		return field.Errorf("Arrival", hc.Arrival, "must be %s or %s", results.ArrivalConstant, results.ArrivalPoisson)
	case hc.MaxInflight < 0:
		return field.Errorf("MaxInflight", hc.MaxInflight, "must be at least 1")
	case hc.TargetError > 0:
		return field.Errorf("TargetError", nil, "an open-loop case measures {Iterations} windows of its schedule: it has no target error")
	case hc.Iterations > 0 && hc.Duration > 0 && hc.Rate*(hc.Duration/time.Duration(hc.Iterations)).Seconds() < 0.5:
		return field.Errorf("Duration", hc.Duration, "split into %d windows, none would start a connection at %g per second: lengthen it or lower {Iterations}", hc.Iterations, hc.Rate)
	case hc.Iterations > 0 && hc.Duration == 0 && hc.Handshakes > 0 && float64(hc.Handshakes)/hc.Rate > 3600:
		return field.Errorf("Rate", hc.Rate, "a window of %d connections would last over an hour", hc.Handshakes)
	}
	return nil
}

// failureBudget is the failure budget of iters iterations. Timed waves
// (closed loop with a Duration) make as many connections as their time
// allows, unknown in advance: they have none, so their error rate is
// judged at the end (a wave in which every connection timed out still
// stops them as a stall).
func (hc *HandshakeCase) failureBudget(iters int, warmup bool) *failureBudget {
	if hc.Duration > 0 && hc.Rate == 0 {
		return nil
	}
	return newFailureBudget(int64(iters)*int64(hc.Handshakes), warmup)
}

// runIteration runs one iteration of the case: a window of the schedule
// (open loop), waves until the window ends (closed loop with a
// Duration), or Handshakes handshakes in waves.
func (r *caseRunner) runIteration(ctx context.Context, lat *stats.Latency) (iterResult, error) {
	hc := r.hc
	switch {
	case hc.Rate > 0:
		return r.window(ctx, lat)
	case hc.Duration > 0:
		r.until = time.Now().Add(hc.windowLength())
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
func (r *caseRunner) window(ctx context.Context, lat *stats.Latency) (iterResult, error) {
	hc := r.hc
	plan := r.open.schedule(hc.Arrival, hc.Handshakes, hc.windowLength())
	ws := newWindowStats()
	ws.length, ws.scheduled = hc.windowLength(), int64(len(plan))
	res := make([]connResult, len(plan))
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
			res[i] = r.connect(ctx, r.clientFor(client, i))
			res[i].client = client
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
	p.sleepUntil(ctx, start.Add(ws.length))
	p.close()
	wg.Wait()
	ws.elapsed = max(ws.length, startsEnd(starts[:n], start))
	out := newIterResult()
	out.open = ws
	out.wall = ws.elapsed
	return r.tallyWindow(ctx, out, res[:n], starts[:n], lat)
}

// paceWindow starts the window's connections at their intended times
// (plan, offsets from start) through begin, and returns how many it
// started (in plan order: a drop ends the starts). A start due while every slot is taken waits for one and is
// late; once the window ends while waiting, it and every start after it
// are dropped.
func (r *caseRunner) paceWindow(ctx context.Context, p *pacer, plan []time.Duration, start time.Time, ws *windowStats,
	begin func(int, started)) int {
	end := start.Add(ws.length)
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
				ws.dropped = int64(len(plan) - i)
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
func (r *caseRunner) tallyWindow(ctx context.Context, out iterResult, res []connResult, starts []started,
	lat *stats.Latency) (iterResult, error) {
	hc, ws := r.hc, out.open
	ws.started = int64(len(res))
	for i, c := range res {
		s := starts[i]
		if s.late {
			ws.late++
		} else {
			ws.lateness.Record(s.actual.Sub(s.intended))
		}
		if c.ok {
			// connect times from the actual start (the dial) in open
			// loop: that is the service time; the latency adds the
			// wait since the intended start.
			ws.service.Record(c.latency)
			c.latency += s.actual.Sub(s.intended)
			ws.latSum += c.latency
		}
		r.tally(&out, c, lat)
	}
	if ctx.Err() == nil {
		if e := hc.stalled(res); e != nil {
			return out, e
		}
	}
	if e := hc.lost(r.budget); e != nil {
		return out, e
	}
	if out.ok == 0 {
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		if len(res) == 0 {
			return out, fmt.Errorf("%s: a window started none of its %d connections: %d were still open (%s) until it ended",
				hc.Name, ws.scheduled, hc.MaxInflight, hc.Words.Name("MaxInflight"))
		}
		return out, hc.noneSucceeded(out)
	}
	return out, nil
}

// sample is an iteration's value in samples_us: the mean latency from
// the intended start of a window's successful connections, or the wall
// time per handshake of a closed-loop iteration.
func (it iterResult) sample() float64 {
	if it.open != nil {
		return float64(it.open.latSum.Nanoseconds()) / 1e3 / float64(it.ok)
	}
	return float64(it.wall.Nanoseconds()) / 1e3 / float64(it.ok)
}

// primeWave is how many sessions priming deposits (per round of client
// identities): a wave's, or in open loop what its session pool keeps.
func (hc *HandshakeCase) primeWave() int {
	if hc.Rate > 0 {
		return OpenLoopSessions(hc.MaxInflight)
	}
	return hc.Concurrency
}
