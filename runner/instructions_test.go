package runner_test

import (
	"context"
	"slices"
	"testing"

	"github.com/tlsbench/tlsbench/internal/callgrind"
	"github.com/tlsbench/tlsbench/internal/testbuild"
	"github.com/tlsbench/tlsbench/report/compare"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/runner"
)

// instructionPlan is an interleaved plan of full TLS 1.3 handshakes, one
// at a time, with the built-in servers counted under callgrind: 8
// rounds of 30 handshakes, about 20 s.
func instructionPlan(t *testing.T) runner.Plan {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: runs the built-in servers under valgrind")
	}
	if err := callgrind.Available(); err != nil {
		t.Skip("valgrind is not installed")
	}
	p := versusPlan()
	p.Resume, p.Concurrency = []bool{false}, []int{1}
	p.Iterations, p.Handshakes = 8, 30
	p.Instructions = true
	return p
}

// spread is (max-min)/min of xs.
func spread(xs []float64) float64 { return (slices.Max(xs) - slices.Min(xs)) / slices.Min(xs) }

// TestVersusSelfInstructions: an A/A run in instruction mode records
// each side's server instructions per handshake in every iteration
// (millions: a full handshake's), within 2% of each other on each side
// (seen up to 0.95% on a loaded CI machine), and the paired ratio of the
// sides, which compare does not flag, with its 99.9% interval within
// 1.5% of 1 (about 0.2% on a quiet machine, 0.8% on a loaded one).
func TestVersusSelfInstructions(t *testing.T) {
	p := instructionPlan(t)
	// A tlsbench built without the race detector serves both sides: under
	// it, callgrind took four times as long over the race-built test
	// binary, and counted the detector's work.
	p.Executable = testbuild.Program(t, t.TempDir(), "tlsbench", testbuild.Options{})
	recs := collect(t, 2, func(emit func(*results.Record) error) error {
		return runner.Run(context.Background(), p, emit)
	})
	for _, r := range recs {
		xs := r.ServerInstructionsSamples
		if len(xs) != len(r.SamplesUS) || r.ServerInstructionsPerHS == nil || *r.ServerInstructionsPerHS < 1e6 {
			t.Fatalf("%s side %s: %d samples, server instructions %v per iteration, %v per handshake: want millions in each iteration",
				r.Name, r.Side, len(r.SamplesUS), xs, r.ServerInstructionsPerHS)
		}
		t.Logf("side %s: %.0f instructions per handshake, iterations spread by %.3f%%", r.Side, *r.ServerInstructionsPerHS, 100*spread(xs))
		if s := spread(xs); s > 0.02 {
			t.Errorf("side %s: iterations' instructions per handshake %v spread by %.2f%%, want within 2%%", r.Side, xs, 100*s)
		}
	}
	c, err := compare.ComparePaired(recs, compare.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, cc := range c.Cases {
		mc, ok := cc.Metric(results.MetricServerInstructions)
		t.Logf("%s: server instructions b/a %.5f [%.5f, %.5f], %s", cc.Name, mc.Ratio, mc.CILo, mc.CIHi, mc.Verdict)
		// 8 pairs of 30 handshakes, on a CI machine loaded by other
		// packages' tests: the interval was seen at ±0.8% there (±0.2% on
		// a quiet machine); ±1.5% is still a tenth of what the CPU time
		// resolves (±3-13%, BENCHMARKS.md).
		if !ok || changed(mc) || !(mc.CILo > 0.985 && mc.CIHi < 1.015) {
			t.Errorf("%s: server instructions compared %v: %+v, want no change, the interval within 1.5%% of 1", cc.Name, ok, mc)
		}
	}
}
