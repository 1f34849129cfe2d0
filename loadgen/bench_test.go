package loadgen_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/tlsbench/tlsbench/internal/testchild"
	"github.com/tlsbench/tlsbench/internal/usage"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/server"
	"github.com/tlsbench/tlsbench/tlsconf"
)

func TestMain(m *testing.M) {
	testchild.RunIfChild()
	os.Exit(m.Run())
}

// BenchmarkClientHandshakeCost measures what tlsbench's harness adds to
// the client's CPU per full TLS 1.3 handshake, side by side with a bare
// crypto/tls client doing the same handshake against the same server:
//
//	go test ./loadgen -run '^$' -bench ClientHandshakeCost -count 6
//
// Both talk to the built-in server in a child process over loopback, so
// that this process's CPU time (getrusage) is the client's alone; an
// in-process pipe would mix in the server's cost. The metric is
// client-cpu-us/op; the ratio tlsbench/bare is the harness overhead.
func BenchmarkClientHandshakeCost(b *testing.B) {
	addr, roots := startChildServer(b)
	cfg := tlsconf.Client(tlsconf.ClientOptions{Version: tls.VersionTLS13, RootCAs: roots, ServerName: "localhost"})

	b.Run("bare", func(b *testing.B) {
		before := usage.SelfCPU()
		for b.Loop() {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				b.Fatal(err)
			}
			tc := tls.Client(c, cfg)
			if err := tc.Handshake(); err != nil {
				b.Fatal(err)
			}
			c.(*net.TCPConn).SetLinger(0)
			c.Close()
		}
		b.ReportMetric(float64((usage.SelfCPU()-before).Microseconds())/float64(b.N), "client-cpu-us/op")
	})
	b.Run("tlsbench", func(b *testing.B) {
		hc := loadgen.HandshakeCase{
			Name: "bench", Version: tls.VersionTLS13, Concurrency: 1,
			Handshakes: b.N, Iterations: 1,
			Clients: []*tls.Config{cfg}, Dialer: loadgen.TCPDialer{Addr: addr},
		}
		b.ResetTimer()
		rec, err := loadgen.RunHandshakes(context.Background(), hc)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(*rec.ClientCPUUS, "client-cpu-us/op")
	})
}

func startChildServer(b *testing.B) (string, *x509.CertPool) {
	ca, err := pki.NewCA()
	if err != nil {
		b.Fatal(err)
	}
	id, err := ca.IssueServer(nil)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	files := server.IdentityFiles{Cert: filepath.Join(dir, "s.pem"), Key: filepath.Join(dir, "k.pem")}
	pki.WriteCertsPEM(files.Cert, id.Chain...)
	pki.WriteKeyPEM(files.Key, id.Key)
	exe, _ := os.Executable()
	child, err := server.StartChild(context.Background(), server.ChildOptions{
		Path: exe, Args: []string{"serve"}, Env: []string{testchild.Env()},
		Server: server.Options{Identities: []server.IdentityFiles{files}},
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { child.Close() })
	return child.Hello().Addr, ca.Pool()
}
