package ktls

import (
	"bytes"
	"crypto/tls"
	"encoding/binary"
	"testing"
	"unsafe"
)

// Go mirrors of the uapi structs (include/uapi/linux/tls.h), written from
// the header independently of marshal, so that the compiler's layout checks
// marshal's.
type uapiCryptoInfo struct {
	Version    uint16
	CipherType uint16
}

type uapiAESGCM128 struct {
	Info   uapiCryptoInfo
	IV     [8]byte
	Key    [16]byte
	Salt   [4]byte
	RecSeq [8]byte
}

type uapiAESGCM256 struct {
	Info   uapiCryptoInfo
	IV     [8]byte
	Key    [32]byte
	Salt   [4]byte
	RecSeq [8]byte
}

type uapiChaCha20Poly1305 struct {
	Info   uapiCryptoInfo
	IV     [12]byte
	Key    [32]byte
	Salt   [0]byte
	RecSeq [8]byte
}

func TestCryptoInfoLayout(t *testing.T) {
	t.Parallel()
	var a128 uapiAESGCM128
	var a256 uapiAESGCM256
	var cc uapiChaCha20Poly1305
	for _, tc := range []struct {
		name                     string
		cipherType               uint16
		kernelSize               int // sizeof in the kernel
		size, iv, key, salt, seq uintptr
		ivLen, keyLen, saltLen   int
		suiteID                  uint16
	}{
		{"aes_gcm_128", cipherAESGCM128, 40, unsafe.Sizeof(a128), unsafe.Offsetof(a128.IV), unsafe.Offsetof(a128.Key), unsafe.Offsetof(a128.Salt), unsafe.Offsetof(a128.RecSeq), 8, 16, 4, tls.TLS_AES_128_GCM_SHA256},
		{"aes_gcm_256", cipherAESGCM256, 56, unsafe.Sizeof(a256), unsafe.Offsetof(a256.IV), unsafe.Offsetof(a256.Key), unsafe.Offsetof(a256.Salt), unsafe.Offsetof(a256.RecSeq), 8, 32, 4, tls.TLS_AES_256_GCM_SHA384},
		{"chacha20_poly1305", cipherChaCha20Poly1305, 56, unsafe.Sizeof(cc), unsafe.Offsetof(cc.IV), unsafe.Offsetof(cc.Key), unsafe.Offsetof(cc.Salt), unsafe.Offsetof(cc.RecSeq), 12, 32, 0, tls.TLS_CHACHA20_POLY1305_SHA256},
	} {
		if int(tc.size) != tc.kernelSize || cryptoInfoSizes[tc.cipherType] != tc.kernelSize {
			t.Errorf("%s: mirror size %d, table %d, kernel %d", tc.name, tc.size, cryptoInfoSizes[tc.cipherType], tc.kernelSize)
		}
		// Fill every field with a distinct pattern and check where marshal puts it.
		key := bytes.Repeat([]byte{0xAA}, tc.keyLen)
		iv := make([]byte, 12)
		for i := range iv {
			iv[i] = 0x10 + byte(i)
		}
		s := suites[tc.suiteID]
		ci, err := newCryptoInfo(versionTLS13, s, key, iv, 0x0102030405060708)
		if err != nil {
			t.Fatal(err)
		}
		b := ci.marshal()
		if len(b) != tc.kernelSize {
			t.Fatalf("%s: marshal gives %d bytes, kernel struct is %d", tc.name, len(b), tc.kernelSize)
		}
		if binary.NativeEndian.Uint16(b[0:]) != versionTLS13 || binary.NativeEndian.Uint16(b[2:]) != tc.cipherType {
			t.Errorf("%s: header % x", tc.name, b[:4])
		}
		// TLS 1.3: salt = iv[:saltLen], iv field = iv[saltLen:].
		if !bytes.Equal(b[tc.iv:tc.iv+uintptr(tc.ivLen)], iv[tc.saltLen:]) {
			t.Errorf("%s: iv at %d = % x", tc.name, tc.iv, b[tc.iv:tc.iv+uintptr(tc.ivLen)])
		}
		if !bytes.Equal(b[tc.key:tc.key+uintptr(tc.keyLen)], key) {
			t.Errorf("%s: key at %d", tc.name, tc.key)
		}
		if !bytes.Equal(b[tc.salt:tc.salt+uintptr(tc.saltLen)], iv[:tc.saltLen]) {
			t.Errorf("%s: salt at %d", tc.name, tc.salt)
		}
		if got := b[tc.seq : tc.seq+8]; !bytes.Equal(got, []byte{1, 2, 3, 4, 5, 6, 7, 8}) {
			t.Errorf("%s: rec_seq at %d = % x (big-endian expected)", tc.name, tc.seq, got)
		}
		back, err := parseCryptoInfo(b)
		if err != nil || !bytes.Equal(back.marshal(), b) {
			t.Errorf("%s: parse round trip: %v", tc.name, err)
		}
		if _, err := parseCryptoInfo(b[:len(b)-1]); err == nil {
			t.Errorf("%s: short struct accepted", tc.name)
		}
	}
}

// TestCryptoInfoTLS12 checks the TLS 1.2 specifics: the fixed IV becomes
// the salt and the explicit nonce continues crypto/tls's (= sequence).
func TestCryptoInfoTLS12(t *testing.T) {
	t.Parallel()
	s := suites[tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256]
	ci, err := newCryptoInfo(versionTLS12, s, make([]byte, 16), []byte{9, 8, 7, 6}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ci.salt, []byte{9, 8, 7, 6}) || !bytes.Equal(ci.iv, []byte{0, 0, 0, 0, 0, 0, 0, 5}) || ci.recSeq != 5 {
		t.Errorf("TLS 1.2 GCM info: salt % x iv % x seq %d", ci.salt, ci.iv, ci.recSeq)
	}
	if _, err := newCryptoInfo(versionTLS12, s, make([]byte, 16), make([]byte, 12), 0); err == nil {
		t.Error("12-byte IV accepted for TLS 1.2 AES-GCM")
	}
	cs := suites[tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256]
	iv := bytes.Repeat([]byte{3}, 12)
	ci, err = newCryptoInfo(versionTLS12, cs, make([]byte, 32), iv, 7)
	if err != nil || !bytes.Equal(ci.iv, iv) || len(ci.salt) != 0 {
		t.Errorf("TLS 1.2 ChaCha info: %v % x", err, ci.iv)
	}
}
