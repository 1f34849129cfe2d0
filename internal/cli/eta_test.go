package cli

import (
	"crypto/tls"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/ktls"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/runner"
)

// TestETAFromThePlan: before any case has run, the time left is what the
// plan budgets: the case time per case and side, windows of a set
// length (--duration, --rate) with their warm-up, a shard's slots, a
// throughput case's warm-up and measured time within the case time.
func TestETAFromThePlan(t *testing.T) {
	t.Parallel()
	base := func() runner.Plan {
		return runner.Plan{
			Versions: []uint16{tls.VersionTLS13}, Resume: []bool{false, true}, Concurrency: []int{8},
			Handshakes: 128, Iterations: 20, Warmup: 2, CaseTime: 3 * time.Second, TargetError: 0.02,
		}
	}
	tests := []struct {
		name string
		edit func(p *runner.Plan)
		want time.Duration // for both cases
	}{
		{"the case time, towards the target error", func(*runner.Plan) {}, 6 * time.Second},
		{"per side, interleaved", func(p *runner.Plan) { p.Versus.Self = true }, 12 * time.Second},
		{"per side, three sides", func(p *runner.Plan) { p.Versus.Self, p.Versus.Executable = true, "/opt/old/tlsbench" }, 18 * time.Second},
		{"at most the case time, iterations only", func(p *runner.Plan) { p.TargetError = 0 }, 6 * time.Second},
		{"windows of --duration and the warm-up's", func(p *runner.Plan) {
			p.Duration, p.Iterations, p.CaseTime, p.TargetError = 10*time.Second, 10, 0, 0
		}, 24 * time.Second},
		{"the case time cuts the windows", func(p *runner.Plan) {
			p.Duration, p.Iterations, p.TargetError = 10*time.Second, 10, 0
		}, 2 * (time.Second + 3*time.Second)}, // one 1 s warm-up window: it took more than a quarter of the case time
		{"windows of --rate", func(p *runner.Plan) {
			p.Rates, p.Concurrency, p.Handshakes, p.Iterations, p.Warmup, p.CaseTime, p.TargetError = []float64{100}, nil, 100, 10, 1, 0, 0
		}, 22 * time.Second},
		{"a search's steps", func(p *runner.Plan) {
			p.Rates, p.Concurrency, p.Handshakes, p.Iterations, p.Warmup, p.CaseTime, p.TargetError = []float64{100}, nil, 100, 10, 1, 0, 0
			p.FindRate = &runner.FindRate{}
		}, 2 * findRateSteps * 11 * time.Second},
		{"a shard's slots", func(p *runner.Plan) {
			p.Target.Addr, p.Shard = "198.51.100.7:443", runner.Shard{Index: 1, Count: 4}
			p.Duration, p.Iterations, p.CaseTime, p.TargetError = 10*time.Second, 10, 0, 0
		}, 2 * (12*time.Second + 1200*time.Millisecond)},
	}
	for _, tt := range tests {
		p := base()
		tt.edit(&p)
		start := time.Unix(1_700_000_000, 0)
		e := newEstimate(handshakeBudgets(&p), start)
		if got := e.left(start); got != tt.want {
			t.Errorf("%s: %v left before the run, want %v", tt.name, got, tt.want)
		}
	}

	tp := runner.ThroughputPlan{
		Versions: []uint16{tls.VersionTLS13}, Ciphers: []string{ktls.CipherAES128GCM}, Buffers: []int{16384},
		KTLS: []ktls.Mode{ktls.ModeOff}, Directions: []string{loadgen.DirectionDownload, loadgen.DirectionUpload}, Concurrency: []int{1},
		Bytes: 64 << 20, Iterations: 10, Warmup: 2, CaseTime: 3 * time.Second,
	}
	start := time.Unix(1_700_000_000, 0)
	if got, want := newEstimate(throughputBudgets(&tp), start).left(start), 2*3*time.Second; got != want {
		t.Errorf("throughput by bytes: %v left, want %v", got, want)
	}
	tp.Bytes, tp.Duration = 0, time.Second
	// A warm-up of 2 s cut to a quarter of the case time, 10 s of
	// iterations to the case time.
	if got, want := newEstimate(throughputBudgets(&tp), start).left(start), 2*3750*time.Millisecond; got != want {
		t.Errorf("throughput by time: %v left, want %v", got, want)
	}
}

// TestETAAdjusts: the time left counts down within a case, and once
// cases finish it follows what they took, the plan still weighing as
// one case; another side's record, a search's steps and a case that
// could not run do not count as cases done.
func TestETAAdjusts(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1_700_000_000, 0)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	s := time.Second

	e := newEstimate(planOf(3, 10*s), t0)
	check := func(when, want time.Duration) {
		t.Helper()
		if got := e.left(at(when)); got != want {
			t.Errorf("at %v: %v left, want %v", when, got, want)
		}
	}
	check(0, 30*s)
	e.iteration(1, at(2*s))
	check(2*s, 28*s)
	e.caseDone(&results.Record{Name: "c1", Side: results.SideA}, at(20*s))
	e.caseDone(&results.Record{Name: "c1", Side: results.SideB}, at(20*s))
	// Twice its budget: the plan (10 s) and the case (20 s for 10 s)
	// make the two left 1.5 times theirs.
	check(20*s, 30*s)
	e.iteration(2, at(21*s))
	check(21*s, 29*s)
	e.caseDone(&results.Record{Name: "c2/r100", Kind: results.KindRateStep}, at(25*s))
	check(25*s, 25*s)
	e.caseDone(&results.Record{Name: "c2"}, at(30*s))
	// On its budget: (10 + 20 + 10) / (10 + 10 + 10) of the last
	// case's 10 s.
	check(30*s, 13333333333*time.Nanosecond)
	e.caseDone(&results.Record{Name: "c3"}, at(40*s))
	check(40*s, 0)

	// Iterations of a length only the run tells: the first from the
	// case's beginning, then the time between them.
	e = newEstimate([]caseBudget{{warmup: 2, measured: 8}, {warmup: 2, measured: 8}}, t0)
	e.iteration(1, at(s))
	check(s, 19*s)
	e.iteration(1, at(1500*time.Millisecond))
	check(1500*time.Millisecond, 8500*time.Millisecond)

	// A case that cannot run is reported at once and weighs nothing; a
	// failed case that left no record is done when the next reports,
	// which begins then: the failed cases' 5 s are neither its time nor,
	// when it ends, what it took.
	e = newEstimate([]caseBudget{{skip: true}, {fixed: 10 * s}, {fixed: 10 * s}, {fixed: 10 * s}}, t0)
	check(0, 30*s)
	e.caseDone(&results.Record{Name: "skipped"}, t0)
	check(0, 30*s)
	e.iteration(4, at(5*s))
	check(5*s, 10*s)
	e.caseDone(&results.Record{Name: "c4"}, at(15*s))
	if e.finished != 1 || e.took != 10*s {
		t.Errorf("after the last case: %d finished, took %v; want 1 taking its 10 s", e.finished, e.took)
	}
}

// TestShortDuration: the time left in whole seconds, in minutes from an
// hour.
func TestShortDuration(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		0: "0s", 1400 * time.Millisecond: "1s", 90 * time.Second: "1m30s",
		3*time.Hour + 2*time.Minute + 31*time.Second: "3h3m", 26 * time.Hour: "26h0m",
	} {
		if got := shortDuration(d); got != want {
			t.Errorf("%v: %q, want %q", d, got, want)
		}
	}
}
