package testpki

import (
	"crypto/tls"
	"path/filepath"
	"testing"

	"github.com/tlsbench/tlsbench/pki"
)

// CA returns a new CA made with opts (see pki.NewCA).
func CA(t testing.TB, opts ...pki.Option) *pki.CA {
	t.Helper()
	ca, err := pki.NewCA(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return ca
}

// Identity returns a new CA and a server identity it issued: ECDSA P-256,
// for localhost, 127.0.0.1 and ::1. Clients verify it with ca.Pool() and
// server name "localhost".
func Identity(t testing.TB) (*pki.CA, *pki.Identity) {
	t.Helper()
	ca := CA(t)
	id, err := ca.IssueServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	return ca, id
}

// Server returns a server configuration whose certificate is Identity's,
// and the CA that issued it. It is what tlsconf.Server makes of a bare
// certificate (TLS 1.2 and up, Go's defaults otherwise), written here
// rather than called: tlsconf imports internal/ktls, whose own tests use
// this package.
func Server(t testing.TB) (cfg *tls.Config, ca *pki.CA) {
	t.Helper()
	ca, id := Identity(t)
	return &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{id.TLSCertificate()}}, ca
}

// Files are the PEM files of an identity and of the CA that verifies it.
type Files struct {
	CA   string // the root certificate
	Cert string // the identity's chain, leaf first
	Key  string // its private key (mode 0600)
}

// ServerFiles is Identity written to a new temporary directory as ca.pem,
// server.pem and server-key.pem, for peers and commands that read files.
func ServerFiles(t testing.TB) (*pki.CA, *pki.Identity, Files) {
	t.Helper()
	ca, id := Identity(t)
	dir := t.TempDir()
	f := Files{CA: filepath.Join(dir, "ca.pem")}
	if err := pki.WriteCertsPEM(f.CA, ca.Root()); err != nil {
		t.Fatal(err)
	}
	f.Cert, f.Key = WritePEM(t, dir, "server", id)
	return ca, id, f
}

// WritePEM writes id's chain to dir/name.pem and its key to
// dir/name-key.pem, and returns the two paths.
func WritePEM(t testing.TB, dir, name string, id *pki.Identity) (cert, key string) {
	t.Helper()
	cert, key = filepath.Join(dir, name+".pem"), filepath.Join(dir, name+"-key.pem")
	if err := pki.WriteCertsPEM(cert, id.Chain...); err != nil {
		t.Fatal(err)
	}
	if err := pki.WriteKeyPEM(key, id.Key); err != nil {
		t.Fatal(err)
	}
	return cert, key
}
