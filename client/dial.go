package client

import (
	"context"
	"net"
	"time"
)

// Dialer opens the transport connection of one handshake, giving up at
// deadline or when ctx ends.
type Dialer interface {
	Dial(ctx context.Context, deadline time.Time) (net.Conn, error)
	// Transport names the transport in results: "tcp" or "memory" (a
	// dialer of in-memory pipes to a server in this process).
	Transport() string
}

// TCPDialer connects to Addr over TCP.
type TCPDialer struct {
	Addr string
}

// Dial connects with Nagle's algorithm off (Go's default), as TLS stacks
// do for handshakes. It checks ctx before dialing rather than handing it
// to net, which starts a goroutine per dial to watch a cancellable
// context: a cost a handshake benchmark should not add to the client's
// CPU. The deadline bounds a connect that hangs. TCP keep-alive is left
// off: a connection lives for one handshake, and switching it on costs a
// system call per connection.
func (d TCPDialer) Dial(ctx context.Context, deadline time.Time) (net.Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	nd := net.Dialer{Deadline: deadline, KeepAlive: -1}
	return nd.Dial("tcp", d.Addr)
}

// Transport implements Dialer.
func (TCPDialer) Transport() string { return "tcp" }

// AbortiveClose closes c with an RST instead of the FIN handshake, so that
// neither side keeps the connection in TIME_WAIT.
func AbortiveClose(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	c.Close()
}
