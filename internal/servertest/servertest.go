package servertest

import (
	"context"
	"crypto/tls"
	"net"
	"strconv"
	"sync"
	"testing"

	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/server"
)

// Listen is a TCP listener on a free port of 127.0.0.1.
func Listen(t testing.TB) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// Server is a built-in server serving in this process until the test
// ends.
type Server struct {
	*server.Server
	// Addr is where it listens (TCP, or UDP for StartQUIC).
	Addr string
	stop func() error
}

// Stop ends the server before the test does, so that its port refuses
// connections, and returns what Serve returned. It is safe to call again.
func (s *Server) Stop() error { return s.stop() }

// Serve serves srv on ln until the test ends (or Stop).
func Serve(t testing.TB, srv *server.Server, ln net.Listener) *Server {
	t.Helper()
	return serving(t, srv, ln.Addr().String(), func(ctx context.Context) error { return srv.Serve(ctx, ln) })
}

// Start serves srv on a free port of 127.0.0.1 until the test ends.
func Start(t testing.TB, srv *server.Server) *Server {
	t.Helper()
	return Serve(t, srv, Listen(t))
}

// StartQUIC serves srv over QUIC on a free UDP port of 127.0.0.1 until
// the test ends.
func StartQUIC(t testing.TB, srv *server.Server) *Server {
	t.Helper()
	l, err := srv.ListenQUIC("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ServeQUIC(t, srv, l)
}

// ServeQUIC serves srv over QUIC on l until the test ends.
func ServeQUIC(t testing.TB, srv *server.Server, l *server.QUICListener) *Server {
	t.Helper()
	return serving(t, srv, l.Addr().String(), func(ctx context.Context) error { return srv.ServeQUIC(ctx, l) })
}

// serving runs serve until the test ends or Stop.
func serving(t testing.TB, srv *server.Server, addr string, serve func(context.Context) error) *Server {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx) }()
	stop := sync.OnceValue(func() error { cancel(); return <-done })
	t.Cleanup(func() { stop() })
	return &Server{Server: srv, Addr: addr, stop: stop}
}

// Origin is a built-in echo server with a test identity of its own for
// localhost, 127.0.0.1 and ::1, serving on loopback until the test ends:
// what a client or a proxy is tested against.
type Origin struct {
	*Server
	Port int
	// CA issued the server's certificate; CAFile holds its root.
	CA     *pki.CA
	CAFile string
}

// StartOrigin starts an Origin. mutate, when not nil, changes its TLS
// configuration first; opts are the server's.
func StartOrigin(t testing.TB, mutate func(*tls.Config), opts ...server.Option) *Origin {
	t.Helper()
	cfg, ca := testpki.Server(t)
	if mutate != nil {
		mutate(cfg)
	}
	return ServeOrigin(t, server.New(cfg, opts...), ca)
}

// ServeOrigin serves srv, whose certificate ca issued, as an Origin.
func ServeOrigin(t testing.TB, srv *server.Server, ca *pki.CA) *Origin {
	t.Helper()
	s := Start(t, srv)
	_, p, _ := net.SplitHostPort(s.Addr)
	port, _ := strconv.Atoi(p)
	return &Origin{Server: s, Port: port, CA: ca, CAFile: WriteCA(t, ca)}
}

// WriteCA writes ca's root certificate to a new file of the test's.
func WriteCA(t testing.TB, ca *pki.CA) string {
	t.Helper()
	path := t.TempDir() + "/ca.pem"
	if err := pki.WriteCertsPEM(path, ca.Root()); err != nil {
		t.Fatal(err)
	}
	return path
}

// ServeEach serves every connection ln accepts with handle, each on its
// own goroutine, until the test ends: then ln is closed, done is closed
// (for handlers that wait), and the cleanup waits for every handler.
func ServeEach(t testing.TB, ln net.Listener, handle func(c net.Conn, done <-chan struct{})) {
	t.Helper()
	var wg sync.WaitGroup
	done := make(chan struct{})
	t.Cleanup(func() { close(done); ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				handle(c, done)
			}()
		}
	}()
}
