package ktls

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/tls"
	"encoding/binary"
	"fmt"
	"hash"
)

// Cipher names as the throughput benchmark spells them.
const (
	CipherAES128GCM        = "aes128gcm"
	CipherAES256GCM        = "aes256gcm"
	CipherChaCha20Poly1305 = "chacha20poly1305"
)

// suite describes what the kernel needs to know about a negotiated cipher
// suite. Only AEAD suites exist in kTLS (and in TLS 1.3).
type suite struct {
	id         uint16
	cipher     string
	cipherType uint16 // kernel TLS_CIPHER_*
	keyLen     int
	// fixedIVLen is the TLS 1.2 implicit IV length from the key block
	// (RFC 5288: 4 for AES-GCM; RFC 7905: 12 for ChaCha20-Poly1305). TLS 1.3
	// always derives a 12-byte IV.
	fixedIVLen int
	hash       func() hash.Hash
}

var suites = map[uint16]suite{
	// TLS 1.3
	tls.TLS_AES_128_GCM_SHA256:       {tls.TLS_AES_128_GCM_SHA256, CipherAES128GCM, cipherAESGCM128, 16, 4, sha256.New},
	tls.TLS_AES_256_GCM_SHA384:       {tls.TLS_AES_256_GCM_SHA384, CipherAES256GCM, cipherAESGCM256, 32, 4, sha512.New384},
	tls.TLS_CHACHA20_POLY1305_SHA256: {tls.TLS_CHACHA20_POLY1305_SHA256, CipherChaCha20Poly1305, cipherChaCha20Poly1305, 32, 12, sha256.New},
	// TLS 1.2 (the PRF hash is the suite's hash)
	tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256:       {tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, CipherAES128GCM, cipherAESGCM128, 16, 4, sha256.New},
	tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256:         {tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, CipherAES128GCM, cipherAESGCM128, 16, 4, sha256.New},
	tls.TLS_RSA_WITH_AES_128_GCM_SHA256:               {tls.TLS_RSA_WITH_AES_128_GCM_SHA256, CipherAES128GCM, cipherAESGCM128, 16, 4, sha256.New},
	tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384:       {tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, CipherAES256GCM, cipherAESGCM256, 32, 4, sha512.New384},
	tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384:         {tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384, CipherAES256GCM, cipherAESGCM256, 32, 4, sha512.New384},
	tls.TLS_RSA_WITH_AES_256_GCM_SHA384:               {tls.TLS_RSA_WITH_AES_256_GCM_SHA384, CipherAES256GCM, cipherAESGCM256, 32, 4, sha512.New384},
	tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: {tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, CipherChaCha20Poly1305, cipherChaCha20Poly1305, 32, 12, sha256.New},
	tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256:   {tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256, CipherChaCha20Poly1305, cipherChaCha20Poly1305, 32, 12, sha256.New},
}

// CipherOf returns the benchmark cipher name of a cipher suite kTLS can
// offload ("aes128gcm", "aes256gcm", "chacha20poly1305"), or "" if the
// suite cannot be offloaded (CBC suites, unknown IDs).
func CipherOf(suiteID uint16) string { return suites[suiteID].cipher }

func lookupSuite(version, id uint16) (suite, error) {
	s, ok := suites[id]
	if !ok {
		return suite{}, fmt.Errorf("%w: cipher suite %s has no kernel TLS equivalent", ErrUnsupported, tls.CipherSuiteName(id))
	}
	is13 := id>>8 == 0x13
	if (version == tls.VersionTLS13) != is13 {
		return suite{}, fmt.Errorf("ktls: cipher suite %s does not belong to %s", tls.CipherSuiteName(id), tls.VersionName(version))
	}
	return s, nil
}

// hkdfExpandLabel is HKDF-Expand-Label from RFC 8446, section 7.1.
func hkdfExpandLabel(h func() hash.Hash, secret []byte, label string, context []byte, length int) ([]byte, error) {
	full := "tls13 " + label
	if len(full) > 255 || len(context) > 255 || length > 0xffff {
		return nil, fmt.Errorf("ktls: HKDF-Expand-Label arguments too long")
	}
	info := make([]byte, 0, 4+len(full)+len(context))
	info = binary.BigEndian.AppendUint16(info, uint16(length))
	info = append(info, byte(len(full)))
	info = append(info, full...)
	info = append(info, byte(len(context)))
	info = append(info, context...)
	return hkdf.Expand(h, secret, string(info), length)
}

// trafficKeys13 derives the write key and 12-byte IV from a TLS 1.3 traffic
// secret (RFC 8446, section 7.3).
func trafficKeys13(s suite, secret []byte) (key, iv []byte, err error) {
	if len(secret) != s.hash().Size() {
		return nil, nil, fmt.Errorf("ktls: traffic secret is %d bytes, want %d for %s", len(secret), s.hash().Size(), tls.CipherSuiteName(s.id))
	}
	if key, err = hkdfExpandLabel(s.hash, secret, "key", nil, s.keyLen); err != nil {
		return nil, nil, err
	}
	if iv, err = hkdfExpandLabel(s.hash, secret, "iv", nil, 12); err != nil {
		return nil, nil, err
	}
	return key, iv, nil
}

// prf12 is the TLS 1.2 PRF (RFC 5246, section 5): P_hash(secret, label+seed).
func prf12(h func() hash.Hash, secret []byte, label string, seed []byte, n int) []byte {
	labelSeed := make([]byte, 0, len(label)+len(seed))
	labelSeed = append(labelSeed, label...)
	labelSeed = append(labelSeed, seed...)
	mac := hmac.New(h, secret)
	mac.Write(labelSeed)
	a := mac.Sum(nil) // A(1)
	out := make([]byte, 0, n+mac.Size())
	for len(out) < n {
		mac.Reset()
		mac.Write(a)
		mac.Write(labelSeed)
		out = mac.Sum(out)
		mac.Reset()
		mac.Write(a)
		a = mac.Sum(a[:0]) // A(i+1)
	}
	return out[:n]
}

// keys12 are the AEAD parts of a TLS 1.2 key block (RFC 5246, section 6.3;
// AEAD suites have no MAC keys).
type keys12 struct {
	clientKey, serverKey []byte
	clientIV, serverIV   []byte // fixed (implicit) IVs
}

func keyBlock12(s suite, masterSecret, clientRandom, serverRandom []byte) (keys12, error) {
	if len(masterSecret) != 48 {
		return keys12{}, fmt.Errorf("ktls: TLS 1.2 master secret is %d bytes, want 48", len(masterSecret))
	}
	if len(clientRandom) != 32 || len(serverRandom) != 32 {
		return keys12{}, fmt.Errorf("ktls: TLS 1.2 randoms must be 32 bytes")
	}
	seed := make([]byte, 0, 64)
	seed = append(seed, serverRandom...)
	seed = append(seed, clientRandom...)
	kb := prf12(s.hash, masterSecret, "key expansion", seed, 2*s.keyLen+2*s.fixedIVLen)
	var k keys12
	k.clientKey, kb = kb[:s.keyLen], kb[s.keyLen:]
	k.serverKey, kb = kb[:s.keyLen], kb[s.keyLen:]
	k.clientIV, kb = kb[:s.fixedIVLen], kb[s.fixedIVLen:]
	k.serverIV = kb[:s.fixedIVLen]
	return k, nil
}

// suiteOf returns the suite of a version and benchmark cipher name (the
// ECDHE one for TLS 1.2: the record layer is the same for every key
// exchange).
func suiteOf(version uint16, cipher string) (suite, bool) {
	var id uint16
	switch {
	case version == tls.VersionTLS13 && cipher == CipherAES128GCM:
		id = tls.TLS_AES_128_GCM_SHA256
	case version == tls.VersionTLS13 && cipher == CipherAES256GCM:
		id = tls.TLS_AES_256_GCM_SHA384
	case version == tls.VersionTLS13 && cipher == CipherChaCha20Poly1305:
		id = tls.TLS_CHACHA20_POLY1305_SHA256
	case version == tls.VersionTLS12 && cipher == CipherAES128GCM:
		id = tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256
	case version == tls.VersionTLS12 && cipher == CipherAES256GCM:
		id = tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384
	case version == tls.VersionTLS12 && cipher == CipherChaCha20Poly1305:
		id = tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256
	default:
		return suite{}, false
	}
	return suites[id], true
}
