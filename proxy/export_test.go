package proxy

import (
	"context"
	"net"
	"net/netip"
)

// WithDial makes the proxy connect to origins with dial: tests reach
// their one origin under names that no resolver knows.
func WithDial(dial func(ctx context.Context, network, addr string) (net.Conn, error)) Option {
	return func(p *Proxy) { p.dial = dial }
}

// WithResolve makes the proxy resolve origin names with resolve: tests
// give names any address they need, without a name server.
func WithResolve(resolve func(ctx context.Context, host string) ([]netip.Addr, error)) Option {
	return func(p *Proxy) { p.resolve = resolve }
}

// NeverReason and RefuseNever are the proxy's judgement of an address it
// never dials and its dialer's last check of one, for tests of addresses
// a CONNECT request cannot carry (a zone).
var (
	NeverReason = neverReason
	RefuseNever = refuseNever
)
