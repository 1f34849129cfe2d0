package compare

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/results"
)

// withInstructions gives rec per-iteration server instructions around
// perHS with 0.2% of noise (an instruction count's, far below the
// time's).
func withInstructions(rec results.Record, perHS float64, seed uint64) results.Record {
	r := rand.New(rand.NewPCG(seed, 3))
	rec.ServerInstructionsSamples = nil
	for range rec.SamplesUS {
		rec.ServerInstructionsSamples = append(rec.ServerInstructionsSamples, perHS*(1+0.002*(r.Float64()-0.5)))
	}
	rec.ServerInstructionsPerHS = results.Float(perHS)
	return rec
}

// TestPairedServerInstructions: a server 1% more instructions per
// handshake is flagged on server instructions, written to 0.01% and
// 4 decimals, though 1% is within the time's 2% floor; an A/A pair is
// not; the metric's gate fails and passes accordingly; a side without
// counts leaves the metric out.
func TestPairedServerInstructions(t *testing.T) {
	t.Parallel()
	a := withInstructions(sidedRecord("a", 20, 300, 100, 150, 1), 3e6, 1)
	b := withInstructions(sidedRecord("b", 20, 300, 100, 150, 2), 3.03e6, 2)
	c, err := ComparePaired([]results.Record{a, b}, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cc := &c.Cases[0]
	mc := metricOfCase(t, cc, results.MetricServerInstructions)
	if mc.Verdict != Slower || mc.Floor != DefaultInstructionsMinEffect || !(mc.CILo > 1.005 && mc.CIHi < 1.015) {
		t.Errorf("server instructions: %+v, want higher at about 1.01x, floor %v", mc, DefaultInstructionsMinEffect)
	}
	if line := metricsLine(cc, true); !strings.HasPrefix(line, "server instructions +1.0") || !strings.Contains(line, "(1.01") || !strings.Contains(line, "x, 1.0") {
		t.Errorf("line %q, want it to start with the change to 0.01%% and the ratio to 4 decimals", line)
	}
	if err := c.CheckGates([]Gate{{results.MetricServerInstructions, 0.005}}); err == nil || !strings.Contains(err.Error(), "more server instructions than side a") {
		t.Errorf("a 0.5%% gate on server instructions passed a 1%% rise: %v", err)
	}
	if err := c.CheckGates([]Gate{{results.MetricServerInstructions, 0.02}}); err != nil {
		t.Errorf("a 2%% gate on server instructions failed a 1%% rise: %v", err)
	}

	aa := withInstructions(sidedRecord("b", 20, 300, 100, 150, 2), 3e6, 2)
	c, _ = ComparePaired([]results.Record{a, aa}, CompareOptions{})
	if mc := metricOfCase(t, &c.Cases[0], results.MetricServerInstructions); mc.Verdict == Slower || mc.Verdict == Faster {
		t.Errorf("A/A: server instructions %+v, want no change", mc)
	}

	bare := sidedRecord("b", 20, 300, 100, 150, 2)
	c, _ = ComparePaired([]results.Record{a, bare}, CompareOptions{})
	if _, ok := c.Cases[0].Metric(results.MetricServerInstructions); ok {
		t.Errorf("server instructions compared with a side that has none")
	}
}
