package probe_test

import (
	"crypto/tls"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/peers"
	"github.com/tlsbench/tlsbench/probe"
)

// What the probe must find on OpenSSL 3.0's s_server. OpenSSL issues two
// TLS 1.3 tickets per full handshake and one per resumed one, with its
// default lifetime of 7200 s; TLS 1.2 gets one ticket, and s_server's
// session cache resumes TLS 1.2 by session ID too, every connection of
// the simultaneous round included (one process). -no_ticket turns TLS 1.2
// tickets off (TLS 1.2 then resumes by session ID only) but TLS 1.3 still
// gets stateful tickets backed by s_server's session cache, and they
// resume. With -early_data, OpenSSL's
// anti-replay protection makes TLS 1.3 tickets single-use.
func TestOpenSSLServer(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	v12 := expect{Accepted: "yes", Tickets: "yes", Resumption: "yes", TicketReuse: "yes:twice", Load: "yes", PerConnection: 1, Lifetime: 7200}
	v13 := expect{Accepted: "yes", Tickets: "yes", Resumption: "yes", TicketReuse: "yes:twice", Load: "yes", PerConnection: 2, Lifetime: 7200}
	refused := expect{Accepted: "no:protocol_version", PerConnection: -1}
	noVersion := expect{Accepted: "no", PerConnection: -1}
	tests := []struct {
		name string
		args []string
		// request "" is the default: the server is asked which it
		// answers (GET only with -www, lines with -rev).
		request  probe.Request
		versions map[string]expect
		// resumesBy is how TLS 1.2 resumes, when it is accepted.
		resumesBy string
	}{
		{"default", []string{"-www"}, "", map[string]expect{
			// OpenSSL 3 at security level 1 cannot sign TLS 1.0/1.1
			// handshakes (SHA-1) and says "internal error".
			"1.0": {Accepted: "no:internal error", PerConnection: -1},
			"1.1": noVersion, "1.2": v12, "1.3": v13,
		}, probe.ResumesByBoth},
		{"no_ticket", []string{"-www", "-no_ticket"}, "", map[string]expect{
			"1.2": {Accepted: "yes", Tickets: "no", Resumption: "no:no session ticket", TicketReuse: "not tested",
				Load: "not tested", PerConnection: 0},
			"1.3": v13,
		}, probe.ResumesBySessionID},
		{"tls1_2", []string{"-www", "-tls1_2"}, "", map[string]expect{
			"1.0": refused, "1.1": refused, "1.2": v12, "1.3": refused,
		}, probe.ResumesByBoth},
		{"tls1_3", []string{"-www", "-tls1_3"}, "", map[string]expect{
			"1.0": refused, "1.1": refused, "1.2": refused, "1.3": v13,
		}, ""},
		{"rev (line echo)", []string{"-rev"}, "", map[string]expect{
			"1.2": v12, "1.3": v13,
		}, probe.ResumesByBoth},
		{"tls1_3 early_data", []string{"-tls1_3", "-early_data"}, probe.RequestNone, map[string]expect{
			"1.3": {Accepted: "yes", Tickets: "yes", Resumption: "yes", TicketReuse: "no:single-use", Load: "yes", PerConnection: 2},
		}, probe.ResumesByBoth},
		{"SECLEVEL=0 tls1 tls1_1", []string{"-www", "-cipher", "DEFAULT@SECLEVEL=0"}, "", map[string]expect{
			// Go's client still speaks TLS 1.0 and 1.1 when asked to.
			"1.0": {Accepted: "yes", Resumption: "not tested:1.2 and 1.3 only", PerConnection: -1},
			"1.1": {Accepted: "yes", Resumption: "not tested:1.2 and 1.3 only", PerConnection: -1},
		}, probe.ResumesByBoth},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := peers.OpenSSL(t, append([]string{"-cert", p.CertFile, "-key", p.KeyFile}, tt.args...)...)
			o := baseOptions(p, s.Addr)
			o.Request = tt.request
			if tt.request == probe.RequestNone {
				// s_server without -www serves one connection at a
				// time until the client closes: keep the wait short.
				o.TicketWait = 50 * time.Millisecond
				o.Concurrency, o.LoadHandshakes = 8, 16
			}
			rep := runProbe(t, o)
			if want := map[bool]probe.Request{false: probe.RequestHTTPGet, true: probe.RequestLine}[tt.name == "rev (line echo)"]; tt.request == "" && (rep.Request != want || !rep.RequestAuto) {
				t.Errorf("request %s (auto %v: %s), want %s found by asking", rep.Request, rep.RequestAuto, rep.RequestChoice, want)
			}
			for v, want := range tt.versions {
				checkVersion(t, rep, v, want)
			}
			if v := rep.Lookup("1.2"); v != nil && v.Accepted.Status == probe.Yes {
				checkSessionID(t, rep, "yes:server Finished verified", "yes:16 of 16 concurrent resumptions of one session resumed: the cache is shared", tt.resumesBy)
			}
			if tt.name == "tls1_3 early_data" {
				if l := rep.Lookup("1.3").Load; l.TicketReuse != "single" {
					t.Errorf("load test used tickets %q, want single", l.TicketReuse)
				}
			}
		})
	}
}

// s_server requiring a client certificate (-Verify 1): with one, sessions
// made with it resume in both versions.
func TestOpenSSLServerMutual(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	s := peers.OpenSSL(t, "-cert", p.CertFile, "-key", p.KeyFile, "-www", "-Verify", "1", "-CAfile", p.CAFile)
	o := baseOptions(p, s.Addr)
	o.Versions = []uint16{tls.VersionTLS12, tls.VersionTLS13}
	cert := p.Client.TLSCertificate()
	o.ClientCert = &cert
	rep := runProbe(t, o)
	for _, v := range []string{"1.2", "1.3"} {
		checkVersion(t, rep, v, expect{Accepted: "yes", Resumption: "yes", Mutual: "yes", Load: "yes", PerConnection: -1})
	}
}

// nginx (Debian's, OpenSSL 3.0), one worker.
func TestNginx(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	lifetime := uint32(300) // nginx's ssl_session_timeout default, 5 minutes
	tests := []struct {
		name     string
		conf     peers.NginxConfig
		cert     bool
		versions map[string]expect
		// resumesBy is how TLS 1.2 resumes ("": not checked).
		resumesBy string
	}{
		{"tickets on", peers.NginxConfig{Tickets: true, SessionCache: "shared:SSL:1m"}, false, map[string]expect{
			"1.0": {Accepted: "no:protocol_version", PerConnection: -1},
			"1.2": {Accepted: "yes", Tickets: "yes", Resumption: "yes", TicketReuse: "yes", Load: "yes", PerConnection: 1, Lifetime: lifetime},
			"1.3": {Accepted: "yes", Tickets: "yes", Resumption: "yes", TicketReuse: "yes", Load: "yes", PerConnection: 2, Lifetime: lifetime},
		}, probe.ResumesByBoth},
		// Tickets off with a shared cache: TLS 1.2 resumes by session ID
		// only; TLS 1.3 gets stateful tickets that name a session in the
		// shared cache, and they resume.
		{"tickets off, shared cache", peers.NginxConfig{Tickets: false, SessionCache: "shared:SSL:1m"}, false, map[string]expect{
			"1.2": {Accepted: "yes", Tickets: "no", Resumption: "no:no session ticket", TicketReuse: "not tested", Load: "not tested", PerConnection: 0},
			"1.3": {Accepted: "yes", Tickets: "yes", Resumption: "yes", TicketReuse: "yes", Load: "yes", PerConnection: 2, Lifetime: lifetime},
		}, probe.ResumesBySessionID},
		// Tickets off and no cache: OpenSSL still sends TLS 1.3 tickets,
		// but they name sessions nobody keeps, so none resumes.
		{"tickets off, no cache", peers.NginxConfig{Tickets: false, SessionCache: "off"}, false, map[string]expect{
			"1.2": {Accepted: "yes", Tickets: "no", Resumption: "no", PerConnection: 0},
			"1.3": {Accepted: "yes", Tickets: "yes", Resumption: "no:full handshake", TicketReuse: "not tested", Load: "not tested", PerConnection: 2},
		}, probe.ResumesByNeither},
		{"verify client, with certificate", peers.NginxConfig{Tickets: true, SessionCache: "shared:SSL:1m", VerifyClient: "on", ClientCA: p.CAFile}, true, map[string]expect{
			"1.2": {Accepted: "yes", Resumption: "yes", Mutual: "yes:200 OK", Load: "yes", PerConnection: 1},
			"1.3": {Accepted: "yes", Resumption: "yes", Mutual: "yes:200 OK", Load: "yes", PerConnection: 2},
		}, probe.ResumesByBoth},
		// Without a certificate nginx completes the handshake and answers
		// 400: resumption works, mutual resumption is not tested.
		{"verify client, without certificate", peers.NginxConfig{Tickets: true, SessionCache: "shared:SSL:1m", VerifyClient: "on", ClientCA: p.CAFile}, false, map[string]expect{
			"1.3": {Accepted: "yes", Resumption: "yes", Mutual: "not tested:asked for a client certificate", PerConnection: 2},
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.conf.Cert, tt.conf.Key = p.CertFile, p.KeyFile
			n := peers.NginxT(t, tt.conf)
			o := baseOptions(p, n.Addr)
			o.Concurrency, o.LoadHandshakes = 64, 128
			if tt.cert {
				cert := p.Client.TLSCertificate()
				o.ClientCert = &cert
			}
			rep := runProbe(t, o)
			for v, want := range tt.versions {
				checkVersion(t, rep, v, want)
			}
			if tt.resumesBy != "" {
				checkSessionID(t, rep, "", "", tt.resumesBy)
			}
			if tt.conf.VerifyClient != "" {
				want := "HTTP/1.1 200 OK"
				if !tt.cert {
					want = "HTTP/1.1 400 Bad Request"
				}
				if got := rep.Lookup("1.3").Response; got != want {
					t.Errorf("TLS 1.3 response %q, want %q", got, want)
				}
			}
		})
	}
}

// ALPN: nginx with HTTP/2 chooses h2 from h2,http/1.1, and the probe
// speaks the HTTP/2 preface instead of an HTTP/1.1 request.
func TestNginxALPN(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	n := peers.NginxT(t, peers.NginxConfig{Cert: p.CertFile, Key: p.KeyFile, Tickets: true, SessionCache: "shared:SSL:1m", HTTP2: true})
	o := baseOptions(p, n.Addr)
	o.ALPN = []string{"h2", "http/1.1"}
	o.Versions = []uint16{tls.VersionTLS13}
	rep := runProbe(t, o)
	v := rep.Lookup("1.3")
	if v.ALPN != "h2" || v.Response != "HTTP/2 SETTINGS frame" {
		t.Errorf("ALPN %q, response %q; want h2 and the server's SETTINGS frame", v.ALPN, v.Response)
	}
	checkVersion(t, rep, "1.3", expect{Accepted: "yes", Resumption: "yes", Load: "yes", PerConnection: 2})
}
