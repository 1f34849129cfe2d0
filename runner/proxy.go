package runner

import (
	"net/url"

	"github.com/tlsbench/tlsbench/plan"
)

// Proxy is a TLS-intercepting proxy the client connects through: an
// HTTP CONNECT to the origin (the built-in server, or the target), then
// TLS with the proxy, which mints a certificate for the origin's name
// and opens its own TLS connection to the origin.
type Proxy struct {
	// URL is ProxyBuiltin or http://HOST:PORT; empty: no proxy.
	URL string
	// CAFile is the CA that issues the proxy's minted certificates,
	// which the client trusts instead of the origin's CA. Required with
	// a URL; the built-in proxy's own is used otherwise.
	CAFile string
	// PID is a URL proxy's local process, whose CPU time (with its
	// children's: Squid's helpers) is sampled from /proc.
	PID int
}

// proxySettings are what the axes set on the built-in proxy.
type proxySettings struct {
	Buffer    int
	ReadFill  bool
	KTLS      string // off, auto, on
	MintCache bool
	// OriginSessions: the proxy resumes its own sessions with the
	// origin (resume cases); off, every origin handshake is full.
	OriginSessions bool
}

// builtin reports whether the proxy is the built-in one.
func (p Proxy) builtin() bool { return p.URL == ProxyBuiltin }

// addr is a URL proxy's host:port.
func (p Proxy) addr() string {
	u, err := url.Parse(p.URL)
	if err != nil {
		return ""
	}
	return u.Host
}

// validate checks the proxy's settings, and what the cases through it
// ask (mutual, transports), by the plan's rules. readFill and mintCache
// are the built-in proxy's axes (nil when not given).
func (p Proxy) validate(readFill, mintCache []bool, mutual bool, transports []string) error {
	return plan.Proxying{
		URL: p.URL, CAFile: p.CAFile, PID: p.PID, ReadFill: len(readFill) > 0, MintCache: len(mintCache) > 0,
		Mutual: mutual, Transports: transports,
	}.Check()
}
