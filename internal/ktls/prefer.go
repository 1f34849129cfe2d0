package ktls

import (
	"crypto/tls"
	"errors"
	"fmt"
)

// ErrTLS13AES256 says that TLS_AES_256_GCM_SHA384 cannot be chosen between
// two Go crypto/tls endpoints.
var ErrTLS13AES256 = errors.New("ktls: TLS_AES_256_GCM_SHA384 cannot be negotiated between two Go crypto/tls endpoints (Go ignores configured cipher suites for TLS 1.3 and never prefers AES-256-GCM); use a non-Go peer")

// PreferTLS13Cipher steers which TLS 1.3 suite a Go crypto/tls server picks
// for this client config. Go ignores Config.CipherSuites for TLS 1.3, but a
// Go server chooses ChaCha20-Poly1305 over AES-128-GCM when the first
// cipher suite in the ClientHello (TLS 1.2 suites included) is not AES-GCM,
// and AES-128-GCM when it is and the server has AES hardware. So this sets
// cfg.CipherSuites to the ECDHE TLS 1.2 suites of the wanted family (only
// those: crypto/tls sends configured suites in its own order, not the
// config's), which also fixes the TLS 1.2 choice. It needs cfg.MinVersion <= TLS 1.2, because Go
// leaves TLS 1.2 suites out of a TLS 1.3-only ClientHello. It is a hint to
// a Go server, not a guarantee: always check ConnectionState().CipherSuite
// (a server without AES hardware picks ChaCha20-Poly1305 regardless).
func PreferTLS13Cipher(cfg *tls.Config, cipher string) error {
	var first []uint16
	switch cipher {
	case CipherAES128GCM:
		first = []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256}
	case CipherChaCha20Poly1305:
		first = []uint16{tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256}
	case CipherAES256GCM:
		return ErrTLS13AES256
	default:
		return fmt.Errorf("ktls: unknown cipher %q (want %s, %s or %s)", cipher, CipherAES128GCM, CipherAES256GCM, CipherChaCha20Poly1305)
	}
	if cfg.MinVersion >= tls.VersionTLS13 {
		return errors.New("ktls: PreferTLS13Cipher needs MinVersion TLS 1.2 or lower: Go sends no TLS 1.2 suites in a TLS 1.3-only ClientHello, and the server's choice is keyed on the first one")
	}
	cfg.CipherSuites = first
	return nil
}
