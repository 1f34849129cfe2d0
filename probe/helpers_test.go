package probe_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/probe"
	"github.com/tlsbench/tlsbench/server"
)

// testPKI is a CA with a server identity for localhost/127.0.0.1 and a
// client identity, in memory and on disk (for openssl and nginx).
type testPKI struct {
	CA                  *pki.CA
	Server, Client      *pki.Identity
	CAFile              string
	CertFile, KeyFile   string
	ClientCert, ClientK string
}

var (
	pkiOnce sync.Once
	pkiVal  *testPKI
	pkiErr  error
	pkiDir  string
)

// newPKI returns the package's test PKI, written once to a directory
// removed by TestMain.
func newPKI(t testing.TB) *testPKI {
	t.Helper()
	pkiOnce.Do(func() {
		dir, err := os.MkdirTemp("", "tlsbench-probe-pki-")
		if err != nil {
			pkiErr = err
			return
		}
		pkiDir = dir
		p := &testPKI{
			CAFile: filepath.Join(dir, "ca.pem"), CertFile: filepath.Join(dir, "server.pem"),
			KeyFile: filepath.Join(dir, "server-key.pem"), ClientCert: filepath.Join(dir, "client.pem"),
			ClientK: filepath.Join(dir, "client-key.pem"),
		}
		if p.CA, pkiErr = pki.NewCA(); pkiErr != nil {
			return
		}
		if p.Server, pkiErr = p.CA.IssueServer(nil); pkiErr != nil {
			return
		}
		if p.Client, pkiErr = p.CA.IssueClient("probe client"); pkiErr != nil {
			return
		}
		for _, err := range []error{
			pki.WriteCertsPEM(p.CAFile, p.CA.Root()),
			pki.WriteCertsPEM(p.CertFile, p.Server.Chain...),
			pki.WriteKeyPEM(p.KeyFile, p.Server.Key),
			pki.WriteCertsPEM(p.ClientCert, p.Client.Chain...),
			pki.WriteKeyPEM(p.ClientK, p.Client.Key),
		} {
			if err != nil {
				pkiErr = err
				return
			}
		}
		pkiVal = p
	})
	if pkiErr != nil {
		t.Fatal(pkiErr)
	}
	return pkiVal
}

func TestMain(m *testing.M) {
	code := m.Run()
	if pkiDir != "" {
		os.RemoveAll(pkiDir)
	}
	os.Exit(code)
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
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("server: %v", err)
		}
	})
	return ln.Addr().String()
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
	}
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
