package runner

import (
	"github.com/tlsbench/tlsbench/internal/hostname"
)

// listenQueue is whose listen queue the machine's listen-queue counters
// stand for in case c on side sp (measure.HandshakeCase.ListenQueue), or
// "" when they would say nothing of it: the counters are this machine's,
// and a server or proxy on another machine overflows its own; QUIC and
// in-memory connections have no listen queue.
func listenQueue(c *Case, sp *sideSpec) string {
	if c.Transport == TransportMemory || c.Transport == TransportQUIC {
		return ""
	}
	// The built-in server (and --versus-server's) listens on loopback.
	server := sp.target.Addr == "" || hostname.IsLoopback(sp.target.Addr)
	switch {
	case c.Proxy == "" && server:
		return "the server's"
	case c.Proxy == "":
		return ""
	case c.Proxy != ProxyBuiltin && !hostname.IsLoopback(Proxy{URL: c.Proxy}.addr()):
		return ""
	case server:
		return "the proxy's or the server's"
	}
	return "the proxy's"
}
