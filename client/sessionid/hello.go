package sessionid

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"

	"golang.org/x/crypto/cryptobyte"
)

// Handshake message types (RFC 5246 §7.4).
const (
	typeHelloRequest uint8 = 0
	typeClientHello  uint8 = 1
	typeServerHello  uint8 = 2
	typeFinished     uint8 = 20
)

// Extensions (RFC 6066, 8422, 5246, 7301, 7627, 5077, 5746).
const (
	extServerName       uint16 = 0
	extSupportedGroups  uint16 = 10
	extECPointFormats   uint16 = 11
	extSignatureAlgs    uint16 = 13
	extALPN             uint16 = 16
	extExtendedMaster   uint16 = 23
	extSessionTicket    uint16 = 35
	extRenegotiationInf uint16 = 0xff01
)

const versionTLS12 uint16 = 0x0303

var errMalformedHello = errors.New("malformed hello")

// serverHello is what the client uses of a TLS 1.2 ServerHello.
type serverHello struct {
	version     uint16
	random      []byte
	sessionID   []byte
	suite       uint16
	compression uint8
	// extensions are the types the server sent, in order.
	extensions []uint16
	ems        bool
	alpn       string
	// renegotiationInfo is the renegotiated_connection field of the
	// renegotiation_info extension (empty on a first handshake).
	renegotiationInfo []byte
	// trailing is set when more handshake messages followed the
	// ServerHello in its records.
	trailing bool
}

// parseServerHello reads a ServerHello's body (after the 4-byte
// handshake header), RFC 5246 §7.4.1.3.
func parseServerHello(body []byte) (*serverHello, error) {
	s := cryptobyte.String(body)
	h := &serverHello{}
	var sid cryptobyte.String
	if !s.ReadUint16(&h.version) || !s.ReadBytes(&h.random, randomLen) ||
		!s.ReadUint8LengthPrefixed(&sid) || len(sid) > 32 ||
		!s.ReadUint16(&h.suite) || !s.ReadUint8(&h.compression) {
		return nil, errMalformedHello
	}
	h.sessionID = []byte(sid)
	if s.Empty() {
		return h, nil
	}
	var exts cryptobyte.String
	if !s.ReadUint16LengthPrefixed(&exts) || !s.Empty() {
		return nil, errMalformedHello
	}
	for !exts.Empty() {
		var typ uint16
		var data cryptobyte.String
		if !exts.ReadUint16(&typ) || !exts.ReadUint16LengthPrefixed(&data) {
			return nil, errMalformedHello
		}
		if slices.Contains(h.extensions, typ) {
			return nil, fmt.Errorf("%w: extension %d sent twice", errMalformedHello, typ)
		}
		h.extensions = append(h.extensions, typ)
		if err := h.readExtension(typ, data); err != nil {
			return nil, err
		}
	}
	return h, nil
}

func (h *serverHello) readExtension(typ uint16, data cryptobyte.String) error {
	switch typ {
	case extExtendedMaster:
		if !data.Empty() {
			return errMalformedHello
		}
		h.ems = true
	case extALPN:
		// One protocol name in a protocol_name_list (RFC 7301 §3.1).
		var list, name cryptobyte.String
		if !data.ReadUint16LengthPrefixed(&list) || !data.Empty() ||
			!list.ReadUint8LengthPrefixed(&name) || !list.Empty() || len(name) == 0 {
			return errMalformedHello
		}
		h.alpn = string(name)
	case extRenegotiationInf:
		var info cryptobyte.String
		if !data.ReadUint8LengthPrefixed(&info) || !data.Empty() {
			return errMalformedHello
		}
		h.renegotiationInfo = []byte(info)
	}
	return nil
}

// helloParams are what a resuming ClientHello offers.
type helloParams struct {
	random     []byte
	sessionID  []byte
	suite      uint16
	serverName string
	ems        bool
	alpn       string
}

// Offered alongside the session: a server may check the ECDHE suite's
// requirements (a group in common, a signature algorithm) before it
// looks the session up, so the hello is one any TLS 1.2 server accepts.
var (
	offeredGroups  = []uint16{29, 23, 24} // x25519, secp256r1, secp384r1
	offeredSigAlgs = []uint16{
		0x0403, 0x0503, 0x0603, // ecdsa_secp{256r1,384r1,521r1}_sha{256,384,512}
		0x0804, 0x0805, 0x0806, // rsa_pss_rsae_sha{256,384,512}
		0x0401, 0x0501, 0x0601, // rsa_pkcs1_sha{256,384,512}
	}
)

// marshalClientHello writes the whole ClientHello message, handshake
// header included (RFC 5246 §7.4.1.2), and the extension types it
// offers. It offers the session's suite only: a server resuming must
// pick it (§7.4.1.2 requires it in the list), and a server that does not
// resume is not talked to any further.
func marshalClientHello(p helloParams) ([]byte, []uint16, error) {
	var offered []uint16
	var b cryptobyte.Builder
	b.AddUint8(typeClientHello)
	b.AddUint24LengthPrefixed(func(b *cryptobyte.Builder) {
		b.AddUint16(versionTLS12)
		b.AddBytes(p.random)
		b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(p.sessionID) })
		b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddUint16(p.suite) })
		b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddUint8(0) }) // null compression
		b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
			ext := func(typ uint16, body func(*cryptobyte.Builder)) {
				offered = append(offered, typ)
				b.AddUint16(typ)
				b.AddUint16LengthPrefixed(body)
			}
			if sniHost(p.serverName) {
				ext(extServerName, func(b *cryptobyte.Builder) {
					b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
						b.AddUint8(0) // host_name
						b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes([]byte(p.serverName)) })
					})
				})
			}
			if p.ems {
				ext(extExtendedMaster, func(*cryptobyte.Builder) {})
			}
			ext(extRenegotiationInf, func(b *cryptobyte.Builder) { b.AddUint8(0) })
			ext(extSupportedGroups, func(b *cryptobyte.Builder) {
				b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
					for _, g := range offeredGroups {
						b.AddUint16(g)
					}
				})
			})
			ext(extECPointFormats, func(b *cryptobyte.Builder) {
				b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddUint8(0) }) // uncompressed
			})
			ext(extSignatureAlgs, func(b *cryptobyte.Builder) {
				b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
					for _, a := range offeredSigAlgs {
						b.AddUint16(a)
					}
				})
			})
			if p.alpn != "" {
				ext(extALPN, func(b *cryptobyte.Builder) {
					b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
						b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes([]byte(p.alpn)) })
					})
				})
			}
		})
	})
	msg, err := b.Bytes()
	return msg, offered, err
}

// sniHost reports whether name goes in server_name: a host name, not an
// IP address (RFC 6066 §3), as crypto/tls decides.
func sniHost(name string) bool {
	name = strings.TrimSuffix(name, ".")
	return name != "" && net.ParseIP(name) == nil
}

// firstHandshakeMessage finds the first handshake message in a byte
// stream of plaintext TLS records, as one side of a connection wrote
// them, and returns its type and body. Only the plaintext start of the
// stream is read: the handshake records before the first record of
// another type (the ChangeCipherSpec, after which all is encrypted).
func firstHandshakeMessage(stream []byte) (uint8, []byte, error) {
	var msgs []byte
	for len(stream) > 0 {
		typ, _, body, rest, err := splitRecord(stream)
		if err != nil {
			return 0, nil, err
		}
		if typ != recordHandshake {
			break
		}
		msgs = append(msgs, body...)
		stream = rest
		if typ, body, _, ok := splitHandshake(msgs); ok {
			return typ, body, nil
		}
	}
	return 0, nil, errors.New("no whole handshake message in the records")
}

// splitHandshake cuts the first handshake message off msgs: its type,
// body and what follows, or ok false when msgs holds no whole message.
func splitHandshake(msgs []byte) (typ uint8, body, rest []byte, ok bool) {
	if len(msgs) < 4 {
		return 0, nil, nil, false
	}
	n := int(msgs[1])<<16 | int(msgs[2])<<8 | int(msgs[3])
	if len(msgs) < 4+n {
		return 0, nil, nil, false
	}
	return msgs[0], msgs[4 : 4+n], msgs[4+n:], true
}
