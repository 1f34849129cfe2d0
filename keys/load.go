package keys

import (
	"bytes"
	"crypto"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync/atomic"
	"time"

	"software.sslmate.com/src/go-pkcs12"

	"github.com/tlsbench/tlsbench/pki"
)

// identity is one loaded and validated identity.
type identity struct {
	src  Source
	name string // src.String(), for logs and Stats

	leaf  *x509.Certificate
	chain [][]byte // DER as sent: leaf, then intermediates; never the root
	algo  x509.PublicKeyAlgorithm
	desc  string // "ECDSA P-256", for logs

	// certSchemes holds, for each certificate sent, the signature scheme
	// that names its signature; 0 when no TLS scheme does.
	certSchemes []tls.SignatureScheme

	// probe is the certificate with a public-key-only stand-in for the
	// private key: what selection asks crypto/tls about, so that it works
	// the same whether the real key is in memory or not.
	probe tls.Certificate
	// served is the certificate with its private key (key cache on).
	served *tls.Certificate
	// password is kept for per-handshake decryption (key cache off,
	// PKCS#12), as the slow path of the motivating case did.
	password string

	selected atomic.Int64
}

// loadIdentity reads and validates one identity. A rule violation is a
// *Violation (several are joined); other failures name the file.
// Each PKCS#12 decoding attempted is counted in decryptions.
func loadIdentity(src Source, password func() (string, error), c Constraints, now time.Time, decryptions *atomic.Int64) (*identity, crypto.Signer, error) {
	var certs []*x509.Certificate
	var key crypto.Signer
	id := &identity{src: src, name: src.String()}
	switch {
	case src.P12File != "":
		data, err := os.ReadFile(src.P12File)
		if err != nil {
			return nil, nil, fmt.Errorf("read PKCS#12: %w", err)
		}
		pw, err := password()
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", src.P12File, err)
		}
		decryptions.Add(1)
		if certs, key, err = decodeP12(data, pw); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", src.P12File, err)
		}
		id.password = pw
	case src.CertFile != "" && src.KeyFile != "":
		var err error
		if certs, err = pki.LoadCertsPEM(src.CertFile); err != nil {
			return nil, nil, err
		}
		if key, err = loadKeyPEM(src.KeyFile); err != nil {
			return nil, nil, err
		}
	default:
		return nil, nil, fmt.Errorf("identity %+v names no files; give CERT.pem,KEY.pem or FILE.p12", src)
	}
	if err := validate(src, certs, key, c, now); err != nil {
		return nil, nil, err
	}

	id.leaf = certs[0]
	sent := certs
	if n := len(sent); n > 1 && isRoot(sent[n-1]) {
		sent = sent[:n-1] // peers must already trust the root; sending it only costs bytes
	}
	for _, cert := range sent {
		id.chain = append(id.chain, cert.Raw)
		s, _ := certScheme(cert.SignatureAlgorithm)
		id.certSchemes = append(id.certSchemes, s)
	}
	id.algo = id.leaf.PublicKeyAlgorithm
	id.desc = pki.DescribeKey(id.leaf.PublicKey)
	id.probe = tls.Certificate{Certificate: id.chain, Leaf: id.leaf, PrivateKey: publicOnly(id.leaf.PublicKey)}
	return id, key, nil
}

// loadKeyPEM reads a PEM private key; errors name the file.
func loadKeyPEM(path string) (crypto.Signer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read private key: %w", err)
	}
	key, err := pki.ParseKeyPEM(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return key, nil
}

// decodeP12 decodes a PKCS#12 file into all its certificates, leaf first
// and the root too when the file has one (pki.DecodePKCS12 drops it, but
// the constraints apply to it), and the key. Errors are pki's, which
// explain wrong passwords (pki.ErrWrongPassword) and PEM files given as
// PKCS#12; decoding twice happens only on that error path.
func decodeP12(data []byte, password string) ([]*x509.Certificate, crypto.Signer, error) {
	k, leaf, cas, err := pkcs12.DecodeChain(data, password)
	if err != nil {
		if _, perr := pki.DecodePKCS12(data, password); perr != nil {
			return nil, nil, perr
		}
		return nil, nil, err
	}
	key, ok := k.(crypto.Signer)
	if !ok {
		return nil, nil, fmt.Errorf("PKCS#12 key of type %T cannot sign", k)
	}
	return append([]*x509.Certificate{leaf}, cas...), key, nil
}

// validate checks every certificate of a chain, and the key, against the
// rules. It reports every violation, not just the first, so that one run
// shows everything to fix.
func validate(src Source, certs []*x509.Certificate, key crypto.Signer, c Constraints, now time.Time) error {
	file := src.file()
	var errs []error
	add := func(rule, format string, args ...any) {
		errs = append(errs, &Violation{File: file, Rule: rule, Detail: fmt.Sprintf(format, args...)})
	}
	n := len(certs)
	for i, cert := range certs {
		what := describeCert(cert, i, n)
		alg := cert.SignatureAlgorithm
		switch {
		case alg == x509.UnknownSignatureAlgorithm:
			add(RuleKnownSigAlg, "%s is signed with an algorithm crypto/x509 does not know, so no constraint can be checked; reissue it with SHA-256", what)
		case slices.Contains(c.ForbiddenSignatureAlgorithms, alg):
			add(forbidRule(alg), "%s is signed with %v, which the constraints forbid; reissue it with SHA-256", what, alg)
		}
		if rk, ok := cert.PublicKey.(*rsa.PublicKey); ok && c.MinRSABits > 0 && rk.N.BitLen() < c.MinRSABits {
			add(RuleMinRSA, "%s has a %d-bit RSA key, under the %d-bit minimum; use a key of at least %d bits (or ECDSA)", what, rk.N.BitLen(), c.MinRSABits, c.MinRSABits)
		}
		switch {
		case now.Before(cert.NotBefore):
			add(RuleValidity, "%s is not valid before %s (now %s); check the clock or reissue it", what, cert.NotBefore.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
		case now.After(cert.NotAfter):
			add(RuleValidity, "%s expired at %s; reissue it (tlsbench pki init can write a new one)", what, cert.NotAfter.UTC().Format(time.RFC3339))
		}
		if i+1 < n && !issuedBy(cert, certs[i+1]) {
			add(RuleChainOrder, "%s was not issued by certificate %d (%q); list the leaf first, then each issuer in turn", what, i+2, certs[i+1].Subject.String())
		}
	}
	leaf := certs[0]
	if len(leaf.ExtKeyUsage) > 0 && !slices.Contains(leaf.ExtKeyUsage, x509.ExtKeyUsageServerAuth) && !slices.Contains(leaf.ExtKeyUsage, x509.ExtKeyUsageAny) {
		add(RuleServerAuth, "%s may not authenticate a TLS server (no serverAuth extended key usage); is this a client certificate?", describeCert(leaf, 0, n))
	}
	if pub, ok := leaf.PublicKey.(interface{ Equal(crypto.PublicKey) bool }); !ok || !pub.Equal(key.Public()) {
		keyFile := file
		if src.KeyFile != "" {
			keyFile = src.KeyFile
		}
		add(RuleKeyMatch, "the private key in %s (%s) does not belong to %s (%s); check that the files belong together",
			keyFile, pki.DescribeKey(key.Public()), describeCert(leaf, 0, n), pki.DescribeKey(leaf.PublicKey))
	}
	return errors.Join(errs...)
}

// issuedBy reports whether parent's name and key identifier are the ones
// c names as its issuer. Names alone are not enough: every root that
// `tlsbench pki init` writes has the same name. Signatures are not
// verified, because Go refuses the SHA-1 ones that relaxed constraints
// allow.
func issuedBy(c, parent *x509.Certificate) bool {
	if !bytes.Equal(c.RawIssuer, parent.RawSubject) {
		return false
	}
	return len(c.AuthorityKeyId) == 0 || len(parent.SubjectKeyId) == 0 || bytes.Equal(c.AuthorityKeyId, parent.SubjectKeyId)
}

// isRoot recognises a root by name: its self-signature is not verified
// (Go refuses SHA-1 ones), which is why validate checks its algorithm.
func isRoot(c *x509.Certificate) bool {
	return c.IsCA && bytes.Equal(c.RawSubject, c.RawIssuer)
}

// describeCert names certificate i of n for an error: position, role and
// subject, so that the user finds it in the file.
func describeCert(c *x509.Certificate, i, n int) string {
	role := "an intermediate"
	switch {
	case i == 0:
		role = "the leaf"
	case isRoot(c):
		role = "the root"
	}
	name := c.Subject.CommonName
	if name == "" {
		name = c.Subject.String()
	}
	return fmt.Sprintf("certificate %d of %d (%s, %q)", i+1, n, role, name)
}

// errNoPrivateKey is what the public-key-only stand-ins return if
// anything ever tried to sign with them.
var errNoPrivateKey = errors.New("keys: selection stand-in has no private key")

// publicOnly returns a crypto.Signer with the leaf's public key and no
// private key, for ClientHelloInfo.SupportsCertificate. RSA keys also get
// a Decrypter, because crypto/tls checks for one to allow TLS 1.2's RSA
// key exchange; other keys must not have one, or crypto/tls refuses them.
func publicOnly(pub crypto.PublicKey) crypto.Signer {
	if _, ok := pub.(*rsa.PublicKey); ok {
		return pubRSA{pubOnly{pub}}
	}
	return pubOnly{pub}
}

type pubOnly struct{ pub crypto.PublicKey }

func (p pubOnly) Public() crypto.PublicKey { return p.pub }
func (p pubOnly) Sign(io.Reader, []byte, crypto.SignerOpts) ([]byte, error) {
	return nil, errNoPrivateKey
}

type pubRSA struct{ pubOnly }

func (p pubRSA) Decrypt(io.Reader, []byte, crypto.DecrypterOpts) ([]byte, error) {
	return nil, errNoPrivateKey
}
