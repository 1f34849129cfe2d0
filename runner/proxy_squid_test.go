package runner_test

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/peers"
	"github.com/tlsbench/tlsbench/internal/testchild"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/runner"
	"github.com/tlsbench/tlsbench/server"
)

// squidOrigin starts real Squid bumping on loopback, trusting the CA of
// the server identity it returns (the built-in server's, given to the
// plan as its identity files).
func squidOrigin(t *testing.T) (*peers.SquidProxy, server.IdentityFiles) {
	t.Helper()
	_, _, f := testpki.ServerFiles(t)
	sq := peers.Squid(t, peers.SquidConfig{OriginCA: f.CA})
	return sq, server.IdentityFiles{Cert: f.Cert, Key: f.Key}
}

// TestHandshakeThroughSquid measures bumped handshakes through real
// Squid: full handshakes pass with Squid's CPU sampled from its process
// tree and each figure said of its leg. Resumption on the client leg is
// Squid's to give: Squid 5.7 as squid-bump.sh configures it resumes none
// of the client's sessions (TLS 1.2 and 1.3 alike), so the resume case
// fails its gate with the advice that points at the proxy; the test
// asserts exactly that, and fails if Squid starts resuming (update the
// documentation then).
func TestHandshakeThroughSquid(t *testing.T) {
	t.Parallel()
	sq, id := squidOrigin(t)
	p := runner.Plan{
		Versions: []uint16{tls.VersionTLS13}, Resume: []bool{false, true}, Concurrency: []int{2},
		Handshakes: 8, Iterations: 2, Warmup: 1, MinResumption: 0.99, ConnTimeout: 20 * time.Second,
		Proxy:    runner.Proxy{URL: sq.URL(), CAFile: sq.CAFile(), PID: sq.PID()},
		ChildEnv: []string{testchild.Env()},
	}
	p.Server.Identities = []server.IdentityFiles{id}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var recs []results.Record
	err := runner.Run(ctx, p, func(r *results.Record) error { recs = append(recs, *r); return nil })
	var re *measure.ResumptionError
	if !errors.As(err, &re) || !strings.Contains(re.Error(), "resumed, or not, by the proxy") {
		t.Fatalf("want the resume case to fail its gate with the proxy's advice (Squid resumes no client session): %v", err)
	}
	if re.Resumed != 0 {
		t.Errorf("Squid resumed %d of %d client sessions: document it and update this test", re.Resumed, re.Total)
	}
	if len(recs) != 1 {
		t.Fatalf("%d records, want the full case's", len(recs))
	}
	r := recs[0]
	if r.Name != "handshake/proxy-url/tls1.3/full/keycache-on/c2" || r.Proxy != sq.URL() || r.Handshakes != 16 || r.Errors != 0 || r.Request != "http" {
		t.Fatalf("record: %s proxy %q handshakes %d errors %d request %q notes %v", r.Name, r.Proxy, r.Handshakes, r.Errors, r.Request, r.Notes)
	}
	if r.ProxyCPUUS == nil || *r.ProxyCPUUS < 0 {
		t.Errorf("proxy_cpu_us %v: Squid's process tree was given", r.ProxyCPUUS)
	}
	if r.ProxyMints != nil || r.ProxyRelay != "" || r.ServerResumed == nil || *r.ServerResumed != 0 {
		t.Errorf("a URL proxy reports no counts; the server counts its own leg: %+v", r)
	}
	if !strings.Contains(strings.Join(r.Notes, "\n"), "proxy–origin leg") {
		t.Errorf("no note on the legs: %v", r.Notes)
	}

	// The pid of a process that is not the proxy is refused before any
	// case: its CPU would be reported as the proxy's.
	p.Proxy.PID = os.Getpid()
	var fe *plan.Error
	if err := runner.Run(ctx, p, func(*results.Record) error { return nil }); !errors.As(err, &fe) || fe.Setting == nil || fe.Setting.Name != plan.OfField("Proxy.PID").Name {
		t.Fatalf("a pid that does not listen on the proxy's port: %v", err)
	}
}

// TestURLProxyUnreachable: a proxy given by URL that does not accept
// connections stops the run before any case, saying so; a --proxy-ca
// that cannot be read is a field error.
func TestURLProxyUnreachable(t *testing.T) {
	t.Parallel()
	_, _, f := testpki.ServerFiles(t)
	addr := refusedAddr(t)
	p := runner.Plan{Versions: []uint16{tls.VersionTLS13}, Resume: []bool{false}, Concurrency: []int{1}, Handshakes: 1, Iterations: 1,
		Proxy: runner.Proxy{URL: "http://" + addr, CAFile: f.CA}, ChildEnv: []string{testchild.Env()}}
	emitted := 0
	err := runner.Run(context.Background(), p, func(*results.Record) error { emitted++; return nil })
	var pe *runner.ProxyStartError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "proxy http://"+addr+": unreachable: connection refused") || emitted != 0 {
		t.Fatalf("unreachable proxy: %v (%d records)", err, emitted)
	}
	p.Proxy.CAFile = f.CA + ".missing"
	var fe *plan.Error
	if err := runner.Run(context.Background(), p, func(*results.Record) error { return nil }); !errors.As(err, &fe) || fe.Setting == nil || fe.Setting.Name != plan.OfField("Proxy.CAFile").Name {
		t.Fatalf("unreadable proxy CA: %v", err)
	}
}

// refusedAddr is a loopback address where connections are refused for as
// long as the test runs: its port is bound but never listened on, so no
// other test can take it in the meantime.
func refusedAddr(t *testing.T) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("127.0.0.1:%d", sa.(*syscall.SockaddrInet4).Port)
}
