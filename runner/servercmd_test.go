package runner_test

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/peers"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/report/compare"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/runner"
)

// TestServerCommandsCountedOpenSSLVersusGnuTLS: the run starts OpenSSL's
// s_server (side a) and GnuTLS's gnutls-serv (side b) by their commands,
// under callgrind, and counts their instructions from outside: each
// side's iterations agree within 1%, and compare names the server's
// instructions as where the sides differ (GnuTLS's full TLS 1.3
// handshake counted 1.23x OpenSSL's here), with an interval within 1% of
// the ratio. Both servers are stopped after the run.
func TestServerCommandsCountedOpenSSLVersusGnuTLS(t *testing.T) {
	openssl, gnutls := peers.Require(t, "openssl"), peers.Require(t, "gnutls-serv")
	peers.Require(t, "vgdb") // valgrind's, which counts from outside
	_, _, files := testpki.ServerFiles(t)
	a, b := peers.FreeLoopback(t), peers.FreeLoopback(t)
	_, bPort, _ := net.SplitHostPort(b)
	p := runner.Plan{
		Versions: []uint16{tls.VersionTLS13}, Resume: []bool{false}, Concurrency: []int{1},
		Handshakes: 8, Iterations: 6, Warmup: 1, ConnTimeout: 20 * time.Second, Instructions: true,
		Target: runner.Target{Addr: a, CAFile: files.CA, ServerName: "localhost",
			Command: fmt.Sprintf("%s s_server -quiet -www -naccept 100000 -accept %s -cert %s -key %s", openssl, a, files.Cert, files.Key)},
		Versus: runner.Versus{Target: runner.Target{Addr: b,
			Command: fmt.Sprintf("%s --http --x509certfile %s --x509keyfile %s --port %s", gnutls, files.Cert, files.Key, bPort)}},
	}
	recs := collect(t, 2, func(emit func(*results.Record) error) error {
		return runner.Run(context.Background(), p, emit)
	})
	for _, r := range recs {
		xs := r.ServerInstructionsSamples
		if len(xs) != len(r.SamplesUS) || r.ServerInstructionsPerHS == nil || *r.ServerInstructionsPerHS < 1e6 {
			t.Fatalf("side %s: server instructions %v per iteration, %v per handshake: want millions in each of %d", r.Side, xs, r.ServerInstructionsPerHS, len(r.SamplesUS))
		}
		t.Logf("side %s: %.0f instructions per handshake, iterations spread by %.3f%%", r.Side, *r.ServerInstructionsPerHS, 100*spread(xs))
		// Each side names its own server, the program its command
		// started, not the shell or valgrind that run it.
		want, other, prefix := "openssl", "gnutls-serv", "OpenSSL "
		if r.Side == results.SideB {
			want, other, prefix = "gnutls-serv", "openssl", "gnutls-serv "
		}
		if v := r.Env.Peers[want]; !strings.HasPrefix(v, prefix) || r.Env.Peers[other] != "" {
			t.Errorf("side %s: peers %v, want %s's version (%s...) alone", r.Side, r.Env.Peers, want, prefix)
		}
		if s := spread(xs); s > 0.01 {
			t.Errorf("side %s: iterations' instructions per handshake %v spread by %.2f%%, want within 1%%", r.Side, xs, 100*s)
		}
	}
	c, err := compare.ComparePaired(recs, compare.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mc, ok := c.Cases[0].Metric(results.MetricServerInstructions)
	t.Logf("server instructions b/a %.4f [%.4f, %.4f], %s", mc.Ratio, mc.CILo, mc.CIHi, mc.Verdict)
	if !ok || !changed(mc) || mc.CIHi-mc.CILo > 0.01*mc.Ratio || mc.Ratio < 1.05 || mc.Ratio > 2 {
		t.Errorf("server instructions compared %v: %+v; want GnuTLS's count higher, its interval within 1%%", ok, mc)
	}
	// Both servers were given this test's certificate: no process with
	// it in its command line is left (their ports, free again, may be
	// taken by another test's server meanwhile).
	out, err := exec.Command("pgrep", "-a", "-f", files.Cert).Output()
	var ee *exec.ExitError
	switch {
	case err == nil:
		t.Errorf("the servers were not stopped after the run:\n%s", out)
	case !errors.As(err, &ee) || ee.ExitCode() != 1: // 1: no process matched
		t.Errorf("pgrep: %v", err)
	}
}

// TestServerCommandDeathEndsTheRun: a server started by its command that
// exits during the run (OpenSSL's s_server after its 70th connection)
// ends the run at once with a *ServerDiedError that says how it ended
// and quotes its last line on stderr, as a built-in server's death does,
// rather than every later case failing on refused connections; the case
// it cut short is marked failed.
func TestServerCommandDeathEndsTheRun(t *testing.T) {
	openssl := peers.Require(t, "openssl")
	_, _, files := testpki.ServerFiles(t)
	a := peers.FreeLoopback(t)
	p := runner.Plan{
		Versions: []uint16{tls.VersionTLS13}, Resume: []bool{false, true}, Concurrency: []int{1},
		Handshakes: 20, Iterations: 5, Warmup: 1,
		Target: runner.Target{Addr: a, CAFile: files.CA, ServerName: "localhost",
			Command: fmt.Sprintf("%s s_server -quiet -www -naccept 70 -accept %s -cert %s -key %s; echo 'served its last' >&2; exit 3", openssl, a, files.Cert, files.Key)},
	}
	var recs []*results.Record
	err := runner.Run(context.Background(), p, func(r *results.Record) error { recs = append(recs, r); return nil })
	var died *runner.ServerDiedError
	if !errors.As(err, &died) {
		t.Fatalf("run = %v, want a *ServerDiedError", err)
	}
	for _, want := range []string{"exit status 3", "served its last", "1 more case was not run"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if len(recs) != 1 || recs[0].Verdict != "failed" {
		t.Fatalf("records %v, want the one case cut short, failed (run: %v)", recs, err)
	}
}
