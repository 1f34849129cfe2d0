package proxy

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/tlsbench/tlsbench/internal/connerr"
)

// session holds the TCP connections of one proxied connection, so that
// whatever ends it (the proxy stopping, an idle cut, an error in one
// direction) closes both at once. Closing TCP, not TLS, is deliberate: a
// relay cut short must not look like a clean end to either peer, which
// a close_notify would claim.
type session struct {
	mu     sync.Mutex
	conns  []net.Conn
	closed bool
	failed bool
}

// add registers c; on a session already closed it closes c and says so.
func (s *session) add(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		c.Close()
		return false
	}
	s.conns = append(s.conns, c)
	return true
}

func (s *session) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for _, c := range s.conns {
		c.Close()
	}
}

// abort closes both connections with a reset: a relay cut short (an
// error on one side, an idle cut, the proxy stopping) must show as an
// error on the other side. A plain close would not: without a
// close_notify, many TLS stacks (Go's among them) take a FIN at a record
// boundary for a clean end.
func (s *session) abort() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		for _, c := range s.conns {
			if tc, ok := c.(*net.TCPConn); ok {
				tc.SetLinger(0)
			}
		}
	}
	s.closed = true
	for _, c := range s.conns {
		c.Close()
	}
}

// firstFailure reports whether this is the session's first failure: the
// errors that closing both legs causes in the other direction are
// consequences, not failures of their own.
func (s *session) firstFailure() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	first := !s.failed
	s.failed = true
	return first
}

// ServeConn runs one client connection to its end: the CONNECT request,
// the origin's TLS, the answer, the client's TLS, then the relay. It
// closes c.
func (p *Proxy) ServeConn(ctx context.Context, c net.Conn) {
	s := &session{}
	s.add(c)
	defer s.closeAll()
	stop := context.AfterFunc(ctx, s.abort)
	defer stop()
	p.c.accepted.Add(1)
	select {
	case p.slots <- struct{}{}:
		defer func() { <-p.slots }()
	default:
		p.refuse(c, &refusal{status: 503, reason: RefusedMaxConns,
			detail: fmt.Sprintf("the proxy serves at most %d connections at once; try again later", p.o.MaxConns)})
		return
	}
	p.c.active.Add(1)
	defer p.c.active.Add(-1)
	if !p.allowed(c.RemoteAddr()) {
		p.refuse(c, &refusal{status: 403, reason: RefusedSource, detail: "this client's address is not allowed to use the proxy"})
		return
	}
	// A silent client holds its slot only until RequestTimeout: with
	// MaxConns of them, new clients are refused that long, not for the
	// handshakes' whole time.
	c.SetDeadline(time.Now().Add(p.o.RequestTimeout))
	req, ok := p.readRequest(c)
	if !ok {
		return
	}
	deadline := time.Now().Add(p.o.HandshakeTimeout)
	c.SetDeadline(deadline)
	origin, err := p.dialOrigin(ctx, s, req, deadline)
	var ref *refusal
	switch {
	case errors.As(err, &ref): // a destination the proxy does not dial
		p.refuse(c, ref)
		return
	case err != nil:
		p.refuseOrigin(c, req, err)
		return
	}
	if _, err := io.WriteString(c, established); err != nil {
		return
	}
	p.c.connects.Add(1)
	client, err := p.clientHandshake(ctx, c, req, deadline)
	if err != nil {
		p.clientFailed(c, req, err)
		return
	}
	c.SetDeadline(time.Time{})
	origin.tcp.SetDeadline(time.Time{})
	p.relay(ctx, s, client, origin)
}

// clientFailed counts and logs a client handshake that failed or that
// the proxy refused.
func (p *Proxy) clientFailed(c net.Conn, req request, err error) {
	var sm *sniMismatch
	if errors.As(err, &sm) {
		p.c.add(p.c.failures, FailureSNIMismatch)
		p.connLog.Info("client handshake refused", "remote", remoteAddr(c), "host", req.host, "sni", clip(sm.sni),
			"reason", "the TLS server name is not the CONNECT host")
		return
	}
	p.failed("client", err)
	p.connLog.Info("client handshake failed", "remote", remoteAddr(c), "host", req.host, "kind", connerr.Kind(err), "reason", clip(err.Error()))
}

// readRequest reads and checks the CONNECT request, answering what it
// refuses.
func (p *Proxy) readRequest(c net.Conn) (request, bool) {
	bp := p.headBuf.Get().(*[]byte)
	defer p.headBuf.Put(bp)
	head, rest, err := readHead(c, *bp)
	if err != nil {
		switch {
		case errors.Is(err, errHeadTooLong):
			p.refuse(c, &refusal{status: 400, reason: RefusedMalformed, detail: "request head longer than 8 KiB"})
		case errors.Is(err, os.ErrDeadlineExceeded):
			p.c.add(p.c.refused, RefusedTimeout)
			p.connLog.Info("request refused", "remote", remoteAddr(c), "reason", fmt.Sprintf("no complete request within %v", p.o.RequestTimeout))
		default:
			// The client went away before its request ended: nobody
			// to answer.
			p.c.add(p.c.refused, RefusedMalformed)
			p.connLog.Debug("connection closed before a complete request", "remote", remoteAddr(c), "err", clip(err.Error()))
		}
		return request{}, false
	}
	req, ref := parseConnect(head, p.o.ConnectPorts)
	if ref != nil {
		p.refuse(c, ref)
		return request{}, false
	}
	if len(rest) > 0 {
		// Sent before our answer: its TLS starts here. Copied, as the
		// head buffer goes back to the pool.
		req.early = append([]byte(nil), rest...)
	}
	return req, true
}

// refuse answers r, counts it and logs one line.
func (p *Proxy) refuse(c net.Conn, r *refusal) {
	p.c.add(p.c.refused, r.reason)
	p.connLog.Info("request refused", "remote", remoteAddr(c), "status", r.status, "reason", r.detail)
	p.writeRefusal(c, r)
}

// refuseOrigin answers 502 for an origin that could not be reached or
// verified: a warning, as it is the proxy's own side that failed.
func (p *Proxy) refuseOrigin(c net.Conn, req request, err error) {
	r := &refusal{status: 502, reason: RefusedOrigin, detail: fmt.Sprintf("origin %s: %v", net.JoinHostPort(req.host, strconv.Itoa(req.port)), err)}
	p.c.add(p.c.refused, r.reason)
	p.failed("origin", err)
	p.connLog.Warn("origin refused", "remote", remoteAddr(c), "origin", net.JoinHostPort(req.host, strconv.Itoa(req.port)), "kind", connerr.Kind(err), "reason", clip(err.Error()))
	p.writeRefusal(c, r)
}

// lingerLimit bounds what the proxy reads and discards after an error
// answer, and for how long.
const (
	lingerBytes = 64 << 10
	lingerTime  = time.Second
)

// writeRefusal sends the answer and half-closes, then reads a little of
// what the client still sends: closing with unread bytes would reset the
// connection, and a reset can destroy the answer before the client reads
// it.
func (p *Proxy) writeRefusal(c net.Conn, r *refusal) {
	c.SetDeadline(time.Now().Add(lingerTime))
	if answer(c, r) != nil {
		return
	}
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
		io.CopyN(io.Discard, c, lingerBytes)
	}
}

// failed counts a failed connection: leg plus the error's kind.
func (p *Proxy) failed(leg string, err error) {
	p.c.add(p.c.failures, leg+":"+connerr.Kind(err))
}

// dialOrigin connects to the origin and completes TLS with it, verifying
// it for the CONNECT host.
func (p *Proxy) dialOrigin(ctx context.Context, s *session, req request, deadline time.Time) (*leg, error) {
	dctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	addrs, err := p.resolveDest(dctx, req.host)
	if err != nil {
		return nil, err
	}
	raw, err := p.dialAddrs(dctx, addrs, req.port)
	if err != nil {
		return nil, p.dialError(req.host, err)
	}
	if !s.add(raw) {
		return nil, net.ErrClosed
	}
	raw.SetDeadline(deadline)
	l := p.newLeg("origin", raw)
	cfg := p.originTLS.Clone()
	cfg.ServerName = req.host
	l.tls = tls.Client(l.under(), p.kernel.clientConfig(cfg, l))
	hctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	if err := l.tls.HandshakeContext(hctx); err != nil {
		return nil, p.handshakeError("origin", err)
	}
	p.c.originHS.Add(1)
	if l.tls.ConnectionState().DidResume {
		p.c.originRes.Add(1)
	}
	return l, nil
}

// dialError says in the user's words why the origin could not be
// reached, without the dial's own wrapping ("dial tcp 127.0.0.1:1:") or
// the resolver's address: the answer names the origin already. The
// error it wraps keeps its kind for the counters.
func (p *Proxy) dialError(host string, err error) error {
	var dns *net.DNSError
	var se *os.SyscallError
	switch {
	case errors.As(err, &dns) && dns.IsNotFound:
		return &userError{"cannot resolve host " + clip(host) + ": no such host", err}
	case errors.As(err, &dns) && dns.IsTimeout:
		return &userError{"cannot resolve host " + clip(host) + ": no answer from the name server in time", err}
	case errors.As(err, &dns):
		return &userError{"cannot resolve host " + clip(host), err}
	case isTimeout(err):
		return &userError{fmt.Sprintf("timed out after %v connecting to the origin", p.o.HandshakeTimeout), err}
	case errors.As(err, &se):
		return &userError{se.Err.Error(), err} // "connection refused", "no route to host"
	}
	return err
}

// handshakeError says in the user's words why a leg's handshake failed
// where Go's own text would not ("context deadline exceeded", "EOF"); a
// TLS error (an alert, a certificate) is left as it is.
func (p *Proxy) handshakeError(leg string, err error) error {
	switch {
	case isTimeout(err):
		return &userError{fmt.Sprintf("timed out after %v waiting for the %s's TLS handshake", p.o.HandshakeTimeout, leg), err}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return &userError{"the " + leg + " closed the connection during the TLS handshake", err}
	case errors.Is(err, syscall.ECONNRESET):
		return &userError{"the " + leg + " reset the connection during the TLS handshake", err}
	}
	return err
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

// userError is an error with a message for users; it wraps the error it
// explains.
type userError struct {
	msg string
	err error
}

func (e *userError) Error() string { return e.msg }
func (e *userError) Unwrap() error { return e.err }

// clientHandshake terminates the client's TLS with a certificate minted
// for the host it asks for.
func (p *Proxy) clientHandshake(ctx context.Context, c net.Conn, req request, deadline time.Time) (*leg, error) {
	l := p.newLeg("client", c)
	l.lc.host = req.host
	l.lc.early = req.early
	l.tls = tls.Server(l.under(), p.kernel.serverConfig(p.clientTLS, l))
	hctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	if err := l.tls.HandshakeContext(hctx); err != nil {
		return nil, p.handshakeError("client", err)
	}
	p.c.clientHS.Add(1)
	if l.tls.ConnectionState().DidResume {
		p.c.clientResumed.Add(1)
	}
	return l, nil
}
