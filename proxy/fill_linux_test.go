package proxy

import (
	"crypto/tls"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/testpki"
	"golang.org/x/sys/unix"
)

// fillPair is a leg of a proxy (the server side of a TLS connection over
// loopback TCP) and the peer that writes into it.
func fillPair(t *testing.T, fill bool) (*Proxy, *leg, *tls.Conn) {
	t.Helper()
	p, err := New(Options{PKIDir: t.TempDir(), ReadFill: fill})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cfg, ca := testpki.Server(t)
	peerDone := make(chan *tls.Conn, 1)
	go func() {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			peerDone <- nil
			return
		}
		tc := tls.Client(c, &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost"})
		tc.Handshake()
		peerDone <- tc
	}()
	raw, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	l := p.newLeg("client", raw)
	l.tls = tls.Server(l.under(), cfg)
	if err := l.tls.Handshake(); err != nil {
		t.Fatal(err)
	}
	l.userSpace()
	peer := <-peerDone
	if peer == nil {
		t.Fatal("peer did not connect")
	}
	t.Cleanup(func() { peer.Close(); raw.Close() })
	raw.SetDeadline(time.Now().Add(30 * time.Second))
	return p, l, peer
}

// queued waits until the leg's socket holds at least n bytes.
func queued(t *testing.T, l *leg, n int) {
	t.Helper()
	sc, _ := l.tcp.(*net.TCPConn).SyscallConn()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var have int
		sc.Control(func(fd uintptr) { have, _ = unix.IoctlGetInt(int(fd), unix.SIOCINQ) })
		if have >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("socket holds %d bytes, want %d", have, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestReadFill: with read-fill, one read returns every record already
// received (up to the buffer) and does not wait for more; without it,
// one record per read.
func TestReadFill(t *testing.T) {
	t.Parallel()
	const records, size = 4, 1000
	for _, tc := range []struct {
		fill  bool
		buf   int
		reads []int // what successive reads return
	}{
		{false, 16 << 10, []int{size, size, size, size}},
		{true, 16 << 10, []int{records * size}},
		{true, 2500, []int{2500, 1500}},
	} {
		p, l, peer := fillPair(t, tc.fill)
		for range records {
			peer.Write(make([]byte, size)) // one record each
		}
		queued(t, l, records*(size+5+16+1)) // TLS 1.3: header, tag, content type
		buf := make([]byte, tc.buf)
		for i, want := range tc.reads {
			n, err := p.read(l, buf)
			if err != nil || n != want {
				t.Errorf("fill %v, buffer %d: read %d = %d, %v; want %d", tc.fill, tc.buf, i, n, err, want)
			}
		}
		// Nothing queued: a fill read of a single new record returns it
		// without waiting for the buffer to fill.
		peer.Write(make([]byte, size))
		if n, err := p.read(l, buf); n != size || err != nil {
			t.Errorf("fill %v: read of a lone record = %d, %v", tc.fill, n, err)
		}
	}
}

// TestReadFillAllocatesNoBuffers: the fill loop allocates no buffer
// per read. crypto/tls itself allocates a 24-byte reader each time it
// reads from the socket (one more per fill: the read that finds nothing),
// so the measure is bytes, not objects: a buffer per read would be at
// least its 16 KiB; the race detector's own bookkeeping stays well under
// half of that.
func TestReadFillAllocatesNoBuffers(t *testing.T) {
	p, l, peer := fillPair(t, true)
	buf := make([]byte, 16<<10)
	data := make([]byte, 3000)
	round := func() {
		peer.Write(data)
		peer.Write(data)
		for got := 0; got < 2*len(data); {
			n, err := p.read(l, buf)
			if err != nil {
				t.Fatal(err)
			}
			got += n
		}
	}
	round()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const rounds = 100
	for range rounds {
		round()
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / rounds; per > uint64(len(buf)/2) {
		t.Errorf("%d bytes allocated per round of two records", per)
	}
}
