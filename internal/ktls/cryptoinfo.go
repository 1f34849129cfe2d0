package ktls

import (
	"encoding/binary"
	"fmt"
)

// Constants from the Linux uapi header include/uapi/linux/tls.h (and
// SOL_TLS/TCP_ULP from socket.h/tcp.h). They are ABI and never change.
const (
	solTLS    = 282 // SOL_TLS
	tcpULP    = 31  // TCP_ULP
	optTLSTX  = 1   // TLS_TX
	optTLSRX  = 2   // TLS_RX
	optTXZCRO = 3   // TLS_TX_ZEROCOPY_RO (6.0+), unused: zero-copy sendfile is only safe for files nobody modifies
	optNoPad  = 4   // TLS_RX_EXPECT_NO_PAD (6.0+)

	cmsgSetRecordType = 1 // TLS_SET_RECORD_TYPE (sendmsg)
	cmsgGetRecordType = 2 // TLS_GET_RECORD_TYPE (recvmsg)

	cipherAESGCM128        = 51 // TLS_CIPHER_AES_GCM_128
	cipherAESGCM256        = 52 // TLS_CIPHER_AES_GCM_256
	cipherChaCha20Poly1305 = 54 // TLS_CIPHER_CHACHA20_POLY1305

	// TLS record content types.
	recordChangeCipherSpec = 20
	recordAlert            = 21
	recordHandshake        = 22
	recordApplicationData  = 23

	recordHeaderLen = 5
	maxPlaintext    = 1 << 14
)

// cryptoInfo is one of the kernel's struct tls12_crypto_info_* (the name
// says tls12 but it carries TLS 1.3 too):
//
//	struct tls_crypto_info { __u16 version; __u16 cipher_type; };
//	struct tls12_crypto_info_aes_gcm_128 {      // 40 bytes
//		struct tls_crypto_info info;            //  0
//		unsigned char iv[8];                    //  4
//		unsigned char key[16];                  // 12
//		unsigned char salt[4];                  // 28
//		unsigned char rec_seq[8];               // 32
//	};
//	struct tls12_crypto_info_aes_gcm_256 {      // 56 bytes: iv 4, key 12, salt 44, rec_seq 48
//	struct tls12_crypto_info_chacha20_poly1305 { // 56 bytes: iv[12] 4, key[32] 16, salt[0] 48, rec_seq 48
//
// Every member after the header is a byte array, so there is no padding and
// the layout is the concatenation below; the two __u16 are host-endian.
//
// How the kernel uses the fields (net/tls): for AES-GCM the 12-byte nonce is
// salt || iv. In TLS 1.2 iv is the 8-byte explicit nonce the kernel writes
// in front of each record and then increments; crypto/tls uses the record
// sequence number as explicit nonce, so iv must continue that sequence
// (iv = rec_seq) or a nonce would repeat under the same key. In TLS 1.3 and
// for ChaCha20-Poly1305 (both versions) the nonce is (salt||iv) XOR rec_seq.
// rec_seq is big-endian, as on the wire.
type cryptoInfo struct {
	version    uint16
	cipherType uint16
	iv         []byte
	key        []byte
	salt       []byte
	recSeq     uint64
}

// cryptoInfoSizes are the sizes of the kernel structs, by cipher type.
var cryptoInfoSizes = map[uint16]int{
	cipherAESGCM128:        40,
	cipherAESGCM256:        56,
	cipherChaCha20Poly1305: 56,
}

// layout returns the field lengths the kernel expects for a cipher type.
func layout(cipherType uint16) (ivLen, keyLen, saltLen int, ok bool) {
	switch cipherType {
	case cipherAESGCM128:
		return 8, 16, 4, true
	case cipherAESGCM256:
		return 8, 32, 4, true
	case cipherChaCha20Poly1305:
		return 12, 32, 0, true
	}
	return 0, 0, 0, false
}

// newCryptoInfo builds the kernel parameters for one direction from the
// negotiated version, suite, write key, the IV material (TLS 1.3: the
// 12-byte derived IV; TLS 1.2: the fixed IV from the key block) and the
// sequence number of the next record.
func newCryptoInfo(version uint16, s suite, key, iv []byte, seq uint64) (*cryptoInfo, error) {
	ivLen, keyLen, saltLen, ok := layout(s.cipherType)
	if !ok || len(key) != keyLen {
		return nil, fmt.Errorf("ktls: internal error: key length %d for cipher type %d", len(key), s.cipherType)
	}
	ci := &cryptoInfo{version: version, cipherType: s.cipherType, key: append([]byte(nil), key...), recSeq: seq}
	switch {
	case s.cipherType == cipherChaCha20Poly1305:
		if len(iv) != 12 {
			return nil, fmt.Errorf("ktls: ChaCha20-Poly1305 needs a 12-byte IV, have %d", len(iv))
		}
		ci.iv = append([]byte(nil), iv...)
		ci.salt = []byte{}
	case version == versionTLS13:
		if len(iv) != 12 {
			return nil, fmt.Errorf("ktls: TLS 1.3 needs a 12-byte IV, have %d", len(iv))
		}
		ci.salt = append([]byte(nil), iv[:saltLen]...)
		ci.iv = append([]byte(nil), iv[saltLen:]...)
	default: // TLS 1.2 AES-GCM
		if len(iv) != saltLen {
			return nil, fmt.Errorf("ktls: TLS 1.2 AES-GCM needs a %d-byte fixed IV, have %d", saltLen, len(iv))
		}
		ci.salt = append([]byte(nil), iv...)
		ci.iv = binary.BigEndian.AppendUint64(nil, seq) // explicit nonce continues crypto/tls's
	}
	if len(ci.iv) != ivLen || len(ci.salt) != saltLen {
		return nil, fmt.Errorf("ktls: internal error: bad IV layout")
	}
	return ci, nil
}

// marshal returns the struct bytes for setsockopt(SOL_TLS, TLS_TX/TLS_RX).
func (ci *cryptoInfo) marshal() []byte {
	b := make([]byte, 0, cryptoInfoSizes[ci.cipherType])
	b = binary.NativeEndian.AppendUint16(b, ci.version)
	b = binary.NativeEndian.AppendUint16(b, ci.cipherType)
	b = append(b, ci.iv...)
	b = append(b, ci.key...)
	b = append(b, ci.salt...)
	b = binary.BigEndian.AppendUint64(b, ci.recSeq)
	return b
}

// parseCryptoInfo is the inverse of marshal; it reads what getsockopt
// returns and is what the software model of the kernel in the tests uses.
func parseCryptoInfo(b []byte) (*cryptoInfo, error) {
	if len(b) < 4 {
		return nil, fmt.Errorf("ktls: crypto_info too short (%d bytes)", len(b))
	}
	ci := &cryptoInfo{version: binary.NativeEndian.Uint16(b), cipherType: binary.NativeEndian.Uint16(b[2:])}
	ivLen, keyLen, saltLen, ok := layout(ci.cipherType)
	if !ok {
		return nil, fmt.Errorf("ktls: unknown kernel cipher type %d", ci.cipherType)
	}
	if len(b) != cryptoInfoSizes[ci.cipherType] {
		return nil, fmt.Errorf("ktls: crypto_info for cipher type %d is %d bytes, want %d", ci.cipherType, len(b), cryptoInfoSizes[ci.cipherType])
	}
	p := b[4:]
	ci.iv, p = append([]byte(nil), p[:ivLen]...), p[ivLen:]
	ci.key, p = append([]byte(nil), p[:keyLen]...), p[keyLen:]
	ci.salt, p = append([]byte(nil), p[:saltLen]...), p[saltLen:]
	ci.recSeq = binary.BigEndian.Uint64(p)
	return ci, nil
}

// parseCryptoInfoHeader reads the 4-byte struct tls_crypto_info.
func parseCryptoInfoHeader(b []byte) (*cryptoInfo, error) {
	if len(b) < 4 {
		return nil, fmt.Errorf("ktls: crypto_info header too short")
	}
	ci := &cryptoInfo{version: binary.NativeEndian.Uint16(b), cipherType: binary.NativeEndian.Uint16(b[2:])}
	if _, ok := cryptoInfoSizes[ci.cipherType]; !ok {
		return nil, fmt.Errorf("ktls: unknown kernel cipher type %d", ci.cipherType)
	}
	return ci, nil
}

const (
	versionTLS12 = 0x0303
	versionTLS13 = 0x0304
)
