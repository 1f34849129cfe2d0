package measure

import (
	"math"
	"time"

	"github.com/tlsbench/tlsbench/internal/field"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/stats"
)

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

// WindowStats is the open-loop part of one window (iterResult.open), or
// of the kept windows together (the total's).
type WindowStats struct {
	// Elapsed is the window's scheduling time: its length, or up to
	// its last start when the generator fell behind and started past it
	// (startsEnd).
	Elapsed                           time.Duration
	Length                            time.Duration // as planned
	Scheduled, Started, Late, Dropped int64
	// LatSum sums the latencies (from the intended start) of the
	// successful connections, for the window's sample.
	LatSum   time.Duration
	Service  *stats.Latency // from the actual start
	Lateness *stats.Latency // actual - intended, starts not counted late
}

func NewWindowStats() *WindowStats {
	return &WindowStats{Service: stats.NewLatency(), Lateness: stats.NewLatency()}
}

// Add sums a kept window into the total.
func (w *WindowStats) add(o *WindowStats) {
	w.Elapsed += o.Elapsed
	w.Length += o.Length
	w.Scheduled += o.Scheduled
	w.Started += o.Started
	w.Late += o.Late
	w.Dropped += o.Dropped
	w.LatSum += o.LatSum
	w.Service.Merge(o.Service)
	w.Lateness.Merge(o.Lateness)
}

// achieved is the starts per second made over the windows.
func (w *WindowStats) achieved() float64 {
	if w.Elapsed <= 0 {
		return 0
	}
	return float64(w.Started) / w.Elapsed.Seconds()
}

// Offered is the starts per second the schedule asked for: the target
// rate, up to the rounding of a window to whole connections.
func (w *WindowStats) offered() float64 {
	if w.Length <= 0 {
		return 0
	}
	return float64(w.Scheduled) / w.Length.Seconds()
}

// WindowLength is the length of one window (or closed-loop timed
// iteration): Duration split over the iterations, else the time the
// iteration's handshakes take at the rate.
func (hc *HandshakeCase) WindowLength() time.Duration {
	if hc.Duration > 0 {
		return hc.Duration / time.Duration(hc.Iterations)
	}
	return time.Duration(float64(hc.Handshakes) / hc.Rate * float64(time.Second))
}

// OpenDefaults sets, in an open-loop case given a Duration, the
// connections a window schedules: its length at the rate, in whole
// connections.
func (hc *HandshakeCase) OpenDefaults() {
	switch {
	case hc.Rate > 0 && hc.Duration > 0 && hc.Sharded():
		hc.shardWindow()
	case hc.Rate > 0 && hc.Duration > 0:
		hc.Handshakes = wholeStarts(hc.Rate, hc.WindowLength())
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
// short (below MinWindow) and how to fix it: a format and its arguments,
// which name the two settings by durationRef and iterationsRef, as the
// caller's error refers to settings (field.Ref, a plan setting).
func ShortWindow(duration time.Duration, iterations int, durationRef, iterationsRef any) (format string, args []any) {
	if iterations <= 1 {
		return "shorter than the %v a window needs: lengthen %s to at least %v", []any{MinWindow, durationRef, MinWindow}
	}
	return "split into %d windows of %v, each shorter than the %v a window needs: lengthen %s to at least %v or lower %s",
		[]any{iterations, duration / time.Duration(iterations), MinWindow, durationRef, MinWindow * time.Duration(iterations), iterationsRef}
}

// ValidateOpen checks the open-loop settings (Rate, Arrival,
// MaxInflight) and Duration.
func (hc *HandshakeCase) ValidateOpen() error {
	switch {
	case hc.Duration < 0:
		return field.Errorf("Duration", hc.Duration, "must be positive, or 0 for none")
	case hc.Duration > 0 && hc.Iterations > 0 && hc.Duration/time.Duration(hc.Iterations) < MinWindow:
		format, args := ShortWindow(hc.Duration, hc.Iterations, field.Ref("Duration"), field.Ref("Iterations"))
		return field.Errorf("Duration", hc.Duration, format, args...)
	case hc.Duration > 0 && hc.TargetError > 0:
		return field.Errorf("TargetError", nil, "a case given %s measures that long: it has no target error", field.Ref("Duration"))
	case hc.Rate == 0 && (hc.Arrival != "" || hc.MaxInflight != 0):
		return field.Errorf("Rate", nil, "%s and %s shape a schedule: give %s", field.Ref("Arrival"), field.Ref("MaxInflight"), field.Ref("Rate"))
	case hc.Rate == 0:
		return nil
	case !(hc.Rate > 0) || math.IsInf(hc.Rate, 1):
		return field.Errorf("Rate", hc.Rate, "must be a number of starts per second above 0")
	case hc.Arrival != "" && hc.Arrival != results.ArrivalConstant && hc.Arrival != results.ArrivalPoisson:
		return field.Errorf("Arrival", hc.Arrival, "must be %s or %s", results.ArrivalConstant, results.ArrivalPoisson)
	case hc.MaxInflight < 0:
		return field.Errorf("MaxInflight", hc.MaxInflight, "must be at least 1")
	case hc.TargetError > 0:
		return field.Errorf("TargetError", nil, "an open-loop case measures %s windows of its schedule: it has no target error", field.Ref("Iterations"))
	case hc.Iterations > 0 && hc.Duration > 0 && hc.Rate*(hc.Duration/time.Duration(hc.Iterations)).Seconds() < 0.5:
		return field.Errorf("Duration", hc.Duration, "split into %d windows, none would start a connection at %g per second: lengthen it or lower %s", hc.Iterations, hc.Rate, field.Ref("Iterations"))
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

// sample is an iteration's value in samples_us: the mean latency from
// the intended start of a window's successful connections, or the wall
// time per handshake of a closed-loop iteration.
func (it IterResult) sample() float64 {
	if it.Open != nil {
		return float64(it.Open.LatSum.Nanoseconds()) / 1e3 / float64(it.OK)
	}
	return float64(it.Wall.Nanoseconds()) / 1e3 / float64(it.OK)
}

// PrimeWave is how many sessions priming deposits (per round of client
// identities): a wave's, or in open loop what its session pool keeps.
func (hc *HandshakeCase) PrimeWave() int {
	if hc.Rate > 0 {
		return OpenLoopSessions(hc.MaxInflight)
	}
	return hc.Concurrency
}
