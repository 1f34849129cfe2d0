package probe_test

import (
	"crypto/tls"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/probe"
	"github.com/tlsbench/tlsbench/server"
)

// The built-in server (crypto/tls) with tickets on: one ticket per
// connection in both versions, reusable; TLS 1.3 tickets live 7 days
// (crypto/tls's maximum), TLS 1.2 hints are 0 (unspecified). TLS 1.0 and
// 1.1 are refused (the server's minimum is 1.2). crypto/tls keeps no
// session cache: TLS 1.2 resumes by ticket only.
func TestBuiltinTicketsOn(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	addr := startBuiltin(t, p, server.Options{})
	o := baseOptions(p, addr)
	o.Request = probe.RequestPing
	rep := runProbe(t, o)

	if rep.Certificate.Verified.Status != probe.Yes || len(rep.Certificate.Certificates) == 0 {
		t.Errorf("certificate: %+v", rep.Certificate)
	} else if c := rep.Certificate.Certificates[0]; c.KeyName != "ECDSA P-256" || c.SignatureAlgorithm != "ECDSA-SHA256" {
		t.Errorf("leaf: key %q, signature %q", c.KeyName, c.SignatureAlgorithm)
	}
	checkVersion(t, rep, "1.0", expect{Accepted: "no:protocol_version", PerConnection: -1})
	checkVersion(t, rep, "1.1", expect{Accepted: "no:protocol_version", PerConnection: -1})
	checkVersion(t, rep, "1.2", expect{Accepted: "yes", Tickets: "yes", Resumption: "yes", TicketReuse: "yes",
		Mutual: "not tested:no client certificate", Load: "yes", PerConnection: 1})
	checkVersion(t, rep, "1.3", expect{Accepted: "yes", Tickets: "yes", Resumption: "yes", TicketReuse: "yes",
		Mutual: "not tested:no client certificate", Load: "yes", PerConnection: 1, Lifetime: 7 * 24 * 3600})
	v12 := rep.Lookup("1.2")
	checkSessionID(t, rep, "no:no session ID", "not tested:no session ID", probe.ResumesByTicket)
	if l := v12.Tickets.LifetimeSeconds; len(l) != 1 || l[0] != 0 {
		t.Errorf("TLS 1.2 lifetime hints %v, want [0] (crypto/tls sends none)", l)
	}
	if v := rep.Lookup("1.3"); v.Response != "echo" || v.CipherSuite == "" || v.Group == "" {
		t.Errorf("TLS 1.3: response %q, suite %q, group %q", v.Response, v.CipherSuite, v.Group)
	}
}

// Tickets off: crypto/tls then has no way to resume (it keeps no session
// cache), so both versions say no; its TLS 1.2 ServerHello echoes the
// client's empty session ID, so TLS 1.2 resumes neither way.
func TestBuiltinTicketsOff(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	addr := startBuiltin(t, p, server.Options{DisableTickets: true})
	o := baseOptions(p, addr)
	o.Request = probe.RequestPing
	o.Versions = []uint16{tls.VersionTLS12, tls.VersionTLS13}
	rep := runProbe(t, o)
	for _, v := range []string{"1.2", "1.3"} {
		checkVersion(t, rep, v, expect{Accepted: "yes", Tickets: "no", Resumption: "no", TicketReuse: "not tested",
			Load: "not tested", PerConnection: 0})
	}
	checkSessionID(t, rep, "no:no session ID", "not tested:no session ID", probe.ResumesByNeither)
}

// The stateful session store: the ticket is a random id of a session kept
// by the server, usable once.
func TestBuiltinStatefulStore(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	addr := startBuiltin(t, p, server.Options{SessionStore: server.StoreStateful})
	o := baseOptions(p, addr)
	o.Request = probe.RequestPing
	o.Versions = []uint16{tls.VersionTLS12, tls.VersionTLS13}
	rep := runProbe(t, o)
	for _, v := range []string{"1.2", "1.3"} {
		checkVersion(t, rep, v, expect{Accepted: "yes", Tickets: "yes", Resumption: "yes", TicketReuse: "no:single-use",
			Load: "yes", PerConnection: 1})
		if l := rep.Lookup(v).Load; l.TicketReuse != "single" {
			t.Errorf("TLS %s: load test used tickets %q, want single", v, l.TicketReuse)
		}
	}
}

// Mutual TLS with the built-in server: the certificate is requested, and
// sessions made with it resume.
func TestBuiltinMutual(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	addr := startBuiltin(t, p, server.Options{Mutual: true})
	o := baseOptions(p, addr)
	o.Request = probe.RequestHTTP // the echo server echoes the request: not HTTP, still an answer
	o.Versions = []uint16{tls.VersionTLS12, tls.VersionTLS13}
	cert := p.Client.TLSCertificate()
	o.ClientCert = &cert
	rep := runProbe(t, o)
	for _, v := range []string{"1.2", "1.3"} {
		checkVersion(t, rep, v, expect{Accepted: "yes", Resumption: "yes", Mutual: "yes", Load: "yes", PerConnection: 1})
		if r := rep.Lookup(v).ClientCertRequested; r == nil || !*r {
			t.Errorf("TLS %s: client certificate not requested", v)
		}
	}

	// Without a certificate the server refuses every handshake.
	o.ClientCert = nil
	rep = runProbe(t, o)
	checkVersion(t, rep, "1.2", expect{Accepted: "error:requires a client certificate", PerConnection: -1})
	checkVersion(t, rep, "1.3", expect{Accepted: "yes:requires a client certificate", Resumption: "not tested:certificate required", PerConnection: -1})
}

// An untrusted certificate: versions are still reported as accepted, the
// chain is shown, and nothing else is tested without Insecure.
func TestUntrustedCertificate(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	addr := startBuiltin(t, p, server.Options{})
	o := baseOptions(p, addr)
	o.Request = probe.RequestPing
	o.RootCAs = nil // system roots do not know the test CA
	o.Versions = []uint16{tls.VersionTLS13}
	rep := runProbe(t, o)
	if rep.Certificate.Verified.Status != probe.No || len(rep.Certificate.Certificates) != 1 {
		t.Fatalf("certificate: %+v", rep.Certificate)
	}
	checkVersion(t, rep, "1.3", expect{Accepted: "yes:did not verify", Resumption: "not tested:give RootCAs FILE or ServerName NAME, or Insecure to probe", PerConnection: -1})
	// The advice names the settings as the caller does (the CLI: flags).
	o.SettingName = func(s string) string { return "<" + s + ">" }
	rep = runProbe(t, o)
	checkVersion(t, rep, "1.3", expect{Accepted: "yes:did not verify", Resumption: "not tested:give <RootCAs> FILE or <ServerName> NAME, or <Insecure> to probe", PerConnection: -1})
	if f := rep.Certificate.Verified; !strings.Contains(f.Detail, "; give <RootCAs> FILE or <ServerName> NAME, or <Insecure>") {
		t.Errorf("verified = %+v, want the advice in the caller's words", f)
	}

	o.Insecure = true
	rep = runProbe(t, o)
	if f := rep.Certificate.Verified; f.Status != probe.No || !strings.Contains(f.Detail, "not enforced") {
		t.Errorf("insecure: verified = %+v", f)
	}
	checkVersion(t, rep, "1.3", expect{Accepted: "yes", Resumption: "yes", PerConnection: 1})
}
