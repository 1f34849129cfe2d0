package proxy

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"github.com/tlsbench/tlsbench/internal/acceptloop"
	"log/slog"
	"net"
	"net/netip"
	"strings"
	"sync"

	"github.com/tlsbench/tlsbench/internal/field"
	"github.com/tlsbench/tlsbench/internal/ratelog"
	"github.com/tlsbench/tlsbench/pki"
)

// Proxy is the TLS-intercepting proxy. Create it with New; it is safe for
// concurrent use.
type Proxy struct {
	o      Options
	allow  []netip.Prefix
	dest   destPolicy
	caFile string
	mint   *minter

	clientTLS *tls.Config // minted certificates, session tickets on
	originTLS *tls.Config // verification and the origin session cache

	log     *slog.Logger
	connLog *slog.Logger // with the rate limit: what clients cause
	limit   *ratelog.Handler

	c       *counters
	slots   chan struct{} // MaxConns
	headBuf sync.Pool     // *[]byte of MaxHead
	bufs    sync.Pool     // *[]byte of o.Buffer: relay buffers
	kernel  kernelPolicy  // what KTLS allows, decided once
	// dial connects to origins, given an address resolve found and the
	// destination policy allowed (tests point both elsewhere).
	dial    func(ctx context.Context, network, addr string) (net.Conn, error)
	resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	// fallbacksLogged are the kernel TLS fallback kinds logged at info
	// level already (leg:reason).
	fallbacksLogged sync.Map
}

// Option configures a Proxy beyond its Options.
type Option func(*Proxy)

// WithLogger sets where the proxy logs (default: discarded). What clients
// and origins cause (a refused request, an origin that cannot be
// verified) is logged at most 10 lines a second, then a line with the
// count of the others.
func WithLogger(l *slog.Logger) Option {
	return func(p *Proxy) { p.log = l }
}

// originSessions is the size of the origin leg's session cache: one
// session per origin name, so that repeated connections to an origin
// resume.
const originSessions = 1024

// New checks o, loads or writes the CA and makes the proxy's leaf key.
func New(o Options, opts ...Option) (*Proxy, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	p := &Proxy{o: o, log: slog.New(slog.DiscardHandler), c: newCounters(), slots: make(chan struct{}, o.MaxConns),
		dial: (&net.Dialer{Control: refuseNever}).DialContext, resolve: lookupHost}
	for _, opt := range opts {
		opt(p)
	}
	if o.OriginInsecure {
		p.log.Warn("origin certificates are NOT verified: anyone between the proxy and its origins can read and change the traffic")
	}
	p.limit = ratelog.New(p.log.Handler(), ratelog.DefaultBurst, ratelog.DefaultWindow)
	p.connLog = slog.New(p.limit)
	p.allow, _ = parseAllow(o.Allow)
	p.dest, _ = parseDest(o.AllowDest)
	ca, caFile, err := loadCA(o, p.log)
	if err != nil {
		return nil, err
	}
	chain, err := issuerChain(caFile)
	if err != nil {
		return nil, err
	}
	p.caFile = caFile
	if p.mint, err = newMinter(ca, chain, o.LeafKey, o.MintCache, o.MintCacheSize); err != nil {
		return nil, err
	}
	if p.originTLS, err = originConfig(o); err != nil {
		return nil, err
	}
	p.clientTLS = &tls.Config{
		MinVersion:     tls.VersionTLS12,
		GetCertificate: p.certificate,
		// Records as large as TLS allows from the first byte: the relay
		// moves bulk data, which small starting records only slow.
		DynamicRecordSizingDisabled: true,
	}
	var next func(*tls.ClientHelloInfo) (*tls.Config, error)
	if o.KTLS == KTLSOn {
		next = noTLS12Tickets(p.clientTLS)
	}
	// Checked for every ClientHello, resumed or not: GetCertificate is
	// not called when a session resumes.
	p.clientTLS.GetConfigForClient = checkSNI(next)
	p.kernel = newKernelPolicy(o.KTLS, p.clientTLS)
	size := o.Buffer
	p.headBuf.New = func() any { b := make([]byte, MaxHead); return &b }
	p.bufs.New = func() any { b := make([]byte, size); return &b }
	return p, nil
}

// lookupHost resolves an origin's name with the system's resolver.
func lookupHost(ctx context.Context, host string) ([]netip.Addr, error) {
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// originConfig is the origin leg's TLS configuration: verified against
// OriginCA or the system roots, with a session cache when OriginSessions
// is on.
func originConfig(o Options) (*tls.Config, error) {
	cfg := &tls.Config{
		MinVersion:                  tls.VersionTLS12,
		InsecureSkipVerify:          o.OriginInsecure,
		DynamicRecordSizingDisabled: true,
	}
	if o.OriginSessions {
		cfg.ClientSessionCache = tls.NewLRUClientSessionCache(originSessions)
	}
	if o.OriginCA != "" {
		certs, err := pki.LoadCertsPEM(o.OriginCA)
		if err != nil {
			return nil, field.Errorf("OriginCA", o.OriginCA, "%v", err)
		}
		cfg.RootCAs = x509.NewCertPool()
		for _, c := range certs {
			cfg.RootCAs.AddCert(c)
		}
	}
	return cfg, nil
}

// Listen listens on addr (host:port) for Serve: on IPv4 only for an IPv4
// address (0.0.0.0 included), IPv6 only for an IPv6 one. Go's "tcp"
// would make 0.0.0.0 a dual-stack socket that IPv6 clients reach too,
// beyond what the user named.
func Listen(addr string) (net.Listener, error) {
	network := "tcp"
	if host, _, err := net.SplitHostPort(addr); err == nil {
		if ip, err := netip.ParseAddr(host); err == nil {
			switch {
			case ip.Is4():
				network = "tcp4"
			case ip.Is6() && !ip.Is4In6():
				network = "tcp6"
			}
		}
	}
	return net.Listen(network, addr)
}

// CAFile is the certificate of the CA that signs minted certificates:
// what clients of the proxy must trust.
func (p *Proxy) CAFile() string { return p.caFile }

// Counters returns a snapshot of the proxy's counters, with this
// process's CPU time and allocations.
func (p *Proxy) Counters() Counters { return p.c.snapshot(p.mint) }

// Serve accepts connections from ln until ctx is done, then closes ln and
// the connections it started, and waits for them to end.
func (p *Proxy) Serve(ctx context.Context, ln net.Listener) error {
	defer p.limit.Flush() // the count of lines not logged, if any
	return acceptloop.Serve(ctx, ln, p.log, p.ServeConn)
}

// allowed reports whether a client at addr may use the proxy: loopback,
// or a network of Allow.
func (p *Proxy) allowed(addr net.Addr) bool {
	ta, ok := addr.(*net.TCPAddr)
	if !ok {
		return false
	}
	ip, ok := netip.AddrFromSlice(ta.IP)
	if !ok {
		return false
	}
	ip = ip.Unmap()
	if ip.IsLoopback() {
		return true
	}
	for _, n := range p.allow {
		if n.Contains(ip) {
			return true
		}
	}
	return false
}

// certificate mints (or finds) the certificate for the host the client
// asks for in its SNI, or the CONNECT host when it sends none.
func (p *Proxy) certificate(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	host := hello.ServerName
	if host == "" {
		host = connectHost(hello.Conn)
	}
	if !validHost(host) {
		return nil, fmt.Errorf("cannot mint a certificate for %q", clip(host))
	}
	// One certificate per host, however the client spells it: names
	// match without case and trailing dot, and a cache keyed on the
	// spelling would let a client make the proxy sign for every one.
	return p.mint.get(normHost(host))
}

// connectHost finds the CONNECT host on the legConn under c (which the
// kernel TLS helper may have wrapped).
func connectHost(c net.Conn) string {
	for c != nil {
		if lc, ok := c.(*legConn); ok {
			return lc.host
		}
		u, ok := c.(interface{ NetConn() net.Conn })
		if !ok {
			return ""
		}
		c = u.NetConn()
	}
	return ""
}

// sniMismatch is a client whose SNI names another host than its CONNECT
// request: the certificate minted for that name would vouch for data
// from an origin verified for another one.
type sniMismatch struct{ sni, host string }

func (e *sniMismatch) Error() string {
	return fmt.Sprintf("the client's TLS server name %q is not the CONNECT host %q", clip(e.sni), clip(e.host))
}

// checkSNI refuses a ClientHello whose SNI is not the CONNECT host, then
// asks next (if any) for the configuration.
func checkSNI(next func(*tls.ClientHelloInfo) (*tls.Config, error)) func(*tls.ClientHelloInfo) (*tls.Config, error) {
	return func(hello *tls.ClientHelloInfo) (*tls.Config, error) {
		if hello.ServerName != "" {
			if host := connectHost(hello.Conn); !sameHost(hello.ServerName, host) {
				return nil, &sniMismatch{sni: hello.ServerName, host: host}
			}
		}
		if next == nil {
			return nil, nil
		}
		return next(hello)
	}
}

// sameHost reports whether a TLS server name and a CONNECT host name the
// same host: names compared without case and one trailing dot, IP
// addresses as addresses. A name never matches an address.
func sameHost(sni, host string) bool {
	if host == "" {
		return false
	}
	sni, host = strings.TrimSuffix(sni, "."), strings.TrimSuffix(host, ".")
	hostIP, err := netip.ParseAddr(host)
	if err == nil {
		sniIP, err := netip.ParseAddr(sni)
		return err == nil && sniIP.Unmap() == hostIP.Unmap()
	}
	return strings.EqualFold(sni, host)
}
