package loadgen_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/peers"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// tlsOrigin is a TLS server on loopback that answers every connection
// with "origin\n"; it returns its address and the CA that verifies it.
func tlsOrigin(t *testing.T) (string, *pki.CA) {
	t.Helper()
	cfg, ca := testpki.Server(t)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.SetDeadline(time.Now().Add(30 * time.Second))
				io.WriteString(c, "origin\n")
				io.Copy(io.Discard, c)
			}()
		}
	}()
	return ln.Addr().String(), ca
}

func closedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// TestProxyDialerSquid: through Squid's port that does not bump, CONNECT
// to the origin is a tunnel (the origin's own certificate), a refused port
// is a 403 and a closed port a 503, each with Squid's reason. Through the
// bumping port the handshake is with Squid, under its CA.
func TestProxyDialerSquid(t *testing.T) {
	t.Parallel()
	origin, originCA := tlsOrigin(t)
	caFile := t.TempDir() + "/origin-ca.pem"
	if err := pki.WriteCertsPEM(caFile, originCA.Root()); err != nil {
		t.Fatal(err)
	}
	sq := peers.Squid(t, peers.SquidConfig{OriginCA: caFile, DenyPorts: []int{4433}, PlainPort: true})
	deadline := func() time.Time { return time.Now().Add(30 * time.Second) }

	for _, tc := range []struct {
		target, reason string
		status         int
	}{
		{"127.0.0.1:4433", "ERR_ACCESS_DENIED", 403},
		{closedAddr(t), "ERR_CONNECT_FAIL", 503},
	} {
		_, err := client.ProxyDialer{Proxy: sq.PlainAddr(), Target: tc.target}.Dial(t.Context(), deadline())
		var pe *client.ProxyError
		if !errors.As(err, &pe) || pe.Status != tc.status || !strings.HasPrefix(pe.Reason, tc.reason) {
			t.Errorf("CONNECT %s: %v; want a ProxyError %d %s", tc.target, err, tc.status, tc.reason)
		}
	}

	handshake := func(proxy string, roots *x509.CertPool) (*tls.Conn, error) {
		d := client.ProxyDialer{Proxy: proxy, Target: origin}
		if d.Transport() != "tcp" {
			t.Errorf("transport %q", d.Transport())
		}
		c, err := d.Dial(t.Context(), deadline())
		if err != nil {
			return nil, err
		}
		tc := tls.Client(c, &tls.Config{RootCAs: roots, ServerName: "localhost"})
		tc.SetDeadline(deadline())
		t.Cleanup(func() { tc.Close() })
		return tc, tc.Handshake()
	}
	tun, err := handshake(sq.PlainAddr(), originCA.Pool())
	if err != nil {
		t.Fatalf("tunnel through squid: %v", err)
	}
	if line, err := bufio.NewReader(tun).ReadString('\n'); line != "origin\n" {
		t.Errorf("through the tunnel: %q, %v", line, err)
	}

	squidCA, err := pki.LoadCertsPEM(sq.CAFile())
	if err != nil {
		t.Fatal(err)
	}
	squidPool := x509.NewCertPool()
	squidPool.AddCert(squidCA[0])
	bumped, err := handshake(sq.Addr(), squidPool)
	if err != nil {
		t.Fatalf("handshake with squid bumping: %v", err)
	}
	if issuer := bumped.ConnectionState().PeerCertificates[0].Issuer.CommonName; issuer != "tlsbench Squid bump CA" {
		t.Errorf("bumped leaf issued by %q", issuer)
	}
	if _, err := handshake(sq.Addr(), originCA.Pool()); err == nil {
		t.Error("the origin's CA verified what Squid bumped")
	}
}

// hostileProxy answers every connection with serve, after reading the
// client's request head.
func hostileProxy(t *testing.T, serve func(c net.Conn)) string { return peers.ScriptedProxy(t, serve) }

// TestProxyDialerHostile: whatever a proxy answers, the dialer returns a
// clear error and never waits past its deadline.
func TestProxyDialerHostile(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		serve func(c net.Conn)
		want  string
	}{
		{"garbage", func(c net.Conn) { io.WriteString(c, "SSH-2.0-OpenSSH\r\n\r\n") }, "not HTTP/1.x"},
		{"endless head", func(c net.Conn) {
			io.WriteString(c, "HTTP/1.1 200 OK\r\n")
			for {
				if _, err := io.WriteString(c, "X-Filler: "+strings.Repeat("a", 1000)+"\r\n"); err != nil {
					return
				}
			}
		}, "no end within 8192 bytes"},
		{"closes early", func(c net.Conn) { io.WriteString(c, "HTTP/1.1 200 Connection") }, "closed the connection"},
		{"silent", func(c net.Conn) { time.Sleep(20 * time.Second) }, "no answer in time"},
		{"auth", func(c net.Conn) {
			io.WriteString(c, "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\n\r\n")
		}, "wants authentication"},
		{"refusal with reason", func(c net.Conn) {
			io.WriteString(c, "HTTP/1.1 403 Forbidden\r\nX-Tlsbench-Error: port 9 not in --connect-ports\x01\r\n\r\n")
		}, "(port 9 not in --connect-ports?)"},
		{"bad status", func(c net.Conn) { io.WriteString(c, "HTTP/1.1 2000 OK\r\n\r\n") }, "not HTTP/1.x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			addr := hostileProxy(t, tc.serve)
			began := time.Now()
			c, err := client.ProxyDialer{Proxy: addr, Target: "localhost:443"}.Dial(t.Context(), time.Now().Add(2*time.Second))
			if err == nil {
				c.Close()
				t.Fatal("dial succeeded")
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), addr) {
				t.Errorf("error %q, want it to name the proxy and say %q", err, tc.want)
			}
			if tc.name == "silent" && !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Errorf("silent proxy: %v, want the deadline exceeded", err)
			}
			if waited := time.Since(began); waited > 15*time.Second {
				t.Errorf("the dial took %v with a 2 s deadline", waited)
			}
		})
	}
}

// TestProxyDialerKeepsEarlyBytes: bytes a proxy sends right after its 200
// (in the same write) reach the caller first, not lost with the head.
func TestProxyDialerKeepsEarlyBytes(t *testing.T) {
	t.Parallel()
	addr := hostileProxy(t, func(c net.Conn) {
		io.WriteString(c, "HTTP/1.0 200 Connection established\r\n\r\nearly bytes")
		io.WriteString(c, ", late bytes")
	})
	c, err := client.ProxyDialer{Proxy: addr, Target: "localhost:443"}.Dial(t.Context(), time.Now().Add(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	got, err := io.ReadAll(c)
	if string(got) != "early bytes, late bytes" {
		t.Errorf("read %q, %v", got, err)
	}
}

// TestProxyDialerCancelled: ctx ending interrupts a proxy that never
// answers, with ctx's error.
func TestProxyDialerCancelled(t *testing.T) {
	t.Parallel()
	addr := hostileProxy(t, func(c net.Conn) { time.Sleep(20 * time.Second) })
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	_, err := client.ProxyDialer{Proxy: addr, Target: "localhost:443"}.Dial(ctx, time.Now().Add(time.Minute))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want the context's deadline", err)
	}
	if _, err := (client.ProxyDialer{Proxy: closedAddr(t), Target: "x:1"}).Dial(t.Context(), time.Now().Add(5*time.Second)); err == nil || !strings.Contains(err.Error(), "connecting to proxy") {
		t.Errorf("closed proxy port: %v", err)
	}
}

// TestHandshakeThroughSquid: handshake cases through Squid 5.7 bumping,
// with the HTTP request after each handshake (HEAD with Connection:
// close, which Squid forwards to the origin), the clients offering their
// sessions again.
//
// What Squid does, as observed: it issues TLS 1.3 session tickets (two per
// connection) and TLS 1.2 sessions, but resumes none of them on the
// client leg, and does not resume its own sessions with the origin
// either: every bumped connection costs Squid a full handshake on both
// legs (openssl s_client -sess_in through it says "New" too). A bumped
// handshake through Squid is therefore measured with Resume on as a full
// one; the test holds that, so that a Squid that starts resuming shows
// up here.
func TestHandshakeThroughSquid(t *testing.T) {
	t.Parallel()
	o := startHTTPOrigin(t)
	sq := peers.Squid(t, peers.SquidConfig{OriginCA: o.caFile})
	_, port, _ := net.SplitHostPort(o.addr)
	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		co := tlsconf.ClientOptions{Version: v, RootCAs: squidPool(t, sq), ServerName: "localhost",
			Sessions: tlsconf.NewSessionPool(4, tlsconf.ReuseMulti).Scoped("")}
		hc := measure.HandshakeCase{
			Name: "squid", Version: v, Resume: true, Concurrency: 4, Handshakes: 16, Iterations: 1, Warmup: 1,
			Clients:  []*tls.Config{tlsconf.Client(co)},
			Dialer:   client.ProxyDialer{Proxy: sq.Addr(), Target: o.addr},
			Exchange: client.RequestHTTP.Exchange("localhost:" + port),
			Server:   inProcess{o.srv},
		}
		rec, err := loadgen.RunHandshakes(t.Context(), hc)
		if err != nil {
			t.Fatalf("TLS %s: %v", tlsconf.VersionName(v), err)
		}
		if rec.Handshakes != 16 || rec.Resumed != 0 || rec.ServerResumed == nil || *rec.ServerResumed != 0 {
			t.Errorf("TLS %s through squid: %d handshakes, %d resumed on the client leg, origin leg resumed %v; want 16, 0 and 0 (Squid 5.7 resumes neither leg)",
				tlsconf.VersionName(v), rec.Handshakes, rec.Resumed, rec.ServerResumed)
		}
	}
}
