package sessionidcheck_test

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/peers"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/probe/sessionidcheck"
)

// The requests over connections resumed by session ID, against servers
// that answer each: gnutls-serv (lines, GET) and a JSSE echo server
// (the 1-byte ping); and a simultaneous round against gnutls-serv's one
// process, which resumes every connection.
func TestRequestsOverResumed(t *testing.T) {
	t.Parallel()
	ca, _, files := testpki.ServerFiles(t)
	cfg := &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost"}
	target := func(addr string) sessionidcheck.Target {
		return sessionidcheck.Target{Addr: addr, Config: cfg, Timeout: 10 * time.Second}
	}
	tests := []struct {
		name    string
		start   func(t *testing.T) string
		request client.Request
		first   string
	}{
		{"gnutls line", func(t *testing.T) string {
			return peers.GnuTLS(t, peers.GnuTLSConfig{Cert: files.Cert, Key: files.Key, Mode: "echo"}).Addr
		}, client.RequestLine, "tlsbench"},
		{"gnutls http-get", func(t *testing.T) string {
			return peers.GnuTLS(t, peers.GnuTLSConfig{Cert: files.Cert, Key: files.Key, Mode: "http"}).Addr
		}, client.RequestHTTPGet, "HTTP/1.0 200 OK"},
		{"jsse ping", func(t *testing.T) string {
			return peers.JSSE(t, peers.JSSEConfig{Cert: files.Cert, Key: files.Key, Mode: "echo",
				Protocols: []string{"TLSv1.2"}, NoTickets: true, NoDelay: true}).Addr
		}, client.RequestPing, "echo"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tg := target(tt.start(t))
			ctx := context.Background()
			// The request on the full handshake's connection too, as the
			// probe sends it: its answer says the server has kept the
			// session (the JSSE server keeps it after its Finished).
			var full string
			var fullErr error
			s, err := sessionidcheck.Learn(ctx, tg, func(tc *tls.Conn) { full, fullErr = tt.request.Send(tc, "localhost") })
			if err != nil || fullErr != nil || full != tt.first {
				t.Fatalf("full handshake: %v; answer %q (%v), want %q", err, full, fullErr, tt.first)
			}
			a, err := sessionidcheck.Resume(ctx, tg, s, tt.request, "localhost", false)
			if err != nil || a.Err != nil || a.First != tt.first {
				t.Fatalf("resumed %s: answer %q (%v), %v; want %q", tt.request, a.First, a.Err, err, tt.first)
			}
			if tt.request != client.RequestLine {
				return
			}
			r := sessionidcheck.Simultaneous(ctx, tg, s, 16)
			if r.Concurrency != 16 || r.Resumed != 16 || r.NewSessions != 0 || r.Errors != 0 {
				t.Fatalf("simultaneous round %+v (first error %v), want 16 of 16 resumed", r, r.FirstErr)
			}
		})
	}
}

// A server that cannot be reached is ErrDial, not a TLS failure.
func TestLearnDialError(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, err = sessionidcheck.Learn(context.Background(), sessionidcheck.Target{Addr: addr, Config: &tls.Config{}, Timeout: time.Second}, nil)
	if !errors.Is(err, sessionidcheck.ErrDial) {
		t.Fatalf("Learn from a closed port: %v, want ErrDial", err)
	}
}
