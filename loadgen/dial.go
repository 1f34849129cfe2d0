package loadgen

import (
	"context"
	"net"

	"github.com/tlsbench/tlsbench/internal/memconn"
	"github.com/tlsbench/tlsbench/server"
)

// Dialer opens the transport connection of one handshake.
type Dialer interface {
	Dial(ctx context.Context) (net.Conn, error)
	// Transport names the transport in results: "tcp" or "memory".
	Transport() string
}

// TCPDialer connects to Addr over TCP.
type TCPDialer struct {
	Addr string
}

// Dial connects with Nagle's algorithm off (Go's default), as TLS stacks
// do for handshakes.
func (d TCPDialer) Dial(ctx context.Context) (net.Conn, error) {
	var nd net.Dialer
	return nd.DialContext(ctx, "tcp", d.Addr)
}

// Transport implements Dialer.
func (TCPDialer) Transport() string { return "tcp" }

// MemoryDialer connects to an in-process server over a buffered in-memory
// pipe: no sockets, no kernel, for comparison with loopback TCP.
type MemoryDialer struct {
	Server *server.Server
	// Ctx bounds the server side of each connection.
	Ctx context.Context
}

// Dial implements Dialer.
func (d MemoryDialer) Dial(ctx context.Context) (net.Conn, error) {
	client, srv := memconn.Pipe()
	sctx := d.Ctx
	if sctx == nil {
		sctx = context.Background()
	}
	go d.Server.ServeConn(sctx, srv)
	return client, nil
}

// Transport implements Dialer.
func (MemoryDialer) Transport() string { return "memory" }

// abortiveClose closes c with an RST instead of the FIN handshake, so that
// neither side keeps the connection in TIME_WAIT.
func abortiveClose(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	c.Close()
}
