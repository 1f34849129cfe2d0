package proxy

import (
	"context"
	"net"
)

// WithDial makes the proxy connect to origins with dial: tests reach
// their one origin under names that no resolver knows.
func WithDial(dial func(ctx context.Context, network, addr string) (net.Conn, error)) Option {
	return func(p *Proxy) { p.dial = dial }
}
