package stats

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"math"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// The HdrHistogram V2 encoding, written here rather than by
// hdrhistogram-go, whose encoder compresses at zlib's best compression
// with a new compressor each time: hundreds of kilobytes of state set up
// for a payload of a few hundred bytes. A case encodes several
// histograms (its latency and every phase), so that cost is the
// harness's. The bytes are the format's, not the library's: any
// HdrHistogram implementation reads them, hdrhistogram-go's Decode
// included (see TestEncodeReadsBack).
const (
	// The cookies of the uncompressed and compressed V2 encodings, with
	// the word-size bits (0x10) every implementation writes.
	v2EncodingCookie           int32 = 0x1c849303 | 0x10
	v2CompressedEncodingCookie int32 = 0x1c849304 | 0x10
	// v2HeaderSize is the uncompressed header before the counts: cookie,
	// payload length, normalizing index offset, significant digits,
	// lowest and highest trackable values, integer-to-double ratio.
	v2HeaderSize = 40
)

// zlibWriters are reused compressors: the state (about a megabyte) is
// what costs. A bounded free list, not a sync.Pool, which each garbage
// collection empties: a run encodes a few histograms per case, and
// collections come between cases.
var zlibWriters = make(chan *zlib.Writer, 4)

func getZlibWriter() *zlib.Writer {
	select {
	case w := <-zlibWriters:
		return w
	default:
		w, _ := zlib.NewWriterLevel(nil, zlib.BestSpeed)
		return w
	}
}

func putZlibWriter(w *zlib.Writer) {
	select {
	case zlibWriters <- w:
	default:
	}
}

// encodeV2 writes s in the V2 compressed encoding, base64.
func encodeV2(s *hdrhistogram.Snapshot) (string, error) {
	var raw bytes.Buffer
	counts := appendCountsV2(nil, s.Counts)
	var head [v2HeaderSize]byte
	binary.BigEndian.PutUint32(head[0:], uint32(v2EncodingCookie))
	binary.BigEndian.PutUint32(head[4:], uint32(len(counts)))
	binary.BigEndian.PutUint32(head[8:], 0) // counts are stored unrotated
	binary.BigEndian.PutUint32(head[12:], uint32(s.SignificantFigures))
	binary.BigEndian.PutUint64(head[16:], uint64(s.LowestTrackableValue))
	binary.BigEndian.PutUint64(head[24:], uint64(s.HighestTrackableValue))
	ratio := s.IntegerToDoubleConversionRatio
	if ratio == 0 {
		ratio = 1
	}
	binary.BigEndian.PutUint64(head[32:], math.Float64bits(ratio))

	var packed bytes.Buffer
	w := getZlibWriter()
	defer putZlibWriter(w)
	w.Reset(&packed)
	w.Write(head[:])
	w.Write(counts)
	if err := w.Close(); err != nil {
		return "", err
	}
	binary.Write(&raw, binary.BigEndian, v2CompressedEncodingCookie)
	binary.Write(&raw, binary.BigEndian, int32(packed.Len()))
	raw.Write(packed.Bytes())
	return base64.StdEncoding.EncodeToString(raw.Bytes()), nil
}

// appendCountsV2 appends the counts up to the last one that is not zero,
// each as a ZigZag LEB128 number, a run of more than one zero as its
// negated length.
func appendCountsV2(b []byte, counts []int64) []byte {
	last := len(counts) - 1
	for last >= 0 && counts[last] == 0 {
		last--
	}
	for i := 0; i <= last; {
		if counts[i] != 0 {
			b = appendZigZag(b, counts[i])
			i++
			continue
		}
		j := i
		for j <= last && counts[j] == 0 {
			j++
		}
		if n := int64(j - i); n > 1 {
			b = appendZigZag(b, -n)
		} else {
			b = appendZigZag(b, 0)
		}
		i = j
	}
	return b
}

// appendZigZag appends v in HdrHistogram's ZigZag LEB128-64b9B form: seven
// bits a byte with a continuation bit, the ninth byte whole (at most nine
// bytes for 64 bits, where plain LEB128 takes ten).
func appendZigZag(b []byte, v int64) []byte {
	u := uint64((v << 1) ^ (v >> 63))
	for i := 0; i < 8; i++ {
		if u>>7 == 0 {
			return append(b, byte(u))
		}
		b = append(b, byte(u&0x7f)|0x80)
		u >>= 7
	}
	return append(b, byte(u))
}
