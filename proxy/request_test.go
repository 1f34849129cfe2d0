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

	"github.com/tlsbench/tlsbench/internal/servertest"
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
		// Host names are checked as every flag checks them: a label of
		// at most 63 characters, no all-digit last label.
		{"long label", "CONNECT " + strings.Repeat("a", 64) + ".localhost:" + strconv.Itoa(org.port) + " HTTP/1.1\r\n\r\n", 400, proxy.RefusedHostName, "CONNECT needs host:port"},
		{"digit tld", "CONNECT 2130706433:" + strconv.Itoa(org.port) + " HTTP/1.1\r\n\r\n", 400, proxy.RefusedHostName, "CONNECT needs host:port"},
		{"port sign", "CONNECT localhost:+" + strconv.Itoa(org.port) + " HTTP/1.1\r\n\r\n", 400, proxy.RefusedHostName, "CONNECT needs host:port"},
		{"port zero", "CONNECT localhost:0" + strconv.Itoa(org.port) + " HTTP/1.1\r\n\r\n", 400, proxy.RefusedHostName, "CONNECT needs host:port"},
		{"port spaces", "CONNECT localhost: " + strconv.Itoa(org.port) + " HTTP/1.1\r\n\r\n", 400, proxy.RefusedMalformed, "not an HTTP/1.x"},
		{"header without colon", "CONNECT " + target + " HTTP/1.1\r\nHost " + target + "\r\n\r\n", 400, proxy.RefusedMalformed, "header line without a name and a colon"},
		{"header folded", "CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n x-folded: 1\r\n\r\n", 400, proxy.RefusedMalformed, "header line without"},
		{"header empty name", "CONNECT " + target + " HTTP/1.1\r\n: x\r\n\r\n", 400, proxy.RefusedMalformed, "header line without"},
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
	p := startProxy(t, org, proxy.Options{OriginCA: servertest.WriteCA(t, other), MintCache: true})
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

// TestStalledClients: a client that never finishes its request is cut by
// the request timeout, one that never starts TLS after the answer by the
// handshake timeout.
func TestStalledClients(t *testing.T) {
	t.Parallel()
	org := startOrigin(t)
	p := startProxy(t, org, proxy.Options{RequestTimeout: 300 * time.Millisecond, HandshakeTimeout: 300 * time.Millisecond, MintCache: true})

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
	if log := p.log.String(); !strings.Contains(log, "timed out after 300ms waiting for the client's TLS handshake") || strings.Contains(log, "context deadline") {
		t.Errorf("log: want the client handshake timeout in words for users:\n%s", log)
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
	for _, mode := range []string{proxy.KTLSOff, proxy.KTLSAuto} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			testClientLegResumes(t, mode)
		})
	}
}

// testClientLegResumes runs TestClientLegResumes with a kernel TLS mode:
// with auto, each connection's configuration is its own (its key log),
// and sessions must still resume across them.
func testClientLegResumes(t *testing.T, mode string) {
	org := startOrigin(t)
	p := startProxy(t, org, proxy.Options{MintCache: true, KTLS: mode, OriginSessions: true})
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

// headSkipper drops the proxy's answer head from the stream it reads, so
// that a TLS client can start before the answer arrives.
type headSkipper struct {
	net.Conn
	r      *bufio.Reader
	status string
}

func (h *headSkipper) Read(p []byte) (int, error) {
	if h.r == nil {
		h.r = bufio.NewReader(h.Conn)
		resp, err := http.ReadResponse(h.r, &http.Request{Method: "CONNECT"})
		if err != nil {
			return 0, err
		}
		h.status = resp.Status
	}
	return h.r.Read(p)
}

// TestClientThatDoesNotWait: a client that sends its ClientHello right
// behind the CONNECT request, before the answer, is served: those bytes
// start its TLS.
func TestClientThatDoesNotWait(t *testing.T) {
	t.Parallel()
	org := startOrigin(t)
	p := startProxy(t, org, proxy.Options{MintCache: true, KTLS: proxy.KTLSAuto})
	c, err := net.Dial("tcp", p.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	io.WriteString(c, "CONNECT localhost:"+strconv.Itoa(org.port)+" HTTP/1.1\r\n\r\n")
	hs := &headSkipper{Conn: c}
	tc := tls.Client(hs, &tls.Config{RootCAs: p.pool, ServerName: "localhost"})
	echo(t, tc, []byte("x-early"))
	if hs.status != "200 Connection established" {
		t.Errorf("answer %q", hs.status)
	}
	tc.Close()
	waitFor(t, "the relay to end", func() bool { return p.Counters().Active == 0 })
	if c := p.Counters(); c.Relay["client:user"] != 1 || len(c.Failures) != 0 {
		t.Errorf("counters %+v", c)
	}
}

// TestRefusalLogIsLimited: a flood of bad requests is logged at most 10
// lines a second, then one line with the count of the others.
func TestRefusalLogIsLimited(t *testing.T) {
	t.Parallel()
	org := startOrigin(t)
	p := startProxy(t, org, proxy.Options{MintCache: true})
	for range 30 {
		rawAnswer(t, p.addr, "GET / HTTP/1.1\r\n\r\n")
	}
	waitFor(t, "the count of the lines left out", func() bool { return strings.Contains(p.log.String(), "suppressed=") })
	log := p.log.String()
	if n := strings.Count(log, "request refused"); n < 10 || n > 20 {
		// 30 requests may span two one-second windows on a slow machine.
		t.Errorf("%d refusal lines for 30 requests:\n%s", n, log)
	}
	if c := p.Counters(); c.Refused[proxy.RefusedMethod] != 30 {
		t.Errorf("refusals counted %v, want all 30", c.Refused)
	}
}

// TestStopCutsTunnels: stopping the proxy ends its open tunnels with a
// reset (not a clean end) and Serve returns.
func TestStopCutsTunnels(t *testing.T) {
	t.Parallel()
	org := startOrigin(t)
	p := startProxy(t, org, proxy.Options{MintCache: true})
	tc := p.tunnel(t, org, nil)
	echo(t, tc, []byte("x-before the stop"))
	p.stop()
	tc.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := tc.Read(make([]byte, 1)); err == nil || errors.Is(err, io.EOF) {
		t.Errorf("read after the proxy stopped: %v; want the tunnel cut", err)
	}
	if c := p.Counters(); c.Active != 0 {
		t.Errorf("%d connections still active after Serve returned", c.Active)
	}
}

// TestSilentClientsReleaseSlots: MaxConns sockets that connect and send
// nothing lock new clients out (503) only until the request timeout cuts
// them, not for the handshake timeout; each cut is counted and logged.
func TestSilentClientsReleaseSlots(t *testing.T) {
	t.Parallel()
	const n = 64
	const requestTimeout = 300 * time.Millisecond
	org := startOrigin(t)
	p := startProxy(t, org, proxy.Options{MaxConns: n, RequestTimeout: requestTimeout, MintCache: true})
	for i := 0; i < n; i++ {
		c, err := net.Dial("tcp", p.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	waitFor(t, "the silent clients to hold every slot", func() bool { return p.Counters().Active == n })
	start := time.Now()
	const bound = requestTimeout + 1500*time.Millisecond
	target := "CONNECT localhost:" + strconv.Itoa(org.port) + " HTTP/1.1\r\n\r\n"
	refused := 0
	for {
		resp := rawAnswer(t, p.addr, target)
		if resp.StatusCode == 200 {
			break
		}
		if resp.StatusCode != 503 {
			t.Fatalf("answer %s, want 503 while the slots are held, then 200", resp.Status)
		}
		refused++
		if time.Since(start) > bound {
			t.Fatalf("still refused %v after %d silent clients took every slot (request timeout %v)", bound, n, requestTimeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if refused == 0 {
		t.Error("served at once: the silent clients did not hold the slots")
	}
	waitFor(t, "the silent clients to be counted", func() bool { return p.Counters().Refused[proxy.RefusedTimeout] == n })
	if log := p.log.String(); !strings.Contains(log, "no complete request within 300ms") {
		t.Errorf("log lacks the silent clients cut:\n%s", log)
	}
}

// TestHeadLimitExact: a request head (line, headers and the empty line)
// of up to MaxHead bytes is served, one byte more is refused, whatever
// the client sends after it in the same write.
func TestHeadLimitExact(t *testing.T) {
	t.Parallel()
	org := startOrigin(t)
	p := startProxy(t, org, proxy.Options{MintCache: true})
	target := "localhost:" + strconv.Itoa(org.port)
	for _, tc := range []struct {
		size   int
		status int
	}{{7 << 10, 200}, {proxy.MaxHead, 200}, {proxy.MaxHead + 1, 400}, {9 << 10, 400}} {
		t.Run(strconv.Itoa(tc.size), func(t *testing.T) {
			t.Parallel()
			start := "CONNECT " + target + " HTTP/1.1\r\nX-Pad: "
			head := start + strings.Repeat("a", tc.size-len(start)-len("\r\n\r\n")) + "\r\n\r\n"
			if len(head) != tc.size {
				t.Fatalf("head of %d bytes, want %d", len(head), tc.size)
			}
			// A ClientHello's worth of bytes after the head, as a client
			// that does not wait for the answer sends them.
			resp := rawAnswer(t, p.addr, head+"\x16\x03\x01"+strings.Repeat("\x00", 8<<10))
			if resp.StatusCode != tc.status {
				t.Errorf("head of %d bytes: %s (%s); want %d", tc.size, resp.Status, resp.Header.Get(proxy.ErrorHeader), tc.status)
			}
		})
	}
}
