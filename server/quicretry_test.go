package server_test

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/quic-go/quic-go"

	"github.com/tlsbench/tlsbench/server"
)

// TestQUICRetriesAndRefusalsCounted: once as many connections wait for
// their ClientHello as the server allows, a real client is asked to
// prove its address (a Retry) and still completes its handshake; once
// twice as many wait, one is refused. The counters say how many of each,
// so that a benchmark's record can. The limits are lowered to 4 and 8 so
// that a few garbage Initials get there.
func TestQUICRetriesAndRefusalsCounted(t *testing.T) {
	t.Parallel()
	const retryAt, refuseAt = 4, 8
	s := startQUIC(t, server.Options{}, server.WithQUICAwaitingLimits(retryAt, refuseAt))
	addr, err := net.ResolveUDPAddr("udp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	flood, err := net.DialUDP("udp", nil, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer flood.Close()
	for range retryAt {
		flood.Write(garbageInitial(8))
	}
	waitTaken(t, s.srv, retryAt)
	if c := s.srv.Counters(); c.QUICRetries != 0 || c.QUICRefused != 0 {
		t.Fatalf("below the limit: %d Retries, %d refused; want none", c.QUICRetries, c.QUICRefused)
	}

	ping(t, s.addr, s.clientTLS(nil))
	c := s.srv.Counters()
	if c.Handshakes != 1 || c.QUICRetries != 1 || c.QUICRefused != 0 {
		t.Fatalf("a client past the Retry limit: %d handshakes, %d Retries, %d refused; want 1, 1, 0", c.Handshakes, c.QUICRetries, c.QUICRefused)
	}

	// Garbage Initials that answer their Retry with its token fill the
	// server to the refusal limit.
	answered := make(chan int, 1)
	done := make(chan int, 1)
	go func() { done <- answerRetries(flood, answered) }()
	for range refuseAt - retryAt {
		flood.Write(garbageInitial(8))
	}
	waitTaken(t, s.srv, refuseAt+1) // and the client's
	flood.SetReadDeadline(time.Now())
	<-done

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := quic.DialAddr(ctx, s.addr, s.clientTLS(nil), nil)
	var te *quic.TransportError
	if err == nil {
		conn.CloseWithError(0, "")
		t.Fatal("a client past the refusal limit completed its handshake")
	} else if !errors.As(err, &te) || te.ErrorCode != quic.ConnectionRefused {
		t.Fatalf("a client past the refusal limit: %v, want CONNECTION_REFUSED", err)
	}
	c = s.srv.Counters()
	if c.QUICRefused != 1 || c.QUICRetries != 2+refuseAt-retryAt || c.Handshakes != 1 {
		t.Errorf("after a refusal: %d refused, %d Retries, %d handshakes; want 1, %d, 1", c.QUICRefused, c.QUICRetries, c.Handshakes, 2+refuseAt-retryAt)
	}
	if d := c.Sub(server.Counters{QUICRetries: 1}); d.QUICRetries != c.QUICRetries-1 || d.QUICRefused != 1 {
		t.Errorf("Sub: %d Retries, %d refused; want %d, 1", d.QUICRetries, d.QUICRefused, c.QUICRetries-1)
	}
}

// waitTaken waits a few seconds at most for srv to have taken n
// connections.
func waitTaken(t *testing.T, srv *server.Server, n int64) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); srv.Counters().Accepted < n; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the server took %d connections, want %d", srv.Counters().Accepted, n)
		}
	}
}
