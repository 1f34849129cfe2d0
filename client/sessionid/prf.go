package sessionid

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/sha512"
	"hash"
)

// Lengths fixed by TLS 1.2 (RFC 5246).
const (
	masterSecretLen = 48
	randomLen       = 32
	verifyDataLen   = 12
)

// The PRF's labels (RFC 5246 §6.3, §7.4.9).
const (
	labelKeyExpansion   = "key expansion"
	labelServerFinished = "server finished"
	labelClientFinished = "client finished"
)

// prf is TLS 1.2's PRF(secret, label, seed) = P_hash(secret, label ‖
// seed) (RFC 5246 §5), filling out: P_hash(secret, seed) = HMAC(secret,
// A(1) ‖ seed) ‖ HMAC(secret, A(2) ‖ seed) ‖ ..., A(0) = seed,
// A(i) = HMAC(secret, A(i-1)).
func prf(newHash func() hash.Hash, out, secret []byte, label string, seed ...[]byte) {
	labelSeed := []byte(label)
	for _, s := range seed {
		labelSeed = append(labelSeed, s...)
	}
	mac := hmac.New(newHash, secret)
	mac.Write(labelSeed)
	a := mac.Sum(nil) // A(1)
	for len(out) > 0 {
		mac.Reset()
		mac.Write(a)
		mac.Write(labelSeed)
		n := copy(out, mac.Sum(nil))
		out = out[n:]
		mac.Reset()
		mac.Write(a)
		a = mac.Sum(a[:0])
	}
}

// prfHash is the hash of a suite's PRF and handshake transcript: SHA-384
// for the _SHA384 suites, SHA-256 for every other TLS 1.2 AEAD suite.
func prfHash(sha384 bool) func() hash.Hash {
	if sha384 {
		return sha512.New384
	}
	return sha256.New
}

// finished is a Finished message's verify_data: PRF(master_secret,
// label, Hash(handshake_messages))[0..11] (RFC 5246 §7.4.9).
func finished(newHash func() hash.Hash, masterSecret []byte, label string, transcript []byte) []byte {
	h := newHash()
	h.Write(transcript)
	out := make([]byte, verifyDataLen)
	prf(newHash, out, masterSecret, label, h.Sum(nil))
	return out
}
