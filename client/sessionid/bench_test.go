package sessionid_test

import (
	"context"
	"crypto/tls"
	"net"
	"testing"

	"github.com/tlsbench/tlsbench/client/sessionid"
	"github.com/tlsbench/tlsbench/internal/peers"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/internal/usage"
)

// The benchmarks compare a client's resumed TLS 1.2 connection by
// session ID (this package) with crypto/tls's own resumption by ticket,
// both against openssl s_server (AES-128-GCM, ECDSA P-256), and a full
// handshake for scale. One op is a TCP connect, the handshake and a
// close. ns/op is the wall time of the whole (openssl's part included);
// client-cpu-ns/op is this process's CPU, the client's alone, as
// openssl runs in its own process; allocs/op are the client's.
//
//	go test -run '^$' -bench . -benchtime 2000x ./client/sessionid/

const benchSuite = "ECDHE-ECDSA-AES128-GCM-SHA256"

func benchServer(b *testing.B, extra ...string) (*peers.OpenSSLServer, *tls.Config) {
	b.Helper()
	ca, _, files := testpki.ServerFiles(b)
	args := append([]string{"-tls1_2", "-cert", files.Cert, "-key", files.Key, "-cipher", benchSuite}, extra...)
	srv := peers.OpenSSL(b, args...)
	return srv, &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost"}
}

func benchDial(b *testing.B, addr string) net.Conn {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// measure runs op b.N times and reports the client's CPU per op.
func measure(b *testing.B, op func()) {
	b.ReportAllocs()
	cpu := usage.SelfCPU()
	b.ResetTimer()
	for range b.N {
		op()
	}
	b.StopTimer()
	b.ReportMetric(float64((usage.SelfCPU()-cpu).Nanoseconds())/float64(b.N), "client-cpu-ns/op")
}

func BenchmarkResumeSessionID(b *testing.B) {
	srv, cfg := benchServer(b, "-no_ticket")
	ctx := context.Background()
	tc, s, err := sessionid.Handshake(ctx, benchDial(b, srv.Addr), cfg)
	if err != nil {
		b.Fatal(err)
	}
	tc.Close()
	measure(b, func() {
		c, err := sessionid.Resume(ctx, benchDial(b, srv.Addr), s)
		if err != nil {
			b.Fatal(err)
		}
		c.Close()
	})
}

func BenchmarkResumeTicket(b *testing.B) {
	srv, cfg := benchServer(b)
	cfg.MaxVersion = tls.VersionTLS12
	cfg.ClientSessionCache = tls.NewLRUClientSessionCache(1)
	ctx := context.Background()
	handshake := func() bool {
		tc := tls.Client(benchDial(b, srv.Addr), cfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			b.Fatal(err)
		}
		defer tc.Close()
		return tc.ConnectionState().DidResume
	}
	handshake()
	measure(b, func() {
		if !handshake() {
			b.Fatal("crypto/tls did not resume its ticket")
		}
	})
}

func BenchmarkFullHandshake(b *testing.B) {
	srv, cfg := benchServer(b, "-no_ticket")
	cfg.MaxVersion = tls.VersionTLS12
	ctx := context.Background()
	measure(b, func() {
		tc := tls.Client(benchDial(b, srv.Addr), cfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			b.Fatal(err)
		}
		tc.Close()
	})
}
