package proxy_test

import (
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/proxy"
)

// TestListenFamily: an IPv4 address, 0.0.0.0 included, listens on IPv4
// only (IPv6 clients cannot reach it), an IPv6 address on IPv6 only.
func TestListenFamily(t *testing.T) {
	t.Parallel()
	v6, err := net.Listen("tcp6", "[::1]:0")
	haveV6 := err == nil
	if haveV6 {
		v6.Close()
	}
	for _, tc := range []struct{ addr, ip string }{
		{"0.0.0.0:0", "0.0.0.0"},
		{"127.0.0.1:0", "127.0.0.1"},
		{"[::1]:0", "::1"},
	} {
		if strings.Contains(tc.addr, "::") && !haveV6 {
			continue
		}
		ln, err := proxy.Listen(tc.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		got := ln.Addr().(*net.TCPAddr)
		if got.IP.String() != tc.ip {
			t.Errorf("Listen(%s) listens on %s, want %s", tc.addr, ln.Addr(), tc.ip)
		}
		if tc.ip == "0.0.0.0" && haveV6 {
			c, err := net.DialTimeout("tcp6", "[::1]:"+strconv.Itoa(got.Port), 10*time.Second)
			if err == nil {
				c.Close()
				t.Errorf("Listen(%s) is reachable over IPv6", tc.addr)
			}
		}
	}
}

// TestOriginInsecureWarns: a proxy that does not verify origins says so
// in one warning line at start, and still tunnels.
func TestOriginInsecureWarns(t *testing.T) {
	t.Parallel()
	org := startOrigin(t)
	p := startProxy(t, org, proxy.Options{MintCache: true, OriginInsecure: true})
	log := p.log.String()
	if n := strings.Count(log, "origin certificates are NOT verified"); n != 1 || !strings.Contains(log, "level=WARN") {
		t.Errorf("log: want one warning line:\n%s", log)
	}
	tc := p.tunnel(t, org, nil)
	echo(t, tc, []byte("unverified"))
	tc.Close()
}
