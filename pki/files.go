package pki

import (
	"bytes"
	"cmp"
	"crypto"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// File modes. Certificates are public; private keys and PKCS#12 files are
// readable by their owner only, as ssh, openssl and nginx expect, so that a
// test key is not readable by every user of a shared benchmark machine.
const (
	CertFileMode fs.FileMode = 0o644
	KeyFileMode  fs.FileMode = 0o600
	DirMode      fs.FileMode = 0o700
)

// WriteCertsPEM writes certs as consecutive CERTIFICATE blocks, in the given
// order (leaf first for a chain file), with mode 0644.
func WriteCertsPEM(path string, certs ...*x509.Certificate) error {
	if len(certs) == 0 {
		return fmt.Errorf("write %s: no certificates to write", path)
	}
	var buf bytes.Buffer
	for i, c := range certs {
		if c == nil {
			return fmt.Errorf("write %s: certificate %d is nil", path, i+1)
		}
		if err := pem.Encode(&buf, &pem.Block{Type: "CERTIFICATE", Bytes: c.Raw}); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	return writeFile(path, buf.Bytes(), CertFileMode)
}

// WriteKeyPEM writes key as an unencrypted PKCS#8 "PRIVATE KEY" block with
// mode 0600, also when path already exists with a wider mode.
func WriteKeyPEM(path string, key crypto.Signer) error {
	der, err := marshalKey(key)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return writeFile(path, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), KeyFileMode)
}

func marshalKey(key crypto.Signer) ([]byte, error) {
	if key == nil {
		return nil, errors.New("no private key")
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		// Hardware or remote signers cannot be exported; say so rather than
		// passing on crypto/x509's "unknown key type".
		return nil, fmt.Errorf("cannot export a %T private key as PKCS#8 (only RSA, ECDSA and Ed25519 software keys): %w", key, err)
	}
	return der, nil
}

// writeFile writes data to a temporary file in path's directory and renames
// it over path. The temporary file is created with mode 0600 and only then
// changed to perm, so a key is never readable by others, not even for a
// moment; the rename replaces an existing file together with its old mode,
// and a reader never sees a half-written file.
func writeFile(path string, data []byte, perm fs.FileMode) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("write %s: directory %s does not exist; create it first", path, dir)
		}
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
			err = fmt.Errorf("write %s: %w", path, err)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// LoadCertsPEM reads every CERTIFICATE block of a PEM file, in file order.
// Other blocks (a private key in a combined file) are skipped.
func LoadCertsPEM(path string) ([]*x509.Certificate, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read certificates: %w", err)
	}
	certs, err := ParseCertsPEM(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return certs, nil
}

// ParseCertsPEM is LoadCertsPEM for data in memory.
func ParseCertsPEM(data []byte) ([]*x509.Certificate, error) {
	var certs []*x509.Certificate
	var other []string
	rest := data
	for n := 1; ; n++ {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			other = append(other, b.Type)
			continue
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, fmt.Errorf("PEM block %d is not a valid certificate: %w", n, err)
		}
		certs = append(certs, c)
	}
	if len(certs) > 0 {
		return certs, nil
	}
	if len(other) > 0 {
		return nil, fmt.Errorf("no CERTIFICATE block, only %s; is this the key file? Give the certificate file here", strings.Join(quoteAll(other), ", "))
	}
	return nil, noPEMError(data, "CERTIFICATE")
}

// noPEMError explains a file without PEM blocks, recognising the common
// mistake of passing a DER or PKCS#12 file.
func noPEMError(data []byte, want string) error {
	if len(data) == 0 {
		return errors.New("file is empty, expected PEM (-----BEGIN " + want + "-----)")
	}
	if data[0] == 0x30 {
		return errors.New("no PEM block found; the file looks binary (DER or PKCS#12): convert DER with `openssl x509 -inform der` (certificates) or `openssl pkey -inform der` (keys); a PKCS#12 file is read only where an identity is expected")
	}
	return errors.New("no PEM block found, expected -----BEGIN " + want + "-----")
}

func quoteAll(s []string) []string {
	q := make([]string, len(s))
	for i, v := range s {
		q[i] = fmt.Sprintf("%q", v)
	}
	return q
}

// ParseKeyPEM parses the private key of a PEM file: PKCS#8 ("PRIVATE KEY"),
// PKCS#1 ("RSA PRIVATE KEY") or SEC1 ("EC PRIVATE KEY"). Other blocks (the
// "EC PARAMETERS" block `openssl ecparam -genkey` writes, certificates in a
// combined file) are skipped. Encrypted PEM keys are refused with a hint,
// because tlsbench reads passwords for PKCS#12 files only.
func ParseKeyPEM(data []byte) (crypto.Signer, error) {
	var key crypto.Signer
	var other []string
	rest := data
	for n := 1; ; n++ {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		switch {
		case b.Type == "ENCRYPTED PRIVATE KEY" || strings.Contains(b.Headers["Proc-Type"], "ENCRYPTED"):
			return nil, fmt.Errorf("PEM block %d is an encrypted private key; decrypt it with `openssl pkey -in KEY -out KEY.plain` or use a PKCS#12 file with a password file", n)
		case b.Type == "PRIVATE KEY" || b.Type == "RSA PRIVATE KEY" || b.Type == "EC PRIVATE KEY":
			if key != nil {
				return nil, fmt.Errorf("PEM block %d is a second private key; a key file must hold exactly one", n)
			}
			k, err := parseKeyDER(b.Type, b.Bytes)
			if err != nil {
				return nil, fmt.Errorf("PEM block %d (%q): %w", n, b.Type, err)
			}
			key = k
		default:
			other = append(other, b.Type)
		}
	}
	if key != nil {
		return key, nil
	}
	if len(other) > 0 {
		return nil, fmt.Errorf("no private key block (PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY), only %s; is this the certificate file? Give the key file here", strings.Join(quoteAll(other), ", "))
	}
	return nil, noPEMError(data, "PRIVATE KEY")
}

// parseKeyDER parses by the block's label first and then tries the other two
// encodings, because some tools label PKCS#1 or SEC1 keys "PRIVATE KEY".
func parseKeyDER(label string, der []byte) (crypto.Signer, error) {
	type parser struct {
		label string
		parse func([]byte) (any, error)
	}
	parsers := []parser{
		{"PRIVATE KEY", x509.ParsePKCS8PrivateKey},
		{"RSA PRIVATE KEY", func(b []byte) (any, error) { return x509.ParsePKCS1PrivateKey(b) }},
		{"EC PRIVATE KEY", func(b []byte) (any, error) { return x509.ParseECPrivateKey(b) }},
	}
	// Stable order: the label's own parser, then the others.
	slices.SortStableFunc(parsers, func(a, b parser) int {
		return cmp.Compare(boolInt(a.label != label), boolInt(b.label != label))
	})
	var firstErr error
	for _, p := range parsers {
		k, err := p.parse(der)
		if err == nil {
			return asSigner(k)
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return nil, fmt.Errorf("not a PKCS#8, PKCS#1 or SEC1 private key: %w", firstErr)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// asSigner accepts the key types a TLS certificate can have.
func asSigner(k any) (crypto.Signer, error) {
	switch k := k.(type) {
	case *rsa.PrivateKey:
		return k, nil
	case *ecdsa.PrivateKey:
		return k, nil
	case ed25519.PrivateKey:
		return k, nil
	case *ecdh.PrivateKey:
		return nil, fmt.Errorf("unsupported key: %s key-agreement key cannot sign; a certificate key must be RSA, ECDSA or Ed25519", k.Curve())
	}
	return nil, fmt.Errorf("unsupported key type %T; a certificate key must be RSA, ECDSA or Ed25519", k)
}

// LoadIdentityPEM loads a certificate chain (leaf first) and its private key.
// The two paths may name the same combined file. A trailing self-signed root
// in the chain file is dropped, since Identity.Chain never holds the root.
func LoadIdentityPEM(certPath, keyPath string) (*Identity, error) {
	certs, err := LoadCertsPEM(certPath)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(keyPath)
	if err != nil {
		return nil, fmt.Errorf("read private key: %w", err)
	}
	key, err := ParseKeyPEM(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", keyPath, err)
	}
	id, err := newIdentity(certs, key)
	if err != nil {
		var mm *mismatchError
		if errors.As(err, &mm) {
			return nil, fmt.Errorf("%s: private key (%s) does not match the certificate in %s (%s); check that the two files belong together",
				keyPath, mm.key, certPath, mm.cert)
		}
		return nil, fmt.Errorf("%s: %w", certPath, err)
	}
	return id, nil
}

type mismatchError struct{ key, cert string }

func (e *mismatchError) Error() string {
	return fmt.Sprintf("private key (%s) does not match the certificate (%s)", e.key, e.cert)
}

// newIdentity checks that key belongs to the first certificate and drops a
// trailing root.
func newIdentity(certs []*x509.Certificate, key crypto.Signer) (*Identity, error) {
	if len(certs) == 0 {
		return nil, errors.New("no certificate")
	}
	leaf := certs[0]
	pub, ok := leaf.PublicKey.(interface{ Equal(crypto.PublicKey) bool })
	if !ok || !pub.Equal(key.Public()) {
		return nil, &mismatchError{key: DescribeKey(key.Public()), cert: DescribeKey(leaf.PublicKey) + " key, subject " + leaf.Subject.String()}
	}
	chain := certs
	if n := len(chain); n > 1 && isSelfSigned(chain[n-1]) {
		chain = chain[:n-1]
	}
	return &Identity{Leaf: leaf, Chain: chain, Key: key}, nil
}

// isSelfSigned recognises a root by name only: checking the self-signature
// would fail for the SHA-1 roots that negative tests load.
func isSelfSigned(c *x509.Certificate) bool {
	return c.IsCA && bytes.Equal(c.RawSubject, c.RawIssuer)
}
