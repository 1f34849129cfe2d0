package proxy

import (
	"crypto/rand"
	"crypto/x509"
	"fmt"
	"maps"
	"net"
	"net/netip"
	"slices"
	"strings"

	"github.com/tlsbench/tlsbench/internal/field"
	"github.com/tlsbench/tlsbench/pki"
)

// caConstraints are the name constraints of the CA the proxy writes: it
// vouches only for what the proxy may dial, so that the CA clients were
// told to trust cannot be used for more should its key leak.
//
// Addresses are always constrained: a CONNECT to an address is allowed
// only inside the policy's networks, so the CA permits those (none at
// all when the policy has only names). Names are constrained only when
// the policy has no networks: a network allows every name that resolves
// into it, which no list of names can say, while a policy of names only
// allows exactly those (and, as name constraints go, their subdomains).
type caConstraints struct {
	ips      []*net.IPNet // permitted; empty: see noIPs
	noIPs    bool         // every address excluded
	dnsNames []string     // permitted; empty: any name
}

func (d destPolicy) caConstraints() caConstraints {
	var c caConstraints
	for _, n := range d.nets {
		c.ips = append(c.ips, &net.IPNet{IP: n.Addr().AsSlice(), Mask: net.CIDRMask(n.Bits(), n.Addr().BitLen())})
	}
	if len(d.nets) == 0 {
		c.noIPs = true
		c.dnsNames = slices.Sorted(maps.Keys(d.names))
	}
	return c
}

// everyIP is all addresses of both families, the ranges excluded from a
// CA that may vouch for none.
var everyIP = []*net.IPNet{
	{IP: net.IPv4zero.To4(), Mask: net.CIDRMask(0, 32)},
	{IP: net.IPv6zero, Mask: net.CIDRMask(0, 128)},
}

// constrain re-signs ca's self-signed certificate with the name
// constraints c, keeping everything else it says (key, serial number,
// validity, basic constraints).
func constrain(ca *pki.CA, c caConstraints) (*pki.CA, error) {
	tmpl := *ca.Cert
	tmpl.PermittedDNSDomainsCritical = true // RFC 5280: name constraints are critical
	tmpl.PermittedDNSDomains = c.dnsNames
	tmpl.PermittedIPRanges = c.ips
	if c.noIPs {
		tmpl.ExcludedIPRanges = everyIP
	}
	der, err := x509.CreateCertificate(rand.Reader, &tmpl, &tmpl, ca.Key.Public(), ca.Key)
	if err != nil {
		return nil, fmt.Errorf("name constraints of the proxy's CA: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &pki.CA{Cert: cert, Key: ca.Key}, nil
}

// checkCovers refuses a CA found in the PKI directory whose name
// constraints (written for another policy) would make clients reject
// what the proxy mints for d's destinations.
func checkCovers(cert *x509.Certificate, d destPolicy, dir string) error {
	what := ""
	for _, n := range d.nets {
		if !ipCovered(cert, n) {
			what = n.String()
			break
		}
	}
	if what == "" && len(d.nets) > 0 && (len(cert.PermittedDNSDomains) > 0 || len(cert.ExcludedDNSDomains) > 0) {
		what = "every host name (a network allows any name resolving into it)"
	}
	for _, name := range slices.Sorted(maps.Keys(d.names)) {
		if what == "" && !dnsCovered(cert, name) {
			what = name
		}
	}
	if what == "" {
		return nil
	}
	return field.Errorf("PKIDir", dir, "the proxy's CA there was written for other destinations: its name constraints do not permit %s of %s; give another %s, or remove %s and %s there for a new CA (which clients must then trust)", what, field.Ref("AllowDest"), field.Ref("PKIDir"), CACertFile, CAKeyFile)
}

// ipCovered reports whether every address of p may appear in a
// certificate cert issues.
func ipCovered(cert *x509.Certificate, p netip.Prefix) bool {
	for _, ex := range cert.ExcludedIPRanges {
		if e, ok := ipNetPrefix(ex); ok && e.Overlaps(p) {
			return false
		}
	}
	if len(cert.PermittedIPRanges) == 0 {
		return true
	}
	for _, pe := range cert.PermittedIPRanges {
		if e, ok := ipNetPrefix(pe); ok && e.Bits() <= p.Bits() && e.Contains(p.Addr()) {
			return true
		}
	}
	return false
}

func ipNetPrefix(n *net.IPNet) (netip.Prefix, bool) {
	a, ok := netip.AddrFromSlice(n.IP)
	ones, bits := n.Mask.Size()
	if !ok || bits != a.BitLen() {
		return netip.Prefix{}, false
	}
	return netip.PrefixFrom(a, ones), true
}

// dnsCovered reports whether name may appear in a certificate cert
// issues.
func dnsCovered(cert *x509.Certificate, name string) bool {
	for _, ex := range cert.ExcludedDNSDomains {
		if domainMatch(name, ex) {
			return false
		}
	}
	if len(cert.PermittedDNSDomains) == 0 {
		return true
	}
	return slices.ContainsFunc(cert.PermittedDNSDomains, func(c string) bool { return domainMatch(name, c) })
}

// domainMatch is RFC 5280's DNS name constraint match: ".example.com"
// matches the names under it, "example.com" it too.
func domainMatch(name, constraint string) bool {
	constraint = strings.ToLower(constraint)
	if strings.HasPrefix(constraint, ".") {
		return strings.HasSuffix(name, constraint)
	}
	return constraint == "" || name == constraint || strings.HasSuffix(name, "."+constraint)
}
