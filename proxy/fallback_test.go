package proxy_test

import (
	"crypto/tls"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/proxy"
)

// TestFallbackLoggedOnceAtInfo: with kernel TLS on auto, the first leg
// of a kind the kernel cannot take is logged at info level with the
// reason, the later ones of that kind at debug level only; all are
// counted.
func TestFallbackLoggedOnceAtInfo(t *testing.T) {
	t.Parallel()
	org := startOrigin(t)
	p := startProxy(t, org, proxy.Options{MintCache: true, KTLS: proxy.KTLSAuto})
	for range 3 {
		// A client that sends its TLS before the answer: the kernel
		// cannot take its leg, whatever this kernel has.
		c, err := net.Dial("tcp", p.addr)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(30 * time.Second))
		pc := &prefixConn{Conn: c, prefix: []byte("CONNECT localhost:" + strconv.Itoa(org.port) + " HTTP/1.1\r\n\r\n")}
		tc := tls.Client(&headSkipper{Conn: pc}, &tls.Config{RootCAs: p.pool, ServerName: "localhost"})
		echo(t, tc, []byte("x-early"))
		tc.Close()
	}
	waitFor(t, "the relays to end", func() bool { return p.Counters().Active == 0 })
	if n := p.Counters().Fallbacks["client:"+proxy.FallbackEarlyTLS]; n != 3 {
		t.Errorf("client fallbacks counted: %d, want 3", n)
	}
	var info, debug int
	for _, line := range strings.Split(p.log.String(), "\n") {
		if !strings.Contains(line, "kernel TLS: client leg relayed in user space: ") {
			continue
		}
		switch {
		case strings.Contains(line, "level=INFO") && strings.Contains(line, "before the CONNECT answer"):
			info++
		case strings.Contains(line, "level=DEBUG"):
			debug++
		}
	}
	if info != 1 || debug != 2 {
		t.Errorf("log: %d info and %d debug lines for the client leg, want 1 and 2:\n%s", info, debug, p.log.String())
	}
}

// prefixConn sends prefix in the same write as the first bytes written
// (the ClientHello), so that the proxy reads them in one read.
type prefixConn struct {
	net.Conn
	prefix []byte
}

func (c *prefixConn) Write(p []byte) (int, error) {
	if c.prefix == nil {
		return c.Conn.Write(p)
	}
	b := append(c.prefix, p...)
	c.prefix = nil
	if _, err := c.Conn.Write(b); err != nil {
		return 0, err
	}
	return len(p), nil
}
