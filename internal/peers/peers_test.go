package peers_test

import (
	"crypto/tls"
	"github.com/tlsbench/tlsbench/internal/procid"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/peers"
	"github.com/tlsbench/tlsbench/pki"
)

// files writes a test PKI for the peers.
func files(t *testing.T) (ca *pki.CA, caFile, cert, key string) {
	t.Helper()
	ca, _, f := testpki.ServerFiles(t)
	return ca, f.CA, f.Cert, f.Key
}

// get does a TLS handshake and a GET, and returns the status line.
func get(t *testing.T, addr string, ca *pki.CA, version uint16) string {
	t.Helper()
	c, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost", MinVersion: version, MaxVersion: version})
	if err != nil {
		t.Fatalf("TLS %x to %s: %v", version, addr, err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
	b, _ := io.ReadAll(c)
	line, _, _ := strings.Cut(string(b), "\r\n")
	return line
}

func TestOpenSSLServer(t *testing.T) {
	t.Parallel()
	ca, _, cert, key := files(t)
	s := peers.OpenSSL(t, "-cert", cert, "-key", key, "-www", "-tls1_3")
	if !strings.HasPrefix(s.Addr, "127.0.0.1:") {
		t.Fatalf("address %q, want 127.0.0.1:port", s.Addr)
	}
	if got := get(t, s.Addr, ca, tls.VersionTLS13); !strings.HasPrefix(got, "HTTP/1.0 200") {
		t.Errorf("status line %q", got)
	}
	if name, version, err := procid.Identify(s.PID()); err != nil || name != "openssl" || !strings.HasPrefix(version, "OpenSSL ") {
		t.Errorf("Identify(s_server) = %q, %q, %v", name, version, err)
	}
	pid := s.PID()
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("s_server pid %d still running after Stop", pid)
	}
}

func TestOpenSSLBadFlag(t *testing.T) {
	t.Parallel()
	peers.Require(t, "openssl")
	_, err := peers.StartOpenSSL(t.Context(), "-no-such-flag")
	if err == nil || !strings.Contains(err.Error(), "no-such-flag") {
		t.Fatalf("err = %v, want s_server's complaint about the flag", err)
	}
	if _, err := peers.StartOpenSSL(t.Context(), "-accept", "4433"); err == nil {
		t.Fatal("a fixed port was accepted")
	}
}

func TestNginx(t *testing.T) {
	t.Parallel()
	ca, caFile, cert, key := files(t)
	n := peers.NginxT(t, peers.NginxConfig{Cert: cert, Key: key, Tickets: true, SessionCache: "shared:SSL:1m"})
	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		if got := get(t, n.Addr, ca, v); got != "HTTP/1.1 200 OK" {
			t.Errorf("TLS %x: status line %q", v, got)
		}
	}
	if !strings.Contains(n.Config, "listen 127.0.0.1:") || !strings.Contains(n.Config, "worker_processes 1;") {
		t.Errorf("config:\n%s", n.Config)
	}
	if name, version, err := procid.Identify(n.PID()); err != nil || name != "nginx" || !strings.HasPrefix(version, "nginx/") {
		t.Errorf("Identify(nginx master) = %q, %q, %v", name, version, err)
	}
	dir, pid := n.Dir, n.PID()
	if err := n.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("nginx master %d still running after Stop", pid)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("temporary directory %s left behind", dir)
	}

	// A configuration nginx rejects: the error log says why.
	_, err := peers.StartNginx(t.Context(), peers.NginxConfig{Cert: cert, Key: key, VerifyClient: "sometimes", ClientCA: caFile})
	if err == nil || !strings.Contains(err.Error(), `invalid value "sometimes"`) {
		t.Fatalf("err = %v, want nginx's complaint about the value", err)
	}
}

func TestVersions(t *testing.T) {
	t.Parallel()
	peers.Require(t, "openssl")
	v := peers.Versions()
	if !strings.HasPrefix(v["openssl"], "OpenSSL ") {
		t.Errorf("openssl version %q", v["openssl"])
	}
	if _, err := peers.NginxVersion(); err == nil && !strings.HasPrefix(v["nginx"], "nginx/") {
		t.Errorf("nginx version %q", v["nginx"])
	}
	t.Logf("%v", v)
}
