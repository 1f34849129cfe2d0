package proxy

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"syscall"
	"time"

	"github.com/tlsbench/tlsbench/internal/field"
	"github.com/tlsbench/tlsbench/internal/hostname"
)

// DefaultAllowDest are the destinations the proxy dials without
// Options.AllowDest: this machine only, as a benchmark proxy has no
// business reaching further unless told to.
var DefaultAllowDest = []string{"127.0.0.0/8", "::1/128"}

// neverDest are the addresses the proxy never dials, whatever AllowDest
// says: none of them is an origin. The unspecified address reaches this
// machine's every service, link-local reaches the cloud metadata
// service (169.254.169.254) and the local segment, multicast and
// broadcast are no single host. A Teredo address (RFC 4380) carries
// its relay's and its client's IPv4 addresses, the latter obfuscated:
// no origin a benchmark proxy has to reach is one, and what it would
// reach is not worth decoding to judge.
var neverDest = []struct {
	net  netip.Prefix
	what string
}{
	{netip.MustParsePrefix("0.0.0.0/32"), "the unspecified address"},
	{netip.MustParsePrefix("0.0.0.0/8"), "in 0.0.0.0/8 (this network)"},
	{netip.MustParsePrefix("::/128"), "the unspecified address"},
	{netip.MustParsePrefix("255.255.255.255/32"), "the broadcast address"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local"},
	{netip.MustParsePrefix("fe80::/10"), "link-local"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("ff00::/8"), "multicast"},
	{netip.MustParsePrefix("2001::/32"), "a Teredo tunnel address"},
	// The cloud metadata service's IPv6 address (EC2's, in the unique
	// local range a network may well allow): what 169.254.169.254 is
	// for IPv4.
	{netip.MustParsePrefix("fd00:ec2::254/128"), "the cloud metadata service's address"},
}

// neverReason says why the proxy never dials a, or "" when it may. An
// IPv4-mapped IPv6 address is judged as the IPv4 address it reaches,
// and so is an IPv6 address that carries an IPv4 one for a translator
// or tunnel to reach (embeddedIPv4): 64:ff9b::a9fe:a9fe is the metadata
// service behind a NAT64 gateway. A zone (fe80::1%eth0) is left out:
// it says which interface, not which address, and no prefix contains an
// address that has one.
func neverReason(a netip.Addr) string {
	a = a.Unmap().WithZone("")
	for _, n := range neverDest {
		if n.net.Contains(a) {
			return n.what
		}
	}
	if v4, ok := embeddedIPv4(a); ok {
		if w := neverReason(v4); w != "" {
			return w + " (as " + v4.String() + ", which " + a.String() + " reaches)"
		}
	}
	return ""
}

// embeddings are the IPv6 networks whose addresses carry an IPv4 address
// a gateway reaches, and the byte at which it starts: NAT64's well-known
// prefix (RFC 6052; a local-use prefix places it where its operator
// chose, which the proxy cannot know), SIIT's translated form
// (::ffff:0:a.b.c.d, RFC 6145), the IPv4-compatible form (::a.b.c.d,
// deprecated) and 6to4 (RFC 3056: bits 16-47). Teredo's are obfuscated
// and never dialled at all (neverDest).
var embeddings = []struct {
	net netip.Prefix
	at  int
}{
	{netip.MustParsePrefix("64:ff9b::/96"), 12},
	{netip.MustParsePrefix("::ffff:0:0:0/96"), 12},
	{netip.MustParsePrefix("::/96"), 12},
	{netip.MustParsePrefix("2002::/16"), 2},
}

// embeddedIPv4 is the IPv4 address an IPv6 address a carries for a
// gateway to reach, if it has one.
func embeddedIPv4(a netip.Addr) (netip.Addr, bool) {
	// ::1 and :: are IPv6's own loopback and unspecified addresses, not
	// IPv4-compatible ones.
	if !a.Is6() || a == netip.IPv6Loopback() || a == netip.IPv6Unspecified() {
		return netip.Addr{}, false
	}
	b := a.As16()
	for _, e := range embeddings {
		if e.net.Contains(a) {
			return netip.AddrFrom4([4]byte(b[e.at : e.at+4])), true
		}
	}
	return netip.Addr{}, false
}

// embeddedNet is the IPv4 network that the addresses of an IPv6 network
// p carry, if p lies within one of the embeddings: 2002:a9fe::/32
// carries 169.254.0.0/16. A network that holds ::1 is IPv6's own.
func embeddedNet(p netip.Prefix) (netip.Prefix, bool) {
	if !p.Addr().Is6() || p.Contains(netip.IPv6Loopback()) {
		return netip.Prefix{}, false
	}
	b := p.Addr().As16()
	for _, e := range embeddings {
		if e.net.Bits() <= p.Bits() && e.net.Contains(p.Addr()) {
			v4 := netip.AddrFrom4([4]byte(b[e.at : e.at+4]))
			return netip.PrefixFrom(v4, min(p.Bits()-e.net.Bits(), 32)).Masked(), true
		}
	}
	return netip.Prefix{}, false
}

// neverNet says why the proxy never dials any address of p, or "" when
// it may dial some: p lies within a network of neverDest, or carries
// only IPv4 addresses that do.
func neverNet(p netip.Prefix) string {
	for _, n := range neverDest {
		if n.net.Bits() <= p.Bits() && n.net.Contains(p.Addr()) {
			return n.what
		}
	}
	if v4, ok := embeddedNet(p); ok {
		if w := neverNet(v4); w != "" {
			return w + " (as " + v4.String() + ", which it reaches)"
		}
	}
	return ""
}

// destPolicy is what the proxy dials: addresses in nets, and the host
// names in names whatever they resolve to; never an address of neverDest.
type destPolicy struct {
	nets  []netip.Prefix
	names map[string]bool // normalised (normHost)
}

// normHost is a host name as the proxy compares and caches it: lower
// case, without the trailing dot of a fully qualified name.
func normHost(h string) string {
	return strings.ToLower(strings.TrimSuffix(h, "."))
}

// parseDest reads AllowDest (DefaultAllowDest when empty): networks in
// CIDR form, single IP addresses and host names.
func parseDest(allow []string) (destPolicy, error) {
	if len(allow) == 0 {
		allow = DefaultAllowDest
	}
	d := destPolicy{names: map[string]bool{}}
	for _, a := range allow {
		s := strings.TrimSpace(a)
		p, err := parseDestNet(s)
		if err != nil {
			if strings.Contains(s, "/") || !validHost(s) {
				return destPolicy{}, field.Errorf("AllowDest", nil, "%s is not a network in CIDR form, an IP address or a host name, e.g. 10.0.0.0/8, 192.0.2.7 or origin.example", hostname.Quote(a))
			}
			d.names[normHost(s)] = true
			continue
		}
		if w := neverNet(p); w != "" {
			return destPolicy{}, field.Errorf("AllowDest", nil, "%s is %s, which the proxy never dials", hostname.Quote(a), w)
		}
		d.nets = append(d.nets, p)
	}
	return d, nil
}

// parseDestNet reads a network or a single address; an IPv4-mapped one
// becomes the IPv4 network it reaches.
func parseDestNet(s string) (netip.Prefix, error) {
	if a, err := netip.ParseAddr(s); err == nil {
		a = a.Unmap()
		return netip.PrefixFrom(a, a.BitLen()), nil
	}
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, err
	}
	if a := p.Addr(); a.Is4In6() && p.Bits() >= 96 {
		p = netip.PrefixFrom(a.Unmap(), p.Bits()-96)
	}
	return p.Masked(), nil
}

// why says why the policy does not let a be dialled for host, or ""
// when it does.
func (d destPolicy) why(host string, a netip.Addr) string {
	a = a.Unmap().WithZone("") // as neverReason
	if w := neverReason(a); w != "" {
		return w + ", which the proxy never dials"
	}
	if d.names[normHost(host)] {
		return ""
	}
	for _, n := range d.nets {
		if n.Contains(a) {
			return ""
		}
	}
	return "not in --allow-dest; the proxy dials only --allow-dest destinations (default: this machine)"
}

// check refuses (403) host when any address it resolved to is one the
// policy does not dial: all or none, so that the answer does not depend
// on which address a dial happens to try first.
func (d destPolicy) check(host string, addrs []netip.Addr) *refusal {
	for _, a := range addrs {
		why := d.why(host, a)
		if why == "" {
			continue
		}
		what := a.Unmap().String()
		if _, err := netip.ParseAddr(host); err != nil {
			what = clip(host) + " resolves to " + what + ", which is"
		} else {
			what += " is"
		}
		return &refusal{status: 403, reason: RefusedDest, detail: "destination not allowed: " + what + " " + why}
	}
	return nil
}

// resolveDest is the addresses the proxy may dial for host: the address
// itself, or what the resolver says, each judged by the policy. The
// proxy then dials these addresses, not the name, so that a name
// resolving to something else by the time of the dial changes nothing.
func (p *Proxy) resolveDest(ctx context.Context, host string) ([]netip.Addr, error) {
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		if addrs, err = p.resolve(ctx, host); err != nil {
			return nil, p.dialError(host, err)
		}
		if len(addrs) == 0 {
			return nil, &userError{"cannot resolve host " + clip(host) + ": no address", nil}
		}
	}
	if r := p.dest.check(host, addrs); r != nil {
		return nil, r
	}
	return addrs, nil
}

// minDialShare is the least time one address of several gets, as Go's
// own dialer gives it.
const minDialShare = 2 * time.Second

// dialAddrs connects to the first of addrs that answers on port. Like
// Go's dialer, each address gets a share of the time left, so that a
// dead first address leaves time for the others.
func (p *Proxy) dialAddrs(ctx context.Context, addrs []netip.Addr, port int) (net.Conn, error) {
	var first error
	for i, a := range addrs {
		actx, cancel := ctx, context.CancelFunc(func() {})
		if dl, ok := ctx.Deadline(); ok && i < len(addrs)-1 {
			share := max(time.Until(dl)/time.Duration(len(addrs)-i), minDialShare)
			actx, cancel = context.WithTimeout(ctx, share)
		}
		c, err := p.dial(actx, "tcp", netip.AddrPortFrom(a.Unmap(), uint16(port)).String())
		cancel()
		if err == nil {
			return c, nil
		}
		if first == nil {
			first = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, first
}

// refuseNever is the proxy's dialer's last check, on the address about
// to be connected: should anything but resolveDest's addresses reach the
// dialer, it still connects to none the proxy never dials.
func refuseNever(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("destination not allowed: %s is no address", address)
	}
	if w := neverReason(ap.Addr()); w != "" {
		return fmt.Errorf("destination not allowed: %s is %s", ap.Addr().Unmap(), w)
	}
	return nil
}
