package server_test

import (
	"context"
	"crypto/tls"
	"net"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/server"
)

// TestHandshakeBounded: a client that stalls in its handshake (it sends
// nothing, or only half its ClientHello) is failed as a timeout after the
// handshake timeout and disconnected; one still stalled when the server
// stops is failed as canceled; and a handshake that completes is not cut
// short by the deadline it had (the echo after it outlives the timeout).
func TestHandshakeBounded(t *testing.T) {
	t.Parallel()
	cfg, ca := testpki.Server(t)
	const timeout = 300 * time.Millisecond
	srv := server.New(cfg, server.WithHandshakeTimeout(timeout))
	ln, err := server.Listen(context.Background(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	addr := ln.Addr().String()

	for _, first := range [][]byte{nil, {22, 3, 1, 0, 200, 1}} {
		c := dialAndSend(t, addr, first)
		c.SetReadDeadline(time.Now().Add(30 * time.Second))
		if _, err := c.Read(make([]byte, 1)); err == nil {
			t.Errorf("a stalled client (sent %d bytes) read from the server, want its connection closed", len(first))
		}
		c.Close()
	}
	waitFailures(t, srv, "timeout", 2)

	ok, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost"})
	if err != nil {
		t.Fatal(err)
	}
	defer ok.Close()
	time.Sleep(2 * timeout)
	ok.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := ok.Write([]byte{7}); err != nil {
		t.Fatal(err)
	}
	if b := make([]byte, 1); func() error { _, err := ok.Read(b); return err }() != nil || b[0] != 7 {
		t.Errorf("echo after the handshake timeout: got %v, want 7 echoed", b)
	}

	srv2 := server.New(cfg, server.WithHandshakeTimeout(time.Hour))
	ln2, err := server.Listen(context.Background(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	served2 := make(chan error, 1)
	go func() { served2 <- srv2.Serve(ctx2, ln2) }()
	stalled := dialAndSend(t, ln2.Addr().String(), nil)
	defer stalled.Close()
	waitAccepted(t, srv2, 1)
	cancel2()
	if err := <-served2; err != nil {
		t.Fatal(err)
	}
	if got := srv2.Counters().Failures["canceled"]; got != 1 {
		t.Errorf("a handshake stalled when the server stopped: failures %v, want canceled 1", srv2.Counters().Failures)
	}
	cancel()
	<-served
}

func dialAndSend(t *testing.T, addr string, b []byte) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write(b); err != nil {
		t.Fatal(err)
	}
	return c
}

// waitFailures waits (generously: the machine may be loaded) until srv
// counts n failures of kind.
func waitFailures(t *testing.T, srv *server.Server, kind string, n int64) {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); srv.Counters().Failures[kind] < n; {
		if time.Now().After(end) {
			t.Fatalf("failures %v, want %s %d", srv.Counters().Failures, kind, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func waitAccepted(t *testing.T, srv *server.Server, n int64) {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); srv.Counters().Accepted < n; {
		if time.Now().After(end) {
			t.Fatalf("accepted %d, want %d", srv.Counters().Accepted, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
