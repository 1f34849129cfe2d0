package loadgen_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/field"
	"github.com/tlsbench/tlsbench/internal/servertest"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// openCase is an open-loop case against s at rate starts per second,
// windows of n connections.
func (s *testServer) openCase(name string, version uint16, resume bool, rate float64, n int) measure.HandshakeCase {
	hc := s.handshakeCase(name, version, resume, 1)
	if resume {
		co := tlsconf.ClientOptions{Version: version, RootCAs: s.roots, ServerName: "localhost",
			Sessions: tlsconf.NewSessionPool(measure.OpenLoopSessions(0), tlsconf.ReuseMulti).Scoped("")}
		hc.Clients = []*tls.Config{tlsconf.Client(co)}
	}
	hc.Concurrency, hc.Rate, hc.Handshakes = 0, rate, n
	return hc
}

// runOpen runs an open-loop case that should hold its schedule. On a
// machine loaded by other work (or the race detector) the generator may
// still fall behind: its record comes with a RateError blaming the CPU,
// which is logged, not failed, as the figures checked are there either
// way; the in-flight cap or another error fails the test.
func runOpen(t *testing.T, hc measure.HandshakeCase) *results.Record {
	t.Helper()
	rec, err := loadgen.RunHandshakes(context.Background(), hc)
	var re *measure.RateError
	switch {
	case err == nil:
	case errors.As(err, &re) && re.Cause != measure.CauseInflight && rec != nil:
		t.Logf("loaded machine: %v", err)
	default:
		t.Fatal(err)
	}
	return rec
}

// TestOpenLoopRecord runs open-loop cases against the built-in server
// over loopback, constant and Poisson, full and resumed: every scheduled
// connection starts (none late or dropped against a fast server), the
// record carries the schedule's fields, and each connection's latency
// from its intended start is at least its service time from its actual
// start, so every percentile of the one is at least the other's.
func TestOpenLoopRecord(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)
	for _, tt := range []struct {
		name    string
		arrival string
		resume  bool
	}{
		{"constant", "", false},
		{"poisson", results.ArrivalPoisson, false},
		{"constant-resume", results.ArrivalConstant, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			hc := s.openCase("handshake/tls1.3/"+tt.name+"/r100", tls.VersionTLS13, tt.resume, 100, 20)
			hc.Arrival = tt.arrival
			rec := runOpen(t, hc)
			wantArrival := tt.arrival
			if wantArrival == "" {
				wantArrival = results.ArrivalConstant
			}
			switch {
			case rec.Arrival != wantArrival || rec.RateTarget == nil || *rec.RateTarget != 100 || rec.Concurrency != 0:
				t.Errorf("arrival %q, rate target %v, concurrency %d; want %s, 100, 0", rec.Arrival, rec.RateTarget, rec.Concurrency, wantArrival)
			case rec.MaxInflight != measure.DefaultMaxInflight:
				t.Errorf("max inflight %d, want the default %d", rec.MaxInflight, measure.DefaultMaxInflight)
			case rec.Late == nil || rec.Dropped == nil || *rec.Dropped != 0:
				t.Errorf("late %v, dropped %v; want counts, none dropped", rec.Late, rec.Dropped)
			case rec.Handshakes+rec.Errors != 40 || rec.Iterations != 2 || len(rec.SamplesUS) != 2:
				t.Errorf("%d handshakes + %d errors over %d windows; want the 2 windows' 40 connections", rec.Handshakes, rec.Errors, rec.Iterations)
			case rec.RateAchieved == nil || *rec.RateAchieved <= 0 || *rec.RateAchieved > 100*1.0001:
				t.Errorf("rate achieved %v: want above 0 and at most the 100 scheduled", rec.RateAchieved)
			case rec.StartLatenessP50US == nil || rec.StartLatenessP99US == nil || *rec.StartLatenessP99US < *rec.StartLatenessP50US:
				t.Errorf("start lateness p50 %v p99 %v", rec.StartLatenessP50US, rec.StartLatenessP99US)
			case rec.ServiceP50US == nil || rec.ServiceP999US == nil:
				t.Fatalf("service percentiles missing")
			case rec.P50US < *rec.ServiceP50US || rec.P90US < *rec.ServiceP90US || rec.P99US < *rec.ServiceP99US:
				t.Errorf("latency p50/p90/p99 %.0f/%.0f/%.0f below service %.0f/%.0f/%.0f: latency must count from the intended start",
					rec.P50US, rec.P90US, rec.P99US, *rec.ServiceP50US, *rec.ServiceP90US, *rec.ServiceP99US)
			case len(rec.SampleHandshakes) != 2 || rec.SampleHandshakes[0]+rec.SampleHandshakes[1] != rec.Handshakes:
				t.Errorf("sample handshakes %v: want the 2 windows' successful handshakes, %d in all", rec.SampleHandshakes, rec.Handshakes)
			case rec.ServiceHistogram == "" || rec.StartLatenessHistogram == "":
				t.Errorf("service histogram %d bytes, start lateness histogram %d bytes: want both", len(rec.ServiceHistogram), len(rec.StartLatenessHistogram))
			case rec.DurationUS != nil:
				t.Errorf("duration %v: want none given no duration", rec.DurationUS)
			}
			if tt.resume && (rec.ResumptionRate != 1 || rec.ServerResumed == nil || *rec.ServerResumed != rec.Resumed) {
				t.Errorf("resumed %d (rate %.2f), server %v: want every handshake resumed, by both counts", rec.Resumed, rec.ResumptionRate, rec.ServerResumed)
			}
		})
	}
}

// TestDurationWindows: with a duration, an open-loop case schedules the
// rate over each window, and a closed-loop case runs waves until each
// window ends; both record the measured time.
func TestDurationWindows(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)
	open := s.openCase("open", tls.VersionTLS13, false, 100, 0)
	open.Duration, open.Iterations, open.Warmup = 400*time.Millisecond, 4, 0
	rec := runOpen(t, open)
	// 4 windows of 100 ms at 100/s: 10 connections each.
	if rec.Handshakes+rec.Errors+*rec.Dropped != 40 || rec.DurationUS == nil || *rec.DurationUS != 400_000 {
		t.Errorf("open loop: %d handshakes, %d errors, %d dropped, duration %v µs; want 40 connections over 400000 µs",
			rec.Handshakes, rec.Errors, *rec.Dropped, rec.DurationUS)
	}
	closed := s.handshakeCase("closed", tls.VersionTLS13, false, 2)
	closed.Duration, closed.Iterations, closed.Warmup = 200*time.Millisecond, 2, 0
	rec, err := loadgen.RunHandshakes(context.Background(), closed)
	if err != nil {
		t.Fatal(err)
	}
	if rec.DurationUS == nil || *rec.DurationUS < 200_000 || rec.Handshakes < 2 || rec.Arrival != "" || rec.RateTarget != nil {
		t.Errorf("closed loop: duration %v µs, %d handshakes, arrival %q; want at least 200000 µs of waves, no schedule", rec.DurationUS, rec.Handshakes, rec.Arrival)
	}
}

// TestOpenLoopValidation: settings an open-loop case cannot run with
// are refused naming the field.
func TestOpenLoopValidation(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)
	for _, tt := range []struct {
		name, field string
		mutate      func(*measure.HandshakeCase)
	}{
		{"negative rate", "Rate", func(hc *measure.HandshakeCase) { hc.Rate = -1 }},
		{"arrival without rate", "Rate", func(hc *measure.HandshakeCase) { hc.Rate, hc.Concurrency, hc.Arrival = 0, 1, "poisson" }},
		{"unknown arrival", "Arrival", func(hc *measure.HandshakeCase) { hc.Arrival = "bursty" }},
		{"negative cap", "MaxInflight", func(hc *measure.HandshakeCase) { hc.MaxInflight = -1 }},
		{"target error", "TargetError", func(hc *measure.HandshakeCase) { hc.TargetError = 0.02 }},
		{"empty windows", "Duration", func(hc *measure.HandshakeCase) { hc.Rate, hc.Duration, hc.Iterations = 1, 100*time.Millisecond, 10 }},
		{"negative duration", "Duration", func(hc *measure.HandshakeCase) { hc.Duration = -time.Second }},
		{"windows too short", "Duration", func(hc *measure.HandshakeCase) {
			hc.Rate, hc.Concurrency, hc.Duration, hc.Iterations = 0, 1, 50*time.Millisecond, 10
		}},
		{"windows too short at a high rate", "Duration", func(hc *measure.HandshakeCase) {
			hc.Rate, hc.Duration, hc.Iterations = 1e5, 9*time.Millisecond, 1
		}},
		{"duration and target error", "TargetError", func(hc *measure.HandshakeCase) {
			hc.Rate, hc.Concurrency, hc.Duration, hc.TargetError = 0, 1, time.Second, 0.02
		}},
	} {
		hc := s.openCase("invalid", tls.VersionTLS13, false, 100, 10)
		tt.mutate(&hc)
		rec, err := loadgen.RunHandshakes(context.Background(), hc)
		var fe *field.Error
		if !errors.As(err, &fe) || fe.Field != tt.field || rec != nil {
			t.Errorf("%s: record %v, error %v; want a field error naming %s", tt.name, rec != nil, err, tt.field)
		}
	}
}

// slowServer is a real TLS server on loopback that accepts at once but
// starts each handshake only after delay, then echoes the ping: up, but
// slow. It holds each connection at least delay.
func slowServer(t *testing.T, delay time.Duration) (string, *x509.CertPool) {
	t.Helper()
	cfg, ca := testpki.Server(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	servertest.ServeEach(t, ln, func(c net.Conn, done <-chan struct{}) {
		select {
		case <-time.After(delay):
		case <-done:
			return
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		tc := tls.Server(c, cfg)
		if tc.Handshake() != nil {
			return
		}
		ping := make([]byte, 1)
		if _, err := io.ReadFull(tc, ping); err == nil {
			tc.Write(ping)
			io.Copy(io.Discard, tc)
		}
	})
	return ln.Addr().String(), ca.Pool()
}

func slowCase(addr string, roots *x509.CertPool, rate float64, n, maxInflight int) measure.HandshakeCase {
	cfg := tlsconf.Client(tlsconf.ClientOptions{Version: tls.VersionTLS13, RootCAs: roots, ServerName: "localhost"})
	return measure.HandshakeCase{
		Name: "handshake/tls1.3/full/slow", Version: tls.VersionTLS13, Rate: rate, Handshakes: n, Iterations: 1,
		MaxInflight: maxInflight, Clients: []*tls.Config{cfg}, Dialer: client.TCPDialer{Addr: addr},
		Words: client.Words{Names: map[string]string{"Rate": "--rate", "MaxInflight": "--max-inflight"}},
	}
}

// TestOpenLoopSlowServerLate: against a server that holds each
// connection 1.2 s, with two slots, starts due every 500 ms over a 2 s
// window: the first two start on time; the one due at 1 s finds both
// slots taken and starts when the first frees (1.2 s), the one due at
// 1.5 s when the second does (1.7 s): 2 late, none dropped, and the
// rate, 4 starts in the window's 2 s, is held. The late starts'
// latencies count their wait. (The margins leave each connection 0.3 s
// of overhead on a loaded machine.)
func TestOpenLoopSlowServerLate(t *testing.T) {
	t.Parallel()
	addr, roots := slowServer(t, 1200*time.Millisecond)
	rec, err := loadgen.RunHandshakes(context.Background(), slowCase(addr, roots, 2, 4, 2))
	if err != nil {
		t.Fatalf("error %v: the case held its rate", err)
	}
	if *rec.Late != 2 || *rec.Dropped != 0 || rec.Handshakes != 4 || *rec.RateAchieved != 2 || rec.Verdict != "" {
		t.Errorf("late %d, dropped %d, %d handshakes, rate achieved %v, verdict %q; want 2 late, 0 dropped, 4, exactly 2/s, passed",
			*rec.Late, *rec.Dropped, rec.Handshakes, *rec.RateAchieved, rec.Verdict)
	}
	// The start due at 1 s waited at least 0.2 s, then took the
	// server's 1.2 s.
	if rec.P999US < 1_400_000 || *rec.ServiceP50US < 1_200_000 {
		t.Errorf("latency max %.0f µs, service p50 %.0f µs: want at least 1.4 s (the wait for a slot counted) and the server's 1.2 s",
			rec.P999US, *rec.ServiceP50US)
	}
}

// TestOpenLoopSlowServerDrops: the same server, one slot, starts due
// every 400 ms over a 2 s window: the one due at 0.4 s waits for the slot
// until 1.2 s (late); the one due at 0.8 s would get it only at 2.4 s,
// after the window's end: it and the 2 due after it are dropped. 2
// starts in 2 s is 1/s of the 2.5 asked for: both gates fail, the record
// is returned marked failed, and the error blames the in-flight cap and
// the slow server.
func TestOpenLoopSlowServerDrops(t *testing.T) {
	t.Parallel()
	addr, roots := slowServer(t, 1200*time.Millisecond)
	rec, err := loadgen.RunHandshakes(context.Background(), slowCase(addr, roots, 2.5, 5, 1))
	var re *measure.RateError
	if !errors.As(err, &re) || rec == nil {
		t.Fatalf("record %v, error %v (%T); want the record and a RateError", rec != nil, err, err)
	}
	if *rec.Late != 1 || *rec.Dropped != 3 || rec.Handshakes != 2 || *rec.RateAchieved != 1 {
		t.Errorf("late %d, dropped %d, %d handshakes, rate achieved %v; want 1, 3, 2, exactly 1/s",
			*rec.Late, *rec.Dropped, rec.Handshakes, *rec.RateAchieved)
	}
	if re.Cause != measure.CauseInflight || rec.Verdict != measure.VerdictFailed {
		t.Errorf("cause %q, verdict %q; want the in-flight cap, failed", re.Cause, rec.Verdict)
	}
	for _, want := range []string{"started 1 connections per second, below 99% of the 2.5 asked for",
		"dropped 3 of 5 scheduled connections (60%), above 0.1%", "in-flight cap was reached",
		"server answers too slowly", "--max-inflight", "--rate"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if !strings.Contains(strings.Join(rec.Notes, "; "), "failed: the schedule was not held") {
		t.Errorf("notes %q do not say why the case failed", rec.Notes)
	}
}

// TestOpenLoopHostileServers: an open-loop case against a port nothing
// listens on fails at once with every connection refused; against a
// server that accepts and never answers, every connection of the window
// times out and the case stops as a stall; interrupted in the middle of
// a long window held up by a slow server, it returns promptly with the
// interruption rather than wait out the window.
func TestOpenLoopHostileServers(t *testing.T) {
	t.Parallel()
	t.Run("refused", func(t *testing.T) {
		t.Parallel()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		_, roots := slowServer(t, 0)
		rec, err := loadgen.RunHandshakes(context.Background(), slowCase(addr, roots, 50, 5, 2))
		var ce *measure.CaseError
		if !errors.As(err, &ce) || ce.Count != 5 || rec != nil {
			t.Errorf("record %v, error %v; want every one of the 5 connections refused", rec != nil, err)
		}
	})
	t.Run("silent", func(t *testing.T) {
		t.Parallel()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		go func() {
			var held []net.Conn // accepted, never answered
			defer func() {
				for _, c := range held {
					c.Close()
				}
			}()
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				held = append(held, c)
			}
		}()
		_, roots := slowServer(t, 0)
		hc := slowCase(ln.Addr().String(), roots, 20, 4, 2)
		hc.ConnTimeout = 300 * time.Millisecond
		_, err = loadgen.RunHandshakes(context.Background(), hc)
		var se *measure.StallError
		if !errors.As(err, &se) || se.Stage != "handshake" {
			t.Errorf("error %v; want a stall while waiting for the handshake", err)
		}
	})
	t.Run("interrupted", func(t *testing.T) {
		t.Parallel()
		addr, roots := slowServer(t, 5*time.Second)
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(300*time.Millisecond, cancel)
		began := time.Now()
		// A 10 s window, one connection open at a time.
		_, err := loadgen.RunHandshakes(ctx, slowCase(addr, roots, 10, 100, 1))
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error %v; want the interruption", err)
		}
		// The slow server holds the one connection 5 s.
		if took := time.Since(began); took > 4*time.Second {
			t.Errorf("returned %v after the interruption: it waited for the window or the slow server", took)
		}
	})
}

// TestLowRateStopsOnCancel: a case at a quarter of a start per second
// (4 s between starts) cancelled while waiting for a start ends at once,
// not at the start, and returns the window it measured before.
func TestLowRateStopsOnCancel(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("waits for a gap of 4 s between two starts")
	}
	s := startServer(t, nil)
	const gap = 4 * time.Second
	hc := s.openCase("handshake/tls1.3/full/r0.25", tls.VersionTLS13, false, 0.25, 2)
	hc.Warmup, hc.Iterations = 0, 3
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cancelled := make(chan time.Time, 1)
	hc.Progress = func(p measure.Progress) {
		if !p.Warmup && p.Iteration == 1 {
			// The second window has made its first start and waits
			// for its second.
			time.AfterFunc(200*time.Millisecond, func() { cancelled <- time.Now(); cancel() })
		}
	}
	rec, err := loadgen.RunHandshakes(ctx, hc)
	took := time.Since(<-cancelled)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want the cancellation", err)
	}
	if took > gap/2 {
		t.Errorf("returned %v after the cancellation: it waited for the next start, %v after the last", took, gap)
	}
	if rec == nil || rec.Handshakes+rec.Errors != 2 {
		t.Fatalf("record %+v: want the first window's 2 connections", rec)
	}
}

// TestWindowsKeepTheRate: consecutive windows follow one schedule, each
// beginning where the last ended, so that the connections start at the
// rate asked for: 4 windows of 2 starts at 4 starts a second span at
// least 1.75 s from the first start to the last (a window begun as soon
// as its predecessor's connections ended would take half that).
func TestWindowsKeepTheRate(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)
	hc := s.openCase("handshake/tls1.3/full/r4", tls.VersionTLS13, false, 4, 2)
	hc.Warmup, hc.Iterations = 0, 4
	var last time.Time
	hc.Progress = func(measure.Progress) { last = time.Now() }
	began := time.Now()
	rec := runOpen(t, hc)
	if rec.Handshakes != 8 {
		t.Fatalf("%d handshakes, want 8", rec.Handshakes)
	}
	// The last window's last start is 7 gaps of 250 ms after the first
	// window's first: the whole case cannot take less. (Progress is
	// called as each window ends.)
	if took := last.Sub(began); took < 1750*time.Millisecond {
		t.Errorf("4 windows of 2 starts at 4/s took %v, want at least 1.75 s: windows began early, above the rate", took)
	}
}

// TestRefusedTargetStopsOnCancel: a timed case against a port that
// refuses connections makes a wave every few microseconds; cancelled in
// its warm-up or its measured iterations it stops at once rather than
// at the end of its hour-long window, and says it was cancelled.
func TestRefusedTargetStopsOnCancel(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)
	addr := refusingAddr(t)
	for _, warmup := range []int{1, 0} {
		hc := s.handshakeCase("refused", tls.VersionTLS13, false, 2)
		hc.Dialer = client.TCPDialer{Addr: addr}
		hc.Server, hc.Duration, hc.Iterations, hc.Warmup, hc.MaxErrorRate = nil, 2*time.Hour, 2, warmup, 1
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		type outcome struct {
			rec *results.Record
			err error
		}
		done := make(chan outcome, 1)
		go func() {
			rec, err := loadgen.RunHandshakes(ctx, hc)
			done <- outcome{rec, err}
		}()
		select {
		case o := <-done:
			if !errors.Is(o.err, context.DeadlineExceeded) || o.rec != nil {
				t.Errorf("warm-up %d: record %v, error %v: want none, and the cancellation", warmup, o.rec, o.err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("warm-up %d: still connecting 30 s after the cancellation at 200ms", warmup)
		}
	}
}

// refusingAddr returns a loopback address that refuses connections: a
// port listened on, then closed.
func refusingAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}
