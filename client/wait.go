package client

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
// something after the handshake (its session tickets), for up to limit,
// and lets crypto/tls process it: it handles post-handshake messages only
// inside Read. What came with the server's last handshake flight (Go's
// server sends its tickets there) is processed first, without waiting;
// limit 0 waits for nothing more than waitSettle, so that records of
// that flight still in the socket are read too. A TLS 1.2 server sends its tickets
// within the handshake. A server that closes, or sends nothing, is no
// error; an alert is.
func waitUnasked(c Conn, limit time.Duration) error {
	tc, ok := c.(*tls.Conn)
	if !ok || tc.ConnectionState().Version < tls.VersionTLS13 {
		// A session resumed by ID is TLS 1.2.
		return nil
	}
	if limit <= 0 {
		// The records that came with the handshake may sit in the
		// socket rather than in crypto/tls's buffer (a later segment):
		// a read with a deadline already past never reaches the socket.
		_, err := readUnasked(tc, time.Now().Add(waitSettle))
		return err
	}
	if done, err := readUnasked(tc, time.Unix(1, 0)); done {
		return err
	}
	tc.SetReadDeadline(time.Now().Add(limit))
	if arrived, watched := waitReadable(tc.NetConn()); watched {
		if !arrived {
			return nil
		}
		tc.SetReadDeadline(time.Now().Add(waitSettle))
	}
	_, err := readUnasked(tc, time.Time{})
	return err
}

// readUnasked reads tc until its deadline (set to deadline unless zero):
// crypto/tls processes the records it holds or the socket has, then
// waits for application data. done: the server closed, sent an alert or
// sent data (nothing more to wait for).
func readUnasked(tc *tls.Conn, deadline time.Time) (done bool, err error) {
	if !deadline.IsZero() {
		tc.SetReadDeadline(deadline)
	}
	var b [1]byte
	n, err := tc.Read(b[:])
	if n > 0 {
		answered(tc)
		return true, nil
	}
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return false, nil
	case err == nil, errors.Is(err, io.EOF):
		return true, nil
	}
	return true, err
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
