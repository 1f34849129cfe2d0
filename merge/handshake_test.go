package merge

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/stats"
)

// TestMergeHandshakeFigure: the shards' handshake figures are combined
// per iteration as their wall times are, the longest shard's time over
// every shard's handshakes, and their statistics recomputed; a shard
// without one leaves the merged record without it, noted.
func TestMergeHandshakeFigure(t *testing.T) {
	t.Parallel()
	recs, _ := twoShards(t)
	// Iteration 0: 0.5 s of handshakes (900) and 0.9 s (300); 1: 0.6 s
	// (1100) and 0.4 s (250).
	hs := [][]time.Duration{{500 * time.Millisecond, 600 * time.Millisecond}, {900 * time.Millisecond, 400 * time.Millisecond}}
	for i := range recs {
		var xs []float64
		for j, d := range hs[i] {
			xs = append(xs, float64(d.Microseconds())/float64(recs[i].SampleHandshakes[j]))
		}
		recs[i].SetHandshakeFigure(xs)
		if err := recs[i].Validate(); err != nil {
			t.Fatal(err)
		}
	}
	got := mergeOne(t, Options{}, recs...)
	want := []float64{0.9e6 / 1200, 0.6e6 / 1350}
	if len(got.HandshakeSamplesUS) != 2 || !near(got.HandshakeSamplesUS[0], want[0]) || !near(got.HandshakeSamplesUS[1], want[1]) {
		t.Fatalf("handshake samples %v, want %v", got.HandshakeSamplesUS, want)
	}
	s := stats.Summarize(want)
	if got.HandshakeMeanUS == nil || !near(*got.HandshakeMeanUS, s.Mean) || got.HandshakeErrorUS == nil || !near(*got.HandshakeErrorUS, s.Error) ||
		*got.HandshakeMinUS != slices.Min(want) || *got.HandshakeMaxUS != slices.Max(want) || !near(*got.HandshakeStddevUS, s.StdDev) {
		t.Errorf("handshake mean %v error %v: want %+v", got.HandshakeMeanUS, got.HandshakeErrorUS, s)
	}
	if !near(got.MeanUS, stats.Summarize([]float64{1.2e6 / 1200, 1.1e6 / 1350}).Mean) {
		t.Errorf("mean_us %v: the wall time's samples are combined as before", got.MeanUS)
	}

	recs[1].SetHandshakeFigure(nil)
	got = mergeOne(t, Options{}, recs...)
	if got.HandshakeSamplesUS != nil || got.HandshakeMeanUS != nil || !slices.ContainsFunc(got.Notes, func(n string) bool {
		return strings.Contains(n, "handshake figure") && strings.Contains(n, "1 of the 2 shards")
	}) {
		t.Errorf("one shard without the handshake figure: samples %v, notes %q", got.HandshakeSamplesUS, got.Notes)
	}
}
