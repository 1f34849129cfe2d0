package server_test

import (
	"context"
	"crypto/tls"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/server"
)

// TestFirstByteTimeout: a client that sends nothing is cut after the
// first-byte timeout, long before the handshake timeout, and its failure
// says so; one that has sent a byte is held to the handshake timeout
// only; a handshake that completes is not cut at all.
func TestFirstByteTimeout(t *testing.T) {
	t.Parallel()
	cfg, ca := testpki.Server(t)
	const first = 200 * time.Millisecond
	var log syncLog
	srv := server.New(cfg, server.WithHandshakeTimeout(time.Minute), server.WithFirstByteTimeout(first), server.WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
	ln, err := server.Listen(context.Background(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go srv.Serve(ctx, ln)
	addr := ln.Addr().String()

	silent := dialAndSend(t, addr, nil)
	defer silent.Close()
	started := time.Now()
	silent.SetReadDeadline(time.Now().Add(30 * time.Second))
	if _, err := silent.Read(make([]byte, 1)); err == nil {
		t.Fatal("a silent client read from the server, want its connection closed")
	}
	if d := time.Since(started); d > 20*first+time.Second {
		t.Errorf("a silent client was cut after %v, want about %v (the handshake timeout is a minute)", d, first)
	}
	waitFailures(t, srv, "timeout", 1)

	partial := dialAndSend(t, addr, []byte{22})
	defer partial.Close()
	partial.SetReadDeadline(time.Now().Add(5 * first))
	if _, err := partial.Read(make([]byte, 1)); !isTimeout(err) {
		t.Errorf("a client that sent a byte: read %v, want it still open past the first-byte timeout", err)
	}

	ok, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost"})
	if err != nil {
		t.Fatal(err)
	}
	defer ok.Close()
	time.Sleep(2 * first)
	ok.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := ok.Write([]byte{7}); err != nil {
		t.Fatal(err)
	}
	if _, err := ok.Read(make([]byte, 1)); err != nil {
		t.Errorf("echo after the first-byte timeout: %v", err)
	}
	cancel()
	if !strings.Contains(log.String(), "sent nothing for 200ms") {
		t.Errorf("log:\n%s\nwant the silent client's line to say it sent nothing", log.String())
	}
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// TestDefaultMaxConns: the cap derived from the descriptor limit leaves
// room for the benchmark concurrency the runner allows, and the bounds
// hold.
func TestDefaultMaxConns(t *testing.T) {
	t.Parallel()
	n := server.DefaultMaxConns()
	if n < 16 || n > 1<<16 {
		t.Errorf("DefaultMaxConns() = %d, want between 16 and 65536", n)
	}
	for _, o := range []server.Options{{MaxConns: -1}, {MaxConns: server.MaxMaxConns + 1}, {FirstByteTimeout: server.MaxFirstByteTimeout + 1}} {
		o.Identities = []server.IdentityFiles{{Cert: "c", Key: "k"}}
		if err := o.Validate(); err == nil {
			t.Errorf("Validate(%+v) = nil, want an error", o)
		}
	}
}
