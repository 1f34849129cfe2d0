package server_test

import (
	"crypto/rand"
	"crypto/tls"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/server"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// garbageInitial is a QUIC v1 Initial packet that no key decrypts: a
// valid long header with a random destination connection ID of dcidLen
// bytes, no token, and random bytes to 1200 (the size a client's
// Initial must be padded to), which a server must read as a connection
// attempt until it fails to decrypt.
func garbageInitial(dcidLen int) []byte {
	random := make([]byte, dcidLen)
	rand.Read(random)
	return garbageInitialTo(random, nil)
}

// garbageInitialTo is a garbage Initial to dcid carrying token (or none).
func garbageInitialTo(dcid, token []byte) []byte {
	random := func(n int) []byte { b := make([]byte, n); rand.Read(b); return b }
	b := append([]byte{0xc3, 0, 0, 0, 1, byte(len(dcid))}, dcid...)
	b = append(b, 0) // no source connection ID
	if len(token) > 0 {
		b = append(b, 0x40|byte(len(token)>>8), byte(len(token))) // a 2-byte varint
	} else {
		b = append(b, 0)
	}
	b = append(b, token...)
	n := 1200 - len(b) - 2
	b = append(b, 0x40|byte(n>>8), byte(n)) // length, a 2-byte varint
	return append(b, random(n)...)
}

// floodInitials sends n garbage Initials to addr from one socket, spread
// evenly over d, each with a new connection ID of 8 to 20 bytes.
func floodInitials(addr *net.UDPAddr, n int, d time.Duration) error {
	c, err := net.DialUDP("udp", nil, addr)
	if err != nil {
		return err
	}
	defer c.Close()
	const burst = 20
	tick := time.NewTicker(d * burst / time.Duration(n))
	defer tick.Stop()
	for i := 0; i < n; i++ {
		if i > 0 && i%burst == 0 {
			<-tick.C
		}
		if _, err := c.Write(garbageInitial(8 + i%13)); err != nil {
			return err
		}
	}
	return nil
}

// TestQUICInitialFlood: a flood of Initial packets that never decrypt,
// each a new connection ID, leaves the server holding the state of a
// bounded number of them (once that many wait for a ClientHello, a new
// one must first prove its address with a Retry, which a garbage sender
// never answers), not of every one for the handshake timeout; a client
// that dials during the flood completes its handshake. The heap figures
// are logged, the count of connections the server took is held to the
// bound.
func TestQUICInitialFlood(t *testing.T) {
	t.Parallel()
	n := 2000
	if testing.Short() {
		n = 1000
	}
	s := startQUIC(t, server.Options{})
	addr, err := net.ResolveUDPAddr("udp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	before := heapInUse()
	flooded := make(chan error, 1)
	go func() { flooded <- floodInitials(addr, n, time.Second) }()
	time.Sleep(500 * time.Millisecond) // in the middle of the flood
	start := time.Now()
	ping(t, s.addr, &tls.Config{RootCAs: s.ca.Pool(), ServerName: "localhost", NextProtos: []string{tlsconf.ALPNQUICPing}})
	took := time.Since(start)
	if err := <-flooded; err != nil {
		t.Fatal(err)
	}
	// The last Initials are read and given their state (or a Retry).
	time.Sleep(200 * time.Millisecond)
	c := s.srv.Counters()
	grown := int64(heapInUse()) - int64(before)
	t.Logf("%d garbage Initials in 1 s: the server took %d connections (%d open), heap in use grew %.1f MB; a handshake during the flood took %v",
		n, c.Accepted, c.Active, float64(grown)/1e6, took)
	if bound := int64(server.QUICMaxAwaitingHello + 16); c.Accepted > bound {
		t.Errorf("the server took %d connections for %d garbage Initials, want at most %d", c.Accepted, n, bound)
	}
	if c.Handshakes != 1 {
		t.Errorf("%d handshakes completed, want the one client's", c.Handshakes)
	}
}

// TestQUICInitialFloodAnsweringRetries: a flood from a real address that
// answers each Retry with a garbage Initial carrying its token (its
// address proven, its packets still undecryptable) is refused beyond a
// bound of connections waiting for their ClientHello: the server holds
// no more than that many however many it is sent.
func TestQUICInitialFloodAnsweringRetries(t *testing.T) {
	t.Parallel()
	s := startQUIC(t, server.Options{})
	addr, err := net.ResolveUDPAddr("udp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.DialUDP("udp", nil, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	bound := server.QUICMaxAwaitingHello
	answered := make(chan int, 1)
	retries := make(chan int, 1)
	go func() { retries <- answerRetries(c, answered) }()
	sent, got := 0, 0
	// The first bound fill the server; each of the others gets a Retry,
	// which quic-go sends from a short queue: one at a time, each
	// waited for a moment, none is dropped.
	for ; sent < 4*bound && got < bound+64; sent++ {
		if _, err := c.Write(garbageInitial(8)); err != nil {
			t.Fatal(err)
		}
		if sent < bound {
			if sent%10 == 0 {
				time.Sleep(time.Millisecond)
			}
			continue
		}
		select {
		case got = <-answered:
		case <-time.After(5 * time.Millisecond):
		}
	}
	time.Sleep(100 * time.Millisecond) // the answers to the last Retries are read
	c.SetReadDeadline(time.Now())
	got = <-retries
	cs := s.srv.Counters()
	t.Logf("%d garbage Initials, %d Retries answered with their token: the server took %d connections (%d open)", sent, got, cs.Accepted, cs.Active)
	if max := int64(2*bound + 16); cs.Accepted > max {
		t.Errorf("the server took %d connections, want at most %d", cs.Accepted, max)
	}
	if got < bound+64 {
		t.Errorf("%d Retries answered: the flood did not get past the first bound by enough to try the second", got)
	}
}

// answerRetries reads Retry packets on c until it fails, and answers
// each with a garbage Initial to the connection ID and with the token
// the Retry gives; it returns how many it answered, and sends the count
// so far on answered after each when answered has room.
func answerRetries(c *net.UDPConn, answered chan int) int {
	n := 0
	b := make([]byte, 2048)
	for {
		m, err := c.Read(b)
		if err != nil {
			return n
		}
		// A v1 Retry: type bits 11, version, DCID, SCID, token, a
		// 16-byte integrity tag.
		p := b[:m]
		if len(p) < 7 || p[0]&0xf0 != 0xf0 {
			continue
		}
		dl := int(p[5])
		if len(p) < 7+dl {
			continue
		}
		p = p[6+dl:]
		sl := int(p[0])
		if len(p) < 1+sl+16 {
			continue
		}
		scid, token := p[1:1+sl], p[1+sl:len(p)-16]
		if len(token) == 0 {
			continue
		}
		c.Write(garbageInitialTo(scid, token))
		n++
		select {
		case <-answered: // the count not taken yet
		default:
		}
		answered <- n
	}
}

// heapInUse is the test process's heap and goroutine stacks in use after
// a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse + m.StackInuse
}
