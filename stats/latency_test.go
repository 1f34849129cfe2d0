package stats

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"io"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// recordRange records each whole microsecond from lo to hi once.
func recordRange(l *Latency, lo, hi int) {
	for us := lo; us <= hi; us++ {
		l.Record(time.Duration(us) * time.Microsecond)
	}
}

func TestLatencyPercentiles(t *testing.T) {
	t.Parallel()
	// 1..10000 µs, once each: the q-th percentile is q/100·10000. Above
	// 2048 µs buckets are wider than 1 µs, and the histogram reports the
	// top of the bucket: never below the exact value, and at most 0.1%
	// above it (3 significant digits).
	l := NewLatency()
	recordRange(l, 1, 10000)
	for _, tt := range []struct{ q, exact float64 }{
		{50, 5000},
		{90, 9000},
		{99, 9900},
		{99.9, 9990},
		{100, 10000},
		{10, 1000},
		{0.01, 1},
	} {
		got := l.PercentileUS(tt.q)
		if got < tt.exact || got > tt.exact*1.001 {
			t.Errorf("PercentileUS(%v) = %v, want %v within +0.1%%", tt.q, got, tt.exact)
		}
	}
	if got := l.Count(); got != 10000 {
		t.Errorf("Count() = %d, want 10000", got)
	}
	if got, want := l.MeanUS(), 5000.5; math.Abs(got-want) > want*0.001 {
		t.Errorf("MeanUS() = %v, want %v within 0.1%%", got, want)
	}

	// Below 2048 µs every microsecond has its own bucket: exact.
	small := NewLatency()
	recordRange(small, 1, 1000)
	for _, tt := range []struct{ q, want float64 }{{50, 500}, {90, 900}, {99, 990}, {99.9, 999}, {100, 1000}} {
		if got := small.PercentileUS(tt.q); got != tt.want {
			t.Errorf("1..1000: PercentileUS(%v) = %v, want %v", tt.q, got, tt.want)
		}
	}
	if got := small.MeanUS(); got != 500.5 {
		t.Errorf("1..1000: MeanUS() = %v, want 500.5", got)
	}
	// A skewed distribution: 990 fast handshakes and 10 slow ones; p99 is
	// the last fast one, p99.9 a slow one.
	skew := NewLatency()
	for range 990 {
		skew.Record(100 * time.Microsecond)
	}
	for range 10 {
		skew.Record(1500 * time.Microsecond)
	}
	if got := skew.PercentileUS(99); got != 100 {
		t.Errorf("skewed: PercentileUS(99) = %v, want 100", got)
	}
	if got := skew.PercentileUS(99.9); got != 1500 {
		t.Errorf("skewed: PercentileUS(99.9) = %v, want 1500", got)
	}
	if got := skew.PercentileUS(math.NaN()); !math.IsNaN(got) {
		t.Errorf("PercentileUS(NaN) = %v, want NaN", got)
	}
}

func TestLatencyRecordRoundsAndClamps(t *testing.T) {
	t.Parallel()
	maxBucket := func() float64 { // what LatencyMaxUS reads back as
		l := NewLatency()
		l.Record(LatencyMaxUS * time.Microsecond)
		return l.PercentileUS(100)
	}()
	if maxBucket < LatencyMaxUS || maxBucket > LatencyMaxUS*1.001 {
		t.Fatalf("LatencyMaxUS reads back as %v", maxBucket)
	}
	tests := []struct {
		d    time.Duration
		want float64
	}{
		{0, 1},
		{-time.Second, 1},
		{math.MinInt64, 1},
		{400 * time.Nanosecond, 1},
		{1499 * time.Nanosecond, 1}, // rounds to nearest, not up
		{1500 * time.Nanosecond, 2},
		{999_999 * time.Nanosecond, 1000}, // rounds, not truncates
		{time.Millisecond, 1000},
		{2047 * time.Microsecond, 2047},
		{60 * time.Second, maxBucket},
		{61 * time.Second, maxBucket},
		{time.Hour, maxBucket},
		{math.MaxInt64, maxBucket}, // no overflow in rounding
	}
	for _, tt := range tests {
		l := NewLatency()
		l.Record(tt.d)
		if got := l.PercentileUS(100); got != tt.want || l.Count() != 1 {
			t.Errorf("Record(%v): recorded %v (count %d), want %v (count 1)", tt.d, got, l.Count(), tt.want)
		}
	}
}

func TestLatencyEmptyAndZeroValue(t *testing.T) {
	t.Parallel()
	for name, l := range map[string]*Latency{"NewLatency": NewLatency(), "zero value": new(Latency)} {
		t.Run(name, func(t *testing.T) {
			if c, p, m := l.Count(), l.PercentileUS(99.9), l.MeanUS(); c != 0 || p != 0 || m != 0 {
				t.Errorf("empty: Count, PercentileUS(99.9), MeanUS = %d, %v, %v; want 0, 0, 0", c, p, m)
			}
			l.Reset()
			enc, err := l.Encode()
			if err != nil {
				t.Fatalf("Encode() of empty: %v", err)
			}
			back, err := DecodeLatency(enc)
			if err != nil {
				t.Fatalf("DecodeLatency(Encode()) of empty: %v", err)
			}
			if back.Count() != 0 {
				t.Errorf("decoded empty histogram has count %d", back.Count())
			}
			l.Merge(NewLatency())
			l.Merge(new(Latency))
			l.Merge(nil)
			l.Record(time.Millisecond)
			if c, p := l.Count(), l.PercentileUS(50); c != 1 || p != 1000 {
				t.Errorf("after one Record: Count, PercentileUS(50) = %d, %v; want 1, 1000", c, p)
			}
		})
	}
}

func TestLatencyMergeAndReset(t *testing.T) {
	t.Parallel()
	a, b, all := NewLatency(), NewLatency(), NewLatency()
	recordRange(a, 1, 5000)
	recordRange(b, 5001, 20000)
	recordRange(all, 1, 20000)

	a.Merge(b)
	if got := b.Count(); got != 15000 {
		t.Errorf("Merge changed its argument: count %d, want 15000", got)
	}
	encA, _ := a.Encode()
	encAll, _ := all.Encode()
	if encA != encAll {
		t.Errorf("merged histogram differs from recording everything into one")
	}

	// Self-merge doubles every count, leaving the percentiles alone.
	p99 := a.PercentileUS(99)
	a.Merge(a)
	if got := a.Count(); got != 40000 {
		t.Errorf("after self-merge: Count() = %d, want 40000", got)
	}
	if got := a.PercentileUS(99); got != p99 {
		t.Errorf("after self-merge: PercentileUS(99) = %v, want %v", got, p99)
	}

	a.Reset()
	if c, p := a.Count(), a.PercentileUS(99); c != 0 || p != 0 {
		t.Errorf("after Reset: Count, PercentileUS(99) = %d, %v; want 0, 0", c, p)
	}
	a.Record(2 * time.Millisecond)
	if c, p := a.Count(), a.PercentileUS(50); c != 1 || p != 2000 {
		t.Errorf("Record after Reset: Count, PercentileUS(50) = %d, %v; want 1, 2000", c, p)
	}
}

// TestLatencyConcurrent records from many goroutines while others read,
// encode and merge in both directions; run with -race. Mutual merges must
// not deadlock.
func TestLatencyConcurrent(t *testing.T) {
	t.Parallel()
	const workers, per = 8, 2000
	l := NewLatency()
	x, y := NewLatency(), NewLatency()
	x.Record(time.Millisecond)
	y.Record(2 * time.Millisecond)

	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range per {
				l.Record(time.Duration(w*per+i+1) * time.Microsecond)
			}
		})
	}
	wg.Go(func() {
		for range 50 {
			l.PercentileUS(99.9)
			l.MeanUS()
			l.Count()
			if _, err := l.Encode(); err != nil {
				t.Errorf("Encode during recording: %v", err)
			}
		}
	})
	wg.Go(func() {
		for range 20 {
			x.Merge(y)
		}
	})
	wg.Go(func() {
		for range 20 {
			y.Merge(x)
		}
	})
	wg.Wait()

	if got := l.Count(); got != workers*per {
		t.Errorf("Count() = %d, want %d", got, workers*per)
	}
	// Every value 1..16000 µs was recorded once.
	if got := l.PercentileUS(50); got < 8000 || got > 8000*1.001 {
		t.Errorf("PercentileUS(50) = %v, want 8000 within +0.1%%", got)
	}
}

func TestLatencyEncodeRoundTrip(t *testing.T) {
	t.Parallel()
	l := NewLatency()
	recordRange(l, 1, 3000)
	for range 100 {
		l.Record(250 * time.Millisecond)
	}
	l.Record(45 * time.Second)

	enc, err := l.Encode()
	if err != nil {
		t.Fatal(err)
	}
	// The documented format: standard base64 of the V2 compressed
	// encoding, whose first 4 bytes are its cookie (not base64 twice).
	raw, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		t.Fatalf("Encode() is not standard base64: %v", err)
	}
	if len(raw) < 4 || binary.BigEndian.Uint32(raw)&^0xf0 != uint32(hdrhistogram.V2CompressedEncodingCookieBase) {
		t.Fatalf("Encode() does not start with the V2 compressed cookie: % x", raw[:min(len(raw), 8)])
	}

	back, err := DecodeLatency(enc)
	if err != nil {
		t.Fatalf("DecodeLatency: %v", err)
	}
	if got, want := back.Count(), l.Count(); got != want {
		t.Errorf("decoded Count() = %d, want %d", got, want)
	}
	for _, q := range []float64{1, 50, 90, 96.8, 99, 99.9, 99.99, 100} {
		if got, want := back.PercentileUS(q), l.PercentileUS(q); got != want {
			t.Errorf("decoded PercentileUS(%v) = %v, want %v", q, got, want)
		}
	}
	if got, want := back.MeanUS(), l.MeanUS(); got != want {
		t.Errorf("decoded MeanUS() = %v, want %v", got, want)
	}
	// Decoded histograms are full Latency values: they re-encode
	// identically and merge.
	if again, _ := back.Encode(); again != enc {
		t.Errorf("re-encoding a decoded histogram changed it")
	}
	back.Merge(l)
	if got, want := back.Count(), 2*l.Count(); got != want {
		t.Errorf("merged decoded Count() = %d, want %d", got, want)
	}
}

// withConversionRatio returns enc with the V2 header's integer-to-double
// conversion ratio replaced, as a Java DoubleHistogram would write it.
func withConversionRatio(t *testing.T, enc string, ratio float64) string {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zlib.NewReader(bytes.NewReader(raw[8:]))
	if err != nil {
		t.Fatal(err)
	}
	inner, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	binary.BigEndian.PutUint64(inner[32:40], math.Float64bits(ratio)) // header bytes 32-39
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(inner)
	zw.Close()
	out := append([]byte(nil), raw[:4]...)
	out = binary.BigEndian.AppendUint32(out, uint32(z.Len()))
	out = append(out, z.Bytes()...)
	return base64.StdEncoding.EncodeToString(out)
}

func TestDecodeLatencyErrors(t *testing.T) {
	t.Parallel()
	good := NewLatency()
	recordRange(good, 1, 100)
	enc, err := good.Encode()
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := base64.StdEncoding.DecodeString(enc)
	flipped := append([]byte(nil), raw...)
	flipped[len(flipped)-3] ^= 0xff // inside the zlib stream / checksum

	otherGeometry, err := hdrhistogram.New(1, 1000, 2).Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	b64 := base64.StdEncoding.EncodeToString
	tests := []struct {
		name, in, wantInErr string
	}{
		{"empty", "", "too short"},
		{"not base64", "not base64 at all!", "illegal base64"},
		{"base64 of text", b64([]byte("this is not an HDR histogram")), "encoding not supported"},
		{"uncompressed V2 cookie", b64([]byte{0x1c, 0x84, 0x93, 0x13, 0, 0, 0, 0, 0}), "encoding not supported"},
		{"length past end", b64(append(append([]byte(nil), raw[:4]...), 0x7f, 0, 0, 0)), "smaller than"},
		{"truncated", b64(raw[:len(raw)/2]), "smaller than"},
		{"corrupt zlib", b64(flipped), "stats: decode latency histogram"},
		{"base64 twice", b64([]byte(enc)), "encoding not supported"},
		{"other range and precision", string(otherGeometry), "range 1..1000 with 2 significant digits"},
		{"scaled values", withConversionRatio(t, enc, 1e-6), "conversion ratio"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := DecodeLatency(tt.in)
			if err == nil {
				t.Fatalf("DecodeLatency(%.40q) = %v, nil; want an error", tt.in, l)
			}
			if l != nil {
				t.Errorf("DecodeLatency returned a histogram with its error")
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "stats: decode latency histogram: ") || !strings.Contains(msg, tt.wantInErr) {
				t.Errorf("error %q, want the package prefix and %q", msg, tt.wantInErr)
			}
		})
	}

	// The helper itself must produce a decodable stream, or the "scaled
	// values" case would pass for the wrong reason.
	if _, err := DecodeLatency(withConversionRatio(t, enc, 1)); err != nil {
		t.Errorf("re-packed stream with ratio 1 does not decode: %v", err)
	}
}

// FuzzDecodeLatency checks that no input makes DecodeLatency panic, and
// that whatever it accepts behaves as a Latency and round-trips.
func FuzzDecodeLatency(f *testing.F) {
	empty, _ := NewLatency().Encode()
	l := NewLatency()
	recordRange(l, 1, 3000)
	l.Record(59 * time.Second)
	full, _ := l.Encode()
	other, _ := hdrhistogram.New(1, 1000, 2).Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	for _, s := range []string{empty, full, string(other), full[:len(full)/2], "", "HISTFAAAA", "!!!!"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := DecodeLatency(s)
		if err != nil {
			if l != nil {
				t.Fatalf("histogram returned with error %v", err)
			}
			return
		}
		n := l.Count()
		if n < 0 {
			t.Fatalf("negative count %d", n)
		}
		for _, q := range []float64{50, 99.9, 100} {
			if p := l.PercentileUS(q); p < 0 || p > 2*LatencyMaxUS || (n > 0 && p < LatencyMinUS) {
				t.Fatalf("PercentileUS(%v) = %v outside the histogram's range", q, p)
			}
		}
		l.MeanUS()
		enc, err := l.Encode()
		if err != nil {
			t.Fatalf("accepted input does not re-encode: %v", err)
		}
		back, err := DecodeLatency(enc)
		if err != nil {
			t.Fatalf("re-encoded histogram does not decode: %v", err)
		}
		if back.Count() != n {
			t.Fatalf("round trip changed count from %d to %d", n, back.Count())
		}
		l.Record(time.Millisecond)
		l.Merge(back)
	})
}
