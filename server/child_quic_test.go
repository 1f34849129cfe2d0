package server_test

import (
	"context"
	"crypto/tls"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/tlsbench/tlsbench/internal/servertest"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/server"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// TestChildQUIC: a child server with QUIC listens on UDP at its TCP
// address and port, says so in its hello, and counts QUIC handshakes
// with the TCP ones.
func TestChildQUIC(t *testing.T) {
	t.Parallel()
	files, ca := writeIdentity(t)
	child, err := server.StartChild(context.Background(), servertest.ChildOptions(server.Options{Identities: []server.IdentityFiles{files}, QUIC: true}))
	if err != nil {
		t.Fatal(err)
	}
	defer child.Close()
	h := child.Hello()
	if h.QUICAddr != h.Addr {
		t.Errorf("hello: QUIC on %q, TCP on %q; want the same address and port", h.QUICAddr, h.Addr)
	}
	cfg := &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost", NextProtos: []string{tlsconf.ALPNQUICPing}, ClientSessionCache: tls.NewLRUClientSessionCache(1)}
	ping(t, h.QUICAddr, cfg)
	if got := ping(t, h.QUICAddr, cfg); !got.resumed || !got.used0RTT {
		t.Errorf("second connection %+v: want resumed with early data", got)
	}
	c, err := tls.Dial("tcp", h.Addr, &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost"})
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("x"))
	c.Read(make([]byte, 1))
	c.Close()
	got, err := child.Counters()
	if err != nil {
		t.Fatal(err)
	}
	if got.Handshakes != 3 || got.Resumed != 1 || got.QUICVersions["v1"] != 2 || got.EarlyDataAccepted != 1 {
		t.Errorf("counters %+v: want 3 handshakes (2 over QUIC v1), 1 resumed with early data", got)
	}
}

// TestChildQUICPortTaken: a child whose UDP port is taken does not start,
// and says which address.
func TestChildQUICPortTaken(t *testing.T) {
	t.Parallel()
	files, _ := writeIdentity(t)
	var udp *net.UDPConn
	var addr string
	for range 20 {
		// A UDP port whose TCP namesake is free, so that only UDP fails.
		u, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		if ln, err := net.Listen("tcp", u.LocalAddr().String()); err == nil {
			ln.Close()
			udp, addr = u, u.LocalAddr().String()
			break
		}
		u.Close()
	}
	if udp == nil {
		t.Fatal("no UDP port with a free TCP port of the same number")
	}
	defer udp.Close()
	_, err := server.StartChild(context.Background(), servertest.ChildOptions(server.Options{Listen: addr, Identities: []server.IdentityFiles{files}, QUIC: true}))
	if err == nil || !strings.Contains(err.Error(), "UDP "+addr) || !strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("error %v, want one naming UDP %s in use", err, addr)
	}
}

// TestChildQUICCountersIncludeRefusedHandshakes is
// TestChildCountersIncludeRefusedHandshakes over QUIC: each refusal the
// client has seen is in the counters read right after it.
func TestChildQUICCountersIncludeRefusedHandshakes(t *testing.T) {
	t.Parallel()
	files, ca := writeIdentity(t)
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := pki.WriteCertsPEM(caFile, ca.Root()); err != nil {
		t.Fatal(err)
	}
	foreign, err := testpki.CA(t).IssueClient("foreign")
	if err != nil {
		t.Fatal(err)
	}
	child, err := server.StartChild(context.Background(), servertest.ChildOptions(server.Options{
		Identities: []server.IdentityFiles{files}, Mutual: true, ClientCA: caFile, QUIC: true}))
	if err != nil {
		t.Fatal(err)
	}
	defer child.Close()
	cfg := &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost", Certificates: []tls.Certificate{foreign.TLSCertificate()},
		NextProtos: []string{tlsconf.ALPNQUICPing}}
	for i := 1; i <= 50; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		c, err := quic.DialAddr(ctx, child.Hello().QUICAddr, cfg, nil)
		if err == nil {
			// The client's handshake ends before the server has seen its
			// certificate: the refusal arrives on the stream.
			_, err = exchange(ctx, c, nil)
			c.CloseWithError(0, "")
		}
		cancel()
		if err == nil {
			t.Fatal("a certificate from another CA was accepted")
		}
		got, err := child.Counters()
		if err != nil {
			t.Fatal(err)
		}
		if n := got.Failures["verify"]; n != int64(i) {
			t.Fatalf("after %d refused handshakes the counters say %v", i, got.Failures)
		}
	}
}
