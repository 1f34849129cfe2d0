package probe

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/tlsbench/tlsbench/internal/connerr"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// The QUIC probe's connections, in order:
//
//  1. a full handshake (the chain, the ALPN protocol, the request's
//     answer, the tickets and whether they allow early data);
//  2. one handshake per QUIC version, offered alone;
//  3. a resumption without early data, the client's Finished held back
//     for the window (the replay test's baseline);
//  4. a resumption with the request as early data on an unused ticket,
//     held back the same way (the original flight of the replay test);
//  5. the same ticket again with early data (ticket reuse), and when
//     that is refused an unused ticket with early data, to tell
//     single-use tickets from a server that stopped taking early data;
//  6. the first flight of 4 sent again, datagram for datagram, from
//     another address (the replay; see replay and judgeReplay).

// quicVersions are the QUIC versions probed.
var quicVersions = []quic.Version{quic.Version1, quic.Version2}

// runQUIC probes the server over QUIC.
func (p *prober) runQUIC(ctx context.Context) error {
	ua, err := net.ResolveUDPAddr("udp", p.o.Addr)
	if err != nil {
		return fmt.Errorf("address %s: %v", p.o.Addr, err)
	}
	p.udpAddr = ua
	q := &QUIC{}
	p.rep.QUIC = q
	p.progress("QUIC: full handshake")
	first, err := p.quicFirst(ctx, q)
	if err != nil || q.Handshake.Status != Yes {
		return err
	}
	if p.verifyErr != nil {
		p.quicSkip(q, p.o.advice("the server's certificate did not verify (see certificate); give %s FILE or %s NAME, or %s to probe it anyway", SettingRootCAs, SettingServerName, SettingInsecure))
		return ctx.Err()
	}
	p.quicVersionsTest(ctx, q, first)
	q.Tickets = p.quicTickets(first)
	if len(first.Sessions) == 0 {
		q.Resumption = no("the server sent no NewSessionTicket " + p.quicWaited())
		p.quicSkipEarly(q, "no ticket to resume with")
		return ctx.Err()
	}
	window := p.quicWindow(first)
	p.unused = append(p.unused, first.Sessions[1:]...)
	p.progress("QUIC: resumption")
	base := p.quicConnect(ctx, quicSpec{offer: first.Sessions[0], hold: window})
	p.unused = append(p.unused, base.Sessions...)
	q.Resumption = resumed(base, "a fresh ticket resumed (abbreviated handshake)")
	if q.Resumption.Status != Yes {
		p.quicSkipEarly(q, "resumption did not work")
		return ctx.Err()
	}
	n := len(base.Sessions)
	q.Tickets.OnResumption = &n
	if p.quicProto != ALPNHTTP3 && p.quicProto != tlsconf.ALPNQUICPing {
		p.quicSkipEarly(q, fmt.Sprintf("the server chose ALPN %q, in which tlsbench has no request to send as early data (it speaks %s and %s)", p.quicProto, ALPNHTTP3, tlsconf.ALPNQUICPing))
		return ctx.Err()
	}
	p.quicEarly(ctx, q, base, window)
	return ctx.Err()
}

// quicFirst makes the first connection and decides whether the server
// speaks QUIC at all. The error ends the probe: ctx ended, or the
// server's host said that nothing listens on the port.
func (p *prober) quicFirst(ctx context.Context, q *QUIC) (quicResult, error) {
	first := p.quicConnect(ctx, quicSpec{freeze: true})
	if ctx.Err() != nil {
		return first, ctx.Err()
	}
	if first.Err != nil && first.Relay.Refused {
		return first, fmt.Errorf("cannot reach %s over UDP: nothing listens on the port (ICMP port unreachable)", p.o.Addr)
	}
	if _, verify := errors.AsType[*tls.CertificateVerificationError](first.Err); verify {
		// (connerr.Kind names such an error by the alert the client
		// sent, which QUIC carries beside it.)
		p.verifyErr = first.Err
		q.Handshake = yes("the certificate did not verify")
		saved := p.o.Insecure
		p.o.Insecure = true
		chain := p.quicConnect(ctx, quicSpec{handshakeOnly: true})
		p.o.Insecure = saved
		p.noteChain(connResult{State: chain.State.TLS}, first.Err)
		return first, ctx.Err()
	}
	if first.Err != nil {
		q.Handshake = failed(p.quicFailure(first))
		p.quicSkip(q, "no QUIC handshake completed")
		return first, nil
	}
	st := first.State
	q.Handshake = yes("")
	q.Version = tlsconf.QUICVersionName(uint32(st.Version))
	q.CipherSuite = tls.CipherSuiteName(st.TLS.CipherSuite)
	q.Group = tlsconf.GroupName(st.TLS.CurveID)
	q.ALPN = st.TLS.NegotiatedProtocol
	q.Response = describeAnswer(first.Answer)
	p.noteChain(connResult{State: st.TLS}, nil)
	return first, nil
}

// quicSkip marks every check after the handshake not tested.
func (p *prober) quicSkip(q *QUIC, reason string) {
	if reason == "" {
		reason = q.Handshake.Detail
	}
	for _, v := range quicVersions {
		q.Versions = append(q.Versions, QUICVersion{Version: tlsconf.QUICVersionName(uint32(v)), Accepted: notTested(reason)})
	}
	q.Tickets.Finding = notTested(reason)
	q.Tickets.MaxEarlyData = notTested(reason)
	q.Resumption = notTested(reason)
	p.quicSkipEarly(q, reason)
}

// quicSkipEarly marks the early-data checks not tested.
func (p *prober) quicSkipEarly(q *QUIC, reason string) {
	q.EarlyData = notTested(reason)
	q.EarlyDataReuse = notTested(reason)
	q.Replay.Finding = notTested(reason)
}

// quicFailure describes a failed QUIC connection with what the relay
// saw of the server.
func (p *prober) quicFailure(r quicResult) string {
	err := r.Err
	if vn, ok := errors.AsType[*quic.VersionNegotiationError](err); ok {
		names := make([]string, len(vn.Theirs))
		for i, v := range vn.Theirs {
			names[i] = tlsconf.QUICVersionName(uint32(v))
		}
		return "the server answered with Version Negotiation, listing " + strings.Join(names, ", ")
	}
	what := quicErrText(err)
	if errors.Is(err, context.DeadlineExceeded) || connerr.Kind(err) == connerr.Timeout {
		what = fmt.Sprintf("no handshake within %v", p.o.Timeout)
	}
	return what + ": " + serverSent(r.Relay)
}

// serverSent says what a relay received from the server.
func serverSent(l relayLog) string {
	all := l.All
	switch {
	case all.Datagrams == 0:
		return "the server sent nothing back"
	case all.long()+all.Short == 0:
		return fmt.Sprintf("the server sent %s (%d bytes), none a QUIC packet for this connection", plural(all.Datagrams, "datagram"), all.Bytes)
	}
	return "the server sent " + all.describe()
}

// quicVersionsTest offers each QUIC version alone.
func (p *prober) quicVersionsTest(ctx context.Context, q *QUIC, first quicResult) {
	for _, v := range quicVersions {
		qv := QUICVersion{Version: tlsconf.QUICVersionName(uint32(v))}
		if first.State.Version == v {
			qv.Accepted = yes("the full handshake negotiated it")
		} else {
			p.progress("QUIC: version %s", qv.Version)
			r := p.quicConnect(ctx, quicSpec{versions: []quic.Version{v}, handshakeOnly: true})
			_, vn := errors.AsType[*quic.VersionNegotiationError](r.Err)
			switch {
			case r.Err == nil:
				qv.Accepted = yes("a handshake offering only " + qv.Version + " completed")
			case vn:
				qv.Accepted = no(p.quicFailure(r))
			default:
				qv.Accepted = failed(p.quicFailure(r))
			}
		}
		q.Versions = append(q.Versions, qv)
	}
}

// quicTickets describes the tickets of the full-handshake connection.
func (p *prober) quicTickets(first quicResult) QUICTickets {
	t := QUICTickets{PerConnection: len(first.Sessions)}
	if t.PerConnection == 0 {
		t.Finding = no("no NewSessionTicket " + p.quicWaited())
		t.MaxEarlyData = notTested("no ticket")
		return t
	}
	t.Finding = yes("")
	for _, cs := range first.Sessions {
		l, err := ticketLifetime(cs, tls.VersionTLS13, first.State.TLS.CipherSuite)
		if err != nil {
			t.LifetimeSeconds = nil
			t.Finding = yes("lifetime unknown: " + err.Error())
			break
		}
		t.LifetimeSeconds = append(t.LifetimeSeconds, l)
	}
	if t.Detail == "" {
		t.Detail = lifetimeText(t.LifetimeSeconds, false)
	}
	early := 0
	for _, cs := range first.Sessions {
		if allowsEarlyData(cs) {
			early++
		}
	}
	switch {
	case early == len(first.Sessions):
		t.MaxEarlyData = yes("0xffffffff: the tickets allow early data (the only size QUIC permits)")
	case early == 0:
		t.MaxEarlyData = no("the tickets carry no early_data extension: clients cannot send early data with them")
	default:
		t.MaxEarlyData = yes(fmt.Sprintf("%d of %d tickets allow early data", early, len(first.Sessions)))
	}
	return t
}

// allowsEarlyData reports whether a ticket allows early data, as
// crypto/tls read it from the NewSessionTicket message (for QUIC, its
// max_early_data_size must be 0xffffffff; any other non-zero size fails
// the connection).
func allowsEarlyData(cs *tls.ClientSessionState) bool {
	_, st, err := cs.ResumptionState()
	return err == nil && st != nil && st.EarlyData
}

// quicWaited says how long the probe waited for tickets.
func (p *prober) quicWaited() string {
	return fmt.Sprintf("while reading the answer to the request and %s more (tickets with lifetime 0 are dropped by crypto/tls and not counted)", p.o.TicketWait)
}

// quicWindow is how long the server's answer to a first flight is
// watched (the replay and its calibration): 100 ms, far above the 25 ms
// in which QUIC endpoints acknowledge by default, plus four times the
// time the server took to answer the first connection's first
// datagram; at most half the timeout.
func (p *prober) quicWindow(first quicResult) time.Duration {
	return min(100*time.Millisecond+4*first.Relay.FirstAnswer, p.o.Timeout/2).Round(time.Millisecond)
}

// resumed judges a resumption attempt.
func resumed(r quicResult, ok string) Finding {
	switch {
	case r.Err != nil:
		return failed("the resumption attempt failed: " + quicErrText(r.Err))
	case !r.State.TLS.DidResume:
		return no("the server answered a fresh ticket with a full handshake")
	}
	return yes(ok)
}

// quicErrText shortens a QUIC connection's error.
func quicErrText(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return "no answer before the connection timeout"
	}
	if te, ok := errors.AsType[*quic.TransportError](err); ok && te.Remote && te.ErrorCode.IsCryptoError() {
		return "alert from the server: " + tls.AlertError(te.ErrorCode - 0x100).Error()[len("tls: "):]
	}
	return errText(err)
}
