package loadgen_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"os"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/servertest"
	"github.com/tlsbench/tlsbench/internal/testchild"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/internal/usage"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/measure"
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
//	go test ./loadgen -run '^$' -bench ClientHandshakeCost -benchtime 20x -count 6
//
// Both talk to the built-in server in a child process over loopback, so
// that this process's CPU time (getrusage) is the client's alone; an
// in-process pipe would mix in the server's cost. Each benchmark round runs
// a block of bare handshakes and then a block through loadgen (an
// iteration of the same size, with its ping-pong, abortive close and
// bookkeeping), alternating so that a noisy neighbour slows both alike.
// Metrics: bare-cpu-us/hs, tlsbench-cpu-us/hs and their ratio, the
// harness overhead. A third block runs the same iteration without
// recording the connections' phases (nophases-cpu-us/hs): the ratio
// tlsbench/nophases is what recording them costs. A fourth block is the
// bare client doing what every tlsbench connection does after its
// handshake, a one-byte exchange (which is what reads the server's TLS
// 1.3 tickets: without it resumption cannot be measured), then closing
// as tlsbench does (bare-exchange-cpu-us/hs): tlsbench/bare-exchange is
// the harness's own bookkeeping, apart from the procedure's round trip.
func BenchmarkClientHandshakeCost(b *testing.B) {
	addr, roots := startChildServer(b)
	cfg := tlsconf.Client(tlsconf.ClientOptions{Version: tls.VersionTLS13, RootCAs: roots, ServerName: "localhost"})
	const block = 64
	bare := func(exchange bool) {
		for range block {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				b.Fatal(err)
			}
			tc := tls.Client(c, cfg)
			if err := tc.Handshake(); err != nil {
				b.Fatal(err)
			}
			if exchange {
				if err := client.PingPong(tc); err != nil {
					b.Fatal(err)
				}
			}
			c.(*net.TCPConn).SetLinger(0)
			c.Close()
		}
	}
	hc := measure.HandshakeCase{
		Name: "bench", Version: tls.VersionTLS13, Concurrency: 1,
		Handshakes: block, Iterations: 1,
		Clients: []*tls.Config{cfg}, Dialer: client.TCPDialer{Addr: addr},
	}
	noPhases := hc
	loadgen.SetRecordPhases(&noPhases, false)
	run := func(hc measure.HandshakeCase) time.Duration {
		t0 := usage.SelfCPU()
		if _, err := loadgen.RunHandshakes(context.Background(), hc); err != nil {
			b.Fatal(err)
		}
		return usage.SelfCPU() - t0
	}
	var bareCPU, bareExchangeCPU, harnessCPU, noPhasesCPU time.Duration
	for i := 0; b.Loop(); i++ {
		t0 := usage.SelfCPU()
		bare(false)
		bareCPU += usage.SelfCPU() - t0
		t0 = usage.SelfCPU()
		bare(true)
		bareExchangeCPU += usage.SelfCPU() - t0
		// Alternate which of the two harness blocks goes first, so that
		// neither always follows the bare block.
		if i%2 == 0 {
			harnessCPU += run(hc)
			noPhasesCPU += run(noPhases)
		} else {
			noPhasesCPU += run(noPhases)
			harnessCPU += run(hc)
		}
	}
	n := float64(b.N * block)
	b.ReportMetric(float64(bareCPU.Microseconds())/n, "bare-cpu-us/hs")
	b.ReportMetric(float64(bareExchangeCPU.Microseconds())/n, "bare-exchange-cpu-us/hs")
	b.ReportMetric(float64(harnessCPU)/float64(bareExchangeCPU), "tlsbench/bare-exchange")
	b.ReportMetric(float64(harnessCPU.Microseconds())/n, "tlsbench-cpu-us/hs")
	b.ReportMetric(float64(noPhasesCPU.Microseconds())/n, "nophases-cpu-us/hs")
	b.ReportMetric(float64(harnessCPU)/float64(bareCPU), "tlsbench/bare")
	b.ReportMetric(float64(harnessCPU)/float64(noPhasesCPU), "tlsbench/nophases")
}

func startChildServer(b *testing.B) (string, *x509.CertPool) {
	ca, _, f := testpki.ServerFiles(b)
	files := server.IdentityFiles{Cert: f.Cert, Key: f.Key}
	child := servertest.StartChild(b, server.Options{Identities: []server.IdentityFiles{files}})
	return child.Hello().Addr, ca.Pool()
}
