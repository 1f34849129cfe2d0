package loadgen_test

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/measure"
)

// partlySilent is a TCP proxy in front of a real server that accepts
// every connection but never answers one in every. It counts what it
// accepted.
func partlySilent(t *testing.T, backend string, every int64) (addr string, accepted *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted = new(atomic.Int64)
	var mu sync.Mutex
	var conns []net.Conn
	hold := func(c net.Conn) {
		mu.Lock()
		conns = append(conns, c)
		mu.Unlock()
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			hold(c)
			if accepted.Add(1)%every == 0 {
				continue // held open, never read
			}
			b, err := net.Dial("tcp", backend)
			if err != nil {
				c.Close()
				continue
			}
			hold(b)
			wg.Add(2)
			go func() { defer wg.Done(); io.Copy(b, c); b.Close() }()
			go func() { defer wg.Done(); io.Copy(c, b); c.Close() }()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return ln.Addr().String(), accepted
}

// TestPartlySilentServerFailsFast: a server that never answers one
// connection in four makes every such connection wait out its timeout.
// The warm-up's failures are held to the maximum error rate as soon as
// they make it impossible to pass: the case fails at once with the kinds
// and counts, measures nothing and writes no record, rather than wait
// out a timeout in every wave of every iteration.
func TestPartlySilentServerFailsFast(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)
	addr, accepted := partlySilent(t, s.addr, 4)
	hc := s.handshakeCase("partly-silent", tls.VersionTLS13, false, 4)
	hc.Dialer = client.TCPDialer{Addr: addr}
	hc.Handshakes, hc.Warmup, hc.Iterations, hc.ConnTimeout = 32, 1, 3, 500*time.Millisecond
	hc.MaxErrorRate = measure.DefaultMaxErrorRate
	rec, err := loadgen.RunHandshakes(context.Background(), hc)
	var ee *measure.ErrorRateError
	if !errors.As(err, &ee) || rec != nil || !ee.Warmup {
		t.Fatalf("record %v, error %v: want no record and the warm-up's ErrorRateError", rec, err)
	}
	if n := accepted.Load(); n > 4 {
		t.Errorf("%d connections made; want the case stopped after the first wave of 4", n)
	}
	if msg := err.Error(); !strings.Contains(msg, "1 of the first 4 connections failed") || !strings.Contains(msg, "timeout 1") ||
		!strings.Contains(msg, "the case was stopped before measuring") {
		t.Errorf("message %q: want the count, the kind and that nothing was measured", msg)
	}
}

// TestPartlySilentMeasuredStopsOnceFailed: with a gate the warm-up
// passes (none) and the measured iterations cannot, the case stops as
// soon as its failures make the gate impossible to pass, keeps the
// iterations measured before, and says that it had failed already.
func TestPartlySilentMeasuredStopsOnceFailed(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)
	addr, accepted := partlySilent(t, s.addr, 4)
	hc := s.handshakeCase("partly-silent-measured", tls.VersionTLS13, false, 4)
	hc.Dialer = client.TCPDialer{Addr: addr}
	hc.Handshakes, hc.Warmup, hc.Iterations, hc.ConnTimeout = 32, 0, 4, 500*time.Millisecond
	// 10% of the 128 planned connections: the 13th failure, in the
	// second iteration, fails the case.
	hc.MaxErrorRate = 0.1
	rec, err := loadgen.RunHandshakes(context.Background(), hc)
	var ee *measure.ErrorRateError
	if !errors.As(err, &ee) || rec == nil || ee.Planned != 128 || ee.Failed != 13 {
		t.Fatalf("record %v, error %v: want a record and an ErrorRateError after 13 failures of 128 planned", rec, err)
	}
	if n := accepted.Load(); n > 52 {
		t.Errorf("%d connections made; want the case stopped after 52", n)
	}
	if rec.Verdict != "failed" || rec.Iterations != 1 || rec.ErrorsByKind["timeout"] != 8 {
		t.Errorf("verdict %q, %d iterations, errors %v: want the first iteration kept with its 8 timeouts, failed", rec.Verdict, rec.Iterations, rec.ErrorsByKind)
	}
	if notes := strings.Join(rec.Notes, "\n"); !strings.Contains(notes, "the case had failed already and was stopped") {
		t.Errorf("notes %q do not say why the case stopped", notes)
	}
	if err := rec.Validate(); err != nil {
		t.Errorf("record does not validate: %v", err)
	}
}
