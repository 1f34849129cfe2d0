package loadgen

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"time"
)

// waitLimit bounds RequestWait's wait for the server's first records
// after the handshake: a TLS 1.3 server sends its tickets as soon as it
// has the client's Finished, within a round trip.
const waitLimit = 500 * time.Millisecond

// waitSettle is how long crypto/tls is given to read and process those
// records once the first of them has arrived: they are in the socket's
// buffer by then, and its Read returns only with application data or an
// error, so the wait for more ends at this deadline.
const waitSettle = time.Millisecond

// waitUnasked waits on a TLS 1.3 connection until the server has sent
// something after the handshake (its session tickets), or waitLimit, and
// lets crypto/tls process it: it handles post-handshake messages only
// inside Read. A TLS 1.2 server sends its tickets within the handshake.
// A server that closes, or sends nothing, is no error; an alert is.
func waitUnasked(tc *tls.Conn) error {
	if tc.ConnectionState().Version < tls.VersionTLS13 {
		return nil
	}
	tc.SetReadDeadline(time.Now().Add(waitLimit))
	if arrived, watched := waitReadable(tc.NetConn()); watched {
		if !arrived {
			return nil
		}
		tc.SetReadDeadline(time.Now().Add(waitSettle))
	}
	var b [1]byte
	n, err := tc.Read(b[:])
	if n > 0 {
		answered(tc)
	}
	if err == nil || errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// socketOf is the connection under c's wrappers (a phaseConn, a
// proxy's tunnel) that has a file descriptor, or nil.
func socketOf(c net.Conn) net.Conn {
	for c != nil {
		if _, ok := c.(syscall.Conn); ok {
			return c
		}
		u, ok := c.(interface{ NetConn() net.Conn })
		if !ok {
			break
		}
		c = u.NetConn()
	}
	return nil
}
