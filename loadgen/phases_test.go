package loadgen_test

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/memconn"
	"github.com/tlsbench/tlsbench/internal/servertest"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/server"
	"github.com/tlsbench/tlsbench/stats"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// phasesOf decodes a server's phase histograms under the record's names,
// as the tool's own adapter does.
func phasesOf(t testing.TB, c server.Counters) map[string]*stats.Latency {
	names := map[string]string{server.PhaseHandshake: results.PhaseServerHandshake, server.PhaseKey: results.PhaseServerKey,
		server.PhaseSessionStore: results.PhaseServerSessionStore}
	out := map[string]*stats.Latency{}
	for name, e := range c.Phases {
		l, err := stats.DecodeLatency(e)
		if err != nil {
			t.Errorf("server phase %s: %v", name, err)
			continue
		}
		out[names[name]] = l
	}
	return out
}

// delayingServer is a TLS echo server that waits delay after each
// handshake before it reads and answers: its first application byte is
// late by at least that much.
func delayingServer(t *testing.T, delay time.Duration) (addr string, roots *tls.Config) {
	t.Helper()
	cfg, ca := testpki.Server(t)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	servertest.ServeEach(t, ln, func(c net.Conn, _ <-chan struct{}) {
		c.SetDeadline(time.Now().Add(30 * time.Second))
		if c.(*tls.Conn).Handshake() != nil {
			return
		}
		time.Sleep(delay)
		b := make([]byte, 1)
		if _, err := io.ReadFull(c, b); err == nil {
			c.Write(b)
		}
	})
	client := &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost"}
	return ln.Addr().String(), client
}

// TestFirstByteShowsServerDelay: a server that answers late after its
// handshake shows it in the first-byte phase, and only there is it
// bound to: the wait is at least the server's delay. An external server
// has no server phases.
func TestFirstByteShowsServerDelay(t *testing.T) {
	t.Parallel()
	const delay = 200 * time.Millisecond
	addr, base := delayingServer(t, delay)
	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		t.Run(tlsconf.VersionName(v), func(t *testing.T) {
			t.Parallel()
			cfg := base.Clone()
			cfg.MinVersion, cfg.MaxVersion = v, v
			rec, err := loadgen.RunHandshakes(context.Background(), measure.HandshakeCase{
				Name: "delayed", Version: v, Concurrency: 8, Handshakes: 8, Iterations: 2,
				Clients: []*tls.Config{cfg}, Dialer: client.TCPDialer{Addr: addr},
			})
			if err != nil {
				t.Fatal(err)
			}
			fb := rec.Phases[results.PhaseFirstByte]
			if fb.Count != rec.Handshakes || rec.Handshakes != 16 {
				t.Fatalf("first byte counted %d times for %d handshakes, want 16", fb.Count, rec.Handshakes)
			}
			if min := float64(delay.Microseconds()) * 0.9; fb.P50US < min {
				t.Errorf("first byte p50 %v µs: the server waited %v before answering", fb.P50US, delay)
			}
			for _, name := range []string{results.PhaseConnect, results.PhaseHandshake, results.PhaseTotal} {
				if got := rec.Phases[name].Count; got != rec.Handshakes {
					t.Errorf("phase %s counted %d, want %d", name, got, rec.Handshakes)
				}
			}
			for _, name := range []string{results.PhaseServerHandshake, results.PhaseServerKey, results.PhaseServerSessionStore} {
				if _, ok := rec.Phases[name]; ok {
					t.Errorf("phase %s present without a built-in server", name)
				}
			}
		})
	}
}

// TestPhasesOffRecordsOnlyTotal: the benchmark's switch that records no
// client phases leaves the total (the latency histogram) and the
// server's.
func TestPhasesOffRecordsOnlyTotal(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)
	hc := s.handshakeCase("off", tls.VersionTLS13, false, 2)
	hc.Server = withPhases{s.srv, t}
	loadgen.SetRecordPhases(&hc, false)
	rec, err := loadgen.RunHandshakes(context.Background(), hc)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := rec.Phases[results.PhaseConnect]; ok {
		t.Errorf("client phases recorded with recording off: %v", rec.Phases)
	}
	if rec.Phases[results.PhaseTotal].Count != rec.Handshakes || rec.Phases[results.PhaseServerHandshake].Count != rec.Handshakes {
		t.Errorf("phases %+v: want the total and the server's handshake, %d each", rec.Phases, rec.Handshakes)
	}
}

// withPhases observes srv's counts and phases.
type withPhases struct {
	srv *server.Server
	t   testing.TB
}

func (o withPhases) Snapshot() (measure.ServerSnapshot, error) {
	s, err := inProcess{o.srv}.Snapshot()
	s.Phases = phasesOf(o.t, o.srv.Counters())
	return s, err
}

// restarting is an in-process server that is replaced by a fresh one at
// its at-th connection, as a restarted server would be: its cumulative
// histograms start again from nothing.
type restarting struct {
	t       testing.TB
	cfg     *tls.Config
	at      int
	mu      sync.Mutex
	dials   int
	current *server.Server
}

func (r *restarting) Dial(context.Context, time.Time) (net.Conn, error) {
	r.mu.Lock()
	r.dials++
	if r.dials == r.at {
		r.current = server.New(r.cfg)
	}
	srv := r.current
	r.mu.Unlock()
	client, sc := memconn.Pipe()
	go srv.ServeConn(context.Background(), sc)
	return client, nil
}

func (*restarting) Transport() string { return "memory" }

func (r *restarting) Snapshot() (measure.ServerSnapshot, error) {
	r.mu.Lock()
	srv := r.current
	r.mu.Unlock()
	return withPhases{srv, r.t}.Snapshot()
}

// TestServerPhasesLostOnRestart: a server whose histograms go back
// within a measured iteration (it restarted) has no server phases in the
// record, and a note says why; the client's phases are unaffected.
func TestServerPhasesLostOnRestart(t *testing.T) {
	t.Parallel()
	cfg, ca := testpki.Server(t)
	r := &restarting{t: t, cfg: cfg, at: 16 + 8 + 1, current: server.New(cfg)}
	client := tlsconf.Client(tlsconf.ClientOptions{Version: tls.VersionTLS13, RootCAs: ca.Pool(), ServerName: "localhost"})
	rec, err := loadgen.RunHandshakes(context.Background(), measure.HandshakeCase{
		Name: "restart", Version: tls.VersionTLS13, Concurrency: 4, Handshakes: 16, Iterations: 2,
		Clients: []*tls.Config{client}, Dialer: r, Server: r,
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := rec.Phases[results.PhaseServerHandshake]; ok {
		t.Errorf("server phases kept across a restart: %+v", rec.Phases[results.PhaseServerHandshake])
	}
	if !strings.Contains(strings.Join(rec.Notes, "\n"), "server phases unknown") {
		t.Errorf("notes %q: want one saying the server's phases are unknown", rec.Notes)
	}
	if got := rec.Phases[results.PhaseHandshake].Count; got != 32 {
		t.Errorf("client handshake phase counted %d, want 32", got)
	}
}
