package pki_test

import (
	"crypto/x509"
	"testing"

	"github.com/tlsbench/tlsbench/pki"
)

// TestLeafSigningOnly: a CA made with WithLeafSigningOnly has its server
// certificates verified, but a CA it signs is not a valid issuer: its key
// cannot extend the chain.
func TestLeafSigningOnly(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		opts     []pki.Option
		wantDeep bool // a leaf under an intermediate verifies
	}{
		{"default", nil, true},
		{"leaf signing only", []pki.Option{pki.WithLeafSigningOnly()}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root, err := pki.NewCA(tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if !verifies(t, root, root) {
				t.Fatal("its own leaf does not verify")
			}
			inter, err := root.NewIntermediate()
			if err != nil {
				t.Fatal(err)
			}
			if got := verifies(t, root, inter); got != tc.wantDeep {
				t.Errorf("leaf under an intermediate verifies: %v, want %v", got, tc.wantDeep)
			}
		})
	}
}

// verifies reports whether a server certificate issuer makes verifies
// against root.
func verifies(t *testing.T, root, issuer *pki.CA) bool {
	t.Helper()
	id, err := issuer.IssueServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	inter := x509.NewCertPool()
	for _, c := range id.Chain[1:] {
		inter.AddCert(c)
	}
	_, err = id.Leaf.Verify(x509.VerifyOptions{DNSName: "localhost", Roots: root.Pool(), Intermediates: inter})
	return err == nil
}
