package proxy

import (
	"crypto/tls"
	"io"
	"net"
	"syscall"
)

// Relay modes of a leg, the keys of Counters.Relay after "client:" or
// "origin:".
const (
	ModeUser   = "user"   // crypto/tls in this process
	ModeKTLS   = "ktls"   // the kernel encrypts and decrypts; bytes pass through this process
	ModeSplice = "splice" // the kernel moves the bytes from leg to leg
)

// leg is one side of a proxied connection: the client's or the origin's.
type leg struct {
	name string   // "client" or "origin"
	tcp  net.Conn // the TCP connection
	lc   *legConn // under tls
	tls  *tls.Conn
	k    kernelLeg // the kernel's side of the leg, when it has one

	// rw is what the relay reads and writes (tls, or the kernel's
	// connection), mode how, closeWrite how it ends its half.
	rw         io.ReadWriter
	mode       string
	closeWrite func() error
}

// newLeg makes the leg of tcp; the caller sets l.tls over l.lc.
func (p *Proxy) newLeg(name string, tcp net.Conn) *leg {
	l := &leg{name: name, tcp: tcp}
	l.lc = newLegConn(p.kernel.wrap(l, tcp), tcp)
	return l
}

// under is the connection crypto/tls runs over.
func (l *leg) under() net.Conn { return l.lc }

// userSpace makes the relay use crypto/tls on this leg.
func (l *leg) userSpace() {
	l.rw, l.mode = l.tls, ModeUser
	l.closeWrite = func() error {
		// close_notify first, then FIN: a peer that reads TLS sees the
		// clean end, one that waits for the socket sees it too.
		err := l.tls.CloseWrite()
		if cw, ok := l.tcp.(interface{ CloseWrite() error }); ok {
			cw.CloseWrite()
		}
		return err
	}
}

// legConn is the connection under a leg's crypto/tls: it serves first
// the bytes a client sent before the CONNECT answer, carries the CONNECT
// host (for the certificate of a client without SNI), and can read
// without waiting, for read-fill (tryRead).
type legConn struct {
	net.Conn        // TCP, or the kernel TLS helper's wrapper of it
	host     string // client leg: the CONNECT host
	early    []byte // client leg: sent before the answer
	sawEarly bool   // and there were some

	// try makes Read return errWouldBlock instead of waiting. Only the
	// goroutine that reads the leg's tls.Conn sets it, around a Read.
	try   bool
	raw   syscall.RawConn
	tryFn func(fd uintptr) bool // tryOnce, made once: no allocation per read
	p     []byte
	n     int
	err   error
}

func newLegConn(inner, tcp net.Conn) *legConn {
	c := &legConn{Conn: inner}
	if sc, ok := tcp.(syscall.Conn); ok {
		if raw, err := sc.SyscallConn(); err == nil {
			c.raw = raw
			c.tryFn = c.tryOnce
		}
	}
	return c
}

// NetConn returns the connection legConn wraps.
func (c *legConn) NetConn() net.Conn { return c.Conn }

func (c *legConn) Read(p []byte) (int, error) {
	if len(c.early) > 0 {
		c.sawEarly = true
		n := copy(p, c.early)
		c.early = c.early[n:]
		return n, nil
	}
	if c.try {
		return c.tryRead(p)
	}
	return c.Conn.Read(p)
}

// tryRead reads what the socket holds now, or returns errWouldBlock.
func (c *legConn) tryRead(p []byte) (int, error) {
	if c.raw == nil {
		return 0, errWouldBlock
	}
	c.p = p
	err := c.raw.Read(c.tryFn)
	c.p = nil
	if err != nil {
		return 0, err
	}
	return c.n, c.err
}

// errWouldBlock is what a try read returns when the socket is empty. It
// is a temporary net.Error, like a deadline: crypto/tls keeps the
// connection usable after one (and keeps the part of a record it has
// read), so the next blocking Read carries on where this one stopped.
var errWouldBlock error = wouldBlock{}

type wouldBlock struct{}

func (wouldBlock) Error() string   { return "nothing to read now" }
func (wouldBlock) Timeout() bool   { return true }
func (wouldBlock) Temporary() bool { return true }
