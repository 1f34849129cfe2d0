package runner

import (
	"net"
	"net/url"
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
	server := sp.target.Addr == "" || isLoopback(sp.target.Addr)
	switch {
	case c.Proxy == "" && server:
		return "the server's"
	case c.Proxy == "":
		return ""
	case c.Proxy != ProxyBuiltin && !isLoopback(proxyHost(c.Proxy)):
		return ""
	case server:
		return "the proxy's or the server's"
	}
	return "the proxy's"
}

// isLoopback reports whether addr (host:port, or a host) is on this
// machine's loopback.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// proxyHost is the host:port of a proxy URL (http://HOST:PORT).
func proxyHost(proxyURL string) string {
	u, err := url.Parse(proxyURL)
	if err != nil {
		return ""
	}
	return u.Host
}
