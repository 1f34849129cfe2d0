package proxy_test

import (
	"bufio"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/proxy"
)

// rawAnswer sends raw bytes as the request and reads the answer.
func rawAnswer(t *testing.T, addr, raw string) *http.Response {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("answer to %.40q: %v", raw, err)
	}
	return resp
}

// TestRefusals: what the proxy does not serve gets an error status with
// the reason in its header, is counted by reason and logged in one line.
func TestRefusals(t *testing.T) {
	t.Parallel()
	org := startOrigin(t)
	target := "localhost:" + strconv.Itoa(org.port)
	for _, tc := range []struct {
		name, raw string
		status    int
		reason    string
		header    string // in the reason header
	}{
		{"get", "GET http://" + target + "/ HTTP/1.1\r\nHost: " + target + "\r\n\r\n", 405, proxy.RefusedMethod, "only CONNECT"},
		{"post", "POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello", 405, proxy.RefusedMethod, "only CONNECT"},
		{"port", "CONNECT localhost:22 HTTP/1.1\r\n\r\n", 403, proxy.RefusedPort, "port 22 is not allowed; allowed: " + strconv.Itoa(org.port)},
		{"garbage", "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", 400, proxy.RefusedMalformed, "not an HTTP/1.x request line"},
		{"http2", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 400, proxy.RefusedMalformed, "not an HTTP/1.x"},
		{"no port", "CONNECT localhost HTTP/1.1\r\n\r\n", 400, proxy.RefusedHostName, "CONNECT needs host:port"},
		{"bad host", "CONNECT local\x01host:443 HTTP/1.1\r\n\r\n", 400, proxy.RefusedHostName, "CONNECT needs host:port"},
		{"oversize", "CONNECT " + target + " HTTP/1.1\r\nX: " + strings.Repeat("a", 9000) + "\r\n\r\n", 400, proxy.RefusedMalformed, "longer than 8 KiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := startProxy(t, org, proxy.Options{MintCache: true})
			resp := rawAnswer(t, p.addr, tc.raw)
			if resp.StatusCode != tc.status || !strings.Contains(resp.Header.Get(proxy.ErrorHeader), tc.header) {
				t.Errorf("answer %s %s: %q; want %d with %q", resp.Proto, resp.Status, resp.Header.Get(proxy.ErrorHeader), tc.status, tc.header)
			}
			if tc.status == 405 && resp.Header.Get("Allow") != "CONNECT" {
				t.Errorf("405 without Allow: CONNECT: %v", resp.Header)
			}
			waitFor(t, "the connection to end", func() bool { return p.Counters().Active == 0 })
			if c := p.Counters(); c.Refused[tc.reason] != 1 || c.Connects != 0 || c.Mints != 0 {
				t.Errorf("counters %+v: want one refusal %q, nothing else", c, tc.reason)
			}
			if n := strings.Count(p.log.String(), "request refused"); n != 1 {
				t.Errorf("log has %d refusal lines, want 1:\n%s", n, p.log.String())
			}
		})
	}
}

// TestUntrustedOrigin: an origin whose certificate the proxy cannot
// verify gets 502 with the reason, and the client never gets a tunnel.
func TestUntrustedOrigin(t *testing.T) {
	t.Parallel()
	org := startOrigin(t)
	other := testpki.CA(t)
	p := startProxy(t, org, proxy.Options{OriginCA: writeCA(t, other), MintCache: true})
	_, resp := connect(t, p.addr, "localhost:"+strconv.Itoa(org.port))
	reason := resp.Header.Get(proxy.ErrorHeader)
	if resp.StatusCode != 502 || !strings.Contains(reason, "certificate") || !strings.Contains(reason, "localhost:"+strconv.Itoa(org.port)) {
		t.Fatalf("answer %s, reason %q; want 502 naming the origin and its certificate", resp.Status, reason)
	}
	c := p.Counters()
	if c.Refused[proxy.RefusedOrigin] != 1 || c.OriginHandshakes != 0 || c.Connects != 0 {
		t.Errorf("counters %+v", c)
	}
	if n := strings.Count(p.log.String(), "origin refused"); n != 1 || !strings.Contains(p.log.String(), "level=WARN") {
		t.Errorf("log: want one warning line:\n%s", p.log.String())
	}
}

// TestOriginNameChecked: the origin's certificate must be for the
// CONNECT host, not just from a trusted CA.
func TestOriginNameChecked(t *testing.T) {
	t.Parallel()
	org := startOrigin(t) // its certificate is for localhost, 127.0.0.1, ::1
	p := startProxy(t, org, proxy.Options{MintCache: true})
	_, resp := connect(t, p.addr, "127.0.0.2:"+strconv.Itoa(org.port))
	if resp.StatusCode != 502 {
		t.Fatalf("CONNECT to a name the origin's certificate does not carry: %s", resp.Status)
	}
}

// TestOriginDown: nothing listening is a 502 too.
func TestOriginDown(t *testing.T) {
	t.Parallel()
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	org := startOrigin(t)
	p := startProxy(t, org, proxy.Options{ConnectPorts: []int{port}, MintCache: true})
	_, resp := connect(t, p.addr, "localhost:"+strconv.Itoa(port))
	if resp.StatusCode != 502 || !strings.Contains(resp.Header.Get(proxy.ErrorHeader), "refused") {
		t.Fatalf("answer %s %q", resp.Status, resp.Header.Get(proxy.ErrorHeader))
	}
}

// TestStalledClients: a client that never finishes its request, and one
// that never starts TLS after the answer, are cut by the handshake
// timeout.
func TestStalledClients(t *testing.T) {
	t.Parallel()
	org := startOrigin(t)
	p := startProxy(t, org, proxy.Options{HandshakeTimeout: 300 * time.Millisecond, MintCache: true})

	c1, err := net.Dial("tcp", p.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c1.Close()
	io.WriteString(c1, "CONNECT localhost:") // and nothing more
	c2, resp := connect(t, p.addr, "localhost:"+strconv.Itoa(org.port))
	if resp.StatusCode != 200 {
		t.Fatal(resp.Status)
	}
	for i, c := range []net.Conn{c1, c2} {
		c.SetReadDeadline(time.Now().Add(30 * time.Second))
		if _, err := io.Copy(io.Discard, c); err != nil && !isReset(err) {
			t.Errorf("stalled client %d: %v; want the proxy to close", i+1, err)
		}
	}
	waitFor(t, "both to end", func() bool { return p.Counters().Active == 0 })
	c := p.Counters()
	if c.Refused[proxy.RefusedTimeout] != 1 || c.Failures["client:timeout"] != 1 {
		t.Errorf("counters %+v: want one request and one client handshake timed out", c)
	}
}

func isReset(err error) bool {
	var ne *net.OpError
	return errors.As(err, &ne) && strings.Contains(err.Error(), "reset")
}

// TestMaxConns: beyond the cap, a connection is answered 503 at once.
func TestMaxConns(t *testing.T) {
	t.Parallel()
	org := startOrigin(t)
	p := startProxy(t, org, proxy.Options{MaxConns: 1, MintCache: true})
	held := p.tunnel(t, org, nil)
	resp := rawAnswer(t, p.addr, "CONNECT localhost:"+strconv.Itoa(org.port)+" HTTP/1.1\r\n\r\n")
	if resp.StatusCode != 503 {
		t.Fatalf("second connection: %s, want 503", resp.Status)
	}
	held.Close()
	waitFor(t, "the slot to free", func() bool { return p.Counters().Active == 0 })
	p.tunnel(t, org, nil).Close()
	if c := p.Counters(); c.Refused[proxy.RefusedMaxConns] != 1 || c.Connects != 2 {
		t.Errorf("counters %+v", c)
	}
}

// TestClientLegResumes: a client that keeps its session resumes with the
// proxy on its next connection, and the proxy counts it.
func TestClientLegResumes(t *testing.T) {
	t.Parallel()
	org := startOrigin(t)
	p := startProxy(t, org, proxy.Options{MintCache: true})
	cache := tls.NewLRUClientSessionCache(4)
	for i := range 2 {
		tc := p.tunnel(t, org, &tls.Config{ClientSessionCache: cache})
		// A round trip reads the TLS 1.3 ticket sent after the handshake.
		tc.Write([]byte("x"))
		io.ReadFull(tc, make([]byte, 1))
		if got := tc.ConnectionState().DidResume; got != (i == 1) {
			t.Errorf("connection %d: resumed %v", i+1, got)
		}
		tc.Close()
	}
	waitFor(t, "the relays to end", func() bool { return p.Counters().Active == 0 })
	if c := p.Counters(); c.ClientHandshakes != 2 || c.ClientResumed != 1 || c.OriginHandshakes != 2 || c.OriginResumed != 1 || c.Mints != 1 {
		t.Errorf("counters %+v: want 2 handshakes a leg, 1 resumed on each, 1 mint", c)
	}
}
