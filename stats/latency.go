package stats

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// The range and precision of every Latency. They are fixed, not options, so
// that any two Latency values (from two workers, two runs or two results
// files) can be merged and compared bucket for bucket.
const (
	// LatencyMinUS is the lowest recordable latency in microseconds; a
	// loopback TLS handshake takes tens of microseconds at the very least.
	LatencyMinUS = 1
	// LatencyMaxUS is the highest recordable latency in microseconds, 60 s:
	// far beyond any handshake timeout, so only a hung connection reaches it.
	LatencyMaxUS = 60_000_000
	// LatencySigFigs is the number of significant decimal digits kept at
	// every magnitude, i.e. a relative error of at most 0.1%.
	LatencySigFigs = 3
)

// Latency is an HDR histogram of individual latencies, recorded in whole
// microseconds from LatencyMinUS to LatencyMaxUS with LatencySigFigs
// significant digits.
//
// It is safe for concurrent use. The zero value is an empty histogram ready
// to use. A Latency must not be copied after first use.
type Latency struct {
	mu sync.Mutex
	h  *hdrhistogram.Histogram // nil until first use; see hist
}

// NewLatency returns an empty Latency.
func NewLatency() *Latency {
	return &Latency{h: newLatencyHistogram()}
}

func newLatencyHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(LatencyMinUS, LatencyMaxUS, LatencySigFigs)
}

// hist returns the histogram, creating it for a zero Latency. l.mu must be
// held.
func (l *Latency) hist() *hdrhistogram.Histogram {
	if l.h == nil {
		l.h = newLatencyHistogram()
	}
	return l.h
}

// Record adds one latency. d is rounded to the nearest microsecond (not
// truncated, which would bias every value down by half a microsecond) and
// clamped into [LatencyMinUS, LatencyMaxUS]: a load generator must never
// lose a sample or fail a run because a clock step produced a zero,
// negative or absurd duration, and the clamped value still lands in the
// histogram's first or last bucket where it is visible.
func (l *Latency) Record(d time.Duration) {
	var us int64
	switch {
	case d >= LatencyMaxUS*time.Microsecond: // before rounding, which could overflow
		us = LatencyMaxUS
	case d < LatencyMinUS*time.Microsecond:
		us = LatencyMinUS
	default:
		us = int64((d + time.Microsecond/2) / time.Microsecond)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	// In range by construction, and the total cannot reach MaxInt64 in
	// practice, so there is no error to report.
	_ = l.hist().RecordValue(us)
}

// Merge adds all of o's latencies to l. o is not changed; l.Merge(l)
// doubles every count. A nil o is a no-op.
func (l *Latency) Merge(o *Latency) {
	if o == nil {
		return
	}
	if o == l {
		// Its own counts, from a copy taken under its lock.
		l.mu.Lock()
		defer l.mu.Unlock()
		l.hist().Merge(l.hist().Clone())
		return
	}
	// Both locks, taken one merge at a time: a.Merge(b) concurrent with
	// b.Merge(a) cannot deadlock. No copy of o (~140 KiB): a case merges
	// its phases every iteration.
	mergeMu.Lock()
	defer mergeMu.Unlock()
	o.mu.Lock()
	defer o.mu.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	// Same geometry on both sides, so nothing can be dropped.
	l.hist().Merge(o.hist())
}

// mergeMu orders the two locks of Merge.
var mergeMu sync.Mutex

// Count returns the number of recorded latencies.
func (l *Latency) Count() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.h == nil {
		return 0
	}
	return l.h.TotalCount()
}

// PercentileUS returns the latency in microseconds at or below which q
// percent of the recorded latencies fall, for q in (0, 100] (e.g. 99.9).
// It is the highest value equivalent to the recorded one at the
// histogram's precision, so it never understates a tail. q above 100 is
// read as 100 and q <= 0 gives the smallest recorded value. It returns 0
// when the histogram is empty and NaN when q is NaN.
func (l *Latency) PercentileUS(q float64) float64 {
	if math.IsNaN(q) {
		return math.NaN()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.h == nil {
		return 0
	}
	return float64(l.h.ValueAtPercentile(q))
}

// MeanUS returns the mean recorded latency in microseconds (each value taken
// as the middle of its histogram bucket), or 0 when the histogram is empty.
func (l *Latency) MeanUS() float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.h == nil {
		return 0
	}
	return l.h.Mean()
}

// Reset removes all recorded latencies.
func (l *Latency) Reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.h != nil {
		l.h.Reset()
	}
}

// Encode returns the histogram in HdrHistogram's compressed V2 encoding,
// base64 (standard alphabet), as stored in results files. Any HdrHistogram
// implementation (Java, C, Rust, Go) can read it.
func (l *Latency) Encode() (string, error) {
	l.mu.Lock()
	snap := l.hist().Export()
	l.mu.Unlock()
	s, err := encodeV2(snap)
	if err != nil {
		return "", fmt.Errorf("stats: encode latency histogram: %w", err)
	}
	return s, nil
}

// DecodeLatency decodes the output of [Latency.Encode]. Besides malformed
// input it rejects well-formed histograms whose range, precision or unit
// differ from a Latency's, since merging or comparing those with ours bucket
// for bucket would be wrong.
func DecodeLatency(s string) (*Latency, error) {
	h, err := hdrhistogram.Decode([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("stats: decode latency histogram: %w", err)
	}
	lo, hi, sig := h.LowestTrackableValue(), h.HighestTrackableValue(), h.SignificantFigures()
	if lo != LatencyMinUS || hi != LatencyMaxUS || sig != LatencySigFigs {
		return nil, fmt.Errorf("stats: decode latency histogram: range %d..%d with %d significant digits, want %d..%d µs with %d",
			lo, hi, sig, LatencyMinUS, LatencyMaxUS, LatencySigFigs)
	}
	// A conversion ratio other than 1 (0 means the default, 1) marks a
	// histogram of scaled values, e.g. a Java DoubleHistogram in seconds:
	// its counts are not microseconds.
	if r := h.Export().IntegerToDoubleConversionRatio; r != 0 && r != 1 {
		return nil, fmt.Errorf("stats: decode latency histogram: integer-to-double conversion ratio %g, want 1 (values in µs)", r)
	}
	return &Latency{h: h}, nil
}

// MaxUS returns the highest recorded latency in microseconds (the
// highest value equivalent to it at the histogram's precision, as
// PercentileUS gives), or 0 when the histogram is empty.
func (l *Latency) MaxUS() float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.h == nil || l.h.TotalCount() == 0 {
		return 0
	}
	return float64(l.h.Max())
}

// Clone returns an independent copy of l.
func (l *Latency) Clone() *Latency {
	l.mu.Lock()
	defer l.mu.Unlock()
	return &Latency{h: l.hist().Clone()}
}

// ErrNotLater is returned by Sub when the later histogram has fewer
// latencies than the earlier one in some bucket: it is not a later state
// of the same recording (the recorder restarted, say), so no difference
// between them describes the time in between.
var ErrNotLater = errors.New("stats: the later latency histogram lacks latencies the earlier one had")

// Sub returns the latencies recorded in l since it was earlier: l minus
// earlier, bucket by bucket. Every Latency has the same range and
// precision, so a cumulative histogram read at two moments gives exactly
// the histogram of what was recorded between them. A nil earlier is
// empty. It returns ErrNotLater when some bucket of earlier holds more
// than l's.
func (l *Latency) Sub(earlier *Latency) (*Latency, error) {
	later := l.Clone()
	if earlier == nil {
		return later, nil
	}
	earlier.mu.Lock()
	before := earlier.hist().Export()
	earlier.mu.Unlock()
	after := later.h.Export()
	for i, n := range before.Counts {
		after.Counts[i] -= n
		if after.Counts[i] < 0 {
			return nil, ErrNotLater
		}
	}
	// Import recounts the total from the buckets.
	return &Latency{h: hdrhistogram.Import(after)}, nil
}
