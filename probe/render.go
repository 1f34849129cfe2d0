package probe

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// WriteJSON writes r as one indented JSON object.
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteTable writes r for a human: the target, the certificate chain, then
// one block per TLS version, every finding with its evidence or reason.
func WriteTable(w io.Writer, r *Report) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	// A server's text (a certificate's subject, an alert) shows no
	// control character of its own.
	row := func(k, v string) { fmt.Fprintf(tw, "  %s\t%s\n", results.Printable(k), results.Printable(v)) }
	writeTarget(tw, row, r)
	writeChain(tw, row, r.Certificate)
	if r.QUIC != nil {
		fmt.Fprintln(tw)
		writeQUIC(tw, row, *r.QUIC)
	}
	for _, v := range r.Versions {
		fmt.Fprintln(tw)
		writeVersion(tw, row, v)
	}
	fmt.Fprintln(tw)
	fmt.Fprintf(tw, "probed in %.1fs by tlsbench %s (%s)\n", r.DurationMS/1e3, r.Env.TLSBenchVersion, r.Env.GoVersion)
	return tw.Flush()
}

// writeTarget writes what was probed and how.
func writeTarget(tw io.Writer, row func(k, v string), r *Report) {
	fmt.Fprintf(tw, "tlsbench probe %s\n", results.Printable(r.Target))
	if r.Transport == TransportQUIC {
		row("transport", "QUIC (TLS 1.3 over UDP)")
	}
	row("server name", r.ServerName)
	if r.Transport == TransportQUIC {
		row("request", quicRequestText(r.Request))
	} else {
		row("request", requestText(r.Request))
	}
	if r.RequestAuto && r.Transport != TransportQUIC {
		row("request chosen", "by asking the server: "+r.RequestChoice)
	}
	alpn := "none offered"
	if len(r.ALPNOffered) > 0 {
		alpn = strings.Join(r.ALPNOffered, ", ")
	}
	row("ALPN offered", alpn)
	cc := "none"
	if r.ClientCertificate != "" {
		cc = r.ClientCertificate
	}
	row("client certificate", cc)
	if r.Insecure {
		row("verification", r.adviceText("off (%s)", SettingInsecure))
	}
	fmt.Fprintln(tw)
}

// writeChain writes the server's certificate chain and whether it
// verified.
func writeChain(tw io.Writer, row func(k, v string), chain Chain) {
	fmt.Fprintln(tw, "certificate chain")
	row("verified", findingText(chain.Verified))
	for i, c := range chain.Certificates {
		row(fmt.Sprintf("[%d] subject", i), c.Subject)
		row("    key", c.KeyName)
		row("    signature", c.SignatureAlgorithm)
		row("    expires", fmt.Sprintf("%s (%s)", c.NotAfter.Format(time.DateOnly), daysLeft(c.DaysLeft)))
		if i == 0 && (len(c.DNSNames) > 0 || len(c.IPAddresses) > 0) {
			row("    names", strings.Join(append(append([]string(nil), c.DNSNames...), c.IPAddresses...), ", "))
		}
	}
}

// writeVersion writes the block of one TLS version: what it negotiated,
// then its resumption findings.
func writeVersion(tw io.Writer, row func(k, v string), v Version) {
	fmt.Fprintf(tw, "TLS %s\n", v.Version)
	row("accepted", findingText(v.Accepted))
	if v.Accepted.Status == Yes && v.CipherSuite != "" {
		row("cipher suite", v.CipherSuite)
		row("group", v.Group)
		alpn := v.ALPN
		if alpn == "" {
			alpn = "none"
		}
		row("ALPN", alpn)
		if v.ClientCertRequested != nil {
			row("client cert requested", yesNo(*v.ClientCertRequested))
		}
		if v.Response != "" {
			row("response", v.Response)
		}
	}
	if v.Accepted.Status != Yes {
		return // nothing more was tested; the reason is the refusal above
	}
	if f := v.Resumption; f.Status == NotTested && v.Tickets.Finding == f && v.Load.Finding == f {
		row("resumption checks", findingText(f))
		return
	}
	writeResumption(row, v)
}

// writeResumption writes a version's resumption findings.
func writeResumption(row func(k, v string), v Version) {
	if v.Version == "1.2" && v.SessionIDResumption != nil {
		row("resumes by", resumesByText(v))
	}
	row("tickets per connection", ticketsText(v.Tickets))
	switch v.Version {
	case "1.2":
		row("ticket resumption", findingText(v.Resumption))
		if v.SessionIDResumption != nil {
			row("session-ID resumption", findingText(*v.SessionIDResumption))
		}
		if c := v.SessionIDConcurrent; c != nil {
			label := "simultaneous session ID"
			if c.Concurrency > 0 {
				label = fmt.Sprintf("session-ID resumption at c%d", c.Concurrency)
			}
			row(label, findingText(c.Finding))
		}
	case "1.3":
		row("PSK resumption", findingText(v.Resumption))
	default:
		row("resumption", findingText(v.Resumption))
	}
	row("ticket reusable", findingText(v.TicketReuse))
	row("resumption with client cert", findingText(v.MutualResumption))
	label := "resumption under load"
	if v.Load.Concurrency > 0 {
		label = fmt.Sprintf("resumption at c%d", v.Load.Concurrency)
	}
	row(label, loadText(v.Load))
}

// writeQUIC writes the findings of a probe over QUIC.
func writeQUIC(tw io.Writer, row func(k, v string), q QUIC) {
	fmt.Fprintln(tw, "QUIC")
	row("handshake", findingText(q.Handshake))
	if q.Handshake.Status == Yes && q.CipherSuite != "" {
		row("QUIC version", q.Version)
		row("cipher suite", q.CipherSuite)
		row("group", q.Group)
		row("ALPN", q.ALPN)
		if q.Response != "" {
			row("response", q.Response)
		}
	}
	if f := q.Resumption; f.Status == NotTested && q.Tickets.Finding == f && q.Replay.Finding == f {
		row("QUIC checks", findingText(f))
		return // nothing was tested, for the one reason
	}
	for _, v := range q.Versions {
		row("version "+v.Version+" accepted", findingText(v.Accepted))
	}
	t := Tickets{Finding: q.Tickets.Finding, PerConnection: q.Tickets.PerConnection, OnResumption: q.Tickets.OnResumption}
	row("tickets per connection", ticketsText(t))
	row("tickets allow early data", findingText(q.Tickets.MaxEarlyData))
	row("PSK resumption", findingText(q.Resumption))
	row("0-RTT accepted", findingText(q.EarlyData))
	row("0-RTT on a reused ticket", findingText(q.EarlyDataReuse))
	row("replayed 0-RTT accepted", findingText(q.Replay.Finding))
}

func quicRequestText(r Request) string {
	switch r {
	case RequestHTTPGet:
		return "http-get (GET / over HTTP/3 when the server chose h3; tlsbench's ping when it chose " + tlsconf.ALPNQUICPing + ")"
	case RequestPing:
		return "ping (1 byte on a stream, echoed: tlsbench's own protocol, " + tlsconf.ALPNQUICPing + ")"
	}
	return "http (HEAD / over HTTP/3 when the server chose h3; tlsbench's ping when it chose " + tlsconf.ALPNQUICPing + ")"
}

func requestText(r Request) string {
	switch r {
	case RequestHTTP:
		return "http (HEAD / HTTP/1.1, or the HTTP/2 preface after ALPN h2)"
	case RequestHTTPGet:
		return "http-get (GET / HTTP/1.1)"
	case RequestPing:
		return "ping (1 byte, echoed)"
	case RequestLine:
		return "line (one line, one line back)"
	case RequestWait:
		return "wait (nothing sent; what the server sends unasked is read)"
	case RequestNone:
		return "none (read only)"
	}
	return string(r)
}

// resumesByText sums up the ways TLS 1.2 resumed, or says which of the
// two was not answered.
func resumesByText(v Version) string {
	switch v.ResumesBy {
	case ResumesByBoth:
		return "ticket and session ID"
	case ResumesByTicket:
		return "ticket only (not session ID)"
	case ResumesBySessionID:
		return "session ID only (not ticket)"
	case ResumesByNeither:
		return "neither ticket nor session ID"
	}
	return fmt.Sprintf("ticket: %s; session ID: %s", v.Resumption.Status, v.SessionIDResumption.Status)
}

func findingText(f Finding) string {
	if f.Detail == "" {
		return string(f.Status)
	}
	return string(f.Status) + ": " + f.Detail
}

func ticketsText(t Tickets) string {
	if t.Status != Yes {
		return findingText(t.Finding)
	}
	s := fmt.Sprintf("%d", t.PerConnection)
	if t.Detail != "" {
		s += ", " + t.Detail
	}
	if t.OnResumption != nil {
		s += fmt.Sprintf("; %d on a resumed connection", *t.OnResumption)
	}
	return s
}

func loadText(l Load) string {
	if l.Status == NotTested || l.ResumptionRate == nil {
		return findingText(l.Finding)
	}
	s := fmt.Sprintf("%.1f%% (%d of %d resumed", 100**l.ResumptionRate, l.Resumed, l.Handshakes)
	if l.Errors > 0 {
		s += fmt.Sprintf(", %d errors", l.Errors)
	}
	return s + fmt.Sprintf(", tickets used %s)", map[string]string{"multi": "repeatedly", "single": "once each"}[l.TicketReuse])
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func daysLeft(d int) string {
	switch {
	case d < 0:
		return fmt.Sprintf("expired %d days ago", -d)
	case d == 1:
		return "1 day left"
	}
	return fmt.Sprintf("%d days left", d)
}
