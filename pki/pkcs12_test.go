package pki_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/pki"
)

// Low iteration counts keep these tests fast; the default is exercised once.
func TestPKCS12RoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kt           pki.KeyType
		intermediate bool
		iterations   int
	}{
		{pki.ECDSAP256, false, 0},
		{pki.ECDSAP384, true, 10},
		{pki.Ed25519, true, 10},
		{pki.RSA2048, true, 10},
	}
	for _, tt := range tests {
		t.Run(string(tt.kt), func(t *testing.T) {
			ca := issuerUnder(t, testpki.CA(t), tt.intermediate)
			id, err := ca.IssueServer(nil, pki.WithKey(testKey(t, tt.kt)))
			if err != nil {
				t.Fatal(err)
			}
			data, err := pki.EncodePKCS12(id, "s3cret", tt.iterations)
			if err != nil {
				t.Fatal(err)
			}
			got, err := pki.DecodePKCS12(data, "s3cret")
			if err != nil {
				t.Fatal(err)
			}
			assertSameIdentity(t, got, id)

			path := filepath.Join(t.TempDir(), "id.p12")
			if err := pki.WritePKCS12(path, id, "s3cret", tt.iterations); err != nil {
				t.Fatal(err)
			}
			if m := fileMode(t, path); m != 0o600 {
				t.Errorf("PKCS#12 file mode %v, want 0600", m)
			}
			got, err = pki.LoadPKCS12(path, "s3cret")
			if err != nil {
				t.Fatal(err)
			}
			assertSameIdentity(t, got, id)
		})
	}
}

func TestPKCS12WrongPassword(t *testing.T) {
	t.Parallel()
	ca := testpki.CA(t)
	id, err := ca.IssueServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "server.p12")
	if err := pki.WritePKCS12(path, id, "right", 10); err != nil {
		t.Fatal(err)
	}
	_, err = pki.LoadPKCS12(path, "wrong")
	if !errors.Is(err, pki.ErrWrongPassword) {
		t.Fatalf("error = %v, want ErrWrongPassword", err)
	}
	for _, w := range []string{path, "wrong password?"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not contain %q", err, w)
		}
	}
}

func TestPKCS12Errors(t *testing.T) {
	t.Parallel()
	ca := testpki.CA(t)
	id, err := ca.IssueServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pki.EncodePKCS12(id, "", 10); err == nil || !strings.Contains(err.Error(), "empty password") {
		t.Errorf("empty password: %v", err)
	}
	for _, n := range []int{-1, pki.MaxP12Iterations + 1} {
		if _, err := pki.EncodePKCS12(id, "pw", n); err == nil || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("%d iterations: %v", n, err)
		}
	}
	if _, err := pki.EncodePKCS12(&pki.Identity{}, "pw", 10); err == nil {
		t.Error("empty identity encoded")
	}
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.p12")
	os.WriteFile(garbage, []byte("not a pkcs12 file"), 0o600)
	if _, err := pki.LoadPKCS12(garbage, "pw"); err == nil || !strings.Contains(err.Error(), garbage) {
		t.Errorf("garbage file: %v", err)
	}
	pemFile := filepath.Join(dir, "server.pem")
	if err := pki.WriteCertsPEM(pemFile, id.Chain...); err != nil {
		t.Fatal(err)
	}
	if _, err := pki.LoadPKCS12(pemFile, "pw"); err == nil || !strings.Contains(err.Error(), "PEM file, not PKCS#12") {
		t.Errorf("PEM file as PKCS#12: %v", err)
	}
	missing := filepath.Join(dir, "missing.p12")
	if _, err := pki.LoadPKCS12(missing, "pw"); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing file: %v", err)
	}
}
