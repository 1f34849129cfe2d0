package pki

import (
	"bytes"
	"crypto/x509"
	"errors"
	"fmt"
	"os"

	"software.sslmate.com/src/go-pkcs12"
)

// PKCS#12 iteration counts.
//
// DefaultP12Iterations is 2048, the count OpenSSL 3 `pkcs12 -export` and
// go-pkcs12's Modern2023 encoder use. tlsbench writes PKCS#12 files to
// measure what loading such a file costs a server (decrypting the key on
// every handshake, DESIGN.md's fourth case), so the default must match the
// files operators actually deploy. Measured on the 2-core development
// machine: decrypting a file with 2048 iterations takes about 1.1 ms,
// roughly one full ECDSA TLS 1.3 handshake, which reproduces the
// "throughput halved" case; at 600,000 it takes about 345 ms, which would
// turn a server without its key cache into a PBKDF2 benchmark.
//
// OWASPP12Iterations is OWASP's 2023 recommendation for PBKDF2-HMAC-SHA256 as
// a password hash. It is meant for low-entropy human passwords; a test PKI
// should use a random password (`openssl rand -hex 16`), against which the
// iteration count adds little (see the go-pkcs12 documentation of
// Encoder.WithIterations). Use it when a file must meet that policy.
//
// MaxP12Iterations bounds the count: 10 million iterations are already
// about 6 s of key derivation per file here, and several times that for
// whoever opens the file; more is a mistake.
const (
	DefaultP12Iterations = 2048
	OWASPP12Iterations   = 600_000
	MaxP12Iterations     = 10_000_000
)

// ErrWrongPassword is wrapped by the errors DecodePKCS12 and LoadPKCS12
// return when the password does not fit the file.
var ErrWrongPassword = errors.New("wrong password")

// EncodePKCS12 encodes the identity (leaf, intermediates and key; never the
// root) as a PKCS#12 file in the modern format OpenSSL 3 writes by default:
// certificates and key encrypted with PBES2 (PBKDF2-HMAC-SHA256, AES-256-CBC),
// integrity by HMAC-SHA256. The legacy formats (RC2 or 3DES, SHA-1 MAC) are
// not offered: they are weak, and OpenSSL 3 cannot read the RC2 one without
// its legacy provider.
// iterations applies to the key derivation of both encryption and MAC; 0
// means DefaultP12Iterations. An empty password is refused, because
// implementations disagree on how to encode it and the files then fail to
// open elsewhere.
func EncodePKCS12(id *Identity, password string, iterations int) ([]byte, error) {
	if id == nil || id.Leaf == nil || id.Key == nil {
		return nil, errors.New("encode PKCS#12: identity has no certificate or key")
	}
	if password == "" {
		return nil, errors.New("encode PKCS#12: empty password; choose one, e.g. with `openssl rand -hex 16`")
	}
	if iterations == 0 {
		iterations = DefaultP12Iterations
	}
	if iterations < 0 || iterations > MaxP12Iterations {
		return nil, fmt.Errorf("encode PKCS#12: iteration count %d is out of range; use a count from 1 to %d, or 0 for the default (%d)", iterations, MaxP12Iterations, DefaultP12Iterations)
	}
	var cas []*x509.Certificate
	if len(id.Chain) > 1 {
		cas = id.Chain[1:]
	}
	data, err := pkcs12.Modern2023.WithIterations(iterations).Encode(id.Key, id.Leaf, cas, password)
	if err != nil {
		return nil, fmt.Errorf("encode PKCS#12: %w", err)
	}
	return data, nil
}

// DecodePKCS12 decodes a PKCS#12 file holding one key and its chain (leaf
// first) and checks that the key belongs to the leaf.
func DecodePKCS12(data []byte, password string) (*Identity, error) {
	key, leaf, cas, err := pkcs12.DecodeChain(data, password)
	if err != nil {
		if errors.Is(err, pkcs12.ErrIncorrectPassword) || errors.Is(err, pkcs12.ErrDecryption) {
			return nil, fmt.Errorf("decode PKCS#12: %w? (%v)", ErrWrongPassword, err)
		}
		if bytes.HasPrefix(bytes.TrimSpace(data), []byte("-----BEGIN")) {
			return nil, errors.New("decode PKCS#12: this is a PEM file, not PKCS#12; give it as a certificate and key pair (CERT.pem,KEY.pem)")
		}
		return nil, fmt.Errorf("decode PKCS#12: not a valid PKCS#12 file: %w", err)
	}
	signer, err := asSigner(key)
	if err != nil {
		return nil, fmt.Errorf("decode PKCS#12: %w", err)
	}
	id, err := newIdentity(append([]*x509.Certificate{leaf}, cas...), signer)
	if err != nil {
		return nil, fmt.Errorf("decode PKCS#12: %w", err)
	}
	return id, nil
}

// LoadPKCS12 reads and decodes a PKCS#12 file; errors name the file.
func LoadPKCS12(path, password string) (*Identity, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read PKCS#12: %w", err)
	}
	id, err := DecodePKCS12(data, password)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return id, nil
}

// WritePKCS12 encodes id with EncodePKCS12 and writes it with mode 0600: the
// file holds the private key, and its password is only as good as the
// file's protection against offline guessing.
func WritePKCS12(path string, id *Identity, password string, iterations int) error {
	data, err := EncodePKCS12(id, password, iterations)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return writeFile(path, data, KeyFileMode)
}
