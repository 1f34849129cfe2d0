package merge

import (
	"testing"

	"github.com/tlsbench/tlsbench/results"
)

// TestMergeServerInstructions: the shards' instruction counts per
// iteration and per handshake combine weighted by each shard's
// handshakes, as the CPU figures do.
func TestMergeServerInstructions(t *testing.T) {
	t.Parallel()
	recs, _ := twoShards(t)
	// Iteration 0: 900 and 300 handshakes; 1: 1100 and 250.
	recs[0].ServerInstructionsSamples, recs[1].ServerInstructionsSamples = []float64{3e6, 3e6}, []float64{4e6, 2e6}
	recs[0].ServerInstructionsPerHS, recs[1].ServerInstructionsPerHS = results.Float(3e6), results.Float(3e6)
	got := mergeOne(t, Options{}, recs...)
	want := []float64{(3e6*900 + 4e6*300) / 1200.0, (3e6*1100 + 2e6*250) / 1350.0}
	if xs := got.ServerInstructionsSamples; len(xs) != 2 || !near(xs[0], want[0]) || !near(xs[1], want[1]) {
		t.Errorf("server_instructions_samples %v, want %v", xs, want)
	}
	if got.ServerInstructionsPerHS == nil || !near(*got.ServerInstructionsPerHS, 3e6) {
		t.Errorf("server_instructions_per_hs %v, want 3e6", got.ServerInstructionsPerHS)
	}
}
