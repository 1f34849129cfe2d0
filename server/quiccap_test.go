package server_test

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/tlsbench/tlsbench/internal/servertest"
	"github.com/tlsbench/tlsbench/server"
)

// dialQUIC completes a QUIC handshake with s, or returns why not.
func dialQUIC(t *testing.T, s *quicServer, cfg *tls.Config) (*quic.Conn, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := quic.DialAddr(ctx, s.addr, cfg, nil)
	if err == nil {
		t.Cleanup(func() { c.CloseWithError(0, "") })
	}
	return c, err
}

// wantRefused fails the test unless err is a QUIC CONNECTION_REFUSED.
func wantRefused(t *testing.T, what string, c *quic.Conn, err error) {
	t.Helper()
	var te *quic.TransportError
	if err == nil {
		c.CloseWithError(0, "")
		t.Fatalf("%s: the handshake completed, want CONNECTION_REFUSED", what)
	}
	if !errors.As(err, &te) || te.ErrorCode != quic.ConnectionRefused {
		t.Fatalf("%s: %v, want CONNECTION_REFUSED", what, err)
	}
}

// waitActive waits a few seconds at most for srv to serve n connections.
func waitActive(t *testing.T, srv *server.Server, n int64) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); srv.Counters().Active != n; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the server serves %d connections, want %d", srv.Counters().Active, n)
		}
	}
}

// TestQUICMaxConns: with a connection cap of N, N QUIC connections held
// open keep the next one out (refused, counted, logged), and one that
// closes gives its slot back.
func TestQUICMaxConns(t *testing.T) {
	t.Parallel()
	const maxConns = 3
	var log syncLog
	s := startQUIC(t, server.Options{MaxConns: maxConns}, server.WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
	cfg := s.clientTLS(nil)
	held := make([]*quic.Conn, maxConns)
	for i := range held {
		c, err := dialQUIC(t, s, cfg)
		if err != nil {
			t.Fatalf("connection %d of %d: %v", i+1, maxConns, err)
		}
		held[i] = c
	}
	c, err := dialQUIC(t, s, cfg)
	wantRefused(t, "one over the cap", c, err)
	got := s.srv.Counters()
	if got.QUICRefused != 1 || got.RefusedMaxConns != 1 || got.Accepted != maxConns {
		t.Fatalf("one over the cap: %d refused, %d refused at the cap, %d accepted; want 1, 1, %d", got.QUICRefused, got.RefusedMaxConns, got.Accepted, maxConns)
	}
	if want := `msg="QUIC connection refused" remote=127.0.0.1:`; !strings.Contains(log.String(), want) ||
		!strings.Contains(log.String(), `reason="at the connection limit" max_conns=3`) {
		t.Errorf("log:\n%s\nwant a line for the refusal at the connection limit", log.String())
	}

	held[0].CloseWithError(0, "")
	waitActive(t, s.srv, maxConns-1)
	if _, err := dialQUIC(t, s, cfg); err != nil {
		t.Fatalf("after a connection closed: %v, want its slot taken again", err)
	}
	if got := s.srv.Counters(); got.QUICRefused != 1 || got.Accepted != maxConns+1 {
		t.Errorf("after a connection closed: %d refused, %d accepted; want 1, %d", got.QUICRefused, got.Accepted, maxConns+1)
	}
}

// TestMaxConnsTCPAndQUIC: the cap counts TCP and QUIC connections
// together. With a cap of 2 held by one of each, a new one of either is
// refused; a failed QUIC handshake gives its slot back too.
func TestMaxConnsTCPAndQUIC(t *testing.T) {
	t.Parallel()
	s := startQUIC(t, server.Options{MaxConns: 2})
	tcp := servertest.Start(t, s.srv)
	tcfg := &tls.Config{RootCAs: s.ca.Pool(), ServerName: "localhost"}
	tc, err := tls.Dial("tcp", tcp.Addr, tcfg)
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	qc, err := dialQUIC(t, s, s.clientTLS(nil))
	if err != nil {
		t.Fatal(err)
	}
	c, err := dialQUIC(t, s, s.clientTLS(nil))
	wantRefused(t, "QUIC at the cap held by TCP and QUIC", c, err)
	if over, err := tls.Dial("tcp", tcp.Addr, tcfg); err == nil {
		// The server closes it at once, which the client may only see
		// when it reads.
		over.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := over.Read(make([]byte, 1)); err == nil || errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("TCP at the cap: read %v, want the connection closed", err)
		}
		over.Close()
	}
	if got := s.srv.Counters(); got.QUICRefused != 1 || got.RefusedMaxConns != 2 {
		t.Fatalf("at the cap: %d QUIC refused, %d refused at the cap; want 1, 2", got.QUICRefused, got.RefusedMaxConns)
	}

	// A QUIC handshake that fails (no protocol in common) holds a slot
	// until then, and gives it back.
	qc.CloseWithError(0, "")
	waitActive(t, s.srv, 1)
	bad := s.clientTLS(nil)
	bad.NextProtos = []string{"nothing-served"}
	if c, err := dialQUIC(t, s, bad); err == nil {
		c.CloseWithError(0, "")
		t.Fatal("a client of no protocol the server speaks completed its handshake")
	}
	waitActive(t, s.srv, 1)
	if _, err := dialQUIC(t, s, s.clientTLS(nil)); err != nil {
		t.Fatalf("after a failed handshake: %v, want its slot taken again", err)
	}
}

// TestQUICHandshakesInFlightRefused: clients at a real address answer
// the Retries, so past the Retry limit on handshakes in flight a client
// that stalls its handshakes (here: real clients that never finish
// checking the server's certificate) would still get connections; at
// twice the limit, even one that proved its address is refused. The
// limits are lowered to 2 and 4 so that a few clients get there.
func TestQUICHandshakesInFlightRefused(t *testing.T) {
	t.Parallel()
	const retryAt, refuseAt = 2, 4
	var log syncLog
	s := startQUIC(t, server.Options{}, server.WithQUICHandshakeLimits(retryAt, refuseAt),
		server.WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
	stall := make(chan struct{})
	var stalled sync.WaitGroup
	t.Cleanup(func() { close(stall); stalled.Wait() })
	cfg := s.clientTLS(nil)
	cfg.VerifyConnection = func(tls.ConnectionState) error { <-stall; return nil }
	for i := range refuseAt {
		stalled.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if c, err := quic.DialAddr(ctx, s.addr, cfg, nil); err == nil {
				c.CloseWithError(0, "")
			}
		})
		waitTaken(t, s.srv, int64(i+1))
	}
	c, err := dialQUIC(t, s, s.clientTLS(nil))
	wantRefused(t, "past the handshakes in flight", c, err)
	got := s.srv.Counters()
	if got.QUICRefused != 1 || got.QUICRetries != 2 || got.RefusedMaxConns != 0 {
		t.Errorf("past the handshakes in flight: %d refused, %d Retries, %d at the cap; want 1, 2, 0", got.QUICRefused, got.QUICRetries, got.RefusedMaxConns)
	}
	if want := `reason="too many handshakes are in flight" handshakes=4`; !strings.Contains(log.String(), want) {
		t.Errorf("log:\n%s\nwant a line with %s", log.String(), want)
	}
}

// TestQUICMaxConnsIdle: a QUIC connection closed for its silence gives
// its slot back.
func TestQUICMaxConnsIdle(t *testing.T) {
	t.Parallel()
	s := startQUIC(t, server.Options{MaxConns: 1, IdleTimeout: 200 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := quic.DialAddr(ctx, s.addr, s.clientTLS(nil), &quic.Config{MaxIdleTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseWithError(0, "")
	select {
	case <-c.Context().Done():
	case <-ctx.Done():
		t.Fatal("the server kept a silent connection open")
	}
	waitActive(t, s.srv, 0)
	if _, err := dialQUIC(t, s, s.clientTLS(nil)); err != nil {
		t.Fatalf("after a connection's idle timeout: %v, want its slot taken again", err)
	}
}

// TestQUICRetryNearMaxConns: the cap is TCP's too, so Initials from
// addresses that never answer must not take all of it: once three
// quarters of it are held, a new client is asked to prove its address
// (a Retry, which such a flood never answers) and, a real one, still
// gets in.
func TestQUICRetryNearMaxConns(t *testing.T) {
	t.Parallel()
	const maxConns = 8
	s := startQUIC(t, server.Options{MaxConns: maxConns})
	addr, err := net.ResolveUDPAddr("udp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	flood, err := net.DialUDP("udp", nil, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer flood.Close()
	for range maxConns - maxConns/4 {
		flood.Write(garbageInitial(8))
	}
	waitTaken(t, s.srv, maxConns-maxConns/4)
	flood.Write(garbageInitial(8)) // asked for a Retry, never answered
	if _, err := dialQUIC(t, s, s.clientTLS(nil)); err != nil {
		t.Fatalf("a real client with three quarters of the cap held: %v", err)
	}
	if c := s.srv.Counters(); c.QUICRetries != 1 || c.Accepted != maxConns-maxConns/4+1 {
		t.Errorf("three quarters of the cap held: %d Retries, %d accepted; want 1, %d", c.QUICRetries, c.Accepted, maxConns-maxConns/4+1)
	}
}
