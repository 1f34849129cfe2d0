package loadgen

import (
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/results"
)

// TestCaseTimeEndsNearest: the case time ends measuring with the
// iteration whose end is nearest to it, judged by the mean of those
// kept, not with the first one to end past it; never before the two
// iterations an error needs, nor before the iterations given.
func TestCaseTimeEndsNearest(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	for _, tt := range []struct {
		name       string
		kept       int
		elapsed    time.Duration
		iterations int
		given      bool
		target     float64
		want       string
	}{
		// 10 iterations of 280 ms: 2.8 s is 200 ms short of 3 s, the
		// next would end 80 ms past it.
		{name: "the next ends nearer", kept: 10, elapsed: 2800 * ms, iterations: 1000, want: ""},
		// 2.9 s is 100 ms short, the next would end 190 ms past.
		{name: "this one ends nearer", kept: 10, elapsed: 2900 * ms, iterations: 1000, want: results.StoppedCaseTime},
		{name: "past the time", kept: 10, elapsed: 3100 * ms, iterations: 1000, want: results.StoppedCaseTime},
		{name: "towards a target", kept: 10, elapsed: 2900 * ms, iterations: 20, target: 1e-9, want: results.StoppedCaseTime},
		{name: "an error needs two", kept: 1, elapsed: 5 * time.Second, iterations: 1000, want: ""},
		{name: "iterations given are measured", kept: 4, elapsed: 5 * time.Second, iterations: 6, given: true, target: 1e-9, want: ""},
	} {
		s := &stopRule{iterations: tt.iterations, given: tt.given, maxDuration: 3 * time.Second, target: tt.target, cap: 1000,
			relError: func() float64 { return 1 }}
		if got := s.after(tt.kept, tt.elapsed); got != tt.want {
			t.Errorf("%s: after %d iterations in %v: %q, want %q", tt.name, tt.kept, tt.elapsed, got, tt.want)
		}
	}
}

// TestNotesOfACutCase: a case whose time ran out before its iterations
// says so, and says its target was missed only when its error is above
// it: one within the target reached it, as its report counts it.
func TestNotesOfACutCase(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		err  float64
		want string
	}{
		{0.052, "stopped by MaxDuration 3s after 16 of 20 iterations"},
		{0.124, "TargetError 8% not reached: the error was 12.4% of the mean after 16 of 20 iterations, stopped by MaxDuration 3s"},
	} {
		s := &stopRule{iterations: 20, maxDuration: 3 * time.Second, perSide: 3 * time.Second, target: 0.08, cap: 1000,
			relError: func() float64 { return tt.err }}
		if got := s.notes(results.StoppedCaseTime, 16, "of the mean", ""); len(got) != 1 || got[0] != tt.want {
			t.Errorf("error %v: notes %q, want [%q]", tt.err, got, tt.want)
		}
	}
}
