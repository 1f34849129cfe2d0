package probe

import (
	"context"
	"crypto/fips140"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/connerr"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// prober holds one probe's state.
type prober struct {
	o   Options
	rep *Report
	// verifyErr is the certificate verification failure that stops every
	// check but version acceptance.
	verifyErr error
	// reached: some connection was accepted by the server.
	reached bool
	// scope is the client certificate's thumbprint: the load test's
	// session pool is scoped by it, as tlsbench run's is.
	scope string
	// udpAddr is the server's address over QUIC; quicProto the
	// application protocol the first QUIC handshake negotiated.
	udpAddr   *net.UDPAddr
	quicProto string
	// unused are QUIC tickets received and not yet offered; skews
	// their ticketSkew.
	unused []*tls.ClientSessionState
	skews  map[*tls.ClientSessionState]time.Duration
	// unanswered is the version ("TLS 1.3") of the connection whose
	// request got no answer before the timeout; later connections send
	// none.
	unanswered string
}

// Run probes the server at o.Addr and reports what it supports. It
// returns an error only when the options are invalid, the server cannot
// be reached at all, or ctx ends; everything the server does or does not
// do is in the report.
func Run(ctx context.Context, o Options) (*Report, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	p := &prober{o: o, skews: make(map[*tls.ClientSessionState]time.Duration)}
	start := time.Now()
	p.rep = &Report{
		Target:      o.Addr,
		ServerName:  o.ServerName,
		Insecure:    o.Insecure,
		Request:     o.Request,
		ALPNOffered: o.ALPN,
		Started:     start.UTC(),
		Env:         results.CurrentEnv(),
		advice:      o.advice,
	}
	if c := o.ClientCert; c != nil {
		leaf := c.Leaf
		if leaf == nil {
			if leaf, err = x509.ParseCertificate(c.Certificate[0]); err != nil {
				return nil, fmt.Errorf("client certificate: %v", err)
			}
		}
		p.scope = pki.ThumbprintHex(leaf)
		p.rep.ClientCertificate = fmt.Sprintf("%s (sha256 %s)", leaf.Subject, p.scope[:16])
	}
	p.rep.Certificate.Verified = notTested("no handshake completed")
	if o.QUIC {
		p.rep.Transport = TransportQUIC
		if err := p.runQUIC(ctx); err != nil {
			return nil, err
		}
		p.rep.DurationMS = float64(time.Since(start).Microseconds()) / 1e3
		return p.rep, nil
	}

	if o.Request == RequestAuto {
		p.chooseRequest(ctx)
	}
	// Highest version first: the chain reported is the one a modern
	// client gets.
	versions := slices.Clone(o.Versions)
	slices.Sort(versions)
	slices.Reverse(versions)
	for _, v := range versions {
		vr, err := p.version(ctx, v)
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			return nil, err
		}
		p.rep.Versions = append(p.rep.Versions, vr)
	}
	slices.Reverse(p.rep.Versions)
	p.rep.DurationMS = float64(time.Since(start).Microseconds()) / 1e3
	return p.rep, nil
}

func (p *prober) progress(format string, args ...any) {
	if p.o.Progress != nil {
		p.o.Progress(fmt.Sprintf(format, args...))
	}
}

// version probes one TLS version.
func (p *prober) version(ctx context.Context, v uint16) (Version, error) {
	name := versionName(v)
	vr := Version{Version: name}
	label := "TLS " + name
	skipAll := func(reason string) Version {
		vr.Tickets.Finding = notTested(reason)
		vr.Resumption = notTested(reason)
		vr.TicketReuse = notTested(reason)
		vr.MutualResumption = notTested(reason)
		vr.Load.Finding = notTested(reason)
		if v == tls.VersionTLS12 {
			f := notTested(reason)
			vr.SessionIDResumption = &f
			vr.SessionIDConcurrent = &SessionIDLoad{Finding: f}
		}
		return vr
	}
	if v < tls.VersionTLS12 && fips140.Enabled() {
		vr.Accepted = notTested("Go runs in FIPS 140-3 mode (GODEBUG=fips140), in which its client offers only TLS 1.2 and 1.3")
		return skipAll(vr.Accepted.Detail), nil
	}

	p.progress("%s: full handshake", label)
	first, suites, accepted, err := p.fullHandshake(ctx, v)
	if err != nil {
		return vr, err
	}
	vr.Accepted = accepted
	if accepted.Status != Yes {
		return skipAll(fmt.Sprintf("%s was not accepted", label)), nil
	}
	if p.verifyErr != nil {
		return skipAll(p.o.advice("the server's certificate did not verify (see certificate); give %s FILE or %s NAME, or %s to probe it anyway", SettingRootCAs, SettingServerName, SettingInsecure)), nil
	}
	if err := first.Answer.Err; err != nil && strings.HasPrefix(connerr.Kind(err), "alert:") {
		// TLS 1.3 clients finish their handshake before the server has
		// checked their certificate: the refusal comes as an alert on
		// the first read.
		reason := "the server ended the connection after the handshake (" + errText(err) + ")"
		if first.CertRequested && p.o.ClientCert == nil {
			reason += p.o.advice("; it requires a client certificate: give %s and %s", SettingClientCert, SettingClientKey)
		}
		vr.Accepted.Detail = "the version, but not the client: " + reason
		vr.Response = describeAnswer(first.Answer)
		return skipAll(reason), nil
	}
	st := first.State
	vr.CipherSuite = tls.CipherSuiteName(st.CipherSuite)
	vr.Group = tlsconf.GroupName(st.CurveID)
	vr.ALPN = st.NegotiatedProtocol
	req := first.CertRequested
	vr.ClientCertRequested = &req
	vr.Response = describeAnswer(first.Answer)
	if v < tls.VersionTLS12 {
		return skipAll("tlsbench checks resumption with TLS 1.2 and 1.3 only"), nil
	}
	p.resumption(ctx, v, suites, first, &vr)
	if v == tls.VersionTLS12 {
		vr.ResumesBy = resumesBy(vr.Resumption, *vr.SessionIDResumption)
	}
	return vr, nil
}

// fullHandshake makes the first connection of a version and decides
// whether the server accepts it. With TLS 1.0 to 1.2, a refusal that may
// come from Go's default cipher suites is retried with every suite Go
// implements for the version, so that "no" means the version, not the
// suites.
func (p *prober) fullHandshake(ctx context.Context, v uint16) (connResult, []uint16, Finding, error) {
	r := p.connect(ctx, connSpec{version: v, freeze: true})
	if err := p.fatal(ctx, r); err != nil {
		return r, nil, Finding{}, err
	}
	if r.Err != nil && r.CertRequested && connerr.Kind(r.Err) != connerr.Verify {
		// The server got as far as asking for a client certificate:
		// version and suite were fine, the client was not.
		if p.o.ClientCert == nil {
			return r, nil, failed(p.o.advice("the server requires a client certificate; give %s and %s", SettingClientCert, SettingClientKey) + " (" + errText(r.Err) + ")"), nil
		}
		return r, nil, failed("the server refused the handshake after the client certificate was sent (" + errText(r.Err) + ")"), nil
	}
	var suites []uint16
	note := ""
	if r.Err != nil && v < tls.VersionTLS13 && noSharedSuite(r.Err) {
		all := allSuites(v)
		if r2 := p.connect(ctx, connSpec{version: v, suites: all, freeze: true}); r2.Err == nil || !noSharedSuite(r2.Err) {
			r, suites = r2, all
			note = "only with cipher suites Go does not offer by default; "
		} else {
			return r, nil, no(fmt.Sprintf("the server refused every cipher suite Go implements for TLS %s (%v)", versionName(v), errText(r2.Err))), nil
		}
	}
	if r.Err == nil {
		p.noteChain(r, nil)
		return r, suites, yes(strings.TrimSuffix(note, "; ")), nil
	}
	if connerr.Kind(r.Err) == connerr.Verify {
		// The server chose this version and sent its certificate: the
		// version is accepted, whatever the certificate.
		if p.verifyErr == nil {
			p.verifyErr = r.Err
			chain := p.connect(ctx, connSpec{version: v, suites: suites, insecure: true})
			p.noteChain(chain, r.Err)
		}
		return r, suites, yes(note + "the certificate did not verify"), nil
	}
	return r, suites, p.refusal(v, r.Err), nil
}

// fatal turns a connection failure that ends the whole probe into an
// error: ctx ended, or the very first connection could not be made.
func (p *prober) fatal(ctx context.Context, r connResult) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if r.DialErr && !p.reached {
		return fmt.Errorf("cannot connect to %s: %v", p.o.Addr, r.Err)
	}
	if !r.DialErr {
		p.reached = true
	}
	return nil
}

// refusal describes a failed full handshake.
func (p *prober) refusal(v uint16, err error) Finding {
	kind := connerr.Kind(err)
	msg := errText(err)
	switch {
	case strings.Contains(msg, "server selected unsupported protocol version"):
		return no("the server answered with another version: " + msg)
	case kind == "alert:protocol version not supported":
		return no("the server refused it (alert protocol_version)")
	case kind == "alert:certificate required":
		return failed(p.o.advice("the server requires a client certificate; give %s and %s", SettingClientCert, SettingClientKey) + " (" + msg + ")")
	case kind == "alert:bad certificate", kind == "alert:unknown certificate authority",
		kind == "alert:certificate unknown", kind == "alert:access denied", kind == "alert:unsupported certificate":
		return failed("the server rejected the handshake, probably the client certificate (" + msg + ")")
	case kind == "alert:no application protocol":
		return failed("the server accepts none of the ALPN protocols offered (" + msg + ")")
	case kind == connerr.EOF, kind == connerr.Reset:
		return failed("the server closed the connection during the handshake; it may not support TLS " + versionName(v) + " (" + msg + ")")
	case kind == connerr.Timeout:
		return failed(fmt.Sprintf("no answer within %v: the server accepted the connection but did not complete the handshake", p.o.Timeout))
	case kind == connerr.Canceled:
		return failed(msg)
	case kind == "alert:internal error" && v < tls.VersionTLS12:
		return no(msg + " (OpenSSL 3 answers TLS 1.0 and 1.1 so at security level 1 and above, which forbid their SHA-1 signatures)")
	case strings.HasPrefix(msg, "alert from the server: "):
		// Any other alert in answer to a plain full handshake: the
		// server does not complete this version with Go's client.
		return no(msg)
	}
	return failed(msg)
}

// versionName names TLS 1.0 to 1.3 ("1.0").
func versionName(v uint16) string {
	switch v {
	case tls.VersionTLS10:
		return "1.0"
	case tls.VersionTLS11:
		return "1.1"
	}
	return tlsconf.VersionName(v)
}

// noSharedSuite reports a refusal that may mean no cipher suite in common.
func noSharedSuite(err error) bool {
	switch connerr.Kind(err) {
	case "alert:handshake failure", "alert:insufficient security level":
		return true
	}
	return strings.Contains(err.Error(), "no cipher suite supported by both")
}

// allSuites lists every cipher suite crypto/tls implements for TLS 1.0 to
// 1.2 version v, insecure ones included.
func allSuites(v uint16) []uint16 {
	var ids []uint16
	for _, s := range append(tls.CipherSuites(), tls.InsecureCipherSuites()...) {
		if slices.Contains(s.SupportedVersions, v) {
			ids = append(ids, s.ID)
		}
	}
	return ids
}

// errText shortens a connection error to its reason: an alert the server
// sent, or crypto/tls's own complaint, without net.OpError's addresses.
func errText(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, "remote error: tls: "); i >= 0 {
		return "alert from the server: " + msg[i+len("remote error: tls: "):]
	}
	if i := strings.LastIndex(msg, "tls: "); i >= 0 {
		return msg[i:]
	}
	return msg
}

// noteChain records the chain of the first handshake that got one.
func (p *prober) noteChain(r connResult, verifyErr error) {
	if len(p.rep.Certificate.Certificates) > 0 || len(r.State.PeerCertificates) == 0 {
		if verifyErr != nil {
			p.rep.Certificate.Verified = no(errText(verifyErr) + p.o.advice("; give %s FILE or %s NAME, or %s", SettingRootCAs, SettingServerName, SettingInsecure))
		}
		return
	}
	certs := r.State.PeerCertificates
	now := time.Now()
	for _, c := range certs {
		p.rep.Certificate.Certificates = append(p.rep.Certificate.Certificates, describeCert(c, now))
	}
	switch {
	case verifyErr != nil:
		p.rep.Certificate.Verified = no(errText(verifyErr) + p.o.advice("; give %s FILE or %s NAME, or %s", SettingRootCAs, SettingServerName, SettingInsecure))
	case len(r.State.VerifiedChains) > 0:
		chain := r.State.VerifiedChains[0]
		p.rep.Certificate.Verified = yes(fmt.Sprintf("for %s, by %s", p.o.ServerName, chain[len(chain)-1].Subject))
	default:
		// Insecure: verify anyway, for the report only.
		opts := x509.VerifyOptions{Roots: p.o.RootCAs, DNSName: p.o.ServerName, Intermediates: x509.NewCertPool()}
		for _, c := range certs[1:] {
			opts.Intermediates.AddCert(c)
		}
		if _, err := certs[0].Verify(opts); err != nil {
			p.rep.Certificate.Verified = no(errText(err) + p.o.advice(" (not enforced: %s)", SettingInsecure))
		} else {
			p.rep.Certificate.Verified = yes(p.o.advice("(not enforced: %s)", SettingInsecure))
		}
	}
}

// resumption runs the resumption checks of TLS 1.2 or 1.3.
func (p *prober) resumption(ctx context.Context, v uint16, suites []uint16, first connResult, vr *Version) {
	label := "TLS " + tlsconf.VersionName(v)
	tickets := first.Sessions
	vr.Tickets = p.countTickets(v, first)
	if v == tls.VersionTLS12 {
		p.sessionIDChecks(ctx, suites, vr)
	}
	kind := "ticket"
	if v >= tls.VersionTLS13 {
		kind = "PSK"
	}
	stop := func(reason string) {
		vr.TicketReuse = notTested(reason)
		vr.MutualResumption = p.mutualUntested(first, reason)
		vr.Load.Finding = notTested(reason)
	}
	if len(tickets) == 0 {
		if v == tls.VersionTLS12 {
			vr.Resumption = no("the server issued no session ticket")
		} else {
			vr.Resumption = no("the server sent no NewSessionTicket " + p.waitedFor())
		}
		stop("no ticket to resume with")
		return
	}

	p.progress("%s: %s resumption", label, kind)
	b := p.connect(ctx, connSpec{version: v, suites: suites, offer: tickets[0]})
	switch {
	case b.Err != nil:
		vr.Resumption = failed("the resumption attempt failed: " + errText(b.Err))
	case b.OfferSeen && !b.offered(v):
		vr.Resumption = notTested("Go's client did not offer the ticket (it judged the session unusable)")
	case !b.State.DidResume:
		evidence := ""
		if b.OfferSeen {
			evidence = " (the ClientHello carried it)"
		}
		vr.Resumption = no(fmt.Sprintf("the server answered a fresh %s%s with a full handshake", kind, evidence))
	default:
		vr.Resumption = yes(fmt.Sprintf("a fresh %s resumed (abbreviated handshake)", kind))
	}
	if vr.Resumption.Status != Yes {
		stop("resumption did not work on a single connection")
		return
	}
	n := ticketsOn(v, b)
	vr.Tickets.OnResumption = &n

	// The same ticket again: reusable or single-use?
	p.progress("%s: same ticket again", label)
	c := p.connect(ctx, connSpec{version: v, suites: suites, offer: tickets[0]})
	switch {
	case c.Err != nil:
		vr.TicketReuse = failed("the second use of the ticket failed: " + errText(c.Err))
	case c.State.DidResume:
		vr.TicketReuse = yes("the same ticket resumed twice")
	default:
		vr.TicketReuse = p.confirmSingleUse(ctx, v, suites, tickets, b)
	}
	vr.MutualResumption = p.mutual(first, b, vr.Resumption)
	vr.Load = p.load(ctx, v, suites, vr.TicketReuse.Status == No)
}

// confirmSingleUse tells single-use tickets from a server that stopped
// resuming: after a ticket's second use got a full handshake, a ticket
// never used before must still resume.
func (p *prober) confirmSingleUse(ctx context.Context, v uint16, suites []uint16, tickets []*tls.ClientSessionState, b connResult) Finding {
	var fresh *tls.ClientSessionState
	switch {
	case len(tickets) > 1:
		fresh = tickets[1]
	case len(b.Sessions) > 0:
		fresh = b.Sessions[0]
	default:
		r := p.connect(ctx, connSpec{version: v, suites: suites})
		if len(r.Sessions) > 0 {
			fresh = r.Sessions[0]
		}
	}
	if fresh == nil {
		return notTested("the second use of a ticket got a full handshake, and no unused ticket was left to tell single-use tickets from a server that stopped resuming")
	}
	d := p.connect(ctx, connSpec{version: v, suites: suites, offer: fresh})
	if d.Err == nil && d.State.DidResume {
		return no("single-use: the second use of a ticket got a full handshake, while an unused ticket still resumed")
	}
	return notTested("the second use of a ticket got a full handshake, and so did an unused ticket: the server resumes unreliably")
}

// countTickets describes the tickets of a full-handshake connection.
func (p *prober) countTickets(v uint16, first connResult) Tickets {
	var t Tickets
	if v == tls.VersionTLS12 {
		t.Method = "NewSessionTicket messages on the wire (TLS 1.2 sends them in the clear, before ChangeCipherSpec)"
		t.PerConnection = len(first.Flight.TicketLifetimes)
		t.LifetimeSeconds = first.Flight.TicketLifetimes
		if t.PerConnection == 0 {
			t.Finding = no("no NewSessionTicket in the handshake")
			if first.Flight.EmptyTickets > 0 {
				t.Detail += " (an empty one: the server announced a ticket, then declined)"
			}
			return t
		}
		t.Finding = yes(lifetimeText(t.LifetimeSeconds, true))
		return t
	}
	t.Method = "sessions crypto/tls stored, one per NewSessionTicket message (encrypted, so counted inside the client), while reading the answer to the request and " + p.o.TicketWait.String() + " more"
	t.PerConnection = len(first.Sessions)
	if t.PerConnection == 0 {
		t.Finding = no("no NewSessionTicket " + p.waitedFor())
		return t
	}
	for _, cs := range first.Sessions {
		l, err := ticketLifetime(cs, v, first.State.CipherSuite)
		if err != nil {
			t.LifetimeSeconds = nil
			t.Finding = yes("lifetime unknown: " + err.Error())
			return t
		}
		t.LifetimeSeconds = append(t.LifetimeSeconds, l)
	}
	t.Finding = yes(lifetimeText(t.LifetimeSeconds, false))
	return t
}

// ticketsOn counts the tickets a connection received.
func ticketsOn(v uint16, r connResult) int {
	if v == tls.VersionTLS12 {
		return len(r.Flight.TicketLifetimes)
	}
	return len(r.Sessions)
}

func (p *prober) waitedFor() string {
	how := map[Request]string{
		RequestHTTP:    "while reading the answer to HEAD /",
		RequestHTTPGet: "while reading the answer to GET /",
		RequestPing:    "while reading the echo of a ping",
		RequestLine:    "while reading the answer to a line",
		RequestNone:    "while reading without a request",
	}[p.o.Request]
	return fmt.Sprintf("%s and %s more (tickets with lifetime 0 are dropped by crypto/tls and not counted)", how, p.o.TicketWait)
}

func lifetimeText(ls []uint32, tls12 bool) string {
	if len(ls) == 0 {
		return ""
	}
	parts := make([]string, len(ls))
	for i, l := range ls {
		if l == 0 && tls12 {
			parts[i] = "unspecified"
		} else {
			parts[i] = seconds(l)
		}
	}
	return "lifetime hint " + strings.Join(parts, ", ")
}

// seconds shows a lifetime in seconds and, when round, in larger units:
// "7200 s (2 hours)".
func seconds(s uint32) string {
	units := []struct {
		n    uint32
		name string
	}{{86400, "day"}, {3600, "hour"}, {60, "minute"}}
	for _, u := range units {
		if s >= u.n && s%u.n == 0 {
			n := s / u.n
			name := u.name
			if n != 1 {
				name += "s"
			}
			return fmt.Sprintf("%d s (%d %s)", s, n, name)
		}
	}
	return fmt.Sprintf("%d s", s)
}

func (p *prober) mutualUntested(first connResult, reason string) Finding {
	if p.o.ClientCert == nil && first.CertRequested {
		return notTested(p.o.advice("the server asked for a client certificate, but none was given (%s, %s)", SettingClientCert, SettingClientKey))
	}
	if p.o.ClientCert == nil {
		return notTested(p.o.advice("no client certificate given (%s, %s)", SettingClientCert, SettingClientKey))
	}
	if !first.CertRequested {
		return notTested("the server did not ask for a client certificate")
	}
	return notTested(reason)
}

// mutual says whether resumption worked for a client that presented a
// certificate, and whether the server still honoured that identity.
func (p *prober) mutual(first, resumed connResult, res Finding) Finding {
	if p.o.ClientCert == nil || !first.CertRequested {
		return p.mutualUntested(first, "")
	}
	if res.Status != Yes {
		return no("a session made with a client certificate did not resume")
	}
	a, b := first.Answer.First, resumed.Answer.First
	if httpStatus(a) != "" && httpStatus(b) != "" && httpStatus(a) != httpStatus(b) {
		return no(fmt.Sprintf("the session resumed, but the server answered %q instead of %q: it did not keep the client's identity", b, a))
	}
	d := "a session made with the client certificate resumed"
	if b != "" {
		d += fmt.Sprintf(", and the server answered %q", b)
	}
	return yes(d)
}

// httpStatus is the status code of an HTTP/1 status line, or "".
func httpStatus(line string) string {
	f := strings.Fields(line)
	if len(f) >= 2 && strings.HasPrefix(f[0], "HTTP/") {
		return f[1]
	}
	return ""
}

// load measures the resumption rate under concurrent handshakes with
// tlsbench's load generator: Concurrency clients share a session pool
// scoped by client identity, as `tlsbench run` does.
func (p *prober) load(ctx context.Context, v uint16, suites []uint16, singleUse bool) Load {
	if p.o.Concurrency < 0 {
		return Load{Finding: notTested(p.o.advice("disabled (%s 0)", SettingConcurrency))}
	}
	if p.o.Load == nil {
		return Load{Finding: notTested("no load generator given")}
	}
	if p.unanswered != "" {
		return Load{Finding: notTested(p.o.advice("the server left the request unanswered (see response): every connection would wait out %s", SettingTimeout))}
	}
	c := p.o.Concurrency
	p.progress("TLS %s: resumption under load (concurrency %d)", tlsconf.VersionName(v), c)
	reuse := tlsconf.ReuseMulti
	if singleUse {
		reuse = tlsconf.ReuseSingle
	}
	cfg := p.clientConfig(v, suites, false)
	cfg.ClientSessionCache = tlsconf.NewSessionPool(c, reuse).Scoped(p.scope)
	name := fmt.Sprintf("probe/tls%s/resume/c%d", tlsconf.VersionName(v), c)
	rec, err := p.o.Load(ctx, LoadCase{
		Name:        name,
		Version:     v,
		Mutual:      p.o.ClientCert != nil,
		Concurrency: c,
		Handshakes:  p.o.LoadHandshakes,
		Client:      cfg,
		Dialer:      client.TCPDialer{Addr: p.o.Addr},
		Exchange:    p.o.loadExchange(hostHeader(&p.o)),
		ConnTimeout: p.o.Timeout,
		Words:       client.Words{Names: map[string]string{"ConnTimeout": p.o.advice("%s", SettingTimeout)}},
	})
	l := Load{Concurrency: c, TicketReuse: reuse.String()}
	if err != nil {
		if ctx.Err() != nil {
			l.Finding = failed("interrupted")
		} else {
			l.Finding = failed(err.Error())
		}
		return l
	}
	l.Handshakes, l.Resumed, l.Errors = rec.Handshakes, rec.Resumed, rec.Errors
	l.ErrorsByKind = rec.ErrorsByKind
	rate := rec.ResumptionRate
	l.ResumptionRate = &rate
	l.HandshakesPerSec = rec.HandshakesPerSec
	detail := fmt.Sprintf("%.1f%% of %d handshakes resumed at concurrency %d", 100*rate, rec.Handshakes, c)
	if rec.Errors > 0 {
		detail += fmt.Sprintf(", %d failed", rec.Errors)
	}
	if rate > 0 {
		l.Finding = yes(detail)
	} else {
		l.Finding = no(detail)
	}
	return l
}

// describeAnswer is the report's line for the answer to the request.
func describeAnswer(a answer) string {
	switch {
	case a.Skipped != "":
		return "not sent: the server left the request unanswered on an earlier connection (see " + a.Skipped + ")"
	case a.Err != nil && a.First != "":
		return a.First + " (" + a.Err.Error() + ")"
	case a.Err != nil:
		return "no answer: " + a.Err.Error()
	}
	return a.First
}
