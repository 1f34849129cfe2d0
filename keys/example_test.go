package keys_test

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log"
	"net"
	"os"
	"path/filepath"

	"github.com/tlsbench/tlsbench/keys"
	"github.com/tlsbench/tlsbench/pki"
)

// A server with an RSA and an ECDSA identity, the RSA one as PKCS#12: the
// manager validates both at load and chooses per ClientHello.
func ExampleNew() {
	dir, _ := os.MkdirTemp("", "keys-example-")
	defer os.RemoveAll(dir)
	pwFile := filepath.Join(dir, "p12.pw")
	os.WriteFile(pwFile, []byte("example-password\n"), 0o600)
	l, err := pki.Init(pki.InitOptions{Dir: dir, ServerKeys: []pki.KeyType{pki.RSA2048, pki.ECDSAP256}, P12Password: "example-password"})
	if err != nil {
		log.Fatal(err)
	}

	m, err := keys.New([]keys.Source{
		{P12File: l.ServerP12[pki.RSA2048]},
		{CertFile: l.ServerCerts[pki.ECDSAP256], KeyFile: l.ServerKeys[pki.ECDSAP256]},
	}, keys.WithP12Password(keys.PasswordFile(pwFile)))
	if err != nil {
		log.Fatal(err) // names the file and the rule broken
	}
	for _, id := range m.Identities() { // in the server's preference order
		fmt.Println(id.KeyType, id.Names)
	}

	// The server wraps accepted connections so that the manager can read
	// signature_algorithms_cert, and leaves Certificates empty.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		tc := tls.Server(keys.RecordClientHello(c), &tls.Config{GetCertificate: m.GetCertificate})
		tc.Handshake()
		tc.Close()
	}()
	roots, _ := pki.LoadCertsPEM(l.RootCert)
	pool := x509.NewCertPool()
	pool.AddCert(roots[0])
	c, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{ServerName: "localhost", RootCAs: pool})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("a Go client got:", c.ConnectionState().PeerCertificates[0].PublicKeyAlgorithm)
	c.Close()
	// Output:
	// ecdsa-p256 [localhost 127.0.0.1 ::1]
	// rsa-2048 [localhost 127.0.0.1 ::1]
	// a Go client got: ECDSA
}
