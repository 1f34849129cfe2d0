package loadgen

import (
	"net"
	"time"

	"github.com/tlsbench/tlsbench/internal/usage"
)

// phaseConn is the raw connection under a client's tls.Conn. It notes
// when the first byte is written (the ClientHello: the handshake's start
// on the wire, after whatever the dial itself wrote) and, once watching
// is on, when the first byte after the handshake is read. Wrappers are
// reused across connections (caseRunner.conns), so that recording phases
// allocates nothing per connection.
type phaseConn struct {
	net.Conn
	wrote    time.Time // start of the first Write
	watching bool      // the handshake has ended
	read     time.Time // end of the first Read after it that returned bytes
	// answer is when the exchange read the first byte of the answer to
	// its request (see answered): a TLS 1.3 ticket read before it is not
	// the answer.
	answer time.Time
	// measure, in a mix, has work measure the connection's CPU time:
	// paused in each Read, which may wait for the server.
	measure bool
	work    usage.Work
}

func (c *phaseConn) Write(p []byte) (int, error) {
	if c.wrote.IsZero() {
		c.wrote = time.Now()
	}
	return c.Conn.Write(p)
}

func (c *phaseConn) Read(p []byte) (int, error) {
	if c.measure {
		c.work.Pause()
		defer c.work.Resume()
	}
	n, err := c.Conn.Read(p)
	if n > 0 && c.watching && c.read.IsZero() {
		c.read = time.Now()
	}
	return n, err
}

// NetConn returns the wrapped connection, as tls.Conn.NetConn does, so
// that wrappers below can still be found.
func (c *phaseConn) NetConn() net.Conn { return c.Conn }
