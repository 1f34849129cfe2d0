package proxy_test

import (
	"context"
	"crypto/tls"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/peers"
	"github.com/tlsbench/tlsbench/proxy"
)

// TestSNIMustBeConnectHost: a client whose SNI names another host than
// its CONNECT request gets no certificate for that name (the origin was
// verified for the CONNECT host only); the refusal is counted and logged
// in one line. Case and the form of an address do not matter.
func TestSNIMustBeConnectHost(t *testing.T) {
	t.Parallel()
	org := startOrigin(t)
	port := strconv.Itoa(org.port)
	for _, tc := range []struct {
		name, target, sni string
		ok                bool
	}{
		{"same", "localhost:" + port, "localhost", true},
		{"case", "localhost:" + port, "LocalHost", true},
		{"other name", "localhost:" + port, "evil.example", false},
		{"suffix", "localhost:" + port, "localhost.evil.example", false},
		{"name for an address", "127.0.0.1:" + port, "localhost", false},
		{"address without SNI", "127.0.0.1:" + port, "", true},
		{"v6 address without SNI", "[::1]:" + port, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := startProxy(t, org, proxy.Options{MintCache: true})
			c, resp := connect(t, p.addr, tc.target)
			if resp.StatusCode != 200 {
				if strings.Contains(tc.target, "::1") && resp.StatusCode == 502 {
					t.Skipf("no IPv6 loopback here: %s", resp.Header.Get(proxy.ErrorHeader))
				}
				t.Fatalf("CONNECT %s: %s", tc.target, resp.Status)
			}
			verifyName := tc.sni
			if verifyName == "" {
				verifyName = strings.Trim(tc.target[:strings.LastIndex(tc.target, ":")], "[]")
			}
			// Go's client sends no SNI for an address, and verifies the
			// address then.
			tc2 := tls.Client(c, &tls.Config{RootCAs: p.pool, ServerName: verifyName})
			err := tc2.Handshake()
			if tc.ok {
				if err != nil {
					t.Fatalf("handshake: %v", err)
				}
				echo(t, tc2, []byte("through"))
				return
			}
			if err == nil {
				t.Fatalf("handshake with SNI %q through CONNECT %s succeeded", tc.sni, tc.target)
			}
			tc2.Close()
			waitFor(t, "the connection to end", func() bool { return p.Counters().Active == 0 })
			cs := p.Counters()
			if cs.Failures[proxy.FailureSNIMismatch] != 1 || cs.Mints != 0 || cs.ClientHandshakes != 0 || len(cs.Relay) != 0 {
				t.Errorf("counters %+v: want one SNI refusal, no certificate, no relay", cs)
			}
			if n := strings.Count(p.log.String(), "client handshake refused"); n != 1 || !strings.Contains(p.log.String(), "not the CONNECT host") {
				t.Errorf("log: want one refusal line:\n%s", p.log.String())
			}
		})
	}
}

// TestSNICheckedOnResumption: a session from a tunnel to one host does
// not resume under that host's name in a tunnel to another: resumption
// skips the certificate, not the check.
func TestSNICheckedOnResumption(t *testing.T) {
	t.Parallel()
	org := startOrigin(t)
	p := startProxy(t, org, proxy.Options{MintCache: true})
	cache := tls.NewLRUClientSessionCache(4)
	tc := p.tunnel(t, org, &tls.Config{ClientSessionCache: cache})
	echo(t, tc, []byte("x")) // reads the TLS 1.3 ticket
	tc.Close()
	c, resp := connect(t, p.addr, "127.0.0.1:"+strconv.Itoa(org.port))
	if resp.StatusCode != 200 {
		t.Fatal(resp.Status)
	}
	tc = tls.Client(c, &tls.Config{RootCAs: p.pool, ServerName: "localhost", ClientSessionCache: cache})
	if err := tc.Handshake(); err == nil {
		t.Fatalf("resumed (%v) with SNI localhost through CONNECT 127.0.0.1", tc.ConnectionState().DidResume)
	}
	waitFor(t, "the connections to end", func() bool { return p.Counters().Active == 0 })
	if cs := p.Counters(); cs.Failures[proxy.FailureSNIMismatch] != 1 || cs.ClientResumed != 0 {
		t.Errorf("counters %+v", cs)
	}
}

// TestOpenSSLSNIMismatch: openssl s_client through the proxy to
// localhost with -servername evil.example does not verify a certificate
// for evil.example: the handshake is refused.
func TestOpenSSLSNIMismatch(t *testing.T) {
	t.Parallel()
	openssl := peers.Require(t, "openssl")
	org := startOrigin(t)
	p := startProxy(t, org, proxy.Options{MintCache: true})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, openssl, "s_client", "-proxy", p.addr, "-connect", "localhost:"+strconv.Itoa(org.port),
		"-servername", "evil.example", "-CAfile", p.CAFile(), "-verify_return_error", "-brief")
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	if err == nil || strings.Contains(string(out), "Verification: OK") || strings.Contains(string(out), "evil.example\n") {
		t.Fatalf("s_client with SNI evil.example: %v\n%s", err, out)
	}
	waitFor(t, "the connection to end", func() bool { return p.Counters().Active == 0 })
	if cs := p.Counters(); cs.Failures[proxy.FailureSNIMismatch] != 1 || cs.Mints != 0 {
		t.Errorf("counters %+v", cs)
	}
}

var _ = io.EOF
