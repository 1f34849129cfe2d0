package loadgen_test

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// silentListener accepts connections and never answers them: a server
// that is up but hung, the fault itself. It counts what it accepted.
func silentListener(t *testing.T) (addr string, accepted *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted = new(atomic.Int64)
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			conns = append(conns, c) // held open, never read
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String(), accepted
}

// TestSilentServerStopsAfterOneWave: against a server that accepts and
// never answers, the case stops after the first wave in which every
// connection timed out, instead of waiting out the timeout for each of
// the remaining waves, and says what timed out, after how long, and
// which flag to change.
func TestSilentServerStopsAfterOneWave(t *testing.T) {
	t.Parallel()
	addr, accepted := silentListener(t)
	for _, resume := range []bool{false, true} {
		co := tlsconf.ClientOptions{Version: tls.VersionTLS13, ServerName: "localhost"}
		if resume {
			co.Sessions = tlsconf.NewSessionPool(4, tlsconf.ReuseMulti).Scoped("")
		}
		before := accepted.Load()
		hc := measure.HandshakeCase{
			Name: "silent", Version: tls.VersionTLS13, Resume: resume, Concurrency: 4,
			Handshakes: 32, Iterations: 3, Warmup: 1, ConnTimeout: 300 * time.Millisecond,
			Clients: []*tls.Config{tlsconf.Client(co)}, Dialer: client.TCPDialer{Addr: addr},
		}
		rec, err := loadgen.RunHandshakes(context.Background(), hc)
		if n := accepted.Load() - before; n > 4 {
			t.Errorf("resume %v: %d connections made to a silent server, want one wave of 4", resume, n)
		}
		var se *measure.StallError
		if !errors.As(err, &se) || rec != nil {
			t.Fatalf("resume %v: record %v, error %v; want a StallError and no record", resume, rec, err)
		}
		msg := err.Error()
		for _, want := range []string{"every connection of a wave (4) timed out after 300ms", "waiting for the TLS handshake", "(raise ConnTimeout if"} {
			if !strings.Contains(msg, want) {
				t.Errorf("resume %v: message %q lacks %q", resume, msg, want)
			}
		}
	}
}

// TestThroughputCaseTimeBoundsIteration: --case-time stops a case whose
// single iteration would move 100 GiB near its limit, with a record of
// what was moved and a note saying so (the warm-up is bounded too).
func TestThroughputCaseTimeBoundsIteration(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)
	tc := throughputCase(s.addr, tlsconf.Client(tlsconf.ClientOptions{RootCAs: s.roots, ServerName: "localhost"}), loadgen.DirectionDownload)
	tc.Bytes, tc.Iterations, tc.Warmup, tc.MaxDuration = 100<<30, 5, 1, time.Second
	// Without the bound this would run for many minutes: the context
	// only keeps a regression from hanging the test.
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	began := time.Now()
	rec, err := loadgen.RunThroughput(ctx, tc)
	if err != nil {
		t.Fatalf("after %v: %v", time.Since(began), err)
	}
	notes := strings.Join(rec.Notes, "\n")
	if rec.Iterations != 1 || !strings.Contains(notes, "stopped by MaxDuration 1s during measured iteration 1 of 5") ||
		!strings.Contains(notes, "warm-up cut short") {
		t.Errorf("iterations %d, notes %q: want one cut iteration, noted, and the warm-up cut", rec.Iterations, notes)
	}
	if b := rec.Extra["bytes"]; b <= 0 || b >= float64(tc.Bytes) || rec.MBps == nil || *rec.MBps <= 0 {
		t.Errorf("bytes %v, mbps %v: want what the cut iteration moved", b, rec.MBps)
	}
	if secs := rec.Extra["seconds"]; secs < 0.9 || secs > 30 {
		t.Errorf("measured for %vs, want about the case time", secs)
	}
}

// countingDialer is a real TCP dialer that cancels the case's context at
// its n-th dial: Ctrl-C in the middle of an iteration.
type countingDialer struct {
	client.TCPDialer
	n      int64
	dials  *atomic.Int64
	cancel context.CancelFunc
}

func (d countingDialer) Dial(ctx context.Context, deadline time.Time) (net.Conn, error) {
	if d.dials.Add(1) == d.n {
		d.cancel()
	}
	return d.TCPDialer.Dial(ctx, deadline)
}

// TestInterruptedIterationAddsNoCost: an iteration cut short by Ctrl-C is
// dropped, and so are its allocations and CPU: the figures per handshake
// of an interrupted case match those of a case that ran to its end,
// rather than counting the dropped iteration's work over the kept
// iterations' handshakes.
// Not parallel: it compares this process's CPU and allocations per handshake, which other tests would disturb.
func TestInterruptedIterationAddsNoCost(t *testing.T) {
	s := startServer(t, nil)
	const hs = 64
	base := s.handshakeCase("cut", tls.VersionTLS13, false, 4)
	base.Handshakes, base.Warmup, base.Iterations = hs, 1, 3

	clean, err := loadgen.RunHandshakes(context.Background(), base)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hc := base
	// Warm-up and the first measured iteration, then 90% of the second.
	hc.Dialer = countingDialer{TCPDialer: client.TCPDialer{Addr: s.addr}, n: 2*hs + hs*9/10, dials: new(atomic.Int64), cancel: cancel}
	rec, err := loadgen.RunHandshakes(ctx, hc)
	if !errors.Is(err, context.Canceled) || rec == nil || rec.Iterations != 1 || rec.Handshakes != hs {
		t.Fatalf("record %+v, error %v: want one kept iteration of %d handshakes and ctx's error", rec, err, hs)
	}
	// Counting the dropped iteration would make it about 1.9 times.
	if ratio := rec.AllocBytes / clean.AllocBytes; ratio > 1.3 {
		t.Errorf("alloc per handshake %.0f B interrupted, %.0f B clean (x%.2f): the dropped iteration's allocations were counted",
			rec.AllocBytes, clean.AllocBytes, ratio)
	}
	if rec.ClientCPUUS != nil && clean.ClientCPUUS != nil && *rec.ClientCPUUS > 1.6**clean.ClientCPUUS {
		t.Errorf("client CPU per handshake %.0f µs interrupted, %.0f µs clean: the dropped iteration's CPU was counted",
			*rec.ClientCPUUS, *clean.ClientCPUUS)
	}
}

// TestResumptionFailureListIsCapped: a server that never resumes (tickets
// off) fails every measured iteration; the error and the note name the
// first few and count the rest with their rates, rather than list each of
// them on one line.
func TestResumptionFailureListIsCapped(t *testing.T) {
	t.Parallel()
	s := startServer(t, func(c *tls.Config) { c.SessionTicketsDisabled = true })
	hc := s.handshakeCase("capped", tls.VersionTLS13, true, 2)
	hc.Warmup, hc.Iterations, hc.Handshakes = 0, 12, 4
	rec, err := loadgen.RunHandshakes(context.Background(), hc)
	var re *measure.ResumptionError
	if !errors.As(err, &re) || rec == nil || len(re.Fell) != 12 {
		t.Fatalf("record %v, error %v: want a record and 12 iterations that fell", rec, err)
	}
	notes := strings.Join(rec.Notes, "\n")
	for _, msg := range []string{err.Error(), notes} {
		if !strings.Contains(msg, "iteration 5 resumed 0.0%") || !strings.Contains(msg, "and 7 more (rates 0.0%-0.0%)") {
			t.Errorf("message %q: want iterations 1-5 named and the 7 others counted", msg)
		}
		if strings.Contains(msg, "iteration 6 ") || len(msg) > 1000 {
			t.Errorf("message of %d bytes lists more than 5 iterations: %q", len(msg), msg)
		}
	}
}

// TestHandshakeCaseTimeNoted: a handshake case that the case time stops
// before its iterations says so in its record, as a throughput case
// does; one that ran them all adds no such note.
func TestHandshakeCaseTimeNoted(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)
	for _, tt := range []struct {
		iterations int
		want       string
	}{
		{100, "stopped by MaxDuration 1ms after 2 of 100 iterations"},
		{2, ""},
	} {
		hc := s.handshakeCase("casetime", tls.VersionTLS13, false, 2)
		hc.Iterations, hc.Handshakes, hc.MaxDuration = tt.iterations, 8, time.Millisecond
		rec, err := loadgen.RunHandshakes(context.Background(), hc)
		if err != nil {
			t.Fatal(err)
		}
		notes := strings.Join(rec.Notes, "\n")
		if rec.Iterations != 2 || (tt.want != "" && !strings.Contains(notes, tt.want)) || (tt.want == "" && strings.Contains(notes, "stopped by")) {
			t.Errorf("%d iterations asked: kept %d, notes %q; want 2 and %q", tt.iterations, rec.Iterations, notes, tt.want)
		}
	}
}
