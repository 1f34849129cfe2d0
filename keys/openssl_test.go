package keys

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/peers"
	"github.com/tlsbench/tlsbench/pki"
)

// TestOpenSSLSigalgs: `openssl s_client -sigalgs X` offers only the
// schemes X, so the manager must choose the identity that X can verify;
// s_client prints the peer's signature type and the certificate it got.
func TestOpenSSLSigalgs(t *testing.T) {
	t.Parallel()
	openssl := peers.Require(t, "openssl")
	p := newTestPKI(t)
	m := mustNew(t, p.sources(idRSA, idEd25519, idECDSA, idOther))

	// A PKCS#12 identity with the key cache off takes part too.
	dir := t.TempDir()
	pw := writePassword(t, dir, "s3cret")
	p12 := Source{P12File: filepath.Join(dir, "rsa.p12")}
	if err := pki.WritePKCS12(p12.P12File, p.ids[idRSA], "s3cret", 0); err != nil {
		t.Fatal(err)
	}
	p12Manager := mustNew(t, []Source{p12}, WithKeyCache(false), WithP12Password(pw))

	tests := []struct {
		name       string
		m          *Manager
		args       []string
		want       string // identity; "" for a handshake failure
		sigType    string // "Peer signature type: ..."
		decryption bool   // the handshake decrypted the PKCS#12 file
	}{
		{"tls1.3 ecdsa", m, []string{"-tls1_3", "-sigalgs", "ecdsa_secp256r1_sha256"}, idECDSA, "ECDSA", false},
		{"tls1.3 rsa-pss", m, []string{"-tls1_3", "-sigalgs", "rsa_pss_rsae_sha256"}, idRSA, "RSA-PSS", false},
		{"tls1.3 ed25519", m, []string{"-tls1_3", "-sigalgs", "ed25519"}, idEd25519, "ed25519", false},
		{"tls1.3 all, server preference", m, []string{"-tls1_3", "-sigalgs", "rsa_pss_rsae_sha256:ed25519:ecdsa_secp256r1_sha256"}, idECDSA, "ECDSA", false},
		{"tls1.3 sni", m, []string{"-tls1_3", "-sigalgs", "ecdsa_secp256r1_sha256", "-servername", "other.test", "-verify_hostname", "other.test"}, idOther, "ECDSA", false},
		{"tls1.2 ecdsa", m, []string{"-tls1_2", "-sigalgs", "ECDSA+SHA256"}, idECDSA, "ECDSA", false},
		{"tls1.2 rsa-pss", m, []string{"-tls1_2", "-sigalgs", "rsa_pss_rsae_sha256"}, idRSA, "RSA-PSS", false},
		{"tls1.2 rsa pkcs1", m, []string{"-tls1_2", "-sigalgs", "RSA+SHA256"}, idRSA, "RSA", false},
		{"tls1.2 ed25519", m, []string{"-tls1_2", "-sigalgs", "ed25519"}, idEd25519, "ed25519", false},
		{"tls1.3 none verifiable", m, []string{"-tls1_3", "-sigalgs", "ed448"}, "", "", false},
		{"tls1.3 pkcs12, key cache off", p12Manager, []string{"-tls1_3", "-sigalgs", "rsa_pss_rsae_sha256"}, idRSA, "RSA-PSS", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startServer(t, tt.m, nil)
			args := []string{"s_client", "-connect", srv.addr, "-CAfile", p.caFile, "-verify_return_error"}
			if !strings.Contains(strings.Join(tt.args, " "), "-servername") {
				args = append(args, "-servername", "localhost", "-verify_hostname", "localhost")
			}
			args = append(args, tt.args...)
			before := tt.m.Stats()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, openssl, args...)
			cmd.Stdin = strings.NewReader("") // EOF: s_client closes after the handshake
			out, err := cmd.CombinedOutput()
			sr := srv.result(t)
			if tt.want == "" {
				if err == nil || !regexp.MustCompile(`alert handshake failure|alert number 40`).Match(out) {
					t.Fatalf("openssl %s: %v, want a handshake_failure alert:\n%s", strings.Join(args, " "), err, out)
				}
				if sr.rejection == nil {
					t.Error("server recorded no rejection")
				}
				return
			}
			if err != nil {
				t.Fatalf("openssl %s: %v (server: %v, %v)\n%s", strings.Join(args, " "), err, sr.err, sr.rejection, out)
			}
			if !regexp.MustCompile(`Verify return code: 0 \(ok\)`).Match(out) {
				t.Errorf("openssl did not verify the chain:\n%s", out)
			}
			if got := regexp.MustCompile(`Peer signature type: (\S+)`).FindSubmatch(out); got == nil || string(got[1]) != tt.sigType {
				t.Errorf("peer signature type %q, want %q:\n%s", got, tt.sigType, out)
			}
			leaf := firstPEMCert(t, out)
			if got := p.nameOf(leaf); got != tt.want {
				t.Errorf("openssl got the %s certificate, want %s", got, tt.want)
			}
			if d := tt.m.Stats().Decryptions - before.Decryptions; (d == 1) != tt.decryption || d > 1 {
				t.Errorf("%d PKCS#12 decryptions for the handshake", d)
			}
		})
	}
}

// firstPEMCert returns the certificate s_client prints after "Server
// certificate".
func firstPEMCert(t *testing.T, out []byte) *x509.Certificate {
	t.Helper()
	b, _ := pem.Decode(out[max(0, strings.Index(string(out), "-----BEGIN CERTIFICATE-----")):])
	if b == nil {
		t.Fatalf("no certificate in the openssl output:\n%s", out)
	}
	c, err := x509.ParseCertificate(b.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
