package probe_test

import (
	"context"
	"crypto/tls"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/peers"
	"github.com/tlsbench/tlsbench/probe"
)

// sessionIDOptions probe TLS 1.2 alone, with the simultaneous round at
// concurrency 64.
func sessionIDOptions(p *testPKI, addr string) probe.Options {
	o := baseOptions(p, addr)
	o.Versions = []uint16{tls.VersionTLS12}
	o.Concurrency, o.LoadHandshakes = 64, 64
	return o
}

// openSSLResumesByID asks OpenSSL's own client whether the server at addr
// resumes a TLS 1.2 session by ID: one s_client saves the session of a
// full handshake without a ticket (-sess_out), a second offers it
// (-sess_in) and prints "Reused, TLSv1.2" when the server resumed it,
// "New, TLSv1.2" when it did not. A server that gives no session ID
// leaves s_client nothing to save: no resumption either.
func openSSLResumesByID(t *testing.T, addr, caFile string) bool {
	t.Helper()
	peers.Require(t, "openssl")
	sess := filepath.Join(t.TempDir(), "session.pem")
	run := func(arg, file string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, "openssl", "s_client", "-connect", addr, "-servername", "localhost",
			"-CAfile", caFile, "-verify_return_error", "-tls1_2", "-no_ticket", arg, file)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("openssl s_client %s: %v\n%s", arg, err, out)
		}
		return string(out)
	}
	first := run("-sess_out", sess)
	if !strings.Contains(first, "New, TLSv1.2") {
		t.Fatalf("openssl s_client -sess_out: no new TLS 1.2 session:\n%s", first)
	}
	if _, err := os.Stat(sess); errors.Is(err, fs.ErrNotExist) {
		// s_client saves no session that has no ID to resume by.
		if !regexp.MustCompile(`(?m)^\s*Session-ID: *$`).MatchString(first) {
			t.Fatalf("openssl s_client -sess_out saved no session, yet its session has an ID:\n%s", first)
		}
		return false
	}
	out := run("-sess_in", sess)
	switch {
	case strings.Contains(out, "Reused, TLSv1.2"):
		return true
	case strings.Contains(out, "New, TLSv1.2"):
		return false
	}
	t.Fatalf("openssl s_client -sess_in says neither Reused nor New:\n%s", out)
	return false
}

// openssl s_server -tls1_2 -no_ticket keeps sessions in its cache and
// issues no ticket: TLS 1.2 resumes by session ID only, all 64
// simultaneous resumptions too (one process, one cache), and OpenSSL's
// own client agrees that the session ID resumes.
func TestOpenSSLSessionID(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	s := peers.OpenSSL(t, "-cert", p.CertFile, "-key", p.KeyFile, "-www", "-tls1_2", "-no_ticket")
	rep := runProbe(t, sessionIDOptions(p, s.Addr))
	checkVersion(t, rep, "1.2", expect{Accepted: "yes", Tickets: "no", Resumption: "no:no session ticket", PerConnection: 0})
	checkSessionID(t, rep, `yes:Finished verified); the server answered "HTTP/1.0 200 ok"`,
		"yes:64 of 64 concurrent resumptions of one session resumed: the cache is shared", probe.ResumesBySessionID)
	if c := rep.Lookup("1.2").SessionIDConcurrent; c.Resumed != 64 || c.NewSessions != 0 || c.Errors != 0 || c.Concurrency != 64 {
		t.Errorf("simultaneous round %+v, want 64 of 64 resumed", c)
	}
	if !openSSLResumesByID(t, s.Addr, p.CAFile) {
		t.Error("openssl s_client did not resume the session ID the probe resumed")
	}
}

// nginx, one worker: a shared cache resumes by session ID whether
// tickets are on or off; with the cache off nginx sends no session ID.
// OpenSSL's client agrees each time.
func TestNginxSessionID(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	tests := []struct {
		name                       string
		conf                       peers.NginxConfig
		ticket, single, concurrent string
		resumesBy                  string
	}{
		{"shared cache, tickets on", peers.NginxConfig{Tickets: true, SessionCache: "shared:SSL:10m"},
			"yes", `yes:answered "HTTP/1.1 200 OK"`, "yes:64 of 64", probe.ResumesByBoth},
		{"shared cache, tickets off", peers.NginxConfig{SessionCache: "shared:SSL:10m"},
			"no:no session ticket", "yes:server Finished verified", "yes:64 of 64", probe.ResumesBySessionID},
		{"cache off, tickets off", peers.NginxConfig{SessionCache: "off"},
			"no:no session ticket", "no:the server gave no session ID", "not tested:no session ID", probe.ResumesByNeither},
		// h2 by ALPN: the resumed connection keeps the session's protocol
		// and gets the HTTP/2 preface.
		{"h2", peers.NginxConfig{Tickets: true, SessionCache: "shared:SSL:10m", HTTP2: true},
			"yes", `yes:answered "HTTP/2 SETTINGS frame"`, "yes:64 of 64", probe.ResumesByBoth},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.conf.Cert, tt.conf.Key = p.CertFile, p.KeyFile
			n := peers.NginxT(t, tt.conf)
			o := sessionIDOptions(p, n.Addr)
			if tt.conf.HTTP2 {
				o.ALPN = []string{"h2", "http/1.1"}
			}
			rep := runProbe(t, o)
			checkVersion(t, rep, "1.2", expect{Accepted: "yes", Resumption: tt.ticket, PerConnection: -1})
			checkSessionID(t, rep, tt.single, tt.concurrent, tt.resumesBy)
			want := rep.Lookup("1.2").SessionIDResumption.Status == probe.Yes
			if got := openSSLResumesByID(t, n.Addr, p.CAFile); got != want {
				t.Errorf("openssl s_client resumed the session ID: %v; the probe: %v", got, want)
			}
		})
	}
}

// nginx with 4 workers, each with a listening socket of its own: with
// `ssl_session_cache builtin`, each worker keeps its own cache, and of 64 simultaneous resumptions of one session
// only those that reach the worker that made it resume; a shared cache
// resumes all 64.
func TestNginxSessionIDWorkers(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	for _, cache := range []string{"builtin:1000", "shared:SSL:10m"} {
		t.Run(cache, func(t *testing.T) {
			t.Parallel()
			n := peers.NginxT(t, peers.NginxConfig{Cert: p.CertFile, Key: p.KeyFile, SessionCache: cache, Workers: 4, ReusePort: true})
			rep := runProbe(t, sessionIDOptions(p, n.Addr))
			c := rep.Lookup("1.2").SessionIDConcurrent
			if cache == "shared:SSL:10m" {
				checkSessionID(t, rep, "yes:server Finished verified", "yes:64 of 64 concurrent resumptions of one session resumed: the cache is shared", probe.ResumesBySessionID)
				return
			}
			// With reuseport the kernel spreads the connections over the
			// 4 workers by address hash: about a quarter reach the one
			// with the session (all 64 with odds of 4^-63).
			if c.Status != probe.No || c.Resumed >= 64 || c.NewSessions == 0 || c.Errors != 0 {
				t.Errorf("per-worker caches: %+v, want fewer than 64 resumed and the others new sessions", c)
			}
			if !strings.Contains(c.Detail, "the cache looks per worker process") {
				t.Errorf("per-worker caches: %q does not say the cache looks per worker process", c.Detail)
			}
			// A session resumes, alone or in the round (none of 64
			// reaching its worker has odds of (3/4)^64).
			checkSessionID(t, rep, "yes:server Finished verified", "", probe.ResumesBySessionID)
		})
	}
}
