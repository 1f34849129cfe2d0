package stats

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// latencyCountsLen is how many counts a Latency's histogram has.
var latencyCountsLen = sync.OnceValue(func() int { return len(newLatencyHistogram().Export().Counts) })

// addScratch is the reused memory of LatencySum.AddEncoded: merging thousands of
// shards' histograms must not allocate a histogram (~140 KiB) for each.
type addScratch struct {
	src, raw []byte
	payload  bytes.Buffer
	zr       io.ReadCloser
}

var addScratches = sync.Pool{New: func() any { return new(addScratch) }}

// LatencySum adds up encoded latency histograms (the output of
// [Latency.Encode]) bucket by bucket, as merging each of them decoded
// into one Latency would, without building a histogram for each: adding
// one costs its encoding's size, not a histogram's (~140 KiB), so that
// a merge of thousands of histograms stays fast and small. The zero
// value is empty.
type LatencySum struct {
	counts []int64
	total  int64
}

// AddEncoded adds the latencies of an encoded histogram. It refuses
// what DecodeLatency refuses; on an error s is unchanged.
func (s *LatencySum) AddEncoded(enc string) error {
	sc := addScratches.Get().(*addScratch)
	defer addScratches.Put(sc)
	if err := sc.decode(enc); err != nil {
		return fmt.Errorf("stats: decode latency histogram: %w", err)
	}
	if s.counts == nil {
		s.counts = make([]int64, latencyCountsLen())
	}
	p := sc.payload.Bytes()
	added, end, err := addCounts(s.counts, len(s.counts), p, 1, s.total)
	if err != nil {
		// Take back what was added before the fault.
		addCounts(s.counts, len(s.counts), p[:end], -1, 0)
		return fmt.Errorf("stats: decode latency histogram: %w", err)
	}
	s.total += added
	return nil
}

// CountEncoded checks that s is an encoded latency histogram (the
// output of [Latency.Encode]) as [DecodeLatency] does, and returns how
// many latencies it holds, without building the histogram: what a
// reader checking many records needs, at the cost of the encoding's
// size.
func CountEncoded(s string) (int64, error) {
	sc := addScratches.Get().(*addScratch)
	defer addScratches.Put(sc)
	if err := sc.decode(s); err != nil {
		return 0, fmt.Errorf("stats: decode latency histogram: %w", err)
	}
	n, _, err := addCounts(nil, latencyCountsLen(), sc.payload.Bytes(), 1, 0)
	if err != nil {
		return 0, fmt.Errorf("stats: decode latency histogram: %w", err)
	}
	return n, nil
}

// Add adds the latencies of o to s; o is not changed.
func (s *LatencySum) Add(o *LatencySum) {
	if o == nil || o.counts == nil {
		return
	}
	if s.counts == nil {
		s.counts = make([]int64, len(o.counts))
	}
	for i, n := range o.counts {
		s.counts[i] += n
	}
	s.total += o.total
}

// Count returns the number of latencies added.
func (s *LatencySum) Count() int64 { return s.total }

// Latency returns the sum as a Latency.
func (s *LatencySum) Latency() *Latency {
	if s.counts == nil {
		return NewLatency()
	}
	// Import copies the counts: s stays independent of the result.
	return &Latency{h: hdrhistogram.Import(&hdrhistogram.Snapshot{
		LowestTrackableValue: LatencyMinUS, HighestTrackableValue: LatencyMaxUS,
		SignificantFigures: LatencySigFigs, Counts: s.counts,
	})}
}

// decode reads the V2 compressed encoding (base64), leaving the counts
// in sc.payload, and checks the geometry against a Latency's.
func (sc *addScratch) decode(s string) error {
	sc.src = append(sc.src[:0], s...)
	n := base64.StdEncoding.DecodedLen(len(s))
	if cap(sc.raw) < n {
		sc.raw = make([]byte, n)
	}
	n, err := base64.StdEncoding.Decode(sc.raw[:n], sc.src)
	if err != nil {
		return err
	}
	raw := sc.raw[:n]
	if len(raw) < 8 {
		return fmt.Errorf("encoded histogram too short: %d bytes", len(raw))
	}
	if c := int32(binary.BigEndian.Uint32(raw)) &^ 0xf0; c != v2CompressedEncodingCookie&^0xf0 {
		return fmt.Errorf("encoding cookie %#x: only the V2 compressed encoding is read", c)
	}
	clen := int32(binary.BigEndian.Uint32(raw[4:]))
	if clen < 0 || int(clen) > len(raw)-8 {
		return fmt.Errorf("compressed length %d does not fit the %d bytes that follow", clen, len(raw)-8)
	}
	return sc.inflate(raw[8 : 8+clen])
}

// inflate decompresses the header and the counts into sc.payload,
// checking the header.
func (sc *addScratch) inflate(compressed []byte) error {
	var err error
	if sc.zr == nil {
		sc.zr, err = zlib.NewReader(bytes.NewReader(compressed))
	} else {
		err = sc.zr.(zlib.Resetter).Reset(bytes.NewReader(compressed), nil)
	}
	if err != nil {
		return err
	}
	var head [v2HeaderSize]byte
	if _, err := io.ReadFull(sc.zr, head[:]); err != nil {
		return fmt.Errorf("decompressed header: %v", err)
	}
	if c := int32(binary.BigEndian.Uint32(head[0:])) &^ 0xf0; c != v2EncodingCookie&^0xf0 {
		return fmt.Errorf("inner encoding cookie %#x: only V2 is read", c)
	}
	plen := int32(binary.BigEndian.Uint32(head[4:]))
	sig := int32(binary.BigEndian.Uint32(head[12:]))
	lo, hi := int64(binary.BigEndian.Uint64(head[16:])), int64(binary.BigEndian.Uint64(head[24:]))
	ratio := math.Float64frombits(binary.BigEndian.Uint64(head[32:]))
	if lo != LatencyMinUS || hi != LatencyMaxUS || sig != LatencySigFigs {
		return fmt.Errorf("range %d..%d with %d significant digits, want %d..%d µs with %d",
			lo, hi, sig, LatencyMinUS, LatencyMaxUS, LatencySigFigs)
	}
	if ratio != 0 && ratio != 1 {
		return fmt.Errorf("integer-to-double conversion ratio %g, want 1 (values in µs)", ratio)
	}
	if plen < 0 || int64(plen) > int64(latencyCountsLen())*9 {
		return fmt.Errorf("payload length %d out of range", plen)
	}
	sc.payload.Reset()
	// One byte past the length finds trailing data; reaching the end
	// checks zlib's checksum.
	if _, err := sc.payload.ReadFrom(io.LimitReader(sc.zr, int64(plen)+1)); err != nil {
		return err
	}
	if sc.payload.Len() != int(plen) {
		return fmt.Errorf("payload holds %d bytes, its header says %d", sc.payload.Len(), plen)
	}
	return nil
}

// addCounts adds sign times the counts of payload p (ZigZag LEB128
// numbers, a negative one a run of that many zeros) to counts, of
// length size (nil: only checked and counted), whose total is total. It
// returns the count added and, on a fault, how far into p the counts
// were added, so that they can be taken back.
func addCounts(counts []int64, size int, p []byte, sign, total int64) (added int64, end int, err error) {
	idx, off := 0, 0
	for off < len(p) {
		var v int64
		if b := p[off]; b < 0x80 {
			// Most counts and runs of zeros take one byte.
			v = int64(b>>1) ^ -int64(b&1)
			off++
		} else {
			n := 0
			if v, n, err = readZigZag(p[off:]); err != nil {
				return added, end, err
			}
			off += n
		}
		switch {
		case v < 0:
			if v == math.MinInt64 || -v > int64(size-idx) {
				return added, end, fmt.Errorf("a run of %d zeros at index %d passes the %d counts", -v, idx, size)
			}
			idx += int(-v)
			end = off
			continue
		case idx >= size:
			return added, end, fmt.Errorf("count at index %d passes the %d counts", idx, size)
		case v > math.MaxInt64-total-added:
			return added, end, errors.New("counts add up past the largest count")
		}
		if counts != nil {
			counts[idx] += sign * v
		}
		added += v
		idx++
		end = off
	}
	return added, end, nil
}

// readZigZag reads one number as appendZigZag writes it, returning it and
// the bytes it took.
func readZigZag(b []byte) (int64, int, error) {
	var u uint64
	for i := 0; i < 9; i++ {
		if i >= len(b) {
			return 0, 0, errors.New("a count is cut short")
		}
		if i == 8 {
			u |= uint64(b[i]) << 56
			return int64(u>>1) ^ -int64(u&1), 9, nil
		}
		u |= uint64(b[i]&0x7f) << (7 * i)
		if b[i]&0x80 == 0 {
			return int64(u>>1) ^ -int64(u&1), i + 1, nil
		}
	}
	panic("unreachable")
}
