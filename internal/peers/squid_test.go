package peers_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/peers"
)

// TestSquidBumps: curl through Squid to an openssl s_server origin gets
// the origin's page over a certificate Squid minted: it verifies against
// Squid's CA and not against the origin's.
func TestSquidBumps(t *testing.T) {
	t.Parallel()
	peers.Require(t, "curl")
	_, originCA, cert, key := files(t)
	origin := peers.OpenSSL(t, "-cert", cert, "-key", key, "-www")
	sq := peers.Squid(t, peers.SquidConfig{OriginCA: originCA})
	if sq.URL() != "http://"+sq.Addr() || !strings.HasPrefix(sq.Addr(), "127.0.0.1:") {
		t.Fatalf("URL %q, Addr %q", sq.URL(), sq.Addr())
	}
	_, port, _ := net.SplitHostPort(origin.Addr)
	url := "https://localhost:" + port + "/"
	curl := func(ca string) (string, error) {
		out, err := exec.Command("curl", "-sS", "-v", "--max-time", "20", "--proxy", sq.URL(), "--cacert", ca, url).CombinedOutput()
		return string(out), err
	}
	out, err := curl(sq.CAFile())
	if err != nil {
		t.Fatalf("curl through squid: %v\n%s", err, out)
	}
	for _, want := range []string{"HTTP/1.1 200 Connection established", "issuer: CN=tlsbench Squid bump CA", "Ciphers supported in s_server binary"} {
		if !strings.Contains(out, want) {
			t.Errorf("curl output lacks %q:\n%s", want, out)
		}
	}
	// The origin's CA does not verify what curl sees: Squid bumped.
	if out, err := curl(originCA); err == nil {
		t.Errorf("curl trusting only the origin's CA succeeded through squid:\n%s", out)
	}
	if fi, err := os.Stat(filepath.Join(sq.Dir(), "ca.key")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("squid's CA key: %v, %v; want mode 0600", fi.Mode(), err)
	}
	if v := sq.Version(); !strings.HasPrefix(v, "Squid Cache: Version ") {
		t.Errorf("version %q", v)
	}
	if v := peers.Versions()["squid"]; v != sq.Version() {
		t.Errorf("Versions()[squid] = %q, want %q", v, sq.Version())
	}
	pid, dir := sq.PID(), sq.Dir()
	if err := sq.Stop(); err != nil {
		t.Fatal(err)
	}
	if p, _ := os.FindProcess(pid); p.Signal(syscallZero) == nil {
		t.Errorf("squid pid %d still running after Stop", pid)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("directory %s left behind", dir)
	}
}

// connect sends CONNECT target to the proxy and returns the answer.
func connect(t *testing.T, proxy, target string) *http.Response {
	t.Helper()
	c, err := net.DialTimeout("tcp", proxy, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(20 * time.Second))
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: "CONNECT"})
	if err != nil {
		t.Fatalf("CONNECT %s: %v", target, err)
	}
	return resp
}

// TestSquidRefuses: on the plain port the ports of DenyPorts and
// destinations off loopback are refused with 403 and Squid's reason
// header, a closed port with 503; the bumping port answers 200 to all of
// them (Squid serves its error inside the TLS it then terminates).
func TestSquidRefuses(t *testing.T) {
	t.Parallel()
	sq := peers.Squid(t, peers.SquidConfig{DenyPorts: []int{4433}, PlainPort: true})
	closed := closedPort(t)
	for _, tc := range []struct {
		target     string
		status     int
		squidError string
	}{
		{"127.0.0.1:4433", 403, "ERR_ACCESS_DENIED"},
		{"192.0.2.1:443", 403, "ERR_ACCESS_DENIED"},
		{closed, 503, "ERR_CONNECT_FAIL"},
	} {
		resp := connect(t, sq.PlainAddr(), tc.target)
		if resp.StatusCode != tc.status || !strings.HasPrefix(resp.Header.Get("X-Squid-Error"), tc.squidError) {
			t.Errorf("plain port, CONNECT %s: %s, X-Squid-Error %q; want %d %s", tc.target, resp.Status, resp.Header.Get("X-Squid-Error"), tc.status, tc.squidError)
		}
		if resp := connect(t, sq.Addr(), tc.target); resp.StatusCode != 200 {
			t.Errorf("bumping port, CONNECT %s: %s; want 200 (Squid bumps to serve its error)", tc.target, resp.Status)
		}
	}
}

// closedPort is a loopback port nothing listens on.
func closedPort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// TestSquidBadOriginCA: a CA file that does not exist is refused before
// Squid starts, naming the file.
func TestSquidBadOriginCA(t *testing.T) {
	t.Parallel()
	peers.Require(t, "squid")
	_, err := peers.StartSquid(t.Context(), peers.SquidConfig{OriginCA: "/nonexistent/ca.pem"})
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/ca.pem") {
		t.Fatalf("err = %v, want the missing file named", err)
	}
}

var syscallZero = syscall.Signal(0)
