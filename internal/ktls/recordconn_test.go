package ktls

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"
)

// chunkConn is a net.Conn whose Read returns the stream in the chunk sizes
// given (cycling), never more than asked.
type chunkConn struct {
	data   []byte
	chunks []int
	i      int
	w      bytes.Buffer
}

func (c *chunkConn) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := len(p)
	if len(c.chunks) > 0 {
		n = min(n, max(1, c.chunks[c.i%len(c.chunks)]))
		c.i++
	}
	n = copy(p, c.data[:min(n, len(c.data))])
	c.data = c.data[n:]
	return n, nil
}
func (c *chunkConn) Write(p []byte) (int, error)      { return c.w.Write(p) }
func (c *chunkConn) Close() error                     { return nil }
func (c *chunkConn) LocalAddr() net.Addr              { return nil }
func (c *chunkConn) RemoteAddr() net.Addr             { return nil }
func (c *chunkConn) SetDeadline(time.Time) error      { return nil }
func (c *chunkConn) SetReadDeadline(time.Time) error  { return nil }
func (c *chunkConn) SetWriteDeadline(time.Time) error { return nil }

func record(typ byte, body []byte) []byte {
	r := []byte{typ, 3, 3, 0, 0}
	binary.BigEndian.PutUint16(r[3:], uint16(len(body)))
	return append(r, body...)
}

// boundaries returns the offsets where records end in a stream (computed
// independently of RecordConn).
func boundaries(stream []byte) map[int]bool {
	b := map[int]bool{0: true}
	off := 0
	for off+5 <= len(stream) {
		off += 5 + int(binary.BigEndian.Uint16(stream[off+3:]))
		b[off] = true
	}
	return b
}

// readAll reads rc with the given buffer sizes and checks that no Read
// crosses a record boundary (a read may end at one, never span one).
func readAll(t testing.TB, rc *RecordConn, stream []byte, bufSizes []int) []byte {
	t.Helper()
	ends := boundaries(stream)
	var out []byte
	maxSize := 64 << 10
	for _, s := range bufSizes {
		maxSize = max(maxSize, s)
	}
	scratch := make([]byte, maxSize)
	for i := 0; ; i++ {
		size := 64 << 10
		if len(bufSizes) > 0 {
			size = max(1, bufSizes[i%len(bufSizes)])
		}
		buf := scratch[:size]
		n, err := rc.Read(buf)
		start := len(out)
		out = append(out, buf[:n]...)
		for off := start + 1; off < len(out); off++ {
			if ends[off] {
				t.Fatalf("read [%d,%d) crosses the record boundary at %d", start, len(out), off)
			}
		}
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 && i > 10*len(stream)+100 {
			t.Fatal("no progress")
		}
	}
}

func TestRecordConnBoundaries(t *testing.T) {
	t.Parallel()
	var stream []byte
	stream = append(stream, record(22, bytes.Repeat([]byte{1}, 300))...)
	stream = append(stream, record(20, []byte{1})...)
	stream = append(stream, record(23, nil)...) // empty record
	stream = append(stream, record(23, bytes.Repeat([]byte{2}, 17000))...)
	stream = append(stream, record(21, []byte{1, 0})...)
	for _, chunks := range [][]int{nil, {1}, {3, 7, 5000}, {100000}} {
		cc := &chunkConn{data: append([]byte(nil), stream...), chunks: chunks}
		rc := WrapConn(cc)
		got := readAll(t, rc, stream, []int{1 << 20})
		if !bytes.Equal(got, stream) {
			t.Fatalf("chunks %v: stream not reassembled", chunks)
		}
		if r, _ := rc.Records(); r != 5 {
			t.Errorf("chunks %v: %d records read, want 5", chunks, r)
		}
		rd := rc.rd.snapshot()
		if !rd.atBoundary || !rd.sawCCS || rd.afterCCS != 3 || rd.appRecords != 2 || len(rd.retained) != 2 {
			t.Errorf("chunks %v: snapshot %+v", chunks, rd)
		}
	}
}

func TestRecordConnObservesHellos(t *testing.T) {
	t.Parallel()
	cr := bytes.Repeat([]byte{0xC1}, 32)
	sr := bytes.Repeat([]byte{0x5E}, 32)
	hello := func(typ byte, random []byte) []byte {
		body := append([]byte{3, 3}, random...)
		body = append(body, make([]byte, 40)...)
		msg := []byte{typ, 0, 0, byte(len(body))}
		return append(msg, body...)
	}
	// The ClientHello split over two records, as a fragmented hello would be.
	ch := hello(1, cr)
	written := append(record(22, ch[:10]), record(22, ch[10:])...)
	read := record(22, hello(2, sr))

	cc := &chunkConn{data: read, chunks: []int{2}}
	rc := WrapConn(cc)
	if _, err := rc.Write(written); err != nil {
		t.Fatal(err)
	}
	readAll(t, rc, read, []int{3})
	got, ok := rc.ClientRandom()
	if !ok || !bytes.Equal(got[:], cr) {
		t.Fatalf("client random %x %v", got, ok)
	}
	if !rc.isClient || !rc.haveSR || !bytes.Equal(rc.serverRandom[:], sr) {
		t.Errorf("isClient %v server random %x", rc.isClient, rc.serverRandom)
	}
	if !bytes.Equal(cc.w.Bytes(), written) {
		t.Error("Write did not pass bytes through")
	}

	// Server side: the ClientHello is read.
	rc2 := WrapConn(&chunkConn{data: written})
	readAll(t, rc2, written, nil)
	if got, ok := rc2.ClientRandom(); !ok || !bytes.Equal(got[:], cr) || rc2.isClient {
		t.Errorf("server side: random %x ok %v isClient %v", got, ok, rc2.isClient)
	}
}

func TestRecordConnPassthroughAndBlocking(t *testing.T) {
	t.Parallel()
	stream := append(record(23, []byte("abc")), record(23, []byte("defg"))...)
	rc := WrapConn(&chunkConn{data: stream})
	rc.Passthrough()
	buf := make([]byte, 100)
	if n, _ := rc.Read(buf); n != len(stream) {
		t.Errorf("pass-through read %d bytes, want all %d", n, len(stream))
	}
	rc.rdBlocked.Store(true)
	rc.wrBlocked.Store(true)
	if _, err := rc.Read(buf); err != errOffloaded {
		t.Errorf("blocked read: %v", err)
	}
	if _, err := rc.Write(buf); err != errOffloaded {
		t.Errorf("blocked write: %v", err)
	}
}

func TestRecordConnRetentionBounded(t *testing.T) {
	t.Parallel()
	var stream []byte
	for i := 0; i < maxRetainedRecords+10; i++ {
		stream = append(stream, record(23, []byte{byte(i)})...)
	}
	rc := WrapConn(&chunkConn{data: stream})
	readAll(t, rc, stream, nil)
	rd := rc.rd.snapshot()
	if len(rd.retained) != maxRetainedRecords || rd.appRecords != maxRetainedRecords+10 || !rd.truncated {
		t.Errorf("retained %d of %d (truncated %v)", len(rd.retained), rd.appRecords, rd.truncated)
	}
}

// FuzzRecordConn feeds arbitrary streams in arbitrary chunkings and read
// sizes: RecordConn must not panic, must return the stream exactly and
// must never return bytes across a record boundary.
func FuzzRecordConn(f *testing.F) {
	f.Add(record(22, []byte{1, 0, 0, 40, 3, 3}), []byte{1, 2, 3}, []byte{5})
	f.Add(append(record(20, []byte{1}), record(23, make([]byte, 300))...), []byte{0}, []byte{1, 200})
	f.Add([]byte{23, 3, 3, 0xff, 0xff, 1, 2}, []byte{}, []byte{})
	f.Add([]byte{22, 3, 3, 0, 0, 22, 3}, []byte{1}, []byte{1})
	f.Fuzz(func(t *testing.T, stream, chunks, sizes []byte) {
		if len(stream) > 1<<16 {
			return
		}
		ck := make([]int, len(chunks))
		for i, c := range chunks {
			ck[i] = int(c)
		}
		sz := make([]int, len(sizes))
		for i, s := range sizes {
			sz[i] = int(s)*int(s) + 1
		}
		rc := WrapConn(&chunkConn{data: append([]byte(nil), stream...), chunks: ck})
		got := readAll(t, rc, stream, sz)
		if !bytes.Equal(got, stream) {
			t.Fatalf("reassembled %d bytes, want %d", len(got), len(stream))
		}
		// The write side observes the same bytes without limiting.
		wc := WrapConn(&chunkConn{})
		for len(stream) > 0 {
			n := 1 + len(stream)%7
			n = min(n, len(stream))
			if _, err := wc.Write(stream[:n]); err != nil {
				t.Fatal(err)
			}
			stream = stream[n:]
		}
		r1, _ := rc.Records()
		_, w1 := wc.Records()
		if r1 != w1 {
			t.Fatalf("read side counted %d records, write side %d", r1, w1)
		}
	})
}
