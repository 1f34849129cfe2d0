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
)

// The geometry of every Latency (1 µs to 60 s at 3 significant digits) in
// HdrHistogram's terms: sub-buckets of 2048 values (half of them, 1024,
// per bucket after the first), a unit of 1 µs. They turn a counts index
// of the encoding into the value it stands for; TestAddEncodedIndexes
// checks them against the library for every index.
const (
	latencySubBucketHalfMagnitude = 10
	latencySubBucketHalf          = 1 << latencySubBucketHalfMagnitude
)

// latencyCountsLen is how many counts a Latency's histogram has.
var latencyCountsLen = sync.OnceValue(func() int { return len(newLatencyHistogram().Export().Counts) })

// valueOfIndex is the lowest value counted at index i of a Latency's
// counts.
func valueOfIndex(i int) int64 {
	bucket := i>>latencySubBucketHalfMagnitude - 1
	sub := i&(latencySubBucketHalf-1) + latencySubBucketHalf
	if bucket < 0 {
		sub -= latencySubBucketHalf
		bucket = 0
	}
	return int64(sub) << bucket
}

// bucketCount is one bucket of an encoded histogram: its index and
// count.
type bucketCount struct {
	index int
	count int64
}

// addScratch is the reused memory of AddEncoded: merging thousands of
// shards' histograms must not allocate a histogram (~140 KiB) for each.
type addScratch struct {
	raw     []byte
	payload bytes.Buffer
	zr      io.ReadCloser
	buckets []bucketCount
}

var addScratches = sync.Pool{New: func() any { return new(addScratch) }}

// AddEncoded adds the latencies of an encoded histogram (the output of
// [Latency.Encode]) to l, as l.Merge of [DecodeLatency]'s result would,
// without building a histogram for them: its cost is the encoding's
// size, not the histogram's, so a merge of many histograms into one
// stays fast and small. It refuses what DecodeLatency refuses; on an
// error l is unchanged.
func (l *Latency) AddEncoded(s string) error {
	sc := addScratches.Get().(*addScratch)
	defer addScratches.Put(sc)
	buckets, err := sc.decode(s)
	if err != nil {
		return fmt.Errorf("stats: decode latency histogram: %w", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	h := l.hist()
	var total int64
	for _, b := range buckets {
		if b.count > math.MaxInt64-total-h.TotalCount() {
			return errors.New("stats: merge latency histogram: counts add up past the largest count")
		}
		total += b.count
	}
	for _, b := range buckets {
		// In range by construction (decode checked the index).
		_ = h.RecordValues(valueOfIndex(b.index), b.count)
	}
	return nil
}

// decode reads the V2 compressed encoding (base64) into the buckets
// whose count is not zero, checking the geometry against a Latency's.
func (sc *addScratch) decode(s string) ([]bucketCount, error) {
	n := base64.StdEncoding.DecodedLen(len(s))
	if cap(sc.raw) < n {
		sc.raw = make([]byte, n)
	}
	n, err := base64.StdEncoding.Decode(sc.raw[:n], []byte(s))
	if err != nil {
		return nil, err
	}
	raw := sc.raw[:n]
	if len(raw) < 8 {
		return nil, fmt.Errorf("encoded histogram too short: %d bytes", len(raw))
	}
	if c := int32(binary.BigEndian.Uint32(raw)) &^ 0xf0; c != v2CompressedEncodingCookie&^0xf0 {
		return nil, fmt.Errorf("encoding cookie %#x: only the V2 compressed encoding is read", c)
	}
	clen := int32(binary.BigEndian.Uint32(raw[4:]))
	if clen < 0 || int(clen) > len(raw)-8 {
		return nil, fmt.Errorf("compressed length %d does not fit the %d bytes that follow", clen, len(raw)-8)
	}
	if err := sc.inflate(raw[8 : 8+clen]); err != nil {
		return nil, err
	}
	return sc.parse()
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

// parse reads the counts of sc.payload: ZigZag LEB128 numbers, a
// negative one a run of that many zeros.
func (sc *addScratch) parse() ([]bucketCount, error) {
	p := sc.payload.Bytes()
	sc.buckets = sc.buckets[:0]
	max := latencyCountsLen()
	idx := 0
	for len(p) > 0 {
		v, n, err := readZigZag(p)
		if err != nil {
			return nil, err
		}
		p = p[n:]
		switch {
		case v < 0:
			if v == math.MinInt64 || -v > int64(max-idx) {
				return nil, fmt.Errorf("a run of %d zeros at index %d passes the %d counts", -v, idx, max)
			}
			idx += int(-v)
			continue
		case idx >= max:
			return nil, fmt.Errorf("count at index %d passes the %d counts", idx, max)
		case v > 0:
			sc.buckets = append(sc.buckets, bucketCount{idx, v})
		}
		idx++
	}
	return sc.buckets, nil
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
