package stats

import (
	"encoding/base64"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// TestAddEncodedIndexes: the value valueOfIndex gives for each index of
// a Latency's counts is counted at that index by the library.
func TestAddEncodedIndexes(t *testing.T) {
	t.Parallel()
	n := latencyCountsLen()
	for i := 0; i < n; i++ {
		h := newLatencyHistogram()
		if err := h.RecordValues(valueOfIndex(i), 1); err != nil {
			t.Fatalf("index %d: value %d: %v", i, valueOfIndex(i), err)
		}
		if c := h.Export().Counts; c[i] != 1 {
			t.Fatalf("index %d: value %d is counted elsewhere", i, valueOfIndex(i))
		}
	}
}

// TestAddEncodedMatchesMerge: adding encodings gives the counts that
// decoding them and merging the histograms gives, for empty, narrow and
// wide histograms folded one after another.
func TestAddEncodedMatchesMerge(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	fills := []func(l *Latency){
		func(*Latency) {},
		func(l *Latency) { l.Record(1500 * time.Microsecond) },
		func(l *Latency) {
			for range 5000 {
				l.Record(time.Duration(rng.ExpFloat64() * float64(3*time.Millisecond)))
			}
			l.Record(59 * time.Second)
			l.Record(time.Microsecond)
		},
		func(l *Latency) {
			for range 300 {
				l.Record(time.Duration(20+rng.IntN(50)) * time.Millisecond)
			}
		},
	}
	got, want := NewLatency(), NewLatency()
	for i, fill := range fills {
		l := NewLatency()
		fill(l)
		enc, err := l.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if err := got.AddEncoded(enc); err != nil {
			t.Fatalf("fill %d: %v", i, err)
		}
		d, err := DecodeLatency(enc)
		if err != nil {
			t.Fatal(err)
		}
		want.Merge(d)
		if !slices.Equal(got.hist().Export().Counts, want.hist().Export().Counts) || got.Count() != want.Count() {
			t.Fatalf("after fill %d: counts differ (%d values, want %d)", i, got.Count(), want.Count())
		}
	}
	if got.PercentileUS(99.9) != want.PercentileUS(99.9) || got.MaxUS() != want.MaxUS() {
		t.Errorf("p99.9 %v max %v, want %v %v", got.PercentileUS(99.9), got.MaxUS(), want.PercentileUS(99.9), want.MaxUS())
	}
}

// TestAddEncodedLibraryEncoding: the library's own encoding (another
// normalizing offset, best compression) is read as well.
func TestAddEncodedLibraryEncoding(t *testing.T) {
	t.Parallel()
	h := newLatencyHistogram()
	for v := int64(1); v < 50_000; v += 37 {
		h.RecordValue(v)
	}
	enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	l := NewLatency()
	if err := l.AddEncoded(string(enc)); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(l.hist().Export().Counts, h.Export().Counts) {
		t.Error("counts differ from the library's histogram")
	}
}

// TestAddEncodedRefuses: what is not a Latency's encoding is refused and
// leaves the histogram as it was.
func TestAddEncodedRefuses(t *testing.T) {
	t.Parallel()
	good := NewLatency()
	for i := range 100 {
		good.Record(time.Duration(100+i) * time.Microsecond)
	}
	enc, _ := good.Encode()
	raw, _ := base64.StdEncoding.DecodeString(enc)
	other, _ := hdrhistogram.New(1, 1000, 2).Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	flipped := append([]byte(nil), raw...)
	flipped[len(flipped)-1] ^= 0xff // the zlib checksum
	cases := map[string]struct{ in, want string }{
		"not base64":  {"%%%", "illegal base64"},
		"short":       {base64.StdEncoding.EncodeToString(raw[:5]), "too short"},
		"cut":         {base64.StdEncoding.EncodeToString(raw[:len(raw)-10]), "compressed length"},
		"cookie":      {base64.StdEncoding.EncodeToString(append([]byte{0, 0, 0, 1}, raw[4:]...)), "cookie"},
		"geometry":    {string(other), "significant digits"},
		"checksum":    {base64.StdEncoding.EncodeToString(flipped), "checksum"},
		"empty input": {"", "too short"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			l := good.Clone()
			err := l.AddEncoded(c.in)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want one saying %q", err, c.want)
			}
			if l.Count() != good.Count() {
				t.Errorf("count %d after a refusal, want %d", l.Count(), good.Count())
			}
		})
	}
}

// FuzzAddEncoded: no input panics, and what is accepted adds what
// DecodeLatency reads.
func FuzzAddEncoded(f *testing.F) {
	l := NewLatency()
	l.Record(time.Millisecond)
	enc, _ := l.Encode()
	f.Add(enc)
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		got := NewLatency()
		err := got.AddEncoded(s)
		want, derr := DecodeLatency(s)
		if err == nil && derr == nil && got.Count() != want.Count() {
			t.Fatalf("added %d values, DecodeLatency reads %d", got.Count(), want.Count())
		}
	})
}
