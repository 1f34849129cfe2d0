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
