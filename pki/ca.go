package pki

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"math/big"
	"net"
	"strings"
	"time"

	"github.com/tlsbench/tlsbench/internal/hostname"
)

// Default names and hosts of the test PKI. The organization marks every
// certificate as a tlsbench test certificate, so that one found in a trust
// store or a packet capture explains itself.
const (
	DefaultRootName         = "tlsbench test root CA"
	DefaultIntermediateName = "tlsbench test intermediate CA"
	organization            = "tlsbench test PKI"
)

// DefaultHosts are the subject alternative names of a server certificate when
// IssueServer gets no hosts: what a client on the same machine dials.
var DefaultHosts = []string{"localhost", "127.0.0.1", "::1"}

// defaultValidity is one year from an hour ago. The hour absorbs clock skew
// between the processes and VMs of a run (the kTLS test VM boots with its own
// clock); the year keeps a PKI written by `tlsbench pki init` usable for a
// while without pretending to be a production lifetime.
func defaultValidity(now time.Time) (time.Time, time.Time) {
	return now.Add(-time.Hour), now.AddDate(1, 0, 0)
}

// A CA issues certificates. Cert and Key are the issuing certificate and its
// key; for an intermediate CA they are the intermediate's, and the root is
// available from Root. A CA is safe for concurrent use: issuing only reads it.
type CA struct {
	Cert *x509.Certificate
	Key  crypto.Signer

	root *x509.Certificate
	// intermediates is the chain from Cert (when Cert is an intermediate) up
	// to, but excluding, the root: what a server sends after its leaf.
	intermediates []*x509.Certificate
}

// NewCA creates a self-signed root CA. Defaults: an ECDSA P-256 key, the
// common name DefaultRootName, valid from an hour ago for a year.
func NewCA(opts ...Option) (*CA, error) {
	c := newConfig(opts)
	if c.commonName == "" {
		c.commonName = DefaultRootName
	}
	tmpl := caTemplate(c.commonName)
	tmpl.MaxPathLenZero = c.leafCAOnly
	cert, key, err := create(tmpl, nil, nil, c)
	if err != nil {
		return nil, fmt.Errorf("create root CA: %w", err)
	}
	return &CA{Cert: cert, Key: key, root: cert}, nil
}

// NewIntermediate creates a CA whose certificate ca signs. Certificates it
// issues carry the intermediate(s) in Identity.Chain, so a server sends them
// and a client that trusts only the root can verify the chain. Defaults as for
// NewCA, with the common name DefaultIntermediateName.
func (ca *CA) NewIntermediate(opts ...Option) (*CA, error) {
	c := newConfig(opts)
	if c.commonName == "" {
		c.commonName = DefaultIntermediateName
	}
	tmpl := caTemplate(c.commonName)
	tmpl.MaxPathLenZero = c.leafCAOnly
	cert, key, err := create(tmpl, ca.Cert, ca.Key, c)
	if err != nil {
		return nil, fmt.Errorf("create intermediate CA: %w", err)
	}
	chain := append([]*x509.Certificate{cert}, ca.intermediates...)
	return &CA{Cert: cert, Key: key, root: ca.Root(), intermediates: chain}, nil
}

// Root returns the root certificate: the trust anchor clients need.
func (ca *CA) Root() *x509.Certificate {
	if ca.root == nil {
		// A CA assembled by hand from Cert and Key is its own root.
		return ca.Cert
	}
	return ca.root
}

// Intermediates returns the intermediate certificates between the issuing CA
// and the root, issuing CA first; empty for a root CA. This is the
// -untrusted argument of `openssl verify`.
func (ca *CA) Intermediates() []*x509.Certificate {
	return append([]*x509.Certificate(nil), ca.intermediates...)
}

// Pool returns a pool holding only the root, for tls.Config.RootCAs and
// ClientCAs. Intermediates are left out on purpose: peers must send them, as
// they must against a real PKI.
func (ca *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.Root())
	return p
}

// IssueServer issues a TLS server certificate (ExtKeyUsageServerAuth) for
// hosts, each of which becomes a DNS or IP subject alternative name; with no
// hosts it uses DefaultHosts. The common name is the first host, for tools
// that still display it; clients verify only the SANs.
func (ca *CA) IssueServer(hosts []string, opts ...Option) (*Identity, error) {
	if len(hosts) == 0 {
		hosts = DefaultHosts
	}
	dns, ips, err := splitHosts(hosts)
	if err != nil {
		return nil, fmt.Errorf("issue server certificate: %w", err)
	}
	c := newConfig(opts)
	if c.commonName == "" {
		c.commonName = strings.Trim(strings.TrimSpace(hosts[0]), "[]")
	}
	tmpl := leafTemplate(c.commonName, x509.ExtKeyUsageServerAuth)
	tmpl.DNSNames, tmpl.IPAddresses = dns, ips
	id, err := ca.issue(tmpl, c)
	if err != nil {
		return nil, fmt.Errorf("issue server certificate for %s: %w", strings.Join(hosts, ","), err)
	}
	return id, nil
}

// IssueClient issues a TLS client certificate (ExtKeyUsageClientAuth) with
// the given subject common name, which is how servers and logs tell client
// identities apart. WithCommonName overrides the argument.
func (ca *CA) IssueClient(commonName string, opts ...Option) (*Identity, error) {
	c := newConfig(opts)
	if c.commonName == "" {
		c.commonName = commonName
	}
	if strings.TrimSpace(c.commonName) == "" {
		return nil, errors.New("issue client certificate: empty common name; pass a name such as \"tlsbench client 1\"")
	}
	tmpl := leafTemplate(c.commonName, x509.ExtKeyUsageClientAuth)
	id, err := ca.issue(tmpl, c)
	if err != nil {
		return nil, fmt.Errorf("issue client certificate %q: %w", c.commonName, err)
	}
	return id, nil
}

func (ca *CA) issue(tmpl *x509.Certificate, c *config) (*Identity, error) {
	if ca == nil || ca.Cert == nil || ca.Key == nil {
		return nil, errors.New("CA has no certificate or key; create it with NewCA")
	}
	key, err := resolveKey(c)
	if err != nil {
		return nil, err
	}
	c.key = key
	// RSA keys may also be used for RSA key exchange (TLS 1.2 clients such
	// as openssl with -cipher AES128-SHA offer it), which needs
	// keyEncipherment; for ECDSA and Ed25519 keys it would be meaningless.
	if _, ok := key.Public().(*rsa.PublicKey); ok {
		tmpl.KeyUsage |= x509.KeyUsageKeyEncipherment
	}
	cert, _, err := create(tmpl, ca.Cert, ca.Key, c)
	if err != nil {
		return nil, err
	}
	chain := append([]*x509.Certificate{cert}, ca.intermediates...)
	return &Identity{Leaf: cert, Chain: chain, Key: key}, nil
}

func caTemplate(cn string) *x509.Certificate {
	return &x509.Certificate{
		Subject:               pkix.Name{CommonName: cn, Organization: []string{organization}},
		IsCA:                  true,
		BasicConstraintsValid: true,
		// No path length limit: tests may chain intermediates below
		// intermediates. crypto/x509 derives SubjectKeyId from the key and
		// AuthorityKeyId from the parent, which openssl needs to build chains.
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
	}
}

func leafTemplate(cn string, eku x509.ExtKeyUsage) *x509.Certificate {
	return &x509.Certificate{
		Subject:               pkix.Name{CommonName: cn, Organization: []string{organization}},
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{eku},
	}
}

// create fills in the key, serial number and validity of tmpl and has it
// signed by parent's signer, or self-signed when parent is nil.
func create(tmpl, parent *x509.Certificate, signer crypto.Signer, c *config) (*x509.Certificate, crypto.Signer, error) {
	key, err := resolveKey(c)
	if err != nil {
		return nil, nil, err
	}
	if parent == nil {
		parent, signer = tmpl, key
	}
	serial, err := newSerial()
	if err != nil {
		return nil, nil, err
	}
	tmpl.SerialNumber = serial
	tmpl.NotBefore, tmpl.NotAfter = c.notBefore, c.notAfter
	if tmpl.NotBefore.IsZero() && tmpl.NotAfter.IsZero() {
		tmpl.NotBefore, tmpl.NotAfter = defaultValidity(time.Now())
	}
	if !tmpl.NotAfter.After(tmpl.NotBefore) {
		return nil, nil, fmt.Errorf("validity ends (%s) before it starts (%s); check WithValidity's arguments",
			tmpl.NotAfter.Format(time.RFC3339), tmpl.NotBefore.Format(time.RFC3339))
	}
	tmpl.SignatureAlgorithm = c.sigAlg
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, key.Public(), signer)
	if err != nil {
		if c.sigAlg != x509.UnknownSignatureAlgorithm {
			return nil, nil, fmt.Errorf("sign with %v using the issuer's %s key: %w", c.sigAlg, DescribeKey(signer.Public()), err)
		}
		return nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, fmt.Errorf("parse the certificate just created: %w", err)
	}
	return cert, key, nil
}

// resolveKey returns the key given with WithKey, or generates one of the
// configured type (ECDSA P-256 by default).
func resolveKey(c *config) (crypto.Signer, error) {
	if c.key != nil {
		if c.keyType != "" {
			if got, _ := KeyTypeOf(c.key.Public()); got != c.keyType {
				return nil, fmt.Errorf("the key given by WithKey is %s but WithKeyType asks for %s; pass only one of them",
					DescribeKey(c.key.Public()), c.keyType)
			}
		}
		return c.key, nil
	}
	kt := c.keyType
	if kt == "" {
		kt = ECDSAP256
	}
	return kt.Generate()
}

// newSerial returns a random positive 127-bit serial number: unique without
// bookkeeping, and within RFC 5280's 20-octet limit.
func newSerial() (*big.Int, error) {
	limit := new(big.Int).Lsh(big.NewInt(1), 127)
	for {
		n, err := rand.Int(rand.Reader, limit)
		if err != nil {
			return nil, fmt.Errorf("generate serial number: %w", err)
		}
		if n.Sign() > 0 {
			return n, nil
		}
	}
}

// splitHosts sorts hosts into DNS names and IP addresses. Brackets around an
// IPv6 address ("[::1]", as in a URL) are accepted.
func splitHosts(hosts []string) ([]string, []net.IP, error) {
	var dns []string
	var ips []net.IP
	for _, h := range hosts {
		h = strings.TrimSpace(h)
		if ip := net.ParseIP(strings.Trim(h, "[]")); ip != nil {
			ips = append(ips, ip)
			continue
		}
		if err := hostname.Check(h, hostname.Certificate); err != nil {
			return nil, nil, fmt.Errorf("host %w (examples: localhost, 127.0.0.1, ::1, *.example.test)", err)
		}
		dns = append(dns, h)
	}
	return dns, ips, nil
}
