package runner

import (
	"net"
	"net/url"
	"strconv"

	"github.com/tlsbench/tlsbench/internal/hostname"
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

// validate checks the proxy's settings. readFill and mintCache are the
// built-in proxy's axes (nil when not given).
func (p Proxy) validate(readFill, mintCache []bool) error {
	switch {
	case p.URL == "":
		for _, f := range []struct {
			setting *plan.Setting
			need    string
			set     bool
		}{
			{plan.Settings.ProxyCA, "http://HOST:PORT", p.CAFile != ""}, {plan.Settings.ProxyPID, "http://HOST:PORT", p.PID != 0},
			{plan.Settings.ReadFill, "builtin", len(readFill) > 0}, {plan.Settings.MintCache, "builtin", len(mintCache) > 0},
		} {
			if f.set {
				return plan.Errorf(f.setting, nil, "%s applies to a case through a proxy: add %s %s", f.setting, plan.Settings.Proxy, f.need)
			}
		}
		return nil
	case p.builtin():
		switch {
		case p.CAFile != "":
			return plan.Errorf(plan.Settings.ProxyCA, nil, "the built-in proxy's CA is trusted automatically: %s is for a proxy given by URL", plan.Settings.ProxyCA)
		case p.PID != 0:
			return plan.Errorf(plan.Settings.ProxyPID, p.PID, "the built-in proxy's CPU is measured already: %s is for a proxy given by URL", plan.Settings.ProxyPID)
		}
		return nil
	}
	if err := ParseProxyURL(p.URL); err != nil {
		return err
	}
	switch {
	case p.CAFile == "":
		return plan.Errorf(plan.Settings.ProxyCA, nil, "a proxy given by URL mints certificates with its own CA: give it with %s FILE", plan.Settings.ProxyCA)
	case p.PID < 0:
		return plan.Errorf(plan.Settings.ProxyPID, p.PID, "not a process id")
	case len(readFill) > 0:
		return plan.Errorf(plan.Settings.ReadFill, nil, "%s configures the built-in proxy: use %s builtin", plan.Settings.ReadFill, plan.Settings.Proxy)
	case len(mintCache) > 0:
		return plan.Errorf(plan.Settings.MintCache, nil, "%s configures the built-in proxy: use %s builtin", plan.Settings.MintCache, plan.Settings.Proxy)
	}
	return nil
}

// ParseProxyURL checks a proxy URL: http://HOST:PORT, nothing else.
func ParseProxyURL(s string) error {
	bad := func(why string) error {
		return plan.Errorf(plan.Settings.Proxy, strconv.Quote(s), "%s (want builtin or http://HOST:PORT, e.g. http://127.0.0.1:3128)", why)
	}
	u, err := url.Parse(s)
	switch {
	case err != nil || u.Opaque != "" || u.Host == "":
		return bad("not a proxy URL")
	case u.Scheme != "http":
		return bad("only http:// proxies are supported")
	case u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "":
		return bad("only a host and a port")
	}
	host, port, err := net.SplitHostPort(u.Host)
	if err != nil || host == "" {
		return bad("give the port")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return bad("the port must be a number from 1 to 65535")
	}
	if err := hostname.Check(host, hostname.Host); err != nil {
		return plan.Errorf(plan.Settings.Proxy, nil, "the host %v", err)
	}
	return nil
}
