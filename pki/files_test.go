package pki_test

import (
	"crypto"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/pki"
)

func TestWriteLoadIdentityPEM(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kt           pki.KeyType
		intermediate bool
	}{
		{pki.ECDSAP256, false},
		{pki.ECDSAP384, true},
		{pki.Ed25519, true},
		{pki.RSA2048, true},
	}
	for _, tt := range tests {
		t.Run(string(tt.kt), func(t *testing.T) {
			ca := issuerUnder(t, testpki.CA(t), tt.intermediate)
			id, err := ca.IssueServer(nil, pki.WithKey(testKey(t, tt.kt)))
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			certPath, keyPath := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
			if err := pki.WriteCertsPEM(certPath, id.Chain...); err != nil {
				t.Fatal(err)
			}
			if err := pki.WriteKeyPEM(keyPath, id.Key); err != nil {
				t.Fatal(err)
			}
			if m := fileMode(t, certPath); m != 0o644 {
				t.Errorf("certificate file mode %v, want 0644", m)
			}
			if m := fileMode(t, keyPath); m != 0o600 {
				t.Errorf("key file mode %v, want 0600", m)
			}
			keyPEM, _ := os.ReadFile(keyPath)
			if b, _ := pem.Decode(keyPEM); b == nil || b.Type != "PRIVATE KEY" {
				t.Fatalf("key file is not a PKCS#8 PRIVATE KEY block")
			}

			got, err := pki.LoadIdentityPEM(certPath, keyPath)
			if err != nil {
				t.Fatal(err)
			}
			assertSameIdentity(t, got, id)
		})
	}
}

func assertSameIdentity(t *testing.T, got, want *pki.Identity) {
	t.Helper()
	if !got.Leaf.Equal(want.Leaf) {
		t.Fatal("leaf differs")
	}
	if len(got.Chain) != len(want.Chain) {
		t.Fatalf("chain has %d certificates, want %d", len(got.Chain), len(want.Chain))
	}
	for i := range got.Chain {
		if !got.Chain[i].Equal(want.Chain[i]) {
			t.Fatalf("chain[%d] differs", i)
		}
	}
	type equaler interface {
		Equal(x crypto.PrivateKey) bool
	}
	if !got.Key.(equaler).Equal(want.Key) {
		t.Fatal("private key differs")
	}
}

// TestWriteKeyPEMTightensMode checks that an existing, world-readable file
// does not keep its mode when a key is written over it.
func TestWriteKeyPEMTightensMode(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "key.pem")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o644) // in case the umask narrowed it
	if err := pki.WriteKeyPEM(path, testKey(t, pki.ECDSAP256)); err != nil {
		t.Fatal(err)
	}
	if m := fileMode(t, path); m != 0o600 {
		t.Fatalf("mode %v after overwriting a 0644 file, want 0600", m)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Fatalf("temporary files left behind: %d entries", len(entries))
	}
}

func TestWriteErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	missing := filepath.Join(dir, "no-such-dir", "x.pem")
	if err := pki.WriteCertsPEM(missing, testCert(t)); err == nil || !strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("WriteCertsPEM into a missing directory: %v", err)
	}
	if err := pki.WriteCertsPEM(filepath.Join(dir, "empty.pem")); err == nil || !strings.Contains(err.Error(), "no certificates") {
		t.Fatalf("WriteCertsPEM without certificates: %v", err)
	}
}

func testCert(t *testing.T) *x509.Certificate {
	ca := testpki.CA(t)
	return ca.Cert
}

// TestLoadIdentityPEMKeyFormats: keys from other tools come as PKCS#8, PKCS#1
// or SEC1, sometimes after an "EC PARAMETERS" block, sometimes in the same
// file as the certificate.
func TestLoadIdentityPEMKeyFormats(t *testing.T) {
	t.Parallel()
	ca := testpki.CA(t)
	ecID, err := ca.IssueServer(nil, pki.WithKey(testKey(t, pki.ECDSAP256)))
	if err != nil {
		t.Fatal(err)
	}
	rsaID, err := ca.IssueServer(nil, pki.WithKey(testKey(t, pki.RSA2048)))
	if err != nil {
		t.Fatal(err)
	}
	edID, err := ca.IssueServer(nil, pki.WithKey(testKey(t, pki.Ed25519)))
	if err != nil {
		t.Fatal(err)
	}
	pkcs8 := func(id *pki.Identity) []byte {
		der, err := x509.MarshalPKCS8PrivateKey(id.Key)
		if err != nil {
			t.Fatal(err)
		}
		return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	}
	sec1DER, err := x509.MarshalECPrivateKey(ecID.Key.(*ecdsa.PrivateKey))
	if err != nil {
		t.Fatal(err)
	}
	sec1 := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: sec1DER})
	ecParams := pem.EncodeToMemory(&pem.Block{Type: "EC PARAMETERS", Bytes: []byte{6, 8, 42, 134, 72, 206, 61, 3, 1, 7}})

	tests := []struct {
		name     string
		id       *pki.Identity
		key      []byte
		combined bool // write certificate and key into one file
	}{
		{name: "pkcs8 ecdsa", id: ecID, key: pkcs8(ecID)},
		{name: "sec1 ecdsa", id: ecID, key: sec1},
		{name: "sec1 after EC PARAMETERS", id: ecID, key: append(ecParams, sec1...)},
		{name: "sec1 mislabelled PRIVATE KEY", id: ecID, key: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: sec1DER})},
		{name: "pkcs1 rsa", id: rsaID, key: pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(rsaID.Key.(*rsa.PrivateKey))})},
		{name: "pkcs8 rsa", id: rsaID, key: pkcs8(rsaID)},
		{name: "pkcs8 ed25519", id: edID, key: pkcs8(edID)},
		{name: "combined file", id: edID, key: pkcs8(edID), combined: true},
		{name: "text around blocks", id: ecID, key: append(append([]byte("Bag Attributes\n    localKeyID: 01\n"), pkcs8(ecID)...), "trailer\n"...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			certPath, keyPath := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
			if err := pki.WriteCertsPEM(certPath, tt.id.Chain...); err != nil {
				t.Fatal(err)
			}
			if tt.combined {
				keyPath = certPath
				f, err := os.OpenFile(certPath, os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				f.Write(tt.key)
				f.Close()
			} else if err := os.WriteFile(keyPath, tt.key, 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := pki.LoadIdentityPEM(certPath, keyPath)
			if err != nil {
				t.Fatal(err)
			}
			assertSameIdentity(t, got, tt.id)
		})
	}
}

// TestLoadIdentityPEMChainWithRoot: a chain file that ends in the root
// (common in the wild) loads, and the root is dropped from Chain.
func TestLoadIdentityPEMChainWithRoot(t *testing.T) {
	t.Parallel()
	root := testpki.CA(t)
	ca := issuerUnder(t, root, true)
	id, err := ca.IssueServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certPath, keyPath := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := pki.WriteCertsPEM(certPath, append(id.Chain, root.Root())...); err != nil {
		t.Fatal(err)
	}
	if err := pki.WriteKeyPEM(keyPath, id.Key); err != nil {
		t.Fatal(err)
	}
	certs, err := pki.LoadCertsPEM(certPath)
	if err != nil || len(certs) != 3 || !certs[2].Equal(root.Root()) {
		t.Fatalf("LoadCertsPEM: %d certificates, %v; want all 3 in file order", len(certs), err)
	}
	got, err := pki.LoadIdentityPEM(certPath, keyPath)
	if err != nil {
		t.Fatal(err)
	}
	assertSameIdentity(t, got, id)
}

// TestLoadIdentityPEMErrors: every error names the file at fault and says
// what is wrong with it.
func TestLoadIdentityPEMErrors(t *testing.T) {
	t.Parallel()
	ca := testpki.CA(t)
	id, err := ca.IssueServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	other, err := ca.IssueServer(nil, pki.WithKey(testKey(t, pki.Ed25519)))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	goodCert := filepath.Join(dir, "cert.pem")
	goodKey := filepath.Join(dir, "key.pem")
	if err := pki.WriteCertsPEM(goodCert, id.Chain...); err != nil {
		t.Fatal(err)
	}
	if err := pki.WriteKeyPEM(goodKey, id.Key); err != nil {
		t.Fatal(err)
	}
	otherKey := filepath.Join(dir, "other-key.pem")
	if err := pki.WriteKeyPEM(otherKey, other.Key); err != nil {
		t.Fatal(err)
	}
	x25519, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	x25519DER, err := x509.MarshalPKCS8PrivateKey(x25519)
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name      string
		cert, key string
		want      []string // substrings of the error
	}{
		{"mismatched key", goodCert, otherKey, []string{otherKey, goodCert, "does not match", "Ed25519", "ECDSA P-256"}},
		{"key file without PEM", goodCert, write("text-key.pem", []byte("hello\n")), []string{"text-key.pem", "no PEM block", "PRIVATE KEY"}},
		{"cert file without PEM", write("text-cert.pem", []byte("hello\n")), goodKey, []string{"text-cert.pem", "no PEM block", "CERTIFICATE"}},
		{"empty key file", goodCert, write("empty.pem", nil), []string{"empty.pem", "empty"}},
		{"DER certificate", write("cert.der", id.Leaf.Raw), goodKey, []string{"cert.der", "looks binary"}},
		{"files swapped", goodKey, goodCert, []string{goodKey, "no CERTIFICATE block", `"PRIVATE KEY"`, "key file"}},
		{"certificate as key", goodCert, goodCert, []string{goodCert, "no private key block", "certificate file"}},
		{"broken certificate", write("broken.pem", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte{1, 2, 3}})), goodKey, []string{"broken.pem", "not a valid certificate"}},
		{"broken key", goodCert, write("broken-key.pem", pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte{1, 2, 3}})), []string{"broken-key.pem", "not a PKCS#8, PKCS#1 or SEC1"}},
		{"encrypted key", goodCert, write("enc.pem", pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: []byte{1}})), []string{"enc.pem", "encrypted", "openssl pkey"}},
		{"legacy encrypted key", goodCert, write("enc1.pem", pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Headers: map[string]string{"Proc-Type": "4,ENCRYPTED", "DEK-Info": "AES-128-CBC,00"}, Bytes: []byte{1}})), []string{"enc1.pem", "encrypted"}},
		{"two keys", goodCert, write("two.pem", append(mustRead(t, goodKey), mustRead(t, otherKey)...)), []string{"two.pem", "second private key"}},
		{"unsupported key", goodCert, write("x25519.pem", pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: x25519DER})), []string{"x25519.pem", "unsupported key", "cannot sign"}},
		{"missing cert", filepath.Join(dir, "nope.pem"), goodKey, []string{"nope.pem", "no such file"}},
		{"missing key", goodCert, filepath.Join(dir, "nokey.pem"), []string{"nokey.pem", "no such file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := pki.LoadIdentityPEM(tt.cert, tt.key)
			if err == nil {
				t.Fatal("LoadIdentityPEM succeeded")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
