package sessionid

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Record content types (RFC 5246 §6.2.1).
const (
	recordChangeCipherSpec uint8 = 20
	recordAlert            uint8 = 21
	recordHandshake        uint8 = 22
	recordApplicationData  uint8 = 23
)

const (
	recordHeaderLen = 5
	// maxPlaintext is a record's largest plaintext, 2^14 (RFC 5246
	// §6.2.1); maxCiphertext its largest protected form, 2^14 + 2048
	// (§6.2.3).
	maxPlaintext  = 1 << 14
	maxCiphertext = maxPlaintext + 2048
	aeadTagLen    = 16
)

var errTruncatedRecord = errors.New("truncated record")

// splitRecord cuts the first whole record off a byte stream: its type,
// version and body, and what follows. A record longer than any TLS 1.2
// record may be is refused.
func splitRecord(stream []byte) (typ uint8, version uint16, body, rest []byte, err error) {
	if len(stream) < recordHeaderLen {
		return 0, 0, nil, nil, errTruncatedRecord
	}
	typ, version = stream[0], binary.BigEndian.Uint16(stream[1:3])
	n := int(binary.BigEndian.Uint16(stream[3:5]))
	if n > maxCiphertext {
		return 0, 0, nil, nil, fmt.Errorf("record of %d bytes, more than TLS allows", n)
	}
	if len(stream) < recordHeaderLen+n {
		return 0, 0, nil, nil, errTruncatedRecord
	}
	return typ, version, stream[recordHeaderLen : recordHeaderLen+n], stream[recordHeaderLen+n:], nil
}

// direction is one way of a connection's record protection: plaintext
// until the ChangeCipherSpec, then an AEAD with its sequence numbers.
type direction struct {
	suite *suite
	keys  *keys
	seq   uint64
}

// additionalData is the AEAD's additional data: seq_num ‖ type ‖ version
// ‖ plaintext length (RFC 5246 §6.2.3.3).
func additionalData(dst []byte, seq uint64, typ uint8, plaintextLen int) []byte {
	dst = binary.BigEndian.AppendUint64(dst, seq)
	dst = append(dst, typ)
	dst = binary.BigEndian.AppendUint16(dst, versionTLS12)
	return binary.BigEndian.AppendUint16(dst, uint16(plaintextLen))
}

func (d *direction) nextSeq() (uint64, error) {
	if d.seq == ^uint64(0) {
		// A sequence number must not wrap (RFC 5246 §6.1).
		return 0, errors.New("record sequence number exhausted")
	}
	seq := d.seq
	d.seq++
	return seq, nil
}

// open decrypts a record's body in place and returns its plaintext.
// A body that does not authenticate is ErrBadRecordMAC.
func (d *direction) open(typ uint8, body []byte) ([]byte, error) {
	if d.keys == nil {
		if len(body) > maxPlaintext {
			return nil, &localError{alertRecordOverflow, errors.New("plaintext record longer than 16 KiB")}
		}
		return body, nil
	}
	aead := d.keys.aead
	var nonce [12]byte
	n := aead.NonceSize()
	explicit := d.suite.explicitNonce
	if len(body) < explicit+aeadTagLen {
		return nil, &localError{alertBadRecordMAC, ErrBadRecordMAC}
	}
	seq, err := d.nextSeq()
	if err != nil {
		return nil, &localError{alertInternalError, err}
	}
	if explicit > 0 {
		copy(nonce[:], d.keys.iv)
		copy(nonce[len(d.keys.iv):n], body[:explicit])
	} else {
		d.suite.nonce(nonce[:n], d.keys.iv, seq)
	}
	ciphertext := body[explicit:]
	var ad [13]byte
	plain, err := aead.Open(ciphertext[:0], nonce[:n], ciphertext,
		additionalData(ad[:0], seq, typ, len(ciphertext)-aeadTagLen))
	if err != nil {
		return nil, &localError{alertBadRecordMAC, ErrBadRecordMAC}
	}
	if len(plain) > maxPlaintext {
		return nil, &localError{alertRecordOverflow, errors.New("decrypted record longer than 16 KiB")}
	}
	return plain, nil
}

// appendRecord appends one record of typ carrying payload (at most
// maxPlaintext bytes), protected when the direction has keys.
func (d *direction) appendRecord(dst []byte, typ uint8, version uint16, payload []byte) ([]byte, error) {
	if d.keys == nil {
		dst = append(dst, typ)
		dst = binary.BigEndian.AppendUint16(dst, version)
		dst = binary.BigEndian.AppendUint16(dst, uint16(len(payload)))
		return append(dst, payload...), nil
	}
	seq, err := d.nextSeq()
	if err != nil {
		return dst, err
	}
	aead := d.keys.aead
	explicit := d.suite.explicitNonce
	dst = append(dst, typ)
	dst = binary.BigEndian.AppendUint16(dst, versionTLS12)
	dst = binary.BigEndian.AppendUint16(dst, uint16(explicit+len(payload)+aeadTagLen))
	var nonce [12]byte
	n := aead.NonceSize()
	d.suite.nonce(nonce[:n], d.keys.iv, seq)
	if explicit > 0 {
		dst = append(dst, nonce[len(d.keys.iv):n]...)
	}
	var ad [13]byte
	return aead.Seal(dst, nonce[:n], payload, additionalData(ad[:0], seq, typ, len(payload))), nil
}
