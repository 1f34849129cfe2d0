package sessionid

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/tls"
	"encoding/binary"
	"fmt"
	"hash"

	"golang.org/x/crypto/chacha20poly1305"
)

// suite is what the record layer needs of a cipher suite: its key and IV
// lengths, how an AEAD is made from a key, how a record's nonce is formed
// and the PRF's hash.
type suite struct {
	id     uint16
	keyLen int
	// ivLen is the fixed IV of the key block: GCM's 4-byte salt (RFC
	// 5288 §3), ChaCha20-Poly1305's 12-byte IV (RFC 7905 §2).
	ivLen int
	// explicitNonce is the per-record nonce sent before the ciphertext:
	// 8 bytes for GCM, none for ChaCha20-Poly1305.
	explicitNonce int
	sha384        bool
	aead          func(key []byte) (cipher.AEAD, error)
}

var suites = []suite{
	{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, 16, 4, 8, false, newGCM},
	{tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, 16, 4, 8, false, newGCM},
	{tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, 32, 4, 8, true, newGCM},
	{tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384, 32, 4, 8, true, newGCM},
	{tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, 32, 12, 0, false, chacha20poly1305.New},
	{tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256, 32, 12, 0, false, chacha20poly1305.New},
}

// SupportedSuites are the TLS 1.2 cipher suites a session can be resumed
// with: the ECDHE AEAD suites.
func SupportedSuites() []uint16 {
	ids := make([]uint16, len(suites))
	for i, s := range suites {
		ids[i] = s.id
	}
	return ids
}

func suiteByID(id uint16) (*suite, error) {
	for i := range suites {
		if suites[i].id == id {
			return &suites[i], nil
		}
	}
	return nil, fmt.Errorf("%s: %w", tls.CipherSuiteName(id), ErrUnsupportedSuite)
}

func newGCM(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

func (s *suite) hash() func() hash.Hash { return prfHash(s.sha384) }

// nonce writes the nonce of the record with sequence number seq into dst
// (the AEAD's NonceSize): GCM's salt ‖ seq, the explicit part being the
// sequence number as RFC 5288 §3 allows; ChaCha20-Poly1305's IV XOR the
// sequence number, left-padded to 12 bytes (RFC 7905 §2).
func (s *suite) nonce(dst, iv []byte, seq uint64) {
	if s.explicitNonce > 0 {
		copy(dst, iv)
		binary.BigEndian.PutUint64(dst[len(iv):], seq)
		return
	}
	copy(dst, iv)
	var seqBytes [8]byte
	binary.BigEndian.PutUint64(seqBytes[:], seq)
	for i := range seqBytes {
		dst[len(dst)-8+i] ^= seqBytes[i]
	}
}

// keys are one direction's record protection.
type keys struct {
	aead cipher.AEAD
	iv   []byte
}

// expandKeys derives both directions' keys from the master secret and
// the hellos' randoms: key_block = PRF(master_secret, "key expansion",
// server_random ‖ client_random), cut into client_write_key,
// server_write_key, client_write_IV, server_write_IV (RFC 5246 §6.3; the
// AEAD suites have no MAC keys).
func (s *suite) expandKeys(masterSecret, clientRandom, serverRandom []byte) (client, server keys, err error) {
	block := make([]byte, 2*s.keyLen+2*s.ivLen)
	prf(s.hash(), block, masterSecret, labelKeyExpansion, serverRandom, clientRandom)
	ck, block := block[:s.keyLen], block[s.keyLen:]
	sk, block := block[:s.keyLen], block[s.keyLen:]
	civ, siv := block[:s.ivLen], block[s.ivLen:]
	if client.aead, err = s.aead(ck); err != nil {
		return
	}
	if server.aead, err = s.aead(sk); err != nil {
		return
	}
	client.iv, server.iv = civ, siv
	clear(ck)
	clear(sk)
	return client, server, nil
}
