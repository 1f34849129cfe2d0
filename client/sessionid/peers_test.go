package sessionid_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/client/sessionid"
	"github.com/tlsbench/tlsbench/internal/peers"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/pki"
)

// peerTimeout bounds each connection to a real peer.
const peerTimeout = 10 * time.Second

func dial(t testing.TB, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, peerTimeout)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(peerTimeout))
	return c
}

// getPage sends an HTTP/1.0 GET / and reads the answer to its end.
func getPage(t testing.TB, c io.ReadWriter) string {
	t.Helper()
	return get(t, c, "/")
}

func get(t testing.TB, c io.ReadWriter, path string) string {
	t.Helper()
	if _, err := io.WriteString(c, "GET "+path+" HTTP/1.0\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("reading the answer: %v (read %q)", err, b)
	}
	return string(b)
}

// fullHandshake runs the first handshake and returns its session and
// the page the server answered on it.
func fullHandshake(t testing.TB, addr string, cfg *tls.Config) (*sessionid.Session, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), peerTimeout)
	defer cancel()
	tc, s, err := sessionid.Handshake(ctx, dial(t, addr), cfg)
	if err != nil {
		t.Fatalf("full handshake: %v", err)
	}
	defer tc.Close()
	if tc.ConnectionState().DidResume {
		t.Fatal("the full handshake resumed")
	}
	return s, getPage(t, tc)
}

// resume resumes s and returns the page the server answered.
func resume(t testing.TB, addr string, s *sessionid.Session) (sessionid.State, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), peerTimeout)
	defer cancel()
	c, err := sessionid.Resume(ctx, dial(t, addr), s)
	if err != nil {
		t.Fatalf("resuming: %v", err)
	}
	defer c.Close()
	return c.ConnectionState(), getPage(t, c)
}

// TestOpenSSL resumes sessions of openssl s_server -no_ticket, which
// caches them by ID, for each suite with and without the extended master
// secret; s_server's -www page says whether it reused the session.
func TestOpenSSL(t *testing.T) {
	t.Parallel()
	peers.Require(t, "openssl")
	ca, _, files := testpki.ServerFiles(t)
	noEMS := writeNoEMSConf(t)
	for _, tc := range []struct {
		name, cipher string
		suite        uint16
	}{
		{"aes128", "ECDHE-ECDSA-AES128-GCM-SHA256", tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256},
		{"aes256", "ECDHE-ECDSA-AES256-GCM-SHA384", tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384},
		{"chacha20", "ECDHE-ECDSA-CHACHA20-POLY1305", tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256},
	} {
		for _, ems := range []bool{true, false} {
			name := tc.name + "/ems"
			args := []string{"-tls1_2", "-no_ticket", "-www", "-cert", files.Cert, "-key", files.Key, "-cipher", tc.cipher}
			var env []string
			if !ems {
				name, args = tc.name+"/no_ems", append(args, "-ssl_config", "noems")
				env = []string{"OPENSSL_CONF=" + noEMS}
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				srv := peers.OpenSSLEnv(t, env, args...)
				cfg := &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost"}
				s, page := fullHandshake(t, srv.Addr, cfg)
				if !strings.Contains(page, "New, TLSv1.2") {
					t.Fatalf("the full handshake's page does not say New, TLSv1.2:\n%s", page)
				}
				if s.CipherSuite() != tc.suite || s.ExtendedMasterSecret() != ems || len(s.ID()) == 0 {
					t.Fatalf("session: suite %s, ems %v, id %x; want %s, ems %v",
						tls.CipherSuiteName(s.CipherSuite()), s.ExtendedMasterSecret(), s.ID(), tls.CipherSuiteName(tc.suite), ems)
				}
				for i := range 3 {
					st, page := resume(t, srv.Addr, s)
					if !strings.Contains(page, "Reused, TLSv1.2") {
						t.Fatalf("resumption %d: the server's page does not say Reused, TLSv1.2:\n%s", i, page)
					}
					if !st.DidResume || st.CipherSuite != tc.suite || st.ExtendedMaster != ems ||
						st.ServerName != "localhost" || len(st.PeerCertificates) == 0 {
						t.Fatalf("resumption %d: state %+v", i, st)
					}
				}
			})
		}
	}
}

// writeNoEMSConf writes an OpenSSL configuration whose SSL section
// "noems" turns the extended master secret off: OpenSSL 3.0's s_server
// has no flag for it.
func writeNoEMSConf(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "noems.cnf")
	conf := "openssl_conf = init\n[init]\nssl_conf = ssl\n[ssl]\nnoems = noems\n[noems]\nOptions = -ExtendedMasterSecret\n"
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestOpenSSLRSA resumes a session of an RSA certificate, whose suite is
// an ECDHE_RSA one.
func TestOpenSSLRSA(t *testing.T) {
	t.Parallel()
	peers.Require(t, "openssl")
	ca := testpki.CA(t)
	id, err := ca.IssueServer(nil, pki.WithKeyType(pki.RSA2048))
	if err != nil {
		t.Fatal(err)
	}
	cert, key := testpki.WritePEM(t, t.TempDir(), "rsa", id)
	srv := peers.OpenSSL(t, "-tls1_2", "-no_ticket", "-www", "-cert", cert, "-key", key)
	s, _ := fullHandshake(t, srv.Addr, &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost"})
	if !strings.Contains(tls.CipherSuiteName(s.CipherSuite()), "ECDHE_RSA") {
		t.Fatalf("suite %s, want an ECDHE_RSA one", tls.CipherSuiteName(s.CipherSuite()))
	}
	if _, page := resume(t, srv.Addr, s); !strings.Contains(page, "Reused, TLSv1.2") {
		t.Fatalf("the server's page does not say Reused, TLSv1.2:\n%s", page)
	}
}

// TestNginx resumes a session of nginx's shared session cache and gets
// its HTTP answer, nginx saying it reused the session. With the cache off
// nginx sends no session ID; offered a session it does not hold, it
// starts a new one: ErrNotResumed.
func TestNginx(t *testing.T) {
	t.Parallel()
	peers.Require(t, "nginx")
	ca, _, files := testpki.ServerFiles(t)
	cfg := &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost"}
	cached := peers.NginxT(t, peers.NginxConfig{Cert: files.Cert, Key: files.Key, SessionCache: "shared:SSL:10m",
		Extra: `location = /reused { return 200 "reused=$ssl_session_reused\n"; }`})
	uncached := peers.NginxT(t, peers.NginxConfig{Cert: files.Cert, Key: files.Key, SessionCache: "off"})
	s, _ := fullHandshake(t, cached.Addr, cfg)
	for i := range 3 {
		ctx, cancel := context.WithTimeout(context.Background(), peerTimeout)
		defer cancel()
		c, err := sessionid.Resume(ctx, dial(t, cached.Addr), s)
		if err != nil {
			t.Fatalf("resumption %d: %v", i, err)
		}
		// nginx's $ssl_session_reused is "r" when it resumed.
		page := get(t, c, "/reused")
		c.Close()
		if !strings.HasPrefix(page, "HTTP/1.1 200") || !strings.HasSuffix(page, "reused=r\n") {
			t.Fatalf("resumption %d: answer %q, want nginx to say it reused the session", i, page)
		}
		if !c.ConnectionState().DidResume {
			t.Fatal("not resumed")
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), peerTimeout)
	defer cancel()
	tc, none, err := sessionid.Handshake(ctx, dial(t, uncached.Addr), cfg)
	if !errors.Is(err, sessionid.ErrNoSessionID) || none != nil {
		t.Fatalf("full handshake with the cache off: session %v, %v; want ErrNoSessionID", none, err)
	}
	// The connection is still usable.
	page := getPage(t, tc)
	tc.Close()
	if !strings.HasPrefix(page, "HTTP/1.1 200") {
		t.Fatalf("answer %q", page)
	}
	c, err := sessionid.Resume(ctx, dial(t, uncached.Addr), s)
	if !errors.Is(err, sessionid.ErrNotResumed) || c != nil {
		t.Fatalf("Resume with the cache off = %v, %v; want ErrNotResumed", c, err)
	}
}

// TestGnuTLS resumes sessions of gnutls-serv, which caches them by ID
// whether or not it also issues tickets (the client offers none). Its
// page does not say whether it resumed: the proof is the client's, a
// server Finished made with the session's master secret.
func TestGnuTLS(t *testing.T) {
	t.Parallel()
	peers.Require(t, "gnutls-serv")
	ca, _, files := testpki.ServerFiles(t)
	for _, args := range [][]string{{"--noticket"}, nil} {
		name := "tickets"
		if args != nil {
			name = "noticket"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := peers.GnuTLS(t, peers.GnuTLSConfig{Cert: files.Cert, Key: files.Key, Mode: "http", Args: args})
			s, _ := fullHandshake(t, srv.Addr, &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost"})
			for i := range 3 {
				st, page := resume(t, srv.Addr, s)
				if !st.DidResume || !strings.HasPrefix(page, "HTTP/1.0 200") {
					t.Fatalf("resumption %d: state %+v, answer %q", i, st, page)
				}
			}
		})
	}
}

// TestJSSE resumes sessions of Java's own TLS stack with tickets off,
// where TLS 1.2 resumes by session ID from the server's cache.
func TestJSSE(t *testing.T) {
	t.Parallel()
	ca, _, files := testpki.ServerFiles(t)
	srv := peers.JSSE(t, peers.JSSEConfig{Cert: files.Cert, Key: files.Key, Mode: "echo",
		Protocols: []string{"TLSv1.2"}, NoTickets: true, NoDelay: true})
	cfg := &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost"}
	ctx, cancel := context.WithTimeout(context.Background(), peerTimeout)
	defer cancel()
	tc, s, err := sessionid.Handshake(ctx, dial(t, srv.Addr), cfg)
	if err != nil {
		t.Fatalf("full handshake: %v", err)
	}
	echo(t, tc)
	tc.Close()
	for i := range 3 {
		c, err := sessionid.Resume(ctx, dial(t, srv.Addr), s)
		if err != nil {
			t.Fatalf("resumption %d: %v", i, err)
		}
		echo(t, c)
		c.Close()
	}
	// 100 kB each way: records of 16 KiB, sequence numbers going on.
	c, err := sessionid.Resume(ctx, dial(t, srv.Addr), s)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	payload := bytes.Repeat([]byte("0123456789"), 10_000)
	go c.Write(payload)
	got := make([]byte, len(payload))
	if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, payload) {
		t.Fatalf("echo of 100 kB: %v", err)
	}
}

// echo writes a line and reads it back.
func echo(t *testing.T, c io.ReadWriter) {
	t.Helper()
	const line = "tlsbench\n"
	if _, err := io.WriteString(c, line); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, len(line))
	if _, err := io.ReadFull(c, b); err != nil || string(b) != line {
		t.Fatalf("echo: %q, %v", b, err)
	}
}

// TestOpenSSLMutual resumes a session whose full handshake sent a
// client certificate: the abbreviated handshake sends none, and the
// server resumes the session with its client identity.
func TestOpenSSLMutual(t *testing.T) {
	t.Parallel()
	peers.Require(t, "openssl")
	ca, _, files := testpki.ServerFiles(t)
	client, err := ca.IssueClient("tlsbench-client")
	if err != nil {
		t.Fatal(err)
	}
	srv := peers.OpenSSL(t, "-tls1_2", "-no_ticket", "-www", "-cert", files.Cert, "-key", files.Key,
		"-Verify", "1", "-CAfile", files.CA)
	cfg := &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost", Certificates: []tls.Certificate{client.TLSCertificate()}}
	s, _ := fullHandshake(t, srv.Addr, cfg)
	_, page := resume(t, srv.Addr, s)
	if !strings.Contains(page, "Reused, TLSv1.2") || !strings.Contains(page, "CN=tlsbench-client") {
		t.Fatalf("the server's page does not say Reused, TLSv1.2 with the client's certificate:\n%s", page)
	}
}
