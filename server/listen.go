package server

import (
	"context"
	"net"
)

// Listen listens on the TCP address addr as the built-in server should:
// without TCP keep-alive on the connections it accepts. Go's default
// enables keep-alive on every accepted connection, four system calls per
// connection for probes that a handshake server never needs (a silent
// connection ends at the handshake or idle timeout instead).
func Listen(ctx context.Context, addr string) (net.Listener, error) {
	lc := net.ListenConfig{KeepAlive: -1}
	return lc.Listen(ctx, "tcp", addr)
}
