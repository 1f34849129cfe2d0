package loadgen_test

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/servertest"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// TestFirstResponseIsTheAnswer: the first_response phase ends with the
// answer to the request, not with the first bytes read after the
// handshake. A TLS 1.3 server that asks for a client certificate sends
// its session ticket (to a client that keeps sessions) once it has the
// client's certificate, after the client's handshake ended, so the
// ticket is read first; this one then waits echoDelay before it echoes
// the ping.
func TestFirstResponseIsTheAnswer(t *testing.T) {
	t.Parallel()
	const echoDelay = 30 * time.Millisecond
	cfg, ca := testpki.Server(t)
	cfg.ClientAuth = tls.RequireAnyClientCert
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	servertest.ServeEach(t, ln, func(c net.Conn, _ <-chan struct{}) {
		tc := tls.Server(c, cfg)
		var b [1]byte
		if _, err := io.ReadFull(tc, b[:]); err != nil {
			return
		}
		time.Sleep(echoDelay)
		tc.Write(b[:])
	})
	clientID, err := ca.IssueClient("first response")
	if err != nil {
		t.Fatal(err)
	}
	cert := clientID.TLSCertificate()
	co := tlsconf.ClientOptions{Version: tls.VersionTLS13, RootCAs: ca.Pool(), ServerName: "localhost", Certificate: &cert,
		Sessions: tlsconf.NewSessionPool(2, tlsconf.ReuseMulti).Scoped("")}
	hc := measure.HandshakeCase{Name: "first-response", Version: tls.VersionTLS13, Resume: true, Mutual: true, Concurrency: 2,
		Handshakes: 4, Iterations: 2, Clients: []*tls.Config{tlsconf.Client(co)}, Dialer: client.TCPDialer{Addr: ln.Addr().String()}}
	rec, err := loadgen.RunHandshakes(context.Background(), hc)
	if err != nil {
		t.Fatal(err)
	}
	fr, fb := rec.Phases[results.PhaseFirstResponse], rec.Phases[results.PhaseFirstByte]
	if fr.Count != rec.Handshakes {
		t.Fatalf("first_response over %d connections, want all %d", fr.Count, rec.Handshakes)
	}
	// From the dial, the answer cannot come before the server's wait.
	if wait := float64(echoDelay.Microseconds()); fr.P50US < wait || fb.P50US >= wait {
		t.Errorf("first_response p50 %.0f µs, first_byte p50 %.0f µs: want the answer after the %v wait and the ticket before it", fr.P50US, fb.P50US, echoDelay)
	}
}
