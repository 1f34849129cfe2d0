package runner

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/pki"
)

// TestBuiltinProxyAllowsItsOrigin: the built-in proxy is told the
// origin's host, so that a target on another machine is reached: its CA
// vouches for that host only, and a CONNECT to anything else (this
// machine included) is refused 403 without a connection. No connection
// to the target is made: its address is a documentation one.
func TestBuiltinProxyAllowsItsOrigin(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	plumb := childPlumbing{Executable: exe, Env: []string{"TLSBENCH_TEST_CHILD=1"}}
	for _, tc := range []struct {
		origin string
		check  func(dns []string, ips []*net.IPNet) bool
	}{
		{"192.0.2.10:443", func(dns []string, ips []*net.IPNet) bool {
			return len(dns) == 0 && len(ips) == 1 && ips[0].String() == "192.0.2.10/32"
		}},
		{"[2001:db8::10]:8443", func(dns []string, ips []*net.IPNet) bool {
			return len(dns) == 0 && len(ips) == 1 && ips[0].String() == "2001:db8::10/128"
		}},
		{"origin.example:443", func(dns []string, ips []*net.IPNet) bool {
			return len(dns) == 1 && dns[0] == "origin.example" && len(ips) == 0
		}},
	} {
		t.Run(tc.origin, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			dir := t.TempDir()
			pr, err := startProxyChild(ctx, dir, proxySettings{KTLS: "off"}, "", true, tc.origin, plumb, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer pr.stop()
			certs, err := pki.LoadCertsPEM(filepath.Join(dir, "proxy-pki", "proxy-ca.pem"))
			if err != nil {
				t.Fatal(err)
			}
			if ca := certs[0]; !tc.check(ca.PermittedDNSDomains, ca.PermittedIPRanges) {
				t.Errorf("proxy CA permits names %q and addresses %v; want only the origin's host", ca.PermittedDNSDomains, ca.PermittedIPRanges)
			}
			_, port, _ := net.SplitHostPort(tc.origin)
			c, err := net.Dial("tcp", pr.addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(30 * time.Second))
			fmt.Fprintf(c, "CONNECT 127.0.0.1:%s HTTP/1.1\r\n\r\n", port)
			resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: "CONNECT"})
			if err != nil {
				t.Fatal(err)
			}
			if reason := resp.Header.Get("X-Tlsbench-Error"); resp.StatusCode != 403 || !strings.HasPrefix(reason, "destination not allowed") {
				t.Errorf("CONNECT to this machine through the proxy for %s: %s (%s); want 403", tc.origin, resp.Status, reason)
			}
		})
	}
}
