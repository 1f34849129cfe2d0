package stats

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// TestLatencySumMatchesMerge: adding encodings gives the counts that
// decoding them and merging the histograms gives, for empty, narrow and
// wide histograms folded one after another.
func TestLatencySumMatchesMerge(t *testing.T) {
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
	var got LatencySum
	want := NewLatency()
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
		if n, err := CountEncoded(enc); err != nil || n != l.Count() {
			t.Fatalf("fill %d: CountEncoded = %d, %v; want %d", i, n, err, l.Count())
		}
		d, err := DecodeLatency(enc)
		if err != nil {
			t.Fatal(err)
		}
		want.Merge(d)
		if !slices.Equal(got.Latency().hist().Export().Counts, want.hist().Export().Counts) || got.Count() != want.Count() || got.Latency().Count() != want.Count() {
			t.Fatalf("after fill %d: counts differ (%d values, want %d)", i, got.Count(), want.Count())
		}
	}
	l := got.Latency()
	if l.PercentileUS(99.9) != want.PercentileUS(99.9) || l.MaxUS() != want.MaxUS() {
		t.Errorf("p99.9 %v max %v, want %v %v", l.PercentileUS(99.9), l.MaxUS(), want.PercentileUS(99.9), want.MaxUS())
	}
	var twice LatencySum
	twice.Add(&got)
	twice.Add(&got)
	twice.Add(nil)
	if twice.Count() != 2*got.Count() || twice.Latency().PercentileUS(50) != l.PercentileUS(50) {
		t.Errorf("a sum added twice holds %d, want %d", twice.Count(), 2*got.Count())
	}
	// The sum goes on independently of the Latency it gave.
	before := l.Count()
	if err := got.AddEncoded(mustEncode(t, want)); err != nil || l.Count() != before || got.Count() != 2*before {
		t.Errorf("after another add: %v, the Latency given holds %d (want %d), the sum %d (want %d)", err, l.Count(), before, got.Count(), 2*before)
	}
}

// TestLatencySumLibraryEncoding: the library's own encoding (another
// normalizing offset, best compression) is read as well.
func TestLatencySumLibraryEncoding(t *testing.T) {
	t.Parallel()
	h := newLatencyHistogram()
	for v := int64(1); v < 50_000; v += 37 {
		h.RecordValue(v)
	}
	enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	var sum LatencySum
	if err := sum.AddEncoded(string(enc)); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sum.Latency().hist().Export().Counts, h.Export().Counts) {
		t.Error("counts differ from the library's histogram")
	}
}

// TestLatencySumRefuses: what is not a Latency's encoding is refused and
// leaves the histogram as it was.
func TestLatencySumRefuses(t *testing.T) {
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
			var sum LatencySum
			if err := sum.AddEncoded(enc); err != nil {
				t.Fatal(err)
			}
			err := sum.AddEncoded(c.in)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want one saying %q", err, c.want)
			}
			if _, err := CountEncoded(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("CountEncoded: err = %v, want one saying %q", err, c.want)
			}
			if sum.Count() != good.Count() || !slices.Equal(sum.Latency().hist().Export().Counts, good.hist().Export().Counts) {
				t.Errorf("count %d after a refusal, want %d", sum.Count(), good.Count())
			}
		})
	}
}

// FuzzLatencySum: no input panics, and what is accepted adds what
// DecodeLatency reads.
func FuzzLatencySum(f *testing.F) {
	l := NewLatency()
	l.Record(time.Millisecond)
	enc, _ := l.Encode()
	f.Add(enc)
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		var got LatencySum
		err := got.AddEncoded(s)
		n, cerr := CountEncoded(s)
		if (err == nil) != (cerr == nil) || err == nil && n != got.Count() {
			t.Fatalf("AddEncoded: %v (%d values); CountEncoded: %v (%d)", err, got.Count(), cerr, n)
		}
		want, derr := DecodeLatency(s)
		if err == nil && derr == nil && got.Count() != want.Count() {
			t.Fatalf("added %d values, DecodeLatency reads %d", got.Count(), want.Count())
		}
	})
}

func mustEncode(t *testing.T, l *Latency) string {
	t.Helper()
	s, err := l.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestLatencySumTakesBack: counts that turn out corrupt after others
// were added are taken back.
func TestLatencySumTakesBack(t *testing.T) {
	t.Parallel()
	good := NewLatency()
	good.Record(300 * time.Microsecond)
	var sum LatencySum
	if err := sum.AddEncoded(mustEncode(t, good)); err != nil {
		t.Fatal(err)
	}
	before := slices.Clone(sum.counts)
	for name, counts := range map[string][]byte{
		"zeros past the end": appendZigZag(appendZigZag(appendZigZag(nil, 5), 3), -int64(latencyCountsLen())),
		"count past the end": appendZigZag(appendZigZag(appendZigZag(nil, 7), -int64(latencyCountsLen()-1)), 1),
		"cut number":         append(appendZigZag(nil, 9), 0x80),
	} {
		if _, err := CountEncoded(encodeRawV2(t, counts)); err == nil {
			t.Errorf("%s: CountEncoded accepts it", name)
		}
		err := sum.AddEncoded(encodeRawV2(t, counts))
		if err == nil || sum.Count() != 1 || !slices.Equal(sum.counts, before) {
			t.Errorf("%s: err %v, count %d: want a refusal and the sum as it was", name, err, sum.Count())
		}
	}
}

// encodeRawV2 encodes counts bytes as they are under a Latency's V2
// header.
func encodeRawV2(t *testing.T, counts []byte) string {
	t.Helper()
	var head [v2HeaderSize]byte
	binary.BigEndian.PutUint32(head[0:], uint32(v2EncodingCookie))
	binary.BigEndian.PutUint32(head[4:], uint32(len(counts)))
	binary.BigEndian.PutUint32(head[12:], LatencySigFigs)
	binary.BigEndian.PutUint64(head[16:], LatencyMinUS)
	binary.BigEndian.PutUint64(head[24:], LatencyMaxUS)
	binary.BigEndian.PutUint64(head[32:], math.Float64bits(1))
	var packed bytes.Buffer
	w := zlib.NewWriter(&packed)
	w.Write(head[:])
	w.Write(counts)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var raw bytes.Buffer
	binary.Write(&raw, binary.BigEndian, v2CompressedEncodingCookie)
	binary.Write(&raw, binary.BigEndian, int32(packed.Len()))
	raw.Write(packed.Bytes())
	return base64.StdEncoding.EncodeToString(raw.Bytes())
}
