package pki

import (
	"crypto"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
)

// Identity is a certificate chain with its private key: what a TLS server or
// a mutual-TLS client presents.
type Identity struct {
	Leaf *x509.Certificate
	// Chain is the leaf first, then the intermediates, in the order a peer
	// sends them. It never holds the root: peers must already trust the root,
	// and sending it only adds bytes to every full handshake.
	Chain []*x509.Certificate
	Key   crypto.Signer
}

// TLSCertificate returns the identity in the form crypto/tls uses, with Leaf
// set so that crypto/tls does not parse the leaf again.
func (id *Identity) TLSCertificate() tls.Certificate {
	der := make([][]byte, len(id.Chain))
	for i, c := range id.Chain {
		der[i] = c.Raw
	}
	return tls.Certificate{Certificate: der, PrivateKey: id.Key, Leaf: id.Leaf}
}

// Thumbprint returns the SHA-256 thumbprint of the leaf certificate, which
// tlsbench uses to scope client session caches and to revoke identities.
func (id *Identity) Thumbprint() [32]byte { return Thumbprint(id.Leaf) }

// Thumbprint returns the SHA-256 hash of the certificate's DER encoding, the
// value `openssl x509 -fingerprint -sha256` prints.
func Thumbprint(cert *x509.Certificate) [32]byte { return sha256.Sum256(cert.Raw) }

// ThumbprintHex returns Thumbprint as lowercase hex without separators, the
// form used in revocation files and logs.
func ThumbprintHex(cert *x509.Certificate) string {
	t := Thumbprint(cert)
	return hex.EncodeToString(t[:])
}
