package cli_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/cli"
	"github.com/tlsbench/tlsbench/internal/peers"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/results"
)

// peerPKI writes a test PKI whose ECDSA server identity the peers serve.
func peerPKI(t *testing.T) (cert, key, ca string) {
	t.Helper()
	layout, err := pki.Init(pki.InitOptions{Dir: filepath.Join(t.TempDir(), "pki")})
	if err != nil {
		t.Fatal(err)
	}
	return layout.ServerCerts[pki.ECDSAP256], layout.ServerKeys[pki.ECDSAP256], layout.RootCert
}

// runTarget runs tlsbench run against addr with args added, bounded in
// time, and returns what it told the user on stderr (the failed cases'
// reasons and its last line), the records of --out and its error.
func runTarget(t *testing.T, addr, ca string, args ...string) (string, []results.Record, error) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "r.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	all := append([]string{"run", "--target", addr, "--ca", ca, "--sni", "localhost", "--format", "json", "--out", out}, args...)
	err := cli.Run(ctx, all, &stdout, &stderr)
	recs, rerr := results.ReadFile(out)
	if errors.Is(rerr, fs.ErrNotExist) {
		// A run that measured nothing leaves no file behind.
		rerr = nil
	}
	if rerr != nil {
		t.Fatalf("%v (run: %v)", rerr, err)
	}
	return stderr.String() + cli.Message(err), recs, err
}

// TestPartialFailuresFailTheCase: openssl s_server stops accepting after
// 42 connections (-naccept): 2 that ask it which request it answers
// (HEAD /, unanswered, and GET /), 16 warm-up, 16 in the first measured
// iteration, 8 in the second, whose other 8 are refused. Under the default --max-error-rate the case
// fails (exit 1) naming the kind and count, and its record is written,
// marked failed, counting the failures; --max-error-rate 100% measures
// it anyway, with a note.
func TestPartialFailuresFailTheCase(t *testing.T) {
	t.Parallel()
	cert, key, ca := peerPKI(t)
	for _, tt := range []struct {
		rate    string
		code    int
		verdict string
		text    string
	}{
		{"0.001", 1, "failed", "8 of 32 connections failed (25.00%), above --max-error-rate 0.1%: refused "},
		{"100%", 0, "", "8 of 32 connections failed (refused "},
	} {
		s := peers.OpenSSL(t, "-cert", cert, "-key", key, "-www", "-naccept", "42")
		msg, recs, err := runTarget(t, s.Addr, ca, "--tls", "1.3", "--resume", "off", "--concurrency", "1",
			"--handshakes", "16", "--warmup", "1", "--iterations", "2", "--case-time", "0", "--max-error-rate", tt.rate)
		if got := cli.ExitCode(err); got != tt.code {
			t.Errorf("--max-error-rate %s: exit %d (%s), want %d", tt.rate, got, msg, tt.code)
		}
		if tt.code == 1 && !strings.Contains(msg, tt.text) {
			t.Errorf("--max-error-rate %s: message %q lacks %q", tt.rate, msg, tt.text)
		}
		if len(recs) != 1 {
			t.Fatalf("--max-error-rate %s: %d records, want the case's", tt.rate, len(recs))
		}
		r := recs[0]
		// The last connection s_server accepts may be reset as it exits.
		if r.Verdict != tt.verdict || r.Handshakes != 24 || r.Errors != 8 || r.ErrorsByKind["refused"] < 7 ||
			!strings.Contains(strings.Join(r.Notes, "\n"), tt.text) {
			t.Errorf("--max-error-rate %s: verdict %q handshakes %d errors %d %v notes %q", tt.rate, r.Verdict, r.Handshakes, r.Errors, r.ErrorsByKind, r.Notes)
		}
		// Per successful handshake: 24 in the kept iterations.
		if want := 24 / sum(r.SamplesUS) * 1e6; r.HandshakesPerSec <= 0 || r.HandshakesPerSec > 2*want {
			t.Errorf("--max-error-rate %s: %.0f handshakes/s, want successful handshakes over the iterations' time (about %.0f)", tt.rate, r.HandshakesPerSec, want)
		}
	}
}

func sum(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s
}

// TestPingAnsweredByHTTPServer: nginx answers the 1-byte ping (given
// with --request) with an HTTP error response ("H..."): the error says
// the target is not an echo server and suggests leaving --request out or
// --request http.
func TestPingAnsweredByHTTPServer(t *testing.T) {
	t.Parallel()
	cert, key, ca := peerPKI(t)
	n := peers.NginxT(t, peers.NginxConfig{Cert: cert, Key: key})
	msg, recs, err := runTarget(t, n.Addr, ca, "--request", "ping", "--tls", "1.3", "--resume", "off", "--concurrency", "1",
		"--handshakes", "4", "--warmup", "0", "--iterations", "1")
	if cli.ExitCode(err) != 1 || len(recs) != 0 {
		t.Fatalf("exit %d (%s), %d records: want exit 1 and nothing measured", cli.ExitCode(err), msg, len(recs))
	}
	for _, want := range []string{"ping answered with 'H'", "--request http", "leave out --request"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
}

// TestServerThatNeverAnswersTheRequest: openssl s_server -www waits for a
// whole request line, so the ping is never answered. The case stops after
// the first wave that timed out, says that the server completed the
// handshakes but did not answer, and which --request to use.
func TestServerThatNeverAnswersTheRequest(t *testing.T) {
	t.Parallel()
	cert, key, ca := peerPKI(t)
	s := peers.OpenSSL(t, "-cert", cert, "-key", key, "-www")
	began := time.Now()
	msg, _, err := runTarget(t, s.Addr, ca, "--request", "ping", "--tls", "1.3", "--resume", "off", "--concurrency", "1",
		"--handshakes", "8", "--warmup", "1", "--iterations", "2", "--conn-timeout", "1s")
	if cli.ExitCode(err) != 1 {
		t.Fatalf("exit %d (%s), want 1", cli.ExitCode(err), msg)
	}
	for _, want := range []string{"timed out after 1s", "completed the handshakes but does not answer", "--conn-timeout", "--request http"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	// One wave of one connection, not 8 (or 24) timeouts in a row.
	if took := time.Since(began); took > 6*time.Second {
		t.Errorf("took %v to give up on a server that does not answer", took)
	}
}
