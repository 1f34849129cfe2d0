package loadgen_test

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/servertest"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/stats"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// notesWith are the notes that contain s.
func notesWith(notes []string, s string) []string {
	var out []string
	for _, n := range notes {
		if strings.Contains(n, s) {
			out = append(out, n)
		}
	}
	return out
}

// echoAfter serves TLS on a loopback port and echoes each connection's
// ping after wait; wrap, when set, wraps the raw connection the TLS
// server writes on. It returns the address and the client's roots.
func echoAfter(t *testing.T, wait time.Duration, wrap func(net.Conn) net.Conn) (string, *tls.Config) {
	t.Helper()
	cfg, ca := testpki.Server(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	servertest.ServeEach(t, ln, func(c net.Conn, done <-chan struct{}) {
		if wrap != nil {
			c = wrap(c)
		}
		tc := tls.Server(c, cfg)
		var b [1]byte
		if _, err := io.ReadFull(tc, b[:]); err != nil {
			return
		}
		select {
		case <-time.After(wait):
		case <-done:
			return
		}
		tc.Write(b[:])
	})
	return ln.Addr().String(), tlsconf.Client(tlsconf.ClientOptions{Version: tls.VersionTLS13, RootCAs: ca.Pool(), ServerName: "localhost"})
}

// TestHeadlineLeavesOutALateAnswer: a server that answers the ping
// 350 ms after the handshake makes the wall time per connection
// (mean_us) that long, but the headline, the handshake figure, stays
// near the connect and handshake phases; one note, and only one, names
// the late answer, and it is not taken for a stall of the network stack.
func TestHeadlineLeavesOutALateAnswer(t *testing.T) {
	t.Parallel()
	const late = 350 * time.Millisecond
	addr, clientCfg := echoAfter(t, late, nil)
	hc := measure.HandshakeCase{Name: "late-answer", Version: tls.VersionTLS13, Concurrency: 1, Handshakes: 2, Iterations: 2,
		Clients: []*tls.Config{clientCfg}, Dialer: client.TCPDialer{Addr: addr}}
	rec, err := loadgen.RunHandshakes(context.Background(), hc)
	if err != nil {
		t.Fatal(err)
	}
	setup := rec.Phases[results.PhaseConnect].P50US + rec.Phases[results.PhaseHandshake].P50US
	if ex := rec.Phases[results.PhaseExchange]; ex.Count != rec.Handshakes || ex.P50US < float64(late.Microseconds()) {
		t.Errorf("exchange phase %+v: want every connection's, at least %v", ex, late)
	}
	if rec.MeanUS < float64(late.Microseconds()) {
		t.Errorf("mean_us %.0f: the wall time per connection includes the %v wait", rec.MeanUS, late)
	}
	if rec.HandshakeMeanUS == nil || len(rec.HandshakeSamplesUS) != rec.Iterations {
		t.Fatalf("handshake figure %v, samples %v: want one per iteration", rec.HandshakeMeanUS, rec.HandshakeSamplesUS)
	}
	// Connect and handshake of one connection at a time, and the wave's
	// own bookkeeping: nowhere near the answer's wait.
	if hs := *rec.HandshakeMeanUS; hs > 3*setup+20_000 || hs < 0.5*setup {
		t.Errorf("handshake_mean_us %.0f µs, connect + handshake p50 %.0f µs: want the one near the other", hs, setup)
	}
	if err := rec.Validate(); err != nil {
		t.Errorf("record: %v", err)
	}
	answer := notesWith(rec.Notes, "answer")
	if len(answer) != 1 || !strings.Contains(answer[0], "the server's answer came") || !strings.Contains(answer[0], "not by TLS") {
		t.Errorf("notes %q: want exactly one naming the late answer", rec.Notes)
	}
	if s := notesWith(rec.Notes, "signature"); len(s) > 0 {
		t.Errorf("notes %q: a 350 ms wait is the application's, not a delayed ACK's", s)
	}
}

// halfWrites writes each write in two halves, as a server that writes
// its handshake messages one by one does.
type halfWrites struct{ net.Conn }

func (c halfWrites) Write(p []byte) (int, error) {
	if len(p) < 2 {
		return c.Conn.Write(p)
	}
	n, err := c.Conn.Write(p[:len(p)/2])
	if err != nil {
		return n, err
	}
	m, err := c.Conn.Write(p[len(p)/2:])
	return n + m, err
}

// TestNagleStallNamed: a TLS 1.2 server that writes its first flight in
// two writes with Nagle left on (as Java's sockets do) holds the second
// until the client acknowledges the first, and the client delays that
// ACK: the handshake phase sits ~40 ms above its CPU cost, and one note
// says it is that stall of the network stack. The same server with
// TCP_NODELAY gets no such note.
func TestNagleStallNamed(t *testing.T) {
	t.Parallel()
	for _, nagle := range []bool{true, false} {
		name := map[bool]string{true: "nagle", false: "nodelay"}[nagle]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			addr, clientCfg := echoAfter(t, 0, func(c net.Conn) net.Conn {
				c.(*net.TCPConn).SetNoDelay(!nagle)
				return halfWrites{c}
			})
			clientCfg.MinVersion, clientCfg.MaxVersion = tls.VersionTLS12, tls.VersionTLS12
			hc := measure.HandshakeCase{Name: name, Version: tls.VersionTLS12, Concurrency: 1, Handshakes: 8, Iterations: 2, Warmup: 1,
				Clients: []*tls.Config{clientCfg}, Dialer: client.TCPDialer{Addr: addr}}
			rec, err := loadgen.RunHandshakes(context.Background(), hc)
			if err != nil {
				t.Fatal(err)
			}
			if rec.ClientCPUUS == nil {
				t.Fatalf("no client CPU in the record: the stall cannot be told from CPU")
			}
			stalls := notesWith(rec.Notes, "delayed ACK on the other")
			hs := rec.Phases[results.PhaseHandshake]
			switch {
			case !nagle && len(stalls) > 0:
				t.Errorf("TCP_NODELAY, handshake p50 %.0f µs: notes %q name a stall", hs.P50US, stalls)
			case nagle && hs.P50US-*rec.ClientCPUUS < 35_000:
				// The kernel acknowledged at once, or (under the race
				// detector, on a loaded machine) the CPU explains the wait.
				t.Skipf("handshake p50 %.0f µs, CPU %.0f µs: no wait of a delayed ACK above the CPU to name", hs.P50US, *rec.ClientCPUUS)
			case nagle && (len(stalls) != 1 || !strings.HasPrefix(stalls[0], "the TLS handshake took ") || !strings.Contains(stalls[0], "Nagle")):
				t.Errorf("handshake p25..p75 %v, client CPU %.0f µs: notes %q, want one naming the handshake's stall", hs, *rec.ClientCPUUS, rec.Notes)
			}
		})
	}
}

// TestInterleavedJudgesTheHandshake: an interleaved case's stop rule
// compares the sides' handshake figures, not their wall times.
func TestInterleavedJudgesTheHandshake(t *testing.T) {
	t.Parallel()
	a, b := startServer(t, nil), startServer(t, nil)
	sides := interleavedCase("judged", &dialLog{}, a, b)
	var last []float64
	loadgen.SetComparePaired(&sides[0], func(base, cand []float64, alpha float64) stats.PairedComparison {
		last = slices.Clone(base)
		return stats.ComparePaired(base, cand, alpha)
	})
	sides[0].TargetError, sides[0].MaxDuration = 1, time.Minute
	recs, err := loadgen.RunInterleaved(context.Background(), sides)
	if err != nil {
		t.Fatal(err)
	}
	if hs := recs[0].HandshakeSamplesUS; len(hs) == 0 || !slices.Equal(last, hs) || slices.Equal(last, recs[0].SamplesUS) {
		t.Errorf("the stop rule compared %v; side a's handshake figure %v, wall time %v", last, hs, recs[0].SamplesUS)
	}
}
