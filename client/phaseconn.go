package client

import (
	"net"
	"time"

	"github.com/tlsbench/tlsbench/internal/usage"
)

// PhaseConn is the raw connection under a client's tls.Conn. It notes
// when the first byte is written (the ClientHello: the handshake's start
// on the wire, after whatever the dial itself wrote) and, once watching
// is on, when the first byte after the handshake is read. Wrappers are
// reused across connections (caseRunner.conns), so that recording phases
// allocates nothing per connection.
type PhaseConn struct {
	net.Conn
	Wrote     time.Time // start of the first Write
	Watching  bool      // the handshake has ended
	FirstRead time.Time // end of the first Read after it that returned bytes
	// answer is when the exchange read the first byte of the answer to
	// its request (see answered): a TLS 1.3 ticket read before it is not
	// the answer.
	Answer time.Time
	// measure, in a mix, has work measure the connection's CPU time:
	// paused in each Read, which may wait for the server.
	Measure bool
	Work    usage.Work
}

func (c *PhaseConn) Write(p []byte) (int, error) {
	if c.Wrote.IsZero() {
		c.Wrote = time.Now()
	}
	return c.Conn.Write(p)
}

func (c *PhaseConn) Read(p []byte) (int, error) {
	if c.Measure {
		c.Work.Pause()
		defer c.Work.Resume()
	}
	n, err := c.Conn.Read(p)
	if n > 0 && c.Watching && c.FirstRead.IsZero() {
		c.FirstRead = time.Now()
	}
	return n, err
}

// NetConn returns the wrapped connection, as tls.Conn.NetConn does, so
// that wrappers below can still be found.
func (c *PhaseConn) NetConn() net.Conn { return c.Conn }
