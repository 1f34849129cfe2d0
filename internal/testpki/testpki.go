package testpki

import (
	"crypto/tls"
	"testing"

	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// Server returns a server configuration whose certificate (ECDSA P-256,
// for localhost, 127.0.0.1 and ::1) comes from a new CA, and that CA.
// Clients verify it with ca.Pool() and server name "localhost".
func Server(t testing.TB) (cfg *tls.Config, ca *pki.CA) {
	t.Helper()
	ca, err := pki.NewCA()
	if err != nil {
		t.Fatal(err)
	}
	id, err := ca.IssueServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err = tlsconf.Server(tlsconf.ServerOptions{Certificates: []tls.Certificate{id.TLSCertificate()}})
	if err != nil {
		t.Fatal(err)
	}
	return cfg, ca
}
