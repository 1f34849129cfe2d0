package proxy_test

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/field"
	"github.com/tlsbench/tlsbench/internal/ktls"
	"github.com/tlsbench/tlsbench/proxy"
)

// TestValidate: each bad setting is a *field.Error naming its field.
func TestValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		o     proxy.Options
		field string
	}{
		{proxy.Options{Listen: "nowhere"}, "Listen"},
		{proxy.Options{Allow: []string{"10.0.0.0/33"}}, "Allow"},
		{proxy.Options{Allow: []string{"example.com"}}, "Allow"},
		{proxy.Options{ConnectPorts: []int{0}}, "ConnectPorts"},
		{proxy.Options{ConnectPorts: []int{65536}}, "ConnectPorts"},
		{proxy.Options{CACert: "ca.pem"}, "CACert"},
		{proxy.Options{CACert: "ca.pem", CAKey: "k.pem", PKIDir: "d"}, "PKIDir"},
		{proxy.Options{OriginCA: "ca.pem", OriginInsecure: true}, "OriginInsecure"},
		{proxy.Options{Buffer: 100}, "Buffer"},
		{proxy.Options{Buffer: 32 << 20}, "Buffer"},
		{proxy.Options{KTLS: "maybe"}, "KTLS"},
		{proxy.Options{LeafKey: "dsa"}, "LeafKey"},
		{proxy.Options{MintCacheSize: -1}, "MintCacheSize"},
		{proxy.Options{MaxConns: -1}, "MaxConns"},
		{proxy.Options{HandshakeTimeout: -time.Second}, "HandshakeTimeout"},
		{proxy.Options{IdleTimeout: -time.Second}, "IdleTimeout"},
		{proxy.Options{RequestTimeout: -time.Second}, "RequestTimeout"},
		{proxy.Options{WriteTimeout: -time.Second}, "WriteTimeout"},
		// So short that the relay's watchdog would tick without pause.
		{proxy.Options{WriteTimeout: time.Nanosecond}, "WriteTimeout"},
		{proxy.Options{IdleTimeout: time.Nanosecond}, "IdleTimeout"},
		{proxy.Options{RequestTimeout: time.Nanosecond}, "RequestTimeout"},
		{proxy.Options{HandshakeTimeout: time.Nanosecond}, "HandshakeTimeout"},
		{proxy.Options{WriteTimeout: proxy.MinTimeout - 1}, "WriteTimeout"},
		{proxy.Options{LogLevel: "loud"}, "LogLevel"},
	} {
		err := tc.o.Validate()
		var fe *field.Error
		if !errors.As(err, &fe) || fe.Field != tc.field {
			t.Errorf("Validate(%+v) = %v; want a field error naming %s", tc.o, err, tc.field)
		}
	}
	if err := (proxy.Options{}).Validate(); err != nil {
		t.Errorf("zero Options: %v", err)
	}
	least := proxy.MinTimeout
	if err := (proxy.Options{WriteTimeout: least, IdleTimeout: least, RequestTimeout: least, HandshakeTimeout: least}).Validate(); err != nil {
		t.Errorf("timeouts of %v: %v", least, err)
	}
}

// TestKTLSOnRefusedWithoutKernel: KTLS on is refused at New, naming the
// setting and the kernel's reason.
func TestKTLSOnRefusedWithoutKernel(t *testing.T) {
	t.Parallel()
	if ktls.Supported() == nil {
		t.Skip("this kernel has TLS: nothing to refuse")
	}
	_, err := proxy.New(proxy.Options{KTLS: proxy.KTLSOn, PKIDir: t.TempDir()})
	var fe *field.Error
	if !errors.As(err, &fe) || fe.Field != "KTLS" || !strings.Contains(fe.Reason, "use off or auto") {
		t.Fatalf("New with KTLS on: %v", err)
	}
}

// TestKTLSAutoFallsBack: where the kernel cannot take a leg, auto relays
// in user space, byte for byte, counts the mode and logs why.
func TestKTLSAutoFallsBack(t *testing.T) {
	t.Parallel()
	if ktls.Supported() == nil {
		t.Skip("this kernel has TLS: the fallback is not taken (the kernel TLS test VM covers the kernel path)")
	}
	org := startOrigin(t)
	p := startProxy(t, org, proxy.Options{KTLS: proxy.KTLSAuto, ReadFill: true, MintCache: true})
	tc := p.tunnel(t, org, nil)
	echo(t, tc, pattern(1<<20, 7))
	tc.Close()
	waitFor(t, "the relay to end", func() bool { return p.Counters().Active == 0 })
	c := p.Counters()
	if c.Relay["client:user"] != 1 || c.Relay["origin:user"] != 1 || c.BytesToClient != 1<<20 || len(c.Failures) != 0 {
		t.Errorf("counters %+v", c)
	}
	// A kernel without TLS at all is counted as such, not as one that
	// lacks this version or cipher.
	want := proxy.FallbackUnsupported
	if errors.Is(ktls.Supported(), ktls.ErrNoKernelTLS) {
		want = proxy.FallbackNoKernelTLS
	}
	if c.Fallbacks["client:"+want] != 1 || c.Fallbacks["origin:"+want] != 1 || len(c.Fallbacks) != 2 {
		t.Errorf("fallbacks %v: want each leg counted once, as the kernel's lack (%s)", c.Fallbacks, want)
	}
	if n := strings.Count(p.log.String(), "relayed in user space"); n != 2 || !strings.Contains(p.log.String(), "not supported") {
		t.Errorf("log: want one line per leg with the kernel's reason:\n%s", p.log.String())
	}
}

// fakeRemote is a TCP connection that claims another peer address, to
// test the source check from loopback.
type fakeRemote struct {
	*net.TCPConn
	addr net.Addr
}

func (f fakeRemote) RemoteAddr() net.Addr { return f.addr }

// TestAllow: a client outside loopback is refused with 403 unless a
// network of Allow holds it.
func TestAllow(t *testing.T) {
	t.Parallel()
	org := startOrigin(t)
	remote := &net.TCPAddr{IP: net.ParseIP("192.0.2.7"), Port: 5555}
	for _, tc := range []struct {
		allow  []string
		status int
	}{
		{nil, 403},
		{[]string{"198.51.100.0/24"}, 403},
		{[]string{"198.51.100.0/24", "192.0.2.0/28"}, 200},
	} {
		p := startProxy(t, org, proxy.Options{Allow: tc.allow, MintCache: true})
		client, server := tcpPair(t)
		done := make(chan struct{})
		go func() {
			defer close(done)
			p.ServeConn(context.Background(), fakeRemote{server.(*net.TCPConn), remote})
		}()
		client.SetDeadline(time.Now().Add(30 * time.Second))
		client.Write([]byte("CONNECT localhost:" + strconv.Itoa(org.port) + " HTTP/1.1\r\n\r\n"))
		resp, err := http.ReadResponse(bufio.NewReader(client), &http.Request{Method: "CONNECT"})
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != tc.status {
			t.Errorf("allow %v: %s, want %d", tc.allow, resp.Status, tc.status)
		}
		client.Close()
		<-done
	}
}

// tcpPair is a connected pair of loopback TCP connections.
func tcpPair(t *testing.T) (net.Conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(); s.Close() })
	return c, s
}
