package loadgen

import (
	"context"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/results"
)

// TestSchedule: a constant schedule spaces its starts evenly; a Poisson
// one places the window's n starts at random, in order, inside the
// window, and repeats itself for the same case name (its seed).
func TestSchedule(t *testing.T) {
	t.Parallel()
	hc := &measure.HandshakeCase{Name: "handshake/tls1.3/full/r1000", MaxInflight: 1}
	const length = time.Second
	got := newOpenState(hc).schedule(results.ArrivalConstant, 4, length)
	if want := []time.Duration{0, 250 * time.Millisecond, 500 * time.Millisecond, 750 * time.Millisecond}; !slices.Equal(got, want) {
		t.Errorf("constant schedule %v, want %v", got, want)
	}
	a := newOpenState(hc).schedule(results.ArrivalPoisson, 1000, length)
	b := newOpenState(hc).schedule(results.ArrivalPoisson, 1000, length)
	if !slices.Equal(a, b) || !slices.IsSorted(a) || a[0] < 0 || a[len(a)-1] >= length {
		t.Errorf("Poisson schedule not repeatable, sorted and inside the window")
	}
	other := newOpenState(&measure.HandshakeCase{Name: "another", MaxInflight: 1}).schedule(results.ArrivalPoisson, 1000, length)
	if slices.Equal(a, other) {
		t.Errorf("two cases share one Poisson schedule")
	}
	// The gaps of a Poisson process are exponential: their mean is the
	// window over n, and about 1/e of them exceed it.
	long := 0
	for i := 1; i < len(a); i++ {
		if a[i]-a[i-1] > length/1000 {
			long++
		}
	}
	if long < 300 || long > 440 {
		t.Errorf("%d of 999 gaps exceed the mean gap; a Poisson schedule has about 368", long)
	}
}

// TestRateCause: the gate's message blames the in-flight cap when starts
// waited for it, the client's CPU or the machine's when they were
// saturated, and says it cannot tell otherwise.
func TestRateCause(t *testing.T) {
	t.Parallel()
	base := measure.RateError{Case: "c", Target: 5000, Offered: 5000, Achieved: 3000, Scheduled: 50000, MaxInflight: 4096,
		Cores: 2, MachineBusy: -1, LatenessP99US: 2500, RateSetting: "--rate", InflightSetting: "--max-inflight"}
	for _, tt := range []struct {
		name   string
		mutate func(*measure.RateError)
		cause  string
		says   []string
	}{
		{"late", func(e *measure.RateError) { e.Late = 10 }, measure.CauseInflight, []string{"in-flight cap was reached", "10 starts waited", "raise --max-inflight"}},
		{"dropped", func(e *measure.RateError) { e.Dropped = 100 }, measure.CauseInflight, []string{"dropped 100 of 50000", "0 starts waited", "100 found none"}},
		{"client", func(e *measure.RateError) { e.ClientCores = 1.9 }, measure.CauseClientCPU, []string{"client's CPU was saturated (it used 1.90 of its 2 cores)", "lower --rate"}},
		{"machine", func(e *measure.RateError) { e.ClientCores, e.MachineBusy = 0.8, 0.97 }, measure.CauseClientCPU, []string{"machine's CPUs were saturated (97% busy"}},
		{"unknown", func(e *measure.RateError) { e.ClientCores, e.MachineBusy = 0.5, 0.4 }, measure.CauseUnknown, []string{"start lateness p99 2500 µs", "other load"}},
	} {
		e := base
		tt.mutate(&e)
		e.Cause = measure.RateCause(&e)
		msg := e.Error()
		if e.Cause != tt.cause {
			t.Errorf("%s: cause %q, want %q", tt.name, e.Cause, tt.cause)
		}
		for _, want := range append(tt.says, "started 3000 connections per second, below 99% of the 5000 asked for") {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: %q does not say %q", tt.name, msg, want)
			}
		}
	}
}

// TestTailLateness: a window's starts end (and its rate achieved counts)
// as late as its last starts were when the generator fell behind, not
// as late as one start a pause made late.
func TestTailLateness(t *testing.T) {
	t.Parallel()
	base := time.Unix(1000, 0)
	// starts returns n starts 1 ms apart, start i late by late(i).
	starts := func(n int, late func(i int) time.Duration) []started {
		s := make([]started, n)
		for i := range s {
			s[i].intended = base.Add(time.Duration(i) * time.Millisecond)
			s[i].actual = s[i].intended.Add(late(i))
		}
		return s
	}
	for _, tt := range []struct {
		name string
		s    []started
		want time.Duration
	}{
		{"none", nil, 0},
		{"on time", starts(100, func(int) time.Duration { return 0 }), 0},
		{"early", starts(100, func(int) time.Duration { return -time.Microsecond }), 0},
		{"one late start at the end", starts(100, func(i int) time.Duration {
			return time.Duration(i/99) * 50 * time.Millisecond
		}), 0},
		{"falling behind", starts(100, func(i int) time.Duration { return time.Duration(i) * 100 * time.Microsecond }),
			9450 * time.Microsecond},
		{"one start", starts(1, func(int) time.Duration { return 3 * time.Millisecond }), 3 * time.Millisecond},
		{"half of the tail late", starts(100, func(i int) time.Duration {
			return time.Duration(max(0, i-94)) * time.Millisecond
		}), 500 * time.Microsecond},
		{"one of the two last starts late", starts(20, func(i int) time.Duration {
			return time.Duration(i/19) * 6 * time.Millisecond
		}), 3 * time.Millisecond},
	} {
		if len(tt.s) == 0 {
			if got := startsEnd(tt.s, base); got != 0 {
				t.Errorf("%s: starts end %v, want 0", tt.name, got)
			}
			continue
		}
		// The starts end at the last one's intended time, plus the
		// tail's lateness.
		want := time.Duration(len(tt.s)-1)*time.Millisecond + tt.want
		if got := startsEnd(tt.s, base); got != want {
			t.Errorf("%s: starts end %v, want %v (a tail lateness of %v)", tt.name, got, want, tt.want)
		}
	}
}

// TestPacerNeverEarly: the pacer returns at a start or after it, never
// before (how late is the benchmark's business), for starts spaced
// below and above its early wakeup, and at once for a start past.
func TestPacerNeverEarly(t *testing.T) {
	t.Parallel()
	p := newPacer()
	defer p.close()
	if runtime.GOOS == "linux" && p.alarm == nil {
		t.Error("no alarm on Linux: an idle client would pace to the millisecond")
	}
	at := time.Now()
	for i, gap := range []time.Duration{0, time.Microsecond, 10 * time.Microsecond, wakeEarly, 2 * wakeEarly, 300 * time.Microsecond, 2 * time.Millisecond} {
		at = at.Add(gap)
		if !p.sleepUntil(context.Background(), at) {
			t.Fatalf("start %d: the pacer gave up without a cancellation", i)
		}
		if now := time.Now(); now.Before(at) {
			t.Errorf("start %d: returned %v early", i, at.Sub(now))
		}
	}
	past := time.Now().Add(-time.Second)
	begun := time.Now()
	p.sleepUntil(context.Background(), past)
	if time.Since(begun) > 100*time.Millisecond {
		t.Errorf("a start past took %v to return", time.Since(begun))
	}
}

// TestPacerStopsOnCancel: a sleep towards a start far ahead ends as soon
// as its context does, and so does the spin before a start due within
// the early wakeup; neither reports the start as reached.
func TestPacerStopsOnCancel(t *testing.T) {
	t.Parallel()
	p := newPacer()
	defer p.close()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	begun := time.Now()
	if p.sleepUntil(ctx, begun.Add(time.Hour)) {
		t.Error("a sleep cut short by its context reported the start reached")
	}
	if took := time.Since(begun); took > 10*time.Second {
		t.Errorf("the sleep took %v to end after its context was cancelled at 50ms", took)
	}
	// The spin: due within the early wakeup, context already ended.
	if p.sleepUntil(ctx, time.Now().Add(wakeEarly/2)) {
		t.Error("a spin with its context ended reported the start reached")
	}
}
