package ktls

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/binary"
	"errors"
	"fmt"

	"golang.org/x/crypto/chacha20poly1305"
)

// recordProtection is record encryption as the kernel performs it for one
// direction, built from the very crypto_info bytes handed to the kernel.
// Enable uses open to find the TLS 1.3 application-traffic epoch in the
// records crypto/tls exchanged (trial decryption); the tests use it, plus
// seal, as a software model of the kernel.
type recordProtection struct {
	version uint16
	aead    cipher.AEAD
	// base is the 12-byte nonce base: salt||iv (AES-GCM) or iv (ChaCha).
	base [12]byte
	// explicit is true for TLS 1.2 AES-GCM, whose records carry an 8-byte
	// explicit nonce after the header; the implicit salt is base[:4].
	explicit bool
}

var errRecordAuth = errors.New("ktls: record authentication failed")

func newRecordProtection(ci *cryptoInfo) (*recordProtection, error) {
	rp := &recordProtection{version: ci.version}
	var err error
	switch ci.cipherType {
	case cipherAESGCM128, cipherAESGCM256:
		block, e := aes.NewCipher(ci.key)
		if e != nil {
			return nil, e
		}
		rp.aead, err = cipher.NewGCM(block)
		copy(rp.base[:4], ci.salt)
		copy(rp.base[4:], ci.iv)
		rp.explicit = ci.version == versionTLS12
	case cipherChaCha20Poly1305:
		rp.aead, err = chacha20poly1305.New(ci.key)
		copy(rp.base[:], ci.iv)
	default:
		return nil, fmt.Errorf("ktls: unknown kernel cipher type %d", ci.cipherType)
	}
	if err != nil {
		return nil, err
	}
	if ci.version != versionTLS12 && ci.version != versionTLS13 {
		return nil, fmt.Errorf("ktls: unknown TLS version %#04x", ci.version)
	}
	return rp, nil
}

// xorNonce returns base with seq XORed into its last 8 bytes.
func (rp *recordProtection) xorNonce(seq uint64) []byte {
	n := rp.base
	var s [8]byte
	binary.BigEndian.PutUint64(s[:], seq)
	for i := range s {
		n[4+i] ^= s[i]
	}
	return n[:]
}

// aad12 is the TLS 1.2 additional data: seq || type || version || length.
func aad12(seq uint64, typ byte, plaintextLen int) []byte {
	a := binary.BigEndian.AppendUint64(make([]byte, 0, 13), seq)
	a = append(a, typ, 3, 3)
	return binary.BigEndian.AppendUint16(a, uint16(plaintextLen))
}

// open decrypts one complete record (header included) that was protected
// with sequence number seq. It returns the content type (for TLS 1.3 the
// inner type) and the plaintext.
func (rp *recordProtection) open(seq uint64, rec []byte) (byte, []byte, error) {
	if len(rec) < recordHeaderLen || int(binary.BigEndian.Uint16(rec[3:5])) != len(rec)-recordHeaderLen {
		return 0, nil, fmt.Errorf("ktls: malformed record")
	}
	hdr, body := rec[:recordHeaderLen], rec[recordHeaderLen:]
	overhead := rp.aead.Overhead()
	switch {
	case rp.version == versionTLS13:
		if hdr[0] != recordApplicationData || len(body) < overhead+1 {
			return 0, nil, errRecordAuth
		}
		pt, err := rp.aead.Open(nil, rp.xorNonce(seq), body, hdr)
		if err != nil {
			return 0, nil, errRecordAuth
		}
		i := len(pt) - 1
		for i >= 0 && pt[i] == 0 {
			i--
		}
		if i < 0 {
			return 0, nil, fmt.Errorf("ktls: TLS 1.3 record without content type")
		}
		return pt[i], pt[:i], nil
	case rp.explicit:
		if len(body) < 8+overhead {
			return 0, nil, errRecordAuth
		}
		nonce := append(append(make([]byte, 0, 12), rp.base[:4]...), body[:8]...)
		ct := body[8:]
		pt, err := rp.aead.Open(nil, nonce, ct, aad12(seq, hdr[0], len(ct)-overhead))
		if err != nil {
			return 0, nil, errRecordAuth
		}
		return hdr[0], pt, nil
	default: // TLS 1.2 ChaCha20-Poly1305
		if len(body) < overhead {
			return 0, nil, errRecordAuth
		}
		pt, err := rp.aead.Open(nil, rp.xorNonce(seq), body, aad12(seq, hdr[0], len(body)-overhead))
		if err != nil {
			return 0, nil, errRecordAuth
		}
		return hdr[0], pt, nil
	}
}
