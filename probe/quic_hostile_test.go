package probe_test

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/tlsbench/tlsbench/probe"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// udpPeer answers every datagram it reads with answer's datagrams (none:
// a silent port) until the test ends.
func udpPeer(t *testing.T, answer func(in []byte) [][]byte) string {
	t.Helper()
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	go func() {
		buf := make([]byte, 64<<10)
		for {
			n, from, err := c.ReadFromUDP(buf)
			if err != nil {
				return
			}
			for _, d := range answer(buf[:n]) {
				c.WriteToUDP(d, from)
			}
		}
	}()
	return c.LocalAddr().String()
}

// Servers that do not speak QUIC: each probe ends within its timeout
// (and the handful of connections it makes), reports the handshake as
// an error with what came back, tests nothing else, and says it learnt
// nothing (Answered). A closed port is an error of the probe itself.
func TestQUICHostile(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	random := func(n int) []byte {
		b := make([]byte, n)
		rand.Read(b)
		return b
	}
	silent := udpPeer(t, func([]byte) [][]byte { return nil })
	garbage := udpPeer(t, func(in []byte) [][]byte {
		// Random bytes, and a long header that looks like QUIC v1 but
		// is addressed to no one the client knows.
		fake := append([]byte{0xc0, 0, 0, 0, 1, 4, 1, 2, 3, 4, 0}, random(60)...)
		return [][]byte{random(len(in)), fake}
	})
	for _, tt := range []struct {
		name, addr, want string
	}{
		{"silent", silent, "no handshake within 500ms: the server sent nothing back"},
		{"garbage", garbage, "none a QUIC packet for this connection"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := quicOptions(p, tt.addr)
			o.Timeout = 500 * time.Millisecond
			start := time.Now()
			rep := runProbe(t, o)
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("the probe took %v", d)
			}
			checkQUIC(t, rep, expectQUIC{Handshake: "error:" + tt.want, V1: "not tested", V2: "not tested",
				Resumption: "not tested", EarlyData: "not tested", Replay: "not tested"})
			if rep.Answered() {
				t.Error("Answered() with no handshake")
			}
		})
	}

	t.Run("closed port", func(t *testing.T) {
		t.Parallel()
		c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		addr := c.LocalAddr().String()
		c.Close()
		o := quicOptions(p, addr)
		o.Timeout = 2 * time.Second
		_, err = probe.Run(context.Background(), o)
		if err == nil || !strings.Contains(err.Error(), "nothing listens on the port") {
			t.Errorf("probe of a closed UDP port: %v, want an error saying nothing listens", err)
		}
	})
}

// A QUIC server that completes handshakes and sends tickets but never
// answers a request: every wait is bounded by the timeout, the request
// is reported unanswered, and the rest is still tested.
func TestQUICStalledServer(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out the timeout on every connection (-short)")
	}
	t.Parallel()
	p := newPKI(t)
	cfg := &tls.Config{Certificates: []tls.Certificate{p.Server.TLSCertificate()}, NextProtos: []string{tlsconf.ALPNQUICPing}}
	ln, err := quic.ListenAddrEarly("127.0.0.1:0", cfg, &quic.Config{Allow0RTT: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); ln.Close() })
	go func() {
		for {
			c, err := ln.Accept(ctx)
			if err != nil {
				return
			}
			go func() { <-c.Context().Done() }() // holds the connection, says nothing
		}
	}()
	o := quicOptions(p, ln.Addr().String())
	o.Request = probe.RequestPing
	o.Timeout = time.Second
	start := time.Now()
	rep := runProbe(t, o)
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("the probe took %v", d)
	}
	checkQUIC(t, rep, expectQUIC{Handshake: "yes", Resumption: "yes", EarlyData: "yes:did not answer the request"})
	if r := rep.QUIC.Response; !strings.Contains(r, "no answer") {
		t.Errorf("response %q, want no answer", r)
	}
}
