package peers_test

import (
	"context"
	"crypto/tls"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/tlsbench/tlsbench/internal/peers"
)

// TestNGTCP2Server: gtlsserver is ready when it returns (a QUIC
// handshake with it completes) and its port is free again once stopped.
func TestNGTCP2Server(t *testing.T) {
	t.Parallel()
	ca, _, cert, key := files(t)
	s := peers.NGTCP2T(t, peers.NGTCP2Config{Cert: cert, Key: key})
	if !strings.HasPrefix(s.Addr, "127.0.0.1:") {
		t.Fatalf("address %q, want 127.0.0.1:port", s.Addr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := quic.DialAddr(ctx, s.Addr, &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost", NextProtos: []string{"h3"}}, nil)
	if err != nil {
		t.Fatalf("QUIC handshake with gtlsserver: %v", err)
	}
	conn.CloseWithError(0x100, "")
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	pc, err := net.ListenPacket("udp", s.Addr)
	if err != nil {
		t.Fatalf("port still taken after Stop: %v", err)
	}
	pc.Close()
}
