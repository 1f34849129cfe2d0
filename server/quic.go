package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"

	"github.com/tlsbench/tlsbench/tlsconf"
)

// ALPNHTTP3 is HTTP/3's application protocol, which the server's QUIC
// listener answers besides tlsconf.ALPNQUICPing, so that HTTP/3 clients
// (curl, ngtcp2's examples, browsers) can be pointed at it.
const ALPNHTTP3 = "h3"

// quicALPN are the application protocols of the QUIC listener, in the
// server's order of preference (crypto/tls chooses the first of them the
// client offers).
var quicALPN = []string{tlsconf.ALPNQUICPing, ALPNHTTP3}

// Limits of a QUIC connection. A client of the ping protocol opens one
// stream, and an HTTP/3 client one request stream at a time besides its
// control and QPACK streams: a few of each are enough, and what a
// hostile client can make the server buffer is a few windows of a few
// KiB per connection.
const (
	quicMaxStreams    = 4
	quicMaxUniStreams = 8
	quicStreamWindow  = 16 << 10
	quicConnWindow    = 64 << 10
	// quicMaxHandshaking is how many handshakes may be in flight before
	// new clients must prove their address first (a Retry, one round
	// trip more): a flood of Initial packets from spoofed addresses then
	// costs the server a stateless answer each, not a connection. Far
	// above the handshakes a benchmark starts at once.
	quicMaxHandshaking = 4096
	// quicRefuseHandshaking is how many handshakes may be in flight
	// before even a client that proved its address is refused
	// (CONNECTION_REFUSED, stateless): a client at a real address
	// answers the Retries, and one that sends valid ClientHellos and
	// then stalls holds its handshakes until the handshake timeout;
	// beyond this many, such a flood holds no more.
	quicRefuseHandshaking = 2 * quicMaxHandshaking
	// quicMaxAwaitingHello is how many connections may be waiting for
	// their ClientHello before new clients must prove their address
	// (Retry). quic-go gives every Initial packet with a valid header
	// and a new connection ID a connection (about 130 KB of memory with
	// its goroutines) before it tries to decrypt it, and one that never
	// decrypts, or never completes a ClientHello, holds it for the
	// handshake timeout: 2,000 such packets a second from one address
	// held 4,096 connections, over 500 MB. A client's ClientHello
	// follows its first Initial within a round trip at most (it spans
	// two packets sent together), so a benchmark's connections wait for
	// it a moment each; those of a garbage flood wait until they time
	// out, and beyond this many the flood gets stateless Retries it
	// never answers, while a real client pays a round trip more.
	quicMaxAwaitingHello = 512
	// quicRefuseAwaitingHello is how many connections may be waiting for
	// their ClientHello before even a client that proved its address is
	// refused (CONNECTION_REFUSED, stateless): a flood that answers the
	// Retries from a real address holds this many connections at most.
	quicRefuseAwaitingHello = 2 * quicMaxAwaitingHello
)

// QUICListener is the built-in server's QUIC endpoint: a UDP socket and
// the QUIC listener on it. Create it with Server.ListenQUIC and serve it
// with Server.ServeQUIC, which closes it.
type QUICListener struct {
	udp *net.UDPConn
	tr  *quic.Transport
	ln  *quic.EarlyListener
}

// Addr is the UDP address the listener accepts QUIC on.
func (l *QUICListener) Addr() net.Addr { return l.udp.LocalAddr() }

// Close stops the listener and closes its socket; ServeQUIC does it when
// its context ends.
func (l *QUICListener) Close() error {
	l.ln.Close()
	err := l.tr.Close()
	if cerr := l.udp.Close(); err == nil {
		err = cerr
	}
	return err
}

// ListenQUIC listens for QUIC on the UDP address addr (host:port; port 0
// for a free one), with the server's identities, session policy and
// counters, TLS 1.3 only. The error names the address as UDP: a UDP port
// can be taken while the TCP port of the same number is free. A
// GetConfigForClient of the configuration the server was made with is
// not used over QUIC.
func (s *Server) ListenQUIC(addr string) (*QUICListener, error) {
	ua, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, fmt.Errorf("QUIC: UDP address %s: %w", addr, err)
	}
	udp, err := net.ListenUDP("udp", ua)
	if err != nil {
		if oe, ok := err.(*net.OpError); ok {
			err = oe.Err // without the address again
		}
		return nil, fmt.Errorf("QUIC: cannot listen on UDP %s: %w", addr, err)
	}
	tr := &quic.Transport{
		Conn:                udp,
		ConnContext:         s.quicConnContext,
		VerifySourceAddress: s.quicVerifyAddress,
	}
	ln, err := tr.ListenEarly(s.quicTLSConfig(), s.quicConfig())
	if err != nil {
		udp.Close()
		return nil, fmt.Errorf("QUIC: listening on UDP %s: %w", addr, err)
	}
	return &QUICListener{udp: udp, tr: tr, ln: ln}, nil
}

// quicConfig is the QUIC listener's configuration: the server's
// handshake and idle timeouts, small limits, and 0-RTT allowed (the
// session policy decides each time; see earlyData).
func (s *Server) quicConfig() *quic.Config {
	return &quic.Config{
		// quic-go bounds the whole handshake to twice its idle timeout;
		// awaitHandshake bounds it to the server's timeout.
		HandshakeIdleTimeout:           s.handshakeTimeout,
		MaxIdleTimeout:                 s.idleTimeout,
		MaxIncomingStreams:             quicMaxStreams,
		MaxIncomingUniStreams:          quicMaxUniStreams,
		InitialStreamReceiveWindow:     quicStreamWindow,
		MaxStreamReceiveWindow:         quicStreamWindow,
		InitialConnectionReceiveWindow: quicConnWindow,
		MaxConnectionReceiveWindow:     quicConnWindow,
		Allow0RTT:                      true,
	}
}

// quicTLSConfig is the server's TLS configuration for QUIC: the same
// identities, key manager and session policy, TLS 1.3 (as QUIC
// requires), the QUIC listener's application protocols, and the hooks
// that tie each handshake to its connection's record (quicConn).
func (s *Server) quicTLSConfig() *tls.Config {
	cfg := s.quicBase.Clone()
	cfg.MinVersion, cfg.MaxVersion = tls.VersionTLS13, tls.VersionTLS13
	cfg.NextProtos = quicALPN
	// Go's QUIC server never renegotiates and has no key log of its own
	// (kTLS's per-connection key log is for TCP).
	cfg.KeyLogWriter = nil
	cfg.GetConfigForClient = s.quicClientHello
	if get := cfg.GetCertificate; get != nil {
		cfg.GetCertificate = func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
			return get(quicHello(hello))
		}
	}
	return cfg
}

// ServeQUIC accepts QUIC connections from l until ctx is done (or the
// listener fails), then closes the connections (CONNECTION_CLOSE, no
// error) and l, and waits for the connections it started to end.
func (s *Server) ServeQUIC(ctx context.Context, l *QUICListener) error {
	defer s.limit.Flush()
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	// Handshakes that fail from now on were cut short by the stop.
	stopping := context.AfterFunc(ctx, func() { s.quicStopping.Store(true) })
	defer stopping()
	h3 := s.http3Server()
	var conns sync.WaitGroup
	var err error
	for {
		c, aerr := l.ln.Accept(ctx)
		if aerr != nil {
			if ctx.Err() == nil && !errors.Is(aerr, quic.ErrServerClosed) {
				err = aerr
			}
			break
		}
		qc := quicConnOf(c.Context())
		if qc == nil || !qc.accepted(c) {
			// Its handshake has already failed and been counted.
			c.CloseWithError(0, "")
			continue
		}
		conns.Go(func() { s.serveQUICConn(ctx, qc, h3) })
	}
	// The connections end on ctx; closing the transport first would
	// drop them without a word to their clients.
	stop()
	conns.Wait()
	if cerr := l.Close(); err == nil {
		err = cerr
	}
	return err
}

// serveQUICConn runs one accepted connection, handed over as soon as the
// client's first flight is read (before the handshake completes, so that
// early data can be answered), to its end: its protocol on a goroutine
// of its own, while this one counts the handshake when it ends.
func (s *Server) serveQUICConn(ctx context.Context, qc *quicConn, h3 *http3.Server) {
	// When ctx ends, the connection closes: every wait below ends with it.
	stop := context.AfterFunc(ctx, func() { qc.conn.CloseWithError(0, "server shutting down") })
	defer stop()
	defer qc.conn.CloseWithError(0, "")
	done := make(chan struct{})
	go func() {
		defer close(done)
		switch qc.alpn {
		case tlsconf.ALPNQUICPing:
			s.servePing(qc)
		case ALPNHTTP3:
			// HTTP/3's own idle timer stops while a request is open,
			// and a client's PINGs keep QUIC's from firing: a client
			// that opens a request and never ends it would hold the
			// connection for good. An HTTP/3 connection lives at most
			// the handshake's time and the idle timeout (a benchmark's
			// client makes one request a connection).
			cut := time.AfterFunc(s.handshakeTimeout+s.idleTimeout, func() {
				qc.conn.CloseWithError(quic.ApplicationErrorCode(http3.ErrCodeNoError), "connection time is up")
			})
			h3.ServeQUICConn(qc.conn)
			cut.Stop()
		}
		// No protocol agreed: crypto/tls fails such a handshake.
	}()
	s.awaitHandshake(qc)
	<-done
}
