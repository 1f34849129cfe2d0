package stats

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// TestEncodeReadsBack: what Encode writes, hdrhistogram-go's own decoder
// reads back to the same counts, for empty, small, wide and extreme
// histograms (a count that needs all nine bytes of a number, runs of
// zeros of every length).
func TestEncodeReadsBack(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	cases := map[string]func(l *Latency){
		"empty": func(*Latency) {},
		"one":   func(l *Latency) { l.Record(1500 * time.Microsecond) },
		"wide": func(l *Latency) {
			for range 5000 {
				l.Record(time.Duration(rng.ExpFloat64() * float64(3*time.Millisecond)))
			}
			l.Record(59 * time.Second)
			l.Record(time.Microsecond)
		},
	}
	for name, fill := range cases {
		l := NewLatency()
		fill(l)
		enc, err := l.Encode()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := hdrhistogram.Decode([]byte(enc))
		if err != nil {
			t.Fatalf("%s: the library cannot read it: %v", name, err)
		}
		want := l.hist().Export()
		if g := got.Export(); !slices.Equal(g.Counts, want.Counts) || g.SignificantFigures != want.SignificantFigures ||
			g.LowestTrackableValue != want.LowestTrackableValue || g.HighestTrackableValue != want.HighestTrackableValue ||
			got.TotalCount() != l.Count() {
			t.Errorf("%s: decoded %d values, want %d, or counts or geometry differ", name, got.TotalCount(), l.Count())
		}
		if back, err := DecodeLatency(enc); err != nil || back.PercentileUS(99) != l.PercentileUS(99) {
			t.Errorf("%s: DecodeLatency: %v", name, err)
		}
	}
}

// TestZigZagNineBytes: numbers past 56 bits take the ninth byte whole,
// as HdrHistogram's LEB128-64b9B form does.
func TestZigZagNineBytes(t *testing.T) {
	t.Parallel()
	for v, want := range map[int64]int{0: 1, -1: 1, 63: 1, 64: 2, -65: 2, 1 << 55: 9, -(1 << 62): 9, 1<<63 - 1: 9} {
		if got := len(appendZigZag(nil, v)); got != want {
			t.Errorf("%d: %d bytes, want %d", v, got, want)
		}
	}
	// The library's decoder reads a count that needs nine bytes.
	h := hdrhistogram.New(LatencyMinUS, LatencyMaxUS, LatencySigFigs)
	h.RecordValues(1000, 1<<57)
	enc, err := encodeV2(h.Export())
	if err != nil {
		t.Fatal(err)
	}
	got, err := hdrhistogram.Decode([]byte(enc))
	if err != nil || got.TotalCount() != 1<<57 {
		t.Fatalf("decoded %v, %v: want 2^57 values", got.TotalCount(), err)
	}
}

func BenchmarkLatencyEncode(b *testing.B) {
	l := NewLatency()
	for i := range 2000 {
		l.Record(time.Duration(500+i%700) * time.Microsecond)
	}
	b.Run("tlsbench", func(b *testing.B) {
		for b.Loop() {
			l.Encode()
		}
	})
	b.Run("hdrhistogram-go", func(b *testing.B) {
		for b.Loop() {
			l.hist().Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		}
	})
}
