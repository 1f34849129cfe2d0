package server

import (
	"net"
	"sync/atomic"
	"time"

	"github.com/tlsbench/tlsbench/internal/usage"
)

// A counters snapshot must include every handshake whose outcome a client
// could already have seen: a server that refuses a client certificate
// sends its alert before it returns from the handshake and counts the
// failure, and a TLS 1.3 client finishes its handshake before the server
// has read its Finished. A client (the runner) that reads the counters
// right after such a handshake would otherwise see it missing.
//
// handshakeConn marks the stretches in which the server works on a
// handshake rather than waiting for the peer: its sequence number is odd
// while the server is busy (between reads) and even while it waits in a
// read or once the handshake has been counted. Counters waits, briefly,
// for the connections busy when it was asked to move on; a connection
// waiting for its peer is not waited for, so a silent client cannot stall
// the snapshot.
type handshakeConn struct {
	net.Conn
	seq     atomic.Uint64
	tracked atomic.Bool // false once the handshake is counted: reads pass straight through
	last    []byte      // the end of the last read, up to an alert record's size (the handshake's goroutine only)
	// keyTime is the key manager's time for this handshake, and keyUsed
	// whether it was asked at all (the handshake's goroutine only).
	keyTime time.Duration
	keyUsed bool
	// work, with WithHandshakeCPU, measures the handshake's CPU time
	// between its reads (the handshake's goroutine only).
	work *usage.Work
	// firstRead, when set, is called once, after the first read that
	// returned bytes (the handshake's goroutine only).
	firstRead func()
}

func (c *handshakeConn) Read(p []byte) (int, error) {
	if !c.tracked.Load() {
		return c.Conn.Read(p)
	}
	c.seq.Add(1) // waiting for the peer
	if c.work != nil {
		c.work.Pause()
	}
	n, err := c.Conn.Read(p)
	if c.work != nil {
		c.work.Resume()
	}
	c.seq.Add(1) // working again
	if n > 0 {
		if c.firstRead != nil && c.last == nil {
			c.firstRead()
		}
		c.last = append(c.last[:0], p[max(0, n-alertRecordLen):n]...)
	}
	return n, err
}

// alertRecordLen is the size of an unencrypted alert record: a 5-byte
// header and level, description.
const alertRecordLen = 7

// plainAlert returns the alert a peer sent unencrypted as the last thing
// it sent. A TLS 1.3 client that refuses the server's certificate
// (OpenSSL, so curl and s_client) sends its alert before switching to the
// handshake keys, which the server reports only as a bad record MAC.
func (c *handshakeConn) plainAlert() (uint8, bool) {
	b := c.last
	if len(b) != alertRecordLen || b[0] != 21 || b[1] != 3 || b[3] != 0 || b[4] != 2 {
		return 0, false
	}
	return b[6], true
}

// NetConn returns the wrapped connection, as tls.Conn.NetConn does, so
// that wrappers below can still be found.
func (c *handshakeConn) NetConn() net.Conn { return c.Conn }

// trackHandshake wraps c and registers it as busy with a handshake.
func (s *Server) trackHandshake(c net.Conn) *handshakeConn {
	hc := &handshakeConn{Conn: c}
	hc.seq.Store(1)
	hc.tracked.Store(true)
	s.hsMu.Lock()
	s.inHandshake[hc] = struct{}{}
	s.hsMu.Unlock()
	return hc
}

// handshakeCounted ends the tracking of hc: its outcome is in the
// counters.
func (s *Server) handshakeCounted(hc *handshakeConn) {
	hc.tracked.Store(false)
	hc.seq.Add(2 - hc.seq.Load()&1) // even, and changed either way
	s.hsMu.Lock()
	delete(s.inHandshake, hc)
	s.hsMu.Unlock()
}

// settleTimeout bounds the wait for busy handshakes: CPU work of a few
// milliseconds each, unless the machine is badly overloaded.
const settleTimeout = 2 * time.Second

// settle waits until every handshake that was busy on entry has waited
// for its peer again or been counted.
func (s *Server) settle() {
	type pending struct {
		c   *handshakeConn
		seq uint64
	}
	var busy []pending
	s.hsMu.Lock()
	for c := range s.inHandshake {
		if v := c.seq.Load(); v&1 == 1 {
			busy = append(busy, pending{c, v})
		}
	}
	s.hsMu.Unlock()
	deadline := time.Now().Add(settleTimeout)
	for _, p := range busy {
		for p.c.seq.Load() == p.seq && time.Now().Before(deadline) {
			time.Sleep(100 * time.Microsecond)
		}
	}
	s.settleQUIC(deadline)
}
