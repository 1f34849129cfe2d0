package cli

import (
	"io"
	"testing"
	"time"
)

// TestOpenLoopDefaults: --rate measures 10 windows (5 with --quick, or
// --iterations), and a case whose measured time is fixed (--rate,
// --duration) is neither cut short by the default --case-time nor
// extended by the default --target-error.
func TestOpenLoopDefaults(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args       []string
		iterations int
		caseTime   time.Duration
		target     float64
	}{
		{[]string{"--rate", "100"}, 10, 0, 0},
		{[]string{"--rate", "100", "--quick"}, 5, 0, 0},
		{[]string{"--rate", "100", "--iterations", "3", "--case-time", "2s"}, 3, 2 * time.Second, 0},
		{[]string{"--duration", "10s"}, 20, 0, 0},
		{[]string{"--concurrency", "4"}, 20, 3 * time.Second, 0.08},
	} {
		_, f, err := parseRun(tt.args, io.Discard)
		if err != nil {
			t.Fatalf("%v: %v", tt.args, err)
		}
		if f.iterations != tt.iterations || f.caseTime != tt.caseTime || f.targetError != tt.target {
			t.Errorf("%v: iterations %d, case time %v, target error %v; want %d, %v, %v",
				tt.args, f.iterations, f.caseTime, f.targetError, tt.iterations, tt.caseTime, tt.target)
		}
	}
}
