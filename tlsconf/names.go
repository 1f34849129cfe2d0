package tlsconf

import (
	"crypto/tls"
	"fmt"
	"sort"
	"strings"

	"github.com/tlsbench/tlsbench/internal/ktls"
)

var versionsByName = map[string]uint16{
	"1.2": tls.VersionTLS12,
	"1.3": tls.VersionTLS13,
}

// ParseVersion parses a TLS version name as used on the command line and in
// results: "1.2" or "1.3" (a "tls" prefix is accepted).
func ParseVersion(s string) (uint16, error) {
	v, ok := versionsByName[strings.TrimPrefix(strings.ToLower(strings.TrimSpace(s)), "tls")]
	if !ok {
		return 0, fmt.Errorf("unknown TLS version %q (valid: 1.2, 1.3)", s)
	}
	return v, nil
}

// VersionName is the inverse of ParseVersion ("1.2", "1.3"); other versions
// are shown in hex.
func VersionName(v uint16) string {
	for name, id := range versionsByName {
		if id == v {
			return name
		}
	}
	return fmt.Sprintf("0x%04x", v)
}

var groupsByName = map[string]tls.CurveID{
	"x25519":             tls.X25519,
	"x25519mlkem768":     tls.X25519MLKEM768,
	"secp256r1mlkem768":  tls.SecP256r1MLKEM768,
	"secp384r1mlkem1024": tls.SecP384r1MLKEM1024,
	"p256":               tls.CurveP256,
	"p384":               tls.CurveP384,
	"p521":               tls.CurveP521,
}

// groupAliases are other common spellings of the same groups.
var groupAliases = map[string]string{
	"secp256r1": "p256", "prime256v1": "p256", "p-256": "p256",
	"secp384r1": "p384", "p-384": "p384",
	"secp521r1": "p521", "p-521": "p521",
}

// GroupNames lists the key-exchange group names ParseGroup accepts.
func GroupNames() []string {
	names := make([]string, 0, len(groupsByName))
	for n := range groupsByName {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ParseGroup parses a key-exchange group name such as "x25519",
// "x25519mlkem768" or "p256".
func ParseGroup(s string) (tls.CurveID, error) {
	n := strings.ToLower(strings.TrimSpace(s))
	if a, ok := groupAliases[n]; ok {
		n = a
	}
	id, ok := groupsByName[n]
	if !ok {
		return 0, fmt.Errorf("unknown key-exchange group %q (valid: %s)", s, strings.Join(GroupNames(), ", "))
	}
	return id, nil
}

// GroupName is the lower-case name of a negotiated group as ParseGroup
// accepts it; "none" for a handshake without a key exchange (a TLS 1.2
// resumption) and the hex code point for groups tlsbench does not know.
func GroupName(id tls.CurveID) string {
	if id == 0 {
		return "none"
	}
	for name, g := range groupsByName {
		if g == id {
			return name
		}
	}
	return fmt.Sprintf("0x%04x", uint16(id))
}

// Ciphers a case can ask for, named as --cipher takes them and records
// write them: the AEAD of an ECDHE suite (the signature follows the
// server's key).
const (
	CipherAES128GCM        = ktls.CipherAES128GCM
	CipherAES256GCM        = ktls.CipherAES256GCM
	CipherChaCha20Poly1305 = ktls.CipherChaCha20Poly1305
)

// tls12Suites are the TLS 1.2 suites of each cipher: ECDHE with ECDSA
// (and Ed25519) keys, and with RSA keys, so the server's key picks one.
var tls12Suites = map[string][]uint16{
	CipherAES128GCM:        {tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256},
	CipherAES256GCM:        {tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384},
	CipherChaCha20Poly1305: {tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256},
}

// ParseCipher reads one cipher name: aes128gcm, aes256gcm or
// chacha20poly1305.
func ParseCipher(s string) (string, error) {
	if _, ok := tls12Suites[s]; ok {
		return s, nil
	}
	return "", fmt.Errorf("%q is not a cipher (want %s, %s or %s)", s, CipherAES128GCM, CipherAES256GCM, CipherChaCha20Poly1305)
}

// CipherName names a negotiated suite by its cipher, as ParseCipher
// accepts it; Go's name of the suite when it is none of those.
func CipherName(suite uint16) string {
	if c := ktls.CipherOf(suite); c != "" {
		return c
	}
	return tls.CipherSuiteName(suite)
}

// CipherRunnable says why a version and cipher cannot be measured between
// two Go endpoints (TLS 1.3 AES-256-GCM: Go never chooses it); nil when
// they can.
func CipherRunnable(version uint16, cipher string) error {
	if version == tls.VersionTLS13 && cipher == CipherAES256GCM {
		return ktls.ErrTLS13AES256
	}
	return nil
}

// ALPNQUICPing is the application protocol of tlsbench's own exchange
// over QUIC: on one bidirectional stream, the client writes one byte
// and ends its side; the server writes the byte back and ends its side
// once its handshake is complete, so that its session ticket goes out
// before the stream ends. A client that reads to the stream's end has
// read the ticket.
const ALPNQUICPing = "tlsbench-ping"

// QUIC versions by number (RFC 9000, RFC 9369).
const (
	QUICVersion1 uint32 = 0x00000001
	QUICVersion2 uint32 = 0x6b3343cf
)

// QUICVersionName names a QUIC version as records, counters and the
// probe do: v1, v2, or its number in hex, marked when it is one of the
// reserved versions that only exercise version negotiation (RFC 9000,
// section 15).
func QUICVersionName(v uint32) string {
	switch v {
	case QUICVersion1:
		return "v1"
	case QUICVersion2:
		return "v2"
	}
	if v&0x0f0f0f0f == 0x0a0a0a0a {
		return fmt.Sprintf("0x%08x (reserved, to exercise version negotiation)", v)
	}
	return fmt.Sprintf("0x%08x", v)
}
