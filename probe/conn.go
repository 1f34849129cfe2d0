package probe

import (
	"context"
	"crypto/tls"
	"net"
	"sync/atomic"
	"time"

	"github.com/tlsbench/tlsbench/tlsconf"
)

// connResult is everything one probe connection showed.
type connResult struct {
	// Err is the dial or handshake error; DialErr says it was the dial.
	Err     error
	DialErr bool
	State   tls.ConnectionState
	Answer  answer
	// Offer is what the ClientHello offered (OfferSeen: it was parsed).
	Offer     helloOffer
	OfferSeen bool
	// Flight is the plaintext part of the server's handshake.
	Flight serverFlight
	// Sessions crypto/tls stored during the connection, one per ticket.
	Sessions []*tls.ClientSessionState
	// CertRequested: the server sent a CertificateRequest.
	CertRequested bool
	// Clock is the connection's frozen clock (zero: the real one).
	Clock time.Time
}

// connSpec says how to make one probe connection.
type connSpec struct {
	version uint16
	suites  []uint16 // nil: Go's defaults
	offer   *tls.ClientSessionState
	// insecure skips verification regardless of the options (only to
	// read the chain of a server that failed verification).
	insecure bool
	// freeze pins the connection's clock, so that a TLS 1.3 ticket's
	// use-by time minus its creation time is exactly its lifetime.
	freeze bool
}

// clientConfig is the *tls.Config of the probe's clients for version v.
func (p *prober) clientConfig(v uint16, suites []uint16, insecure bool) *tls.Config {
	cfg := tlsconf.Client(tlsconf.ClientOptions{
		Version:     v,
		RootCAs:     p.o.RootCAs,
		ServerName:  p.o.ServerName,
		Insecure:    p.o.Insecure || insecure,
		Certificate: p.o.ClientCert,
		NextProtos:  p.o.ALPN,
	})
	cfg.CipherSuites = suites
	return cfg
}

// connect makes one connection: dial, handshake, request, answer, and a
// short wait for late tickets.
func (p *prober) connect(ctx context.Context, s connSpec) connResult {
	var res connResult
	cfg := p.clientConfig(s.version, s.suites, s.insecure)
	rec := &recorder{offer: s.offer}
	cfg.ClientSessionCache = rec
	if s.freeze {
		t0 := time.Now()
		res.Clock = t0
		cfg.Time = func() time.Time { return t0 }
	}
	var requested atomic.Bool
	inner := cfg.GetClientCertificate
	cfg.GetClientCertificate = func(cri *tls.CertificateRequestInfo) (*tls.Certificate, error) {
		requested.Store(true)
		if inner != nil {
			return inner(cri)
		}
		return &tls.Certificate{}, nil // no certificate: an empty Certificate message
	}

	cctx, cancel := context.WithTimeout(ctx, p.o.Timeout)
	defer cancel()
	var d net.Dialer
	raw, err := d.DialContext(cctx, "tcp", p.o.Addr)
	if err != nil {
		res.Err, res.DialErr = err, true
		return res
	}
	defer raw.Close()
	if dl, ok := cctx.Deadline(); ok {
		raw.SetDeadline(dl)
	}
	w := &wireConn{Conn: raw}
	tc := tls.Client(w, cfg)
	err = tc.HandshakeContext(cctx)
	w.stop()
	out, in := w.observed()
	res.Offer, res.OfferSeen = parseClientHelloOffer(out)
	res.Flight = parseServerFlight(in)
	res.CertRequested = requested.Load()
	if err != nil {
		res.Err = err
		res.Sessions = rec.stored()
		return res
	}
	res.State = tc.ConnectionState()
	res.Answer = p.exchange(tc)
	res.Sessions = rec.stored()
	tc.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
	tc.Close() // close_notify, then the socket
	return res
}

// offered reports whether the connection's ClientHello offered its
// session (a TLS 1.2 ticket or a TLS 1.3 PSK).
func (r connResult) offered(v uint16) bool {
	if v >= tls.VersionTLS13 {
		return r.Offer.PSK
	}
	return r.Offer.Ticket
}
