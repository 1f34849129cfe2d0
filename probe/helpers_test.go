package probe_test

import (
	"context"
	"crypto/tls"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/servertest"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/probe"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/server"
)

// testPKI is a CA with a server identity for localhost, 127.0.0.1 and ::1
// and a client identity, in memory and on disk (for openssl and nginx).
type testPKI struct {
	CA                  *pki.CA
	Server, Client      *pki.Identity
	CAFile              string
	CertFile, KeyFile   string
	ClientCert, ClientK string
}

// newPKI returns a new test PKI, its files in a directory of the test's.
func newPKI(t testing.TB) *testPKI {
	t.Helper()
	ca, srv, f := testpki.ServerFiles(t)
	client, err := ca.IssueClient("probe client")
	if err != nil {
		t.Fatal(err)
	}
	p := &testPKI{CA: ca, Server: srv, Client: client, CAFile: f.CA, CertFile: f.Cert, KeyFile: f.Key}
	p.ClientCert, p.ClientK = testpki.WritePEM(t, filepath.Dir(f.Cert), "client", client)
	return p
}

// startBuiltin starts tlsbench's built-in server, configured as `tlsbench
// serve` would be from o (identities and client CA are filled in), in
// this process on a free 127.0.0.1 port, and stops it when the test ends.
func startBuiltin(t *testing.T, p *testPKI, o server.Options) string {
	t.Helper()
	o.Identities = []server.IdentityFiles{{Cert: p.CertFile, Key: p.KeyFile}}
	if o.Mutual {
		o.ClientCA = p.CAFile
	}
	srv, err := server.NewFromOptions(o, server.WithIdleTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	s := servertest.Start(t, srv)
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("server: %v", err)
		}
	})
	return s.Addr
}

// baseOptions are probe options for a local test server.
func baseOptions(p *testPKI, addr string) probe.Options {
	return probe.Options{
		Addr:           addr,
		ServerName:     "localhost",
		RootCAs:        p.CA.Pool(),
		Concurrency:    16,
		LoadHandshakes: 32,
		Timeout:        5 * time.Second,
		TicketWait:     150 * time.Millisecond,
		Load:           runLoad,
	}
}

// runLoad runs the resumption-rate test as the command does.
func runLoad(ctx context.Context, c probe.LoadCase) (*results.Record, error) {
	return loadgen.RunHandshakes(ctx, measure.HandshakeCase{
		Name: c.Name, Version: c.Version, Resume: true, Mutual: c.Mutual,
		Concurrency: c.Concurrency, Handshakes: c.Handshakes, Iterations: 1,
		MaxErrorRate: 1, Clients: []*tls.Config{c.Client}, Dialer: c.Dialer,
		Exchange: c.Exchange, ConnTimeout: c.ConnTimeout, Words: c.Words,
	})
}

func runProbe(t *testing.T, o probe.Options) *probe.Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rep, err := probe.Run(ctx, o)
	if err != nil {
		t.Fatalf("probe: %v", err)
	}
	var b strings.Builder
	probe.WriteTable(&b, rep)
	t.Logf("report:\n%s", b.String())
	return rep
}

// expect is what a test asserts about one version: each field a status,
// with an optional substring of the detail after a colon, e.g.
// "no:single-use". Empty fields are not checked.
type expect struct {
	Accepted, Tickets, Resumption, TicketReuse, Mutual, Load string
	PerConnection                                            int // -1: not checked
	Lifetime                                                 uint32
}

func checkVersion(t *testing.T, rep *probe.Report, version string, want expect) {
	t.Helper()
	v := rep.Lookup(version)
	if v == nil {
		t.Fatalf("no TLS %s in the report", version)
	}
	check := func(name string, f probe.Finding, w string) {
		t.Helper()
		if w == "" {
			return
		}
		status, sub, _ := strings.Cut(w, ":")
		if string(f.Status) != status || !strings.Contains(f.Detail, sub) {
			t.Errorf("TLS %s %s = %q (%s), want %q containing %q", version, name, f.Status, f.Detail, status, sub)
		}
	}
	check("accepted", v.Accepted, want.Accepted)
	check("tickets", v.Tickets.Finding, want.Tickets)
	check("resumption", v.Resumption, want.Resumption)
	check("ticket reuse", v.TicketReuse, want.TicketReuse)
	check("mutual resumption", v.MutualResumption, want.Mutual)
	check("load", v.Load.Finding, want.Load)
	if want.PerConnection >= 0 && v.Tickets.PerConnection != want.PerConnection {
		t.Errorf("TLS %s: %d tickets per connection, want %d", version, v.Tickets.PerConnection, want.PerConnection)
	}
	if want.Lifetime != 0 {
		if len(v.Tickets.LifetimeSeconds) == 0 {
			t.Errorf("TLS %s: no ticket lifetime, want %d s", version, want.Lifetime)
		}
		for _, l := range v.Tickets.LifetimeSeconds {
			if l != want.Lifetime {
				t.Errorf("TLS %s: ticket lifetime %d s, want %d s", version, l, want.Lifetime)
			}
		}
	}
	if want.Load == "yes" && (v.Load.ResumptionRate == nil || *v.Load.ResumptionRate < 0.99) {
		t.Errorf("TLS %s: resumption under load %q (errors %v), want at least 99%% resumed", version, v.Load.Detail, v.Load.ErrorsByKind)
	}
}

// checkSessionID checks TLS 1.2's session-ID findings, each a status with
// an optional substring of the detail as in expect ("" not checked), and
// the summary of how TLS 1.2 resumes.
func checkSessionID(t *testing.T, rep *probe.Report, single, concurrent, resumesBy string) {
	t.Helper()
	v := rep.Lookup("1.2")
	if v == nil || v.SessionIDResumption == nil || v.SessionIDConcurrent == nil {
		t.Fatalf("TLS 1.2 has no session-ID findings: %+v", v)
	}
	check := func(name string, f probe.Finding, w string) {
		t.Helper()
		status, sub, _ := strings.Cut(w, ":")
		if w != "" && (string(f.Status) != status || !strings.Contains(f.Detail, sub)) {
			t.Errorf("TLS 1.2 %s = %q (%s), want %q containing %q", name, f.Status, f.Detail, status, sub)
		}
	}
	check("session-ID resumption", *v.SessionIDResumption, single)
	check("simultaneous session-ID resumption", v.SessionIDConcurrent.Finding, concurrent)
	if v.ResumesBy != resumesBy {
		t.Errorf("TLS 1.2 resumes by %q, want %q", v.ResumesBy, resumesBy)
	}
}
