package servertest_test

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/servertest"
	"github.com/tlsbench/tlsbench/internal/testchild"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/server"
)

func TestMain(m *testing.M) {
	testchild.RunIfChild()
	os.Exit(m.Run())
}

// echo makes a handshake with the server at addr, trusting roots, and
// checks that it echoes.
func echo(addr string, roots *x509.CertPool) error {
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: 10 * time.Second}, "tcp", addr, &tls.Config{RootCAs: roots, ServerName: "localhost"})
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write([]byte("x")); err != nil {
		return err
	}
	b := make([]byte, 1)
	_, err = io.ReadFull(c, b)
	return err
}

// TestOriginStops: an origin echoes over TLS with its CA, and once
// stopped its port refuses connections; a second Stop is harmless. The
// port may be handed to another test's listener as soon as it is free
// (packages' tests run side by side): a connection accepted there is
// judged by the certificate it presents, never this origin's.
func TestOriginStops(t *testing.T) {
	t.Parallel()
	var leaf []byte
	o := servertest.StartOrigin(t, func(c *tls.Config) { leaf = c.Certificates[0].Certificate[0] })
	if o.Port == 0 || o.CAFile == "" {
		t.Fatalf("origin port %d, CA file %q", o.Port, o.CAFile)
	}
	if err := echo(o.Addr, o.CA.Pool()); err != nil {
		t.Fatal(err)
	}
	if err := o.Stop(); err != nil {
		t.Fatalf("Serve returned %v", err)
	}
	o.Stop()
	c, err := net.DialTimeout("tcp", o.Addr, 5*time.Second)
	if err != nil {
		return
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	tc := tls.Client(c, &tls.Config{InsecureSkipVerify: true})
	if err := tc.Handshake(); err == nil && bytes.Equal(tc.ConnectionState().PeerCertificates[0].Raw, leaf) {
		t.Fatal("a stopped origin still accepts connections")
	}
	t.Logf("another listener took the stopped origin's port %d (not this origin: it presents another certificate, or none)", o.Port)
}

// TestStartChild: the child server is this test binary again, and
// serves the identity it is given.
func TestStartChild(t *testing.T) {
	t.Parallel()
	ca, _, f := testpki.ServerFiles(t)
	child := servertest.StartChild(t, server.Options{Identities: []server.IdentityFiles{{Cert: f.Cert, Key: f.Key}}})
	if child.PID() == os.Getpid() {
		t.Fatal("the child server runs in this process")
	}
	if err := echo(child.Hello().Addr, ca.Pool()); err != nil {
		t.Fatal(err)
	}
}
