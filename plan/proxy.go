package plan

import (
	"net"
	"net/url"
	"strconv"

	"github.com/tlsbench/tlsbench/internal/hostname"
)

// Proxying is what the rules of a run's proxy read: the proxy (URL:
// ProxyBuiltin, http://HOST:PORT or none), the CA of its minted
// certificates and its process, and whether the built-in proxy's axes
// (read-fill, mint-cache) are given; Mutual and Transports are what the
// cases through it ask.
type Proxying struct {
	URL, CAFile         string
	PID                 int
	ReadFill, MintCache bool
	Mutual              bool
	Transports          []string
}

// Check refuses a proxy URL that is not one, a proxy's setting given
// where it does not apply (without a proxy; for the built-in proxy only
// what a URL proxy needs, or the reverse), and cases a proxy cannot
// carry: a proxy that intercepts TLS ends the client's, so client
// certificates never reach the server, and it is reached over TCP.
func (p Proxying) Check() error {
	if err := p.checkSettings(); err != nil || p.URL == "" {
		return err
	}
	if p.Mutual {
		return Errorf(Settings.Mutual, nil, "a proxy that intercepts TLS ends the client's TLS: client certificates never reach the server; drop %s or %s", Settings.Mutual, Settings.Proxy)
	}
	for _, t := range p.Transports {
		if t != TransportTCP && t != TransportTCP4 {
			return Errorf(Settings.Transport, nil, "%s %s: cases through a proxy run over IPv4 TCP", Settings.Transport, t)
		}
	}
	return nil
}

// checkSettings refuses the proxy's own settings given where they do
// not apply.
func (p Proxying) checkSettings() error {
	switch {
	case p.URL == "":
		for _, f := range []struct {
			setting *Setting
			need    string
			set     bool
		}{
			{Settings.ProxyCA, "http://HOST:PORT", p.CAFile != ""}, {Settings.ProxyPID, "http://HOST:PORT", p.PID != 0},
			{Settings.ReadFill, ProxyBuiltin, p.ReadFill}, {Settings.MintCache, ProxyBuiltin, p.MintCache},
		} {
			if f.set {
				return Errorf(f.setting, nil, "%s applies to a case through a proxy: add %s %s", f.setting, Settings.Proxy, f.need)
			}
		}
		return nil
	case p.URL == ProxyBuiltin:
		switch {
		case p.CAFile != "":
			return Errorf(Settings.ProxyCA, nil, "the built-in proxy's CA is trusted automatically: %s is for a proxy given by URL", Settings.ProxyCA)
		case p.PID != 0:
			return Errorf(Settings.ProxyPID, p.PID, "the built-in proxy's CPU is measured already: %s is for a proxy given by URL", Settings.ProxyPID)
		}
		return nil
	}
	if err := ParseProxyURL(p.URL); err != nil {
		return err
	}
	switch {
	case p.CAFile == "":
		return Errorf(Settings.ProxyCA, nil, "a proxy given by URL mints certificates with its own CA: give it with %s FILE", Settings.ProxyCA)
	case p.PID < 0:
		return Errorf(Settings.ProxyPID, p.PID, "not a process id")
	case p.ReadFill:
		return Errorf(Settings.ReadFill, nil, "%s configures the built-in proxy: use %s builtin", Settings.ReadFill, Settings.Proxy)
	case p.MintCache:
		return Errorf(Settings.MintCache, nil, "%s configures the built-in proxy: use %s builtin", Settings.MintCache, Settings.Proxy)
	}
	return nil
}

// ParseProxyURL checks a proxy URL: http://HOST:PORT, nothing else.
func ParseProxyURL(s string) error {
	bad := func(why string) error {
		return Errorf(Settings.Proxy, strconv.Quote(s), "%s (want builtin or http://HOST:PORT, e.g. http://127.0.0.1:3128)", why)
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
		return Errorf(Settings.Proxy, nil, "the host %v", err)
	}
	return nil
}
