package keys

import (
	"crypto/tls"
	"errors"
	"fmt"

	"golang.org/x/crypto/cryptobyte"
)

// TLS constants this file needs; crypto/tls keeps them unexported.
const (
	recordTypeChangeCipherSpec = 20
	recordTypeAlert            = 21
	recordTypeHandshake        = 22
	recordTypeApplicationData  = 23
	recordHeaderLen            = 5
	maxPlaintextRecord         = 1 << 14
	handshakeClientHello       = 1

	extServerName        uint16 = 0
	extSignatureAlgs     uint16 = 13
	extSupportedVersions uint16 = 43
	extSignatureAlgsCert uint16 = 50

	// maxClientHello bounds the message the recorder keeps, its 4-byte
	// header included: crypto/tls takes a handshake message body of up to
	// 64 KiB (its maxHandshake). Post-quantum key shares make real
	// ClientHellos 1.2-2 KiB.
	maxClientHello = 4 + 1<<16
)

// ClientHello holds the fields of a raw ClientHello that tlsbench reads.
// Slices alias nothing: ParseClientHello copies what it keeps.
type ClientHello struct {
	// Version is legacy_version (0x0303 for TLS 1.2 and 1.3 clients).
	Version      uint16
	Random       []byte
	SessionID    []byte
	CipherSuites []uint16
	// ServerName is the host_name of server_name (SNI), "" when absent.
	ServerName string
	// SignatureSchemes is signature_algorithms: what the client accepts
	// in CertificateVerify (and ServerKeyExchange in TLS 1.2).
	SignatureSchemes []tls.SignatureScheme
	// CertSignatureSchemes is signature_algorithms_cert: what the client
	// accepts in certificate signatures. HasCertSignatureSchemes tells an
	// absent extension from an empty one (which ParseClientHello refuses).
	CertSignatureSchemes    []tls.SignatureScheme
	HasCertSignatureSchemes bool
	// SupportedVersions is supported_versions, nil when absent.
	SupportedVersions []uint16
	// Extensions lists the extension types in the order sent.
	Extensions []uint16
}

// ParseClientHello parses a ClientHello handshake message: the 4-byte
// handshake header (type 1 and a 24-bit length) and the body, as RFC 8446
// section 4.1.2 lays it out; TLS 1.2 ClientHellos have the same shape. It
// is strict where crypto/tls is (exact lengths, no trailing bytes, no
// duplicate extensions, non-empty lists) and never panics on any input
// (FuzzParseClientHello).
func ParseClientHello(msg []byte) (*ClientHello, error) {
	body, err := helloBody(msg)
	if err != nil {
		return nil, err
	}
	var h ClientHello
	var random []byte
	var sessionID, suites, compression cryptobyte.String
	if !body.ReadUint16(&h.Version) ||
		!body.ReadBytes(&random, 32) ||
		!body.ReadUint8LengthPrefixed(&sessionID) || len(sessionID) > 32 ||
		!body.ReadUint16LengthPrefixed(&suites) || len(suites)%2 != 0 || len(suites) == 0 ||
		!body.ReadUint8LengthPrefixed(&compression) || len(compression) == 0 {
		return nil, errors.New("malformed ClientHello: fixed fields")
	}
	h.Random = append([]byte(nil), random...)
	h.SessionID = append([]byte{}, sessionID...)
	for !suites.Empty() {
		var s uint16
		suites.ReadUint16(&s)
		h.CipherSuites = append(h.CipherSuites, s)
	}
	err = forEachExtension(body, func(typ uint16, data cryptobyte.String) error {
		h.Extensions = append(h.Extensions, typ)
		var ok bool
		switch typ {
		case extServerName:
			h.ServerName, ok = parseServerName(data)
		case extSignatureAlgs:
			h.SignatureSchemes, ok = parseSchemes(data, nil)
		case extSignatureAlgsCert:
			h.CertSignatureSchemes, ok = parseSchemes(data, nil)
			h.HasCertSignatureSchemes = true
		case extSupportedVersions:
			h.SupportedVersions, ok = parseVersions(data)
		default:
			return nil
		}
		if !ok {
			return fmt.Errorf("malformed ClientHello: extension %d", typ)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &h, nil
}

// certSchemesOf returns signature_algorithms_cert of a ClientHello message,
// appended to dst, and whether the message had it. It is the per-handshake
// path: it walks the message without allocating beyond dst and without
// decoding the other extensions. It agrees with ParseClientHello on every
// message that parses (the fuzz target checks this) and returns false when
// the fixed fields, the extension framing or signature_algorithms_cert
// itself is malformed; the contents of other extensions are not checked,
// because crypto/tls refuses a malformed ClientHello before it asks for a
// certificate.
func certSchemesOf(msg []byte, dst []tls.SignatureScheme) ([]tls.SignatureScheme, bool) {
	body, err := helloBody(msg)
	if err != nil {
		return dst, false
	}
	var skip cryptobyte.String
	if !body.Skip(2+32) ||
		!body.ReadUint8LengthPrefixed(&skip) || len(skip) > 32 ||
		!body.ReadUint16LengthPrefixed(&skip) || len(skip)%2 != 0 || len(skip) == 0 ||
		!body.ReadUint8LengthPrefixed(&skip) || len(skip) == 0 {
		return dst, false
	}
	found := false
	err = forEachExtension(body, func(typ uint16, data cryptobyte.String) error {
		if typ != extSignatureAlgsCert {
			return nil
		}
		var ok bool
		if dst, ok = parseSchemes(data, dst); !ok {
			return errMalformed
		}
		found = true
		return nil
	})
	return dst, err == nil && found
}

var errMalformed = errors.New("malformed ClientHello")

// helloBody checks the handshake header and returns the body.
func helloBody(msg []byte) (cryptobyte.String, error) {
	s := cryptobyte.String(msg)
	var typ uint8
	var body cryptobyte.String
	if !s.ReadUint8(&typ) || typ != handshakeClientHello {
		return nil, errors.New("not a ClientHello handshake message")
	}
	if !s.ReadUint24LengthPrefixed(&body) || !s.Empty() {
		return nil, errors.New("malformed ClientHello: handshake length")
	}
	return body, nil
}

// forEachExtension calls fn for each extension after the fixed fields. A
// ClientHello without extensions (old TLS 1.2 clients) is valid. Duplicate
// extensions are refused, as RFC 8446 section 4.2 requires.
func forEachExtension(body cryptobyte.String, fn func(typ uint16, data cryptobyte.String) error) error {
	if body.Empty() {
		return nil
	}
	var exts cryptobyte.String
	if !body.ReadUint16LengthPrefixed(&exts) || !body.Empty() {
		return errors.New("malformed ClientHello: extensions length")
	}
	// A bit set of the types seen: 8 KiB would be wasteful per handshake,
	// and real ClientHellos carry about 15 extensions, so a small list
	// scanned linearly is cheaper.
	var seenBuf [32]uint16
	seen := seenBuf[:0]
	for !exts.Empty() {
		var typ uint16
		var data cryptobyte.String
		if !exts.ReadUint16(&typ) || !exts.ReadUint16LengthPrefixed(&data) {
			return errors.New("malformed ClientHello: extension header")
		}
		for _, t := range seen {
			if t == typ {
				return fmt.Errorf("malformed ClientHello: extension %d appears twice", typ)
			}
		}
		seen = append(seen, typ)
		if err := fn(typ, data); err != nil {
			return err
		}
	}
	return nil
}

// parseSchemes parses a SignatureSchemeList (RFC 8446 section 4.2.3),
// appending to dst. The list must be non-empty and use all its bytes.
func parseSchemes(data cryptobyte.String, dst []tls.SignatureScheme) ([]tls.SignatureScheme, bool) {
	var list cryptobyte.String
	if !data.ReadUint16LengthPrefixed(&list) || !data.Empty() || list.Empty() || len(list)%2 != 0 {
		return dst, false
	}
	for !list.Empty() {
		var s uint16
		list.ReadUint16(&s)
		dst = append(dst, tls.SignatureScheme(s))
	}
	return dst, true
}

// parseServerName returns the host_name of a ServerNameList (RFC 6066
// section 3). Entries of other name types are skipped; a second host_name
// is refused, as crypto/tls does.
func parseServerName(data cryptobyte.String) (string, bool) {
	var list cryptobyte.String
	if !data.ReadUint16LengthPrefixed(&list) || !data.Empty() || list.Empty() {
		return "", false
	}
	name, have := "", false
	for !list.Empty() {
		var typ uint8
		var host cryptobyte.String
		if !list.ReadUint8(&typ) || !list.ReadUint16LengthPrefixed(&host) {
			return "", false
		}
		if typ != 0 {
			continue
		}
		if have || len(host) == 0 {
			return "", false
		}
		name, have = string(host), true
	}
	return name, true
}

// parseVersions parses supported_versions as a client sends it (RFC 8446
// section 4.2.1): a one-byte length, then two bytes per version.
func parseVersions(data cryptobyte.String) ([]uint16, bool) {
	var list cryptobyte.String
	if !data.ReadUint8LengthPrefixed(&list) || !data.Empty() || list.Empty() || len(list)%2 != 0 {
		return nil, false
	}
	var out []uint16
	for !list.Empty() {
		var v uint16
		list.ReadUint16(&v)
		out = append(out, v)
	}
	return out, true
}
