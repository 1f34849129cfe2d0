package server

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/tlsbench/tlsbench/internal/connerr"
	"github.com/tlsbench/tlsbench/keys"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// A QUIC handshake runs on quic-go's goroutines, not on one of the
// server's: the server learns of a connection when quic-go asks for its
// context (the client's first Initial packet), sees its ClientHello and
// certificate choice in crypto/tls's callbacks (found by that context),
// gets it from the listener as soon as its first flight is read, and
// counts it when the handshake completes or the connection ends without.
// quicConn is what the server keeps of one connection meanwhile.
type quicConn struct {
	s      *Server
	start  time.Time
	remote string

	// Set by crypto/tls's callbacks during the handshake (on quic-go's
	// goroutine for the connection), read after the listener hands the
	// connection over or its handshake ends, which follow them.
	offered bool   // the ClientHello offered early data
	alpn    string // the protocol crypto/tls chooses (chooseALPN)
	keyTime time.Duration
	keyUsed bool
	hello   net.Conn // what the key manager saw as the connection (keys.Rejection)
	// tlsCtx is crypto/tls's handshake context, which it cancels as its
	// handshake ends, either way, in the same breath as it hands quic-go
	// the outcome: quic-go has yet to build and send a packet before the
	// client can know it (see decided).
	tlsCtx atomic.Pointer[context.Context]

	mu     sync.Mutex
	conn   *quic.Conn // once the listener handed it over
	ended  bool       // its context is done: the connection is closed
	ok     bool       // the handshake completed (after outcome is closed)
	counts atomic.Bool
	// awaiting is set until the ClientHello is read or the handshake
	// settles, whichever comes first (Server.quicAwaitingHello).
	awaiting atomic.Bool
	// settled is set once the handshake's outcome is in the counters;
	// outcome is closed then, for a connection handed over.
	settled atomic.Bool
	outcome chan struct{}
}

type quicConnKey struct{}

// quicConnOf returns the record of the connection whose context (or a
// context derived from it, such as crypto/tls's ClientHelloInfo's) is ctx.
func quicConnOf(ctx context.Context) *quicConn {
	if ctx == nil {
		return nil
	}
	qc, _ := ctx.Value(quicConnKey{}).(*quicConn)
	return qc
}

// The reasons a new QUIC connection is refused: too many others wait
// for their ClientHello (quicRefuseAwaitingHello), too many handshakes
// are in flight (quicRefuseHandshaking), or the server is at its
// connection cap (WithMaxConns).
var (
	errAwaitingHello = errors.New("too many connections are waiting for their ClientHello")
	errHandshaking   = errors.New("too many handshakes are in flight")
	errMaxConns      = errors.New("at the connection limit")
)

// quicVerifyAddress is the transport's VerifySourceAddress: whether a
// client must prove its address with a Retry before it gets a
// connection, as it must when many handshakes are in flight, many
// connections wait for a ClientHello (quicMaxAwaitingHello), or three
// quarters of the connection cap are taken: the cap is TCP's too, and
// below the other limits (a small --max-conns) Initials from spoofed
// addresses would otherwise hold all of it until they time out, TCP
// clients refused meanwhile.
func (s *Server) quicVerifyAddress(addr net.Addr) bool {
	waiting, held := s.quicAwaitingHello.Load(), s.held.Load()
	if s.quicHandshaking.Load() <= s.quicRetryHandshaking && waiting < s.quicRetryAt &&
		held < int64(s.maxConns-s.maxConns/4) {
		return false
	}
	s.connLog.Info("QUIC client asked to prove its address (Retry)", "remote", addr.String(),
		"handshakes", s.quicHandshaking.Load(), "awaiting_client_hello", waiting, "conns", held)
	return true
}

// quicConnContext is the transport's ConnContext: a new connection
// attempt, counted as accepted (as a TCP connection is at accept), whose
// record travels in its context. Its failure is counted when the context
// ends before the listener handed the connection over. While too many
// connections wait for their ClientHello or too many handshakes are in
// flight, or at the connection cap, it is refused instead, before the
// server keeps anything of it; otherwise it holds a slot under the cap
// until its context ends, whichever way it ends.
func (s *Server) quicConnContext(ctx context.Context, ci *quic.ClientInfo) (context.Context, error) {
	qc := &quicConn{s: s, start: time.Now(), outcome: make(chan struct{})}
	if ci != nil && ci.RemoteAddr != nil {
		qc.remote = ci.RemoteAddr.String()
	}
	// Its address proven, as by a Retry: counted here, once per
	// connection, since each Initial packet of a client's first flight
	// (two, with a large key share) is answered with a Retry.
	verified := ci != nil && ci.AddrVerified
	if attrs, err := s.quicAdmit(); err != nil {
		s.quicRefuse(qc, verified, err, attrs)
		return nil, err
	}
	if verified {
		s.quicRetries.Add(1)
	}
	qc.awaiting.Store(true)
	s.quicAwaitingHello.Add(1)
	s.accepted.Add(1)
	s.active.Add(1)
	s.quicHandshaking.Add(1)
	s.hsMu.Lock()
	s.quicPending[qc] = struct{}{}
	s.hsMu.Unlock()
	ctx = context.WithValue(ctx, quicConnKey{}, qc)
	context.AfterFunc(ctx, func() { qc.closed(ctx) })
	return ctx, nil
}

// quicAdmit takes a slot under the connection cap for a new QUIC
// connection, or says why it is refused, with what to log of it. quic-go
// asks for connections' contexts one at a time (on its listener's
// goroutine), so a count read here does not change before it is
// raised. The cap is the TCP connections' one, shared: what it bounds
// is the connections served at once, each some tens of KiB and a few
// goroutines whichever its transport, and one count is one figure to
// choose (and explain) whether a client floods over TCP, QUIC or both.
func (s *Server) quicAdmit() ([]any, error) {
	if waiting := s.quicAwaitingHello.Load(); waiting >= s.quicRefuseAt {
		return []any{"awaiting_client_hello", waiting}, errAwaitingHello
	}
	if hs := s.quicHandshaking.Load(); hs >= s.quicRefuseHandshaking {
		return []any{"handshakes", hs}, errHandshaking
	}
	if s.held.Add(1) > int64(s.maxConns) {
		s.held.Add(-1)
		return []any{"max_conns", s.maxConns}, errMaxConns
	}
	return nil, nil
}

// quicRefuse counts and logs a refused connection attempt. No
// connection is made: the client's next packet of the same flight comes
// to quicConnContext again, and is neither counted nor logged again.
func (s *Server) quicRefuse(qc *quicConn, verified bool, err error, attrs []any) {
	if !s.quicRefusals.first(qc.remote, qc.start) {
		return
	}
	s.quicRefused.Add(1)
	if verified {
		s.quicRetries.Add(1)
	}
	if err == errMaxConns {
		s.refusedMaxConns.Add(1)
	}
	s.connLog.Warn("QUIC connection refused", append([]any{"remote", qc.remote, "reason", err.Error()}, attrs...)...)
}

// recentAddrs are the remote addresses of the last few connection
// attempts refused, to count an attempt once however many packets of
// its first flight are refused: those come from the same address
// together, where each of a benchmark's connections has an address of
// its own.
type recentAddrs struct {
	mu   sync.Mutex
	addr [16]string
	at   [16]time.Time
	next int
}

// recentWindow is how far apart two packets of one flight may arrive.
const recentWindow = 100 * time.Millisecond

// first reports whether addr is not among the attempts refused within
// recentWindow before now, and remembers it.
func (r *recentAddrs) first(addr string, now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, a := range r.addr {
		if a == addr && addr != "" && now.Sub(r.at[i]) < recentWindow {
			return false
		}
	}
	r.addr[r.next], r.at[r.next] = addr, now
	r.next = (r.next + 1) % len(r.addr)
	return true
}

// closed runs when the connection's context ends.
func (qc *quicConn) closed(ctx context.Context) {
	// The slot first: once Active says the connection is gone, its slot
	// can be taken again.
	qc.s.release()
	qc.s.active.Add(-1)
	qc.mu.Lock()
	qc.ended = true
	handed := qc.conn != nil
	qc.mu.Unlock()
	if !handed {
		// The listener never handed it over: its handshake failed while
		// the client's first flight was read (or the server stopped).
		// A connection is handed over within moments of that, so one
		// whose handshake completed is always handed over first.
		qc.s.quicFailed(qc, context.Cause(ctx))
	}
}

// accepted records the connection the listener handed over, unless its
// failure was already counted.
func (qc *quicConn) accepted(c *quic.Conn) bool {
	qc.mu.Lock()
	defer qc.mu.Unlock()
	if qc.counts.Load() {
		return false
	}
	qc.conn = c
	return true
}

// quicClientHello is the QUIC configuration's GetConfigForClient: it
// notes what the connection's ClientHello asks for, and keeps the
// configuration.
func (s *Server) quicClientHello(hello *tls.ClientHelloInfo) (*tls.Config, error) {
	if qc := quicConnOf(hello.Context()); qc != nil {
		qc.helloRead()
		qc.offered = slices.Contains(hello.Extensions, extensionEarlyData)
		qc.alpn = chooseALPN(hello.SupportedProtos)
		ctx := hello.Context()
		qc.tlsCtx.Store(&ctx)
	}
	return nil, nil
}

// helloRead ends qc's wait for its ClientHello, once: when crypto/tls
// reads it, or when the handshake settles without it.
func (qc *quicConn) helloRead() {
	if qc.awaiting.CompareAndSwap(true, false) {
		qc.s.quicAwaitingHello.Add(-1)
	}
}

// extensionEarlyData is the early_data extension's type (RFC 8446).
const extensionEarlyData = 42

// chooseALPN is the protocol crypto/tls agrees with a client that offers
// protos: the first of the server's (quicALPN) the client offers. The
// server needs it before the handshake ends, to answer early data, and
// crypto/tls's connection state is only readable after.
func chooseALPN(protos []string) string {
	for _, p := range quicALPN {
		if slices.Contains(protos, p) {
			return p
		}
	}
	return ""
}

// quicHello is hello as the key manager should see it: on TCP its
// connection is the server's own wrapper, which times the manager's work
// (keys.KeyTimer) and records the ClientHello's bytes; quic-go's is a
// stand-in with addresses only. The QUIC one times the work too, and
// lets keys.Rejection report a refusal; the ClientHello's bytes it
// cannot record, since quic-go hands them to crypto/tls itself: the
// manager then checks certificate chains against signature_algorithms
// (and counts the handshake in its HelloUnavailable).
func quicHello(hello *tls.ClientHelloInfo) *tls.ClientHelloInfo {
	qc := quicConnOf(hello.Context())
	if qc == nil {
		return hello
	}
	h := *hello
	qc.hello = keys.RecordClientHello(hello.Conn)
	h.Conn = &quicKeyConn{Conn: qc.hello, qc: qc}
	return &h
}

// quicKeyConn is a QUIC connection as the key manager sees it.
type quicKeyConn struct {
	net.Conn
	qc *quicConn
}

// AddKeyTime implements keys.KeyTimer.
func (c *quicKeyConn) AddKeyTime(d time.Duration) {
	c.qc.keyTime += d
	c.qc.keyUsed = true
}

// NetConn returns the recorder under it, where keys.Rejection looks.
func (c *quicKeyConn) NetConn() net.Conn { return c.Conn }

// awaitHandshake waits until the handshake of a connection handed over
// completes, fails, or outlasts the server's handshake timeout (which
// closes the connection), counts it, and closes qc.outcome.
func (s *Server) awaitHandshake(qc *quicConn) {
	c := qc.conn
	t := time.NewTimer(time.Until(qc.start.Add(s.handshakeTimeout)))
	defer t.Stop()
	select {
	case <-c.HandshakeComplete():
	case <-c.Context().Done():
	case <-t.C:
	}
	select {
	case <-c.HandshakeComplete():
		s.quicCompleted(qc, c.ConnectionState())
		return
	default:
	}
	err := context.Cause(c.Context())
	if err == nil {
		// Closing waits for quic-go and crypto/tls to stop working on
		// the connection, so that its record is no longer written.
		c.CloseWithError(0, "handshake timeout")
		err = &quic.HandshakeTimeoutError{}
	}
	s.quicFailed(qc, err)
}

// quicCompleted counts a completed handshake.
func (s *Server) quicCompleted(qc *quicConn, st quic.ConnectionState) {
	if !qc.counts.CompareAndSwap(false, true) {
		return
	}
	qc.ok = true
	// Phases first: a snapshot that counts the handshake has its phases.
	s.phases.handshake.Record(time.Since(qc.start))
	if qc.keyUsed {
		s.phases.key.Record(qc.keyTime)
	}
	s.handshakeCPU.addUnmeasured()
	if qc.offered {
		s.earlyOffered.Add(1)
		if st.Used0RTT {
			s.earlyAccepted.Add(1)
		} else {
			s.earlyRejected.Add(1)
		}
	}
	s.mu.Lock()
	s.quicVersions[tlsconf.QUICVersionName(uint32(st.Version))]++
	s.mu.Unlock()
	s.countHandshake(st.TLS)
	s.quicSettled(qc)
}

// quicFailed counts a failed handshake and logs it.
func (s *Server) quicFailed(qc *quicConn, err error) {
	if !qc.counts.CompareAndSwap(false, true) {
		return
	}
	kind := s.quicFailureKind(qc, err)
	s.mu.Lock()
	s.failures[kind]++
	s.mu.Unlock()
	s.quicSettled(qc)
	s.logHandshakeFailure(qc.remote, nil, kind, err)
}

// quicSettled ends the wait of Counters for qc's outcome.
func (s *Server) quicSettled(qc *quicConn) {
	qc.helloRead()
	s.quicHandshaking.Add(-1)
	s.hsMu.Lock()
	delete(s.quicPending, qc)
	s.hsMu.Unlock()
	qc.settled.Store(true)
	close(qc.outcome)
}

// decided tells whether qc's handshake has an outcome that may not be
// counted yet: crypto/tls has ended it (completed or failed; quic-go
// tells the client after that), or the connection is closed.
func (qc *quicConn) decided() bool {
	if ctx := qc.tlsCtx.Load(); ctx != nil && (*ctx).Err() != nil {
		return true
	}
	qc.mu.Lock()
	c, ended := qc.conn, qc.ended
	qc.mu.Unlock()
	if ended || c == nil {
		return ended
	}
	select {
	case <-c.HandshakeComplete():
		return true
	case <-c.Context().Done():
		return true
	default:
		return false
	}
}

// settleQUIC waits, until deadline, for the QUIC handshakes whose
// outcome a client may already have seen to be counted (see settle):
// those crypto/tls has ended, or whose connection closed, but that are
// not counted yet. quic-go tells a client of its refusal (and counts it
// here) after crypto/tls has ended the handshake. As on TCP, a
// handshake whose client's last flight the server has not read yet is
// not waited for: a client of the ping protocol, which reads the end of
// its stream, finds it counted anyway.
func (s *Server) settleQUIC(deadline time.Time) {
	var waiting []*quicConn
	s.hsMu.Lock()
	for qc := range s.quicPending {
		if qc.decided() {
			waiting = append(waiting, qc)
		}
	}
	s.hsMu.Unlock()
	for _, qc := range waiting {
		for !qc.settled.Load() && time.Now().Before(deadline) {
			time.Sleep(100 * time.Microsecond)
		}
	}
}

// quicFailureKind classifies a failed QUIC handshake with the kinds of
// the TCP path: the client's alert (a CONNECTION_CLOSE with a TLS alert
// code), the server's own refusal as crypto/tls explains it, a client
// that gave up (eof), a timeout, the server stopping (canceled) or too
// busy to take the connection (refused).
func (s *Server) quicFailureKind(qc *quicConn, err error) string {
	if s.quicStopping.Load() {
		return connerr.Canceled
	}
	noIdentity := s.km != nil && qc.hello != nil && keys.Rejection(qc.hello) != nil
	if te, ok := errors.AsType[*quic.TransportError](err); ok {
		switch {
		case te.Remote && te.ErrorCode >= 0x100 && te.ErrorCode <= 0x1ff:
			return "alert:" + strings.TrimPrefix(tls.AlertError(te.ErrorCode-0x100).Error(), "tls: ")
		case te.Remote:
			return connerr.Reset
		case te.ErrorCode == quic.ConnectionRefused:
			// quic-go's own refusal: its queue of connections the
			// server has yet to take was full.
			return connerr.Refused
		}
		return failureKind(tlsCause(te), noIdentity)
	}
	if ae, ok := errors.AsType[*quic.ApplicationError](err); ok && ae.Remote {
		return connerr.EOF
	}
	return failureKind(err, noIdentity)
}

// tlsCause is crypto/tls's reason inside a QUIC error the server raised,
// without the alert that crypto/tls wraps it with for QUIC (the alert the
// server sent): the TCP path's counts name the reason, not the alert.
func tlsCause(te *quic.TransportError) error {
	for _, e := range te.Unwrap() {
		if e == nil || e == net.ErrClosed {
			continue
		}
		if m, ok := e.(interface{ Unwrap() []error }); ok {
			for _, inner := range m.Unwrap() {
				if _, alert := inner.(tls.AlertError); !alert && inner != nil {
					return inner
				}
			}
		}
		return e
	}
	return te
}
