package peers_test

import (
	"crypto/tls"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/peers"
	"github.com/tlsbench/tlsbench/pki"
)

// echo does a TLS handshake with cfg, writes msg and returns what comes
// back (as many bytes), with whether the handshake resumed.
func echo(t *testing.T, addr string, cfg *tls.Config, msg string) (string, bool) {
	t.Helper()
	c, err := tls.Dial("tcp", addr, cfg)
	if err != nil {
		t.Fatalf("TLS to %s: %v", addr, err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, msg); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, len(msg))
	if _, err := io.ReadFull(c, b); err != nil {
		t.Fatalf("reading the echo: %v", err)
	}
	return string(b), c.ConnectionState().DidResume
}

func clientConfig(ca *pki.CA, version uint16) *tls.Config {
	return &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost", MinVersion: version, MaxVersion: version,
		ClientSessionCache: tls.NewLRUClientSessionCache(4)}
}

// TestJSSEServer starts the Java server in both modes and checks what a
// user of the helper relies on: the versions it was restricted to, the
// echo, HTTP answers, and resumption by ticket and, with tickets off, by
// session ID (TLS 1.2).
func TestJSSEServer(t *testing.T) {
	t.Parallel()
	ca, _, cert, key := files(t)
	t.Run("echo", func(t *testing.T) {
		t.Parallel()
		s := peers.JSSE(t, peers.JSSEConfig{Cert: cert, Key: key, Protocols: []string{"TLSv1.3"}})
		cfg := clientConfig(ca, tls.VersionTLS13)
		if got, _ := echo(t, s.Addr, cfg, "tlsbench\n"); got != "tlsbench\n" {
			t.Errorf("echo %q", got)
		}
		if _, resumed := echo(t, s.Addr, cfg, "x"); !resumed {
			t.Error("second TLS 1.3 connection did not resume")
		}
		if _, err := tls.Dial("tcp", s.Addr, clientConfig(ca, tls.VersionTLS12)); err == nil {
			t.Error("TLS 1.2 accepted by a server restricted to TLSv1.3")
		}
	})
	t.Run("http-session-ids", func(t *testing.T) {
		t.Parallel()
		s := peers.JSSE(t, peers.JSSEConfig{Cert: cert, Key: key, Mode: "http", NoTickets: true, KeyManager: "PKIX"})
		if got := get(t, s.Addr, ca, tls.VersionTLS12); got != "HTTP/1.1 200 OK" {
			t.Errorf("status line %q", got)
		}
		// Go's client resumes TLS 1.2 only by ticket: with tickets
		// off, it must not resume.
		cfg := clientConfig(ca, tls.VersionTLS12)
		echoHTTP(t, s.Addr, cfg)
		if resumed := echoHTTP(t, s.Addr, cfg); resumed {
			t.Error("TLS 1.2 resumed by ticket with tickets off")
		}
	})
}

// echoHTTP sends a HEAD request and reads the answer's status line.
func echoHTTP(t *testing.T, addr string, cfg *tls.Config) bool {
	t.Helper()
	c, err := tls.Dial("tcp", addr, cfg)
	if err != nil {
		t.Fatalf("TLS to %s: %v", addr, err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	io.WriteString(c, "HEAD / HTTP/1.1\r\nHost: localhost\r\n\r\n")
	b := make([]byte, 64)
	n, _ := c.Read(b)
	if !strings.HasPrefix(string(b[:n]), "HTTP/1.1 200") {
		t.Errorf("HEAD answered %q", b[:n])
	}
	return c.ConnectionState().DidResume
}

// TestJSSEClientCA: with a client CA the server refuses a client
// without a certificate and takes one the CA issued.
func TestJSSEClientCA(t *testing.T) {
	t.Parallel()
	ca, caFile, cert, key := files(t)
	s := peers.JSSE(t, peers.JSSEConfig{Cert: cert, Key: key, ClientCA: caFile, Protocols: []string{"TLSv1.2"}})
	cfg := clientConfig(ca, tls.VersionTLS12)
	c, err := tls.Dial("tcp", s.Addr, cfg)
	if err == nil {
		c.SetDeadline(time.Now().Add(5 * time.Second))
		_, err = c.Write([]byte("x"))
		if err == nil {
			_, err = c.Read(make([]byte, 1))
		}
		c.Close()
	}
	if err == nil {
		t.Error("a client without a certificate was served")
	}
	id, err := ca.IssueClient("client")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Certificates = []tls.Certificate{id.TLSCertificate()}
	if got, _ := echo(t, s.Addr, cfg, "ok"); got != "ok" {
		t.Errorf("echo %q", got)
	}
}

// TestJSSEKeyStore serves a PKCS#12 key store given as a file with its
// own password and iteration count, through the PKIX key manager, which
// reads its key on every handshake; the client CA's trust store is
// opened with the same password. A key store beside a certificate, or
// without its password, is refused before Java starts.
func TestJSSEKeyStore(t *testing.T) {
	t.Parallel()
	ca, caFile, cert, key := files(t)
	ks := peers.JSSEKeyStore(t, cert, key, "another password", 10_000)
	s := peers.JSSE(t, peers.JSSEConfig{KeyStore: ks, KeyStorePassword: "another password", KeyManager: "PKIX",
		ClientCA: caFile, Protocols: []string{"TLSv1.3"}})
	id, err := ca.IssueClient("client")
	if err != nil {
		t.Fatal(err)
	}
	cfg := clientConfig(ca, tls.VersionTLS13)
	cfg.Certificates = []tls.Certificate{id.TLSCertificate()}
	for i := range 2 {
		if got, _ := echo(t, s.Addr, cfg, "ok"); got != "ok" {
			t.Errorf("handshake %d: echo %q", i, got)
		}
	}
	for _, c := range []struct {
		cfg  peers.JSSEConfig
		want string
	}{
		{peers.JSSEConfig{KeyStore: ks, KeyStorePassword: "x", Cert: cert, Key: key}, "not both"},
		{peers.JSSEConfig{KeyStore: ks}, "needs its password"},
		{peers.JSSEConfig{KeyStore: ks + ".missing", KeyStorePassword: "x"}, "no such file"},
	} {
		if _, err := peers.StartJSSE(t.Context(), c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one saying %q", c.cfg, err, c.want)
		}
	}
}

// TestGnuTLSServer: gnutls-serv in both modes, on the helper's port,
// resuming TLS 1.3 by ticket.
func TestGnuTLSServer(t *testing.T) {
	t.Parallel()
	ca, _, cert, key := files(t)
	e := peers.GnuTLS(t, peers.GnuTLSConfig{Cert: cert, Key: key})
	cfg := clientConfig(ca, tls.VersionTLS13)
	if got, _ := echo(t, e.Addr, cfg, "tlsbench\n"); got != "tlsbench\n" {
		t.Errorf("echo %q", got)
	}
	if _, resumed := echo(t, e.Addr, cfg, "again\n"); !resumed {
		t.Error("second TLS 1.3 connection did not resume")
	}
	h := peers.GnuTLS(t, peers.GnuTLSConfig{Cert: cert, Key: key, Mode: "http"})
	if got := get(t, h.Addr, ca, tls.VersionTLS12); !strings.HasPrefix(got, "HTTP/1.0 200") {
		t.Errorf("status line %q", got)
	}
	if _, err := peers.StartGnuTLS(t.Context(), peers.GnuTLSConfig{Cert: cert, Key: key, Mode: "bogus"}); err == nil {
		t.Error("mode bogus accepted")
	}
}
