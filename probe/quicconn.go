package probe

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"

	"github.com/tlsbench/tlsbench/tlsconf"
)

// quicCIDLength is the length of the client's connection IDs: long
// enough that the server's packets for the probe's connection are told
// from anything else by their destination (quic-go's clients would use
// none when they own their socket).
const quicCIDLength = 8

// ALPNHTTP3 is HTTP/3's application protocol.
const ALPNHTTP3 = "h3"

// quicSpec says how to make one QUIC probe connection.
type quicSpec struct {
	// versions offered (nil: v1, and v2 when the server asks for it by
	// Version Negotiation).
	versions []quic.Version
	offer    *tls.ClientSessionState
	// early sends the request as early data (0-RTT) when the session
	// allows it.
	early bool
	// hold is how long the relay keeps the client's Finished from the
	// server (see relay).
	hold time.Duration
	// freeze pins the connection's clock (see connSpec.freeze).
	freeze bool
	// handshakeOnly closes the connection after the handshake.
	handshakeOnly bool
}

// quicResult is what one QUIC probe connection showed.
type quicResult struct {
	// Err is why the handshake failed (the request's failure is in
	// Answer).
	Err   error
	State quic.ConnectionState
	// Rejected: the client sent early data and the server refused it.
	Rejected bool
	Answer   answer
	Sessions []*tls.ClientSessionState
	Relay    relayLog
	Clock    time.Time
	// Ended is when the connection was closed.
	Ended time.Time
}

// earlySent reports whether the client's first flight carried early
// data: 0-RTT packets, seen on the wire.
func (r quicResult) earlySent() bool { return r.Relay.FlightCounts.ZeroRTT > 0 }

// quicClientConfig is the TLS configuration of a QUIC probe connection.
func (p *prober) quicClientConfig() *tls.Config {
	cfg := p.clientConfig(tls.VersionTLS13, nil, false)
	cfg.NextProtos = p.o.ALPN
	return cfg
}

// quicConnect makes one QUIC connection through a relay: handshake,
// request (as early data when s.early and the session allows it),
// answer, and TicketWait for tickets.
func (p *prober) quicConnect(ctx context.Context, s quicSpec) (res quicResult) {
	cfg := p.quicClientConfig()
	rec := &recorder{offer: s.offer}
	cfg.ClientSessionCache = rec
	switch skew := p.skews[s.offer]; {
	case s.freeze:
		t0 := time.Now()
		res.Clock = t0
		cfg.Time = func() time.Time { return t0 }
	case skew > 0:
		cfg.Time = func() time.Time { return time.Now().Add(-skew) }
	}
	rec.clock = cfg.Time
	cctx, cancel := context.WithTimeout(ctx, p.o.Timeout+s.hold)
	defer cancel()
	rl, err := newRelay(p.udpAddr, s.hold, s.early && s.offer != nil && allowsEarlyData(s.offer), cancel)
	if err != nil {
		res.Err = err
		return res
	}
	defer func() {
		res.Ended = time.Now()
		rl.Close()
		res.Relay = rl.log()
		res.Sessions = rec.stored()
		for _, cs := range res.Sessions {
			p.skews[cs] = rec.ticketSkew(cs)
		}
	}()
	udp, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		res.Err = err
		return res
	}
	defer udp.Close()
	tr := &quic.Transport{Conn: udp, ConnectionIDLength: quicCIDLength}
	defer tr.Close()
	conf := &quic.Config{HandshakeIdleTimeout: p.o.Timeout, MaxIdleTimeout: p.o.Timeout + s.hold, Versions: s.versions}
	// quic-go's race on the server's transport parameters in 0-RTT (see
	// client.DialQUIC, which holds the server's packets until the request
	// is sent) is ordered here by the relay: expecting early data, it
	// gives the client nothing from the server until the client has sent
	// something after its ClientHello, its early request, which quic-go
	// takes from the stream before it sends it (relayGatherMax at most,
	// as long as the gate's hold).
	dial := tr.Dial
	if s.early {
		dial = tr.DialEarly
	}
	conn, err := dial(cctx, rl.Addr(), cfg, conf)
	if err != nil {
		res.Err = quicErr(cctx, err)
		return res
	}
	if p.quicProto == "" {
		// The first connection: its handshake is complete (no session,
		// no early data).
		p.quicProto = conn.ConnectionState().TLS.NegotiatedProtocol
	}
	code := quic.ApplicationErrorCode(0)
	if p.quicProto == ALPNHTTP3 {
		code = 0x100 // H3_NO_ERROR
	}
	defer conn.CloseWithError(code, "")
	stop := context.AfterFunc(cctx, func() { conn.CloseWithError(code, "") })
	defer stop()
	if s.handshakeOnly {
		res.State = conn.ConnectionState()
		return res
	}
	res.Answer, res.Rejected, err = p.quicExchange(cctx, conn, rl.InitialOut())
	if err != nil {
		res.Err = quicErr(cctx, err)
		return res
	}
	res.State = conn.ConnectionState()
	// Also after a rejection: closing at once could cut off the
	// client's Finished, and the server would count a failed handshake.
	waitTickets(cctx, conn, p.o.TicketWait)
	return res
}

// quicExchange sends the request of the protocol the server chose and
// reads its answer; initialOut is closed once the ClientHello is out. When the request went as early data and the server
// rejected it, it reports rejected and does not send it again: the
// probe has learnt what it wanted. err is a handshake that failed.
func (p *prober) quicExchange(ctx context.Context, conn *quic.Conn, initialOut <-chan struct{}) (a answer, rejected bool, err error) {
	if complete(conn) {
		return p.quicRequest(ctx, conn, false), false, nil
	}
	// Early data: send it once the ClientHello is out, in datagrams of
	// its own (see replay), then see whether it was accepted.
	t := time.NewTimer(relayGatherMax / 2)
	select {
	case <-initialOut:
	case <-t.C:
	}
	t.Stop()
	a = p.quicRequest(ctx, conn, true)
	if !complete(conn) {
		select {
		case <-conn.HandshakeComplete():
		case <-conn.Context().Done():
			if !complete(conn) {
				return a, false, context.Cause(conn.Context())
			}
		case <-ctx.Done():
			return a, false, ctx.Err()
		}
	}
	if !conn.ConnectionState().Used0RTT {
		return answer{}, true, nil
	}
	return a, false, nil
}

// complete reports whether conn's handshake is complete.
func complete(conn *quic.Conn) bool {
	select {
	case <-conn.HandshakeComplete():
		return true
	default:
		return false
	}
}

// quicRequest is the request over QUIC: tlsbench's ping or HTTP/3.
func (p *prober) quicRequest(ctx context.Context, conn *quic.Conn, early bool) answer {
	var a answer
	switch p.quicProto {
	case tlsconf.ALPNQUICPing:
		a = quicPing(ctx, conn, p.o.TicketWait)
	case ALPNHTTP3:
		a = p.quicHTTP3(ctx, conn, early)
	default:
		return answer{Err: fmt.Errorf("no request: tlsbench speaks %s or %s over QUIC, the server chose %q", ALPNHTTP3, tlsconf.ALPNQUICPing, p.quicProto)}
	}
	if a.Err != nil && !errors.Is(a.Err, quic.Err0RTTRejected) {
		a.Err = noAnswer(quicErr(ctx, a.Err))
	}
	return a
}

// quicPing is tlsbench's own exchange (tlsconf.ALPNQUICPing): one byte,
// echoed, then the stream read to its end (which tlsbench's server sends
// after its session ticket), for wait at most.
func quicPing(ctx context.Context, conn *quic.Conn, wait time.Duration) answer {
	str, err := conn.OpenStream()
	if err != nil {
		return answer{Err: err}
	}
	if dl, ok := ctx.Deadline(); ok {
		str.SetDeadline(dl)
	}
	if _, err := str.Write([]byte{'p'}); err != nil {
		return answer{Err: err}
	}
	str.Close()
	var b [1]byte
	if _, err := io.ReadFull(str, b[:]); err != nil {
		return answer{Err: err}
	}
	if b[0] != 'p' {
		return answer{First: fmt.Sprintf("%q, not the byte sent", b[0])}
	}
	str.SetReadDeadline(time.Now().Add(wait))
	io.Copy(io.Discard, io.LimitReader(str, maxDrainBytes))
	return answer{First: "echo"}
}

// quicHTTP3 sends a HEAD / (GET with RequestHTTPGet) over HTTP/3 and
// reads the response; as early data when early.
func (p *prober) quicHTTP3(ctx context.Context, conn *quic.Conn, early bool) answer {
	method := http.MethodHead
	if p.o.Request == RequestHTTPGet {
		method = http.MethodGet
	}
	if early {
		method = map[string]string{http.MethodHead: http3.MethodHead0RTT, http.MethodGet: http3.MethodGet0RTT}[method]
	}
	req, err := http.NewRequestWithContext(ctx, method, "https://"+hostHeader(&p.o)+"/", nil)
	if err != nil {
		return answer{Err: err}
	}
	req.Header.Set("User-Agent", "tlsbench")
	resp, err := (&http3.Transport{}).NewClientConn(conn).RoundTrip(req)
	if err != nil {
		return answer{Err: err}
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, maxDrainBytes))
	return answer{First: resp.Proto + " " + resp.Status}
}

// waitTickets gives the server wait after the answer to send its
// tickets, which quic-go stores as they come.
func waitTickets(ctx context.Context, conn *quic.Conn, wait time.Duration) {
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
	case <-conn.Context().Done():
	case <-ctx.Done():
	}
}

// quicErr is err, or the context's error when the context ended (the
// connection timeout), which closed the connection and so caused it.
func quicErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}
