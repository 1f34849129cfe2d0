package probe

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/x509"
	"fmt"
	"math"
	"time"

	"github.com/tlsbench/tlsbench/pki"
)

// describeCert summarizes a certificate of the server's chain.
func describeCert(c *x509.Certificate, now time.Time) Certificate {
	out := Certificate{
		Subject:            c.Subject.String(),
		Issuer:             c.Issuer.String(),
		SignatureAlgorithm: c.SignatureAlgorithm.String(),
		NotBefore:          c.NotBefore.UTC(),
		NotAfter:           c.NotAfter.UTC(),
		DaysLeft:           int(math.Floor(c.NotAfter.Sub(now).Hours() / 24)),
		DNSNames:           c.DNSNames,
		SHA256:             pki.ThumbprintHex(c),
	}
	for _, ip := range c.IPAddresses {
		out.IPAddresses = append(out.IPAddresses, ip.String())
	}
	switch k := c.PublicKey.(type) {
	case *ecdsa.PublicKey:
		out.KeyType, out.KeyBits = "ECDSA", k.Params().BitSize
		out.KeyName = "ECDSA " + k.Params().Name
	case *rsa.PublicKey:
		out.KeyType, out.KeyBits = "RSA", k.N.BitLen()
		out.KeyName = fmt.Sprintf("RSA %d", out.KeyBits)
	case ed25519.PublicKey:
		out.KeyType, out.KeyBits = "Ed25519", 256
		out.KeyName = "Ed25519"
	default:
		out.KeyType = c.PublicKeyAlgorithm.String()
		out.KeyName = out.KeyType
	}
	return out
}
