package pki

import (
	"crypto"
	"crypto/x509"
	"time"
)

// An Option changes how NewCA, NewIntermediate, IssueServer or IssueClient
// build a certificate; each applies to all four.
type Option func(*config)

type config struct {
	keyType    KeyType
	leafCAOnly bool // MaxPathLenZero
	key        crypto.Signer
	notBefore  time.Time
	notAfter   time.Time
	commonName string
	sigAlg     x509.SignatureAlgorithm
}

// WithKeyType chooses the type of the new certificate's key (default
// ECDSA P-256).
func WithKeyType(k KeyType) Option {
	return func(c *config) { c.keyType = k }
}

// WithKey uses key for the new certificate instead of generating one. It
// lets tests reuse one slow RSA key for many certificates and build
// certificates for keys that are not a KeyType (GenerateRSA(1024)). If
// WithKeyType is given too, the two must agree.
func WithKey(key crypto.Signer) Option {
	return func(c *config) { c.key = key }
}

// WithValidity sets the certificate's validity period. Periods in the past or
// longer than the issuer's are allowed on purpose, so that tests can build
// expired and otherwise invalid chains; notAfter must follow notBefore.
func WithValidity(notBefore, notAfter time.Time) Option {
	return func(c *config) { c.notBefore, c.notAfter = notBefore, notAfter }
}

// WithLeafSigningOnly makes a CA (NewCA, NewIntermediate) whose path
// length constraint is zero: certificates it signs are valid only as
// leaves, so that its key cannot make a CA below it. A CA that signs
// leaves alone (an intercepting proxy's) should be made so.
func WithLeafSigningOnly() Option {
	return func(c *config) { c.leafCAOnly = true }
}

// WithCommonName sets the subject common name. For IssueClient it overrides
// the commonName argument.
func WithCommonName(name string) Option {
	return func(c *config) { c.commonName = name }
}

// WithSignatureAlgorithm sets the algorithm the issuer signs the new
// certificate with (for NewCA: the root's self-signature). It must fit the
// issuer's key type. It exists to build deliberately weak chains for
// negative tests: Go 1.26 still signs with x509.SHA1WithRSA and
// x509.ECDSAWithSHA1 (but refuses MD5WithRSA, and Go itself no longer
// verifies SHA-1 certificate signatures).
func WithSignatureAlgorithm(alg x509.SignatureAlgorithm) Option {
	return func(c *config) { c.sigAlg = alg }
}

func newConfig(opts []Option) *config {
	c := &config{}
	for _, o := range opts {
		if o != nil {
			o(c)
		}
	}
	return c
}
