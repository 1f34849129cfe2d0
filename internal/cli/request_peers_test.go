package cli_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/cli"
	"github.com/tlsbench/tlsbench/internal/peers"
	"github.com/tlsbench/tlsbench/probe"
)

// TestDefaultRequestAgainstPeers: with a target and no --request, the
// run asks the target once which request it answers, says so on stderr
// and in every record, and its cases pass (resumed ones resume) against
// the servers users run: HTTPS servers, servers that answer GET only,
// echo servers, a server that answers nothing, and tlsbench serve.
func TestDefaultRequestAgainstPeers(t *testing.T) {
	t.Parallel()
	cert, key, ca := peerPKI(t)
	for _, tt := range []struct {
		name  string
		start func(t *testing.T) (addr, ca string)
		want  string
	}{
		{"nginx", func(t *testing.T) (string, string) {
			return peers.NginxT(t, peers.NginxConfig{Cert: cert, Key: key, Tickets: true}).Addr, ca
		}, "http"},
		// HEAD gets no answer, GET does.
		{"openssl s_server -www", func(t *testing.T) (string, string) {
			return peers.OpenSSL(t, "-cert", cert, "-key", key, "-www").Addr, ca
		}, "http-get"},
		// Without -www s_server prints what it reads and answers
		// nothing; its TLS 1.3 tickets come unasked.
		{"openssl s_server", func(t *testing.T) (string, string) {
			return peers.OpenSSL(t, "-cert", cert, "-key", key).Addr, ca
		}, "wait"},
		// HEAD gets a page without a status line, GET an HTTP answer.
		{"gnutls-serv --http", func(t *testing.T) (string, string) {
			return peers.GnuTLS(t, peers.GnuTLSConfig{Cert: cert, Key: key, Mode: "http"}).Addr, ca
		}, "http-get"},
		// Echoes lines: HEAD's first line comes back.
		{"gnutls-serv --echo", func(t *testing.T) (string, string) {
			return peers.GnuTLS(t, peers.GnuTLSConfig{Cert: cert, Key: key, Mode: "echo"}).Addr, ca
		}, "line"},
		{"JSSE http", func(t *testing.T) (string, string) {
			return peers.JSSE(t, peers.JSSEConfig{Cert: cert, Key: key, Mode: "http"}).Addr, ca
		}, "http"},
		{"JSSE echo", func(t *testing.T) (string, string) {
			return peers.JSSE(t, peers.JSSEConfig{Cert: cert, Key: key, Mode: "echo"}).Addr, ca
		}, "line"},
		// tlsbench serve answers an HTTP request as well as its ping.
		{"tlsbench serve", func(t *testing.T) (string, string) {
			addr, serveCA, stop := startServe(t)
			t.Cleanup(func() { stop() })
			return addr, serveCA
		}, "http"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			addr, ca := tt.start(t)
			msg, recs, err := runTarget(t, addr, ca, "--tls", "1.2,1.3", "--resume", "off,on", "--concurrency", "2",
				"--handshakes", "8", "--warmup", "1", "--iterations", "2", "--case-time", "0")
			if cli.ExitCode(err) != 0 || len(recs) != 4 {
				t.Fatalf("exit %d, %d records: want exit 0 and 4 records\n%s", cli.ExitCode(err), len(recs), msg)
			}
			if n := strings.Count(msg, "request for "+addr+": "+tt.want+" ("); n != 1 {
				t.Errorf("stderr says %d times that the target gets %s, want once:\n%s", n, tt.want, msg)
			}
			for _, r := range recs {
				if r.Request != tt.want || !r.RequestAuto {
					t.Errorf("%s: request %q (auto %v), want %q chosen by asking", r.Name, r.Request, r.RequestAuto, tt.want)
				}
				if r.Resume && r.ResumptionRate < 0.99 {
					t.Errorf("%s resumed %.2f", r.Name, r.ResumptionRate)
				}
			}
		})
	}
}

// TestFailedRunEndsWithOneShortLine: a run whose every case fails (the
// ping, given with --request, against nginx) ends with one line under
// 200 characters that counts the failed cases; why they failed, and what
// to do, is listed once above it, not repeated per case.
func TestFailedRunEndsWithOneShortLine(t *testing.T) {
	t.Parallel()
	cert, key, ca := peerPKI(t)
	n := peers.NginxT(t, peers.NginxConfig{Cert: cert, Key: key, Tickets: true})
	msg, recs, err := runTarget(t, n.Addr, ca, "--request", "ping", "--tls", "1.2,1.3", "--resume", "off,on",
		"--concurrency", "1,2", "--handshakes", "4", "--warmup", "0", "--iterations", "1")
	if cli.ExitCode(err) != 1 || len(recs) != 0 {
		t.Fatalf("exit %d, %d records: want exit 1 and nothing measured\n%s", cli.ExitCode(err), len(recs), msg)
	}
	last := "tlsbench: " + cli.Message(err)
	if len(last) >= 200 || strings.Contains(last, "\n") || !strings.HasPrefix(last, "tlsbench: 8 case(s) failed") {
		t.Errorf("last line (%d characters) %q: want one line under 200 that counts the 8 failed cases", len(last), last)
	}
	for _, want := range []string{"failed cases:\n", "ping answered with 'H'", "--request http", "7 more failed the same way: "} {
		if !strings.Contains(msg, want) {
			t.Errorf("stderr lacks %q:\n%s", want, msg)
		}
	}
	if got := strings.Count(msg, "ping answered with 'H'"); got != 1 {
		t.Errorf("the reason is given %d times, want once:\n%s", got, msg)
	}
}

// TestProbeRequestAgainstOpenSSLWWW: openssl s_server -www answers GET
// only. By default the probe finds that out and the whole probe passes
// in seconds; given --request http, the request's first connection says
// what was sent and that nothing came back, names --request http-get and
// --timeout, and the probe does not wait out the timeout again on every
// connection nor blame the handshake.
func TestProbeRequestAgainstOpenSSLWWW(t *testing.T) {
	t.Parallel()
	cert, key, ca := peerPKI(t)
	s := peers.OpenSSL(t, "-cert", cert, "-key", key, "-www")
	for _, tt := range []struct {
		name string
		args []string
		took time.Duration
		// check looks at the report of one version.
		check func(t *testing.T, rep *probe.Report, v *probe.Version)
	}{
		{"default", nil, 15 * time.Second, func(t *testing.T, rep *probe.Report, v *probe.Version) {
			if rep.Request != probe.RequestHTTPGet || !rep.RequestAuto || !strings.Contains(rep.RequestChoice, `HEAD / got no answer in 1s; GET / answered "HTTP/1.0 200 ok"`) {
				t.Errorf("request %q (auto %v, %q), want http-get chosen by asking", rep.Request, rep.RequestAuto, rep.RequestChoice)
			}
			if v.Response != "HTTP/1.0 200 ok" || v.Load.Finding.Status != probe.Yes || v.Load.Errors != 0 {
				t.Errorf("TLS %s: response %q, load %+v: want the answer to GET and a load test that passed", v.Version, v.Response, v.Load)
			}
		}},
		{"--request http", []string{"--request", "http"}, 8 * time.Second, func(t *testing.T, rep *probe.Report, v *probe.Version) {
			first := v.Version == "1.3" // probed first
			for _, want := range map[bool][]string{
				true:  {"sent HEAD / HTTP/1.1 after the handshake; nothing came back within 1s", "--request http-get", "--timeout"},
				false: {"not sent: the server left the request unanswered on an earlier connection (see TLS 1.3)"},
			}[first] {
				if !strings.Contains(v.Response, want) {
					t.Errorf("TLS %s: response %q lacks %q", v.Version, v.Response, want)
				}
			}
			if v.Load.Finding.Status != probe.NotTested || !strings.Contains(v.Load.Finding.Detail, "--timeout") {
				t.Errorf("TLS %s: load %+v: want it not tested, naming --timeout", v.Version, v.Load.Finding)
			}
			if v.Resumption.Status != probe.Yes {
				t.Errorf("TLS %s: resumption %+v: want it tested all the same", v.Version, v.Resumption)
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			var stdout, stderr bytes.Buffer
			args := append([]string{"probe", s.Addr, "--ca", ca, "--sni", "localhost", "--tls", "1.2,1.3", "--timeout", "1s",
				"--concurrency", "8", "--ticket-wait", "50ms", "--format", "json"}, tt.args...)
			began := time.Now()
			err := cli.Run(ctx, args, &stdout, &stderr)
			took := time.Since(began)
			if cli.ExitCode(err) != 0 {
				t.Fatalf("exit %d: %v\n%s", cli.ExitCode(err), err, stderr.String())
			}
			var rep probe.Report
			if err := jsonUnmarshal(stdout.Bytes(), &rep); err != nil {
				t.Fatalf("JSON report: %v\n%s", err, stdout.String())
			}
			for _, name := range []string{"1.2", "1.3"} {
				v := rep.Lookup(name)
				if v == nil || v.Accepted.Status != probe.Yes {
					t.Fatalf("TLS %s: %+v, want it accepted", name, v)
				}
				tt.check(t, &rep, v)
			}
			if out := stdout.String(); strings.Contains(out, "is it a TLS server") || strings.Contains(out, "ConnTimeout") {
				t.Errorf("report blames the handshake or names a library field:\n%s", out)
			}
			if took > tt.took {
				t.Errorf("the probe took %v, want at most %v", took.Round(time.Millisecond), tt.took)
			}
		})
	}
}

// TestVersusTargetsGetOneRequest: two targets compared in one run, of
// which one answers HEAD / (nginx) and the other GET / only (openssl
// s_server -www), both get GET /, which both answer: the sides measure
// the same work and their pair is compared.
func TestVersusTargetsGetOneRequest(t *testing.T) {
	t.Parallel()
	cert, key, ca := peerPKI(t)
	n := peers.NginxT(t, peers.NginxConfig{Cert: cert, Key: key, Tickets: true})
	s := peers.OpenSSL(t, "-cert", cert, "-key", key, "-www")
	msg, recs, err := runTarget(t, n.Addr, ca, "--versus", s.Addr, "--tls", "1.3", "--resume", "on", "--concurrency", "1",
		"--handshakes", "8", "--warmup", "1", "--iterations", "6", "--case-time", "0")
	if cli.ExitCode(err) != 0 || len(recs) != 2 {
		t.Fatalf("exit %d, %d records: want exit 0 and a record per side\n%s", cli.ExitCode(err), len(recs), msg)
	}
	for _, r := range recs {
		if r.Request != "http-get" || !r.RequestAuto || r.ResumptionRate < 0.99 {
			t.Errorf("side %s: request %q (auto %v), resumed %.2f: want http-get, chosen by asking, and resumed", r.Side, r.Request, r.RequestAuto, r.ResumptionRate)
		}
	}
	for _, want := range []string{"request for " + n.Addr + ": http-get (HEAD / answered \"HTTP/1.1 200 OK\"; GET / answered", "(what the other target answers)"} {
		if !strings.Contains(msg, want) {
			t.Errorf("stderr lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "not comparable") {
		t.Errorf("the pair was not compared:\n%s", msg)
	}
}
