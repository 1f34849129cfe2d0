package keys

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"strings"
)

// certScheme returns the TLS SignatureScheme that names a certificate
// signature made with alg, which is what signature_algorithms_cert lists,
// and false for algorithms no TLS scheme names (MD2, DSA, unknown ones).
//
// ECDSA is mapped by hash alone (ECDSAWithSHA256 is ecdsa_secp256r1_sha256)
// as OpenSSL does for certificate signatures: the curve is the issuer's,
// which the manager does not know when the root is not in the file, and
// matching hash and curve is what CAs do in practice. RSA-PSS signatures
// are the rsae variants because crypto/x509 cannot parse RSASSA-PSS keys,
// so every issuer Go can load has an rsaEncryption key.
func certScheme(alg x509.SignatureAlgorithm) (tls.SignatureScheme, bool) {
	switch alg {
	case x509.MD5WithRSA:
		return 0x0101, true // rsa_md5 of TLS 1.2's HashAlgorithm/SignatureAlgorithm pairs
	case x509.SHA1WithRSA:
		return tls.PKCS1WithSHA1, true
	case x509.SHA256WithRSA:
		return tls.PKCS1WithSHA256, true
	case x509.SHA384WithRSA:
		return tls.PKCS1WithSHA384, true
	case x509.SHA512WithRSA:
		return tls.PKCS1WithSHA512, true
	case x509.ECDSAWithSHA1:
		return tls.ECDSAWithSHA1, true
	case x509.ECDSAWithSHA256:
		return tls.ECDSAWithP256AndSHA256, true
	case x509.ECDSAWithSHA384:
		return tls.ECDSAWithP384AndSHA384, true
	case x509.ECDSAWithSHA512:
		return tls.ECDSAWithP521AndSHA512, true
	case x509.SHA256WithRSAPSS:
		return tls.PSSWithSHA256, true
	case x509.SHA384WithRSAPSS:
		return tls.PSSWithSHA384, true
	case x509.SHA512WithRSAPSS:
		return tls.PSSWithSHA512, true
	case x509.PureEd25519:
		return tls.Ed25519, true
	}
	return 0, false
}

// schemeNames are the IANA names, which are also what `openssl s_client
// -sigalgs` takes, so that a log line can be pasted into a command line.
var schemeNames = map[tls.SignatureScheme]string{
	0x0101:                     "rsa_md5",
	tls.PKCS1WithSHA1:          "rsa_pkcs1_sha1",
	tls.PKCS1WithSHA256:        "rsa_pkcs1_sha256",
	tls.PKCS1WithSHA384:        "rsa_pkcs1_sha384",
	tls.PKCS1WithSHA512:        "rsa_pkcs1_sha512",
	tls.ECDSAWithSHA1:          "ecdsa_sha1",
	tls.ECDSAWithP256AndSHA256: "ecdsa_secp256r1_sha256",
	tls.ECDSAWithP384AndSHA384: "ecdsa_secp384r1_sha384",
	tls.ECDSAWithP521AndSHA512: "ecdsa_secp521r1_sha512",
	tls.PSSWithSHA256:          "rsa_pss_rsae_sha256",
	tls.PSSWithSHA384:          "rsa_pss_rsae_sha384",
	tls.PSSWithSHA512:          "rsa_pss_rsae_sha512",
	0x0809:                     "rsa_pss_pss_sha256",
	0x080a:                     "rsa_pss_pss_sha384",
	0x080b:                     "rsa_pss_pss_sha512",
	tls.Ed25519:                "ed25519",
	0x0808:                     "ed448",
	0x0904:                     "mldsa44",
	0x0905:                     "mldsa65",
	0x0906:                     "mldsa87",
}

// SchemeName returns the IANA name of a signature scheme
// ("ecdsa_secp256r1_sha256"), or its code point in hex for others.
func SchemeName(s tls.SignatureScheme) string {
	if n, ok := schemeNames[s]; ok {
		return n
	}
	return fmt.Sprintf("0x%04x", uint16(s))
}

// schemeList formats schemes for a log line or an error.
func schemeList(ss []tls.SignatureScheme) string {
	if len(ss) == 0 {
		return "none"
	}
	names := make([]string, len(ss))
	for i, s := range ss {
		names[i] = SchemeName(s)
	}
	return strings.Join(names, ",")
}
