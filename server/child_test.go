package server_test

import (
	"context"
	"crypto/tls"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/internal/servertest"
	"github.com/tlsbench/tlsbench/internal/testchild"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/server"
)

func TestMain(m *testing.M) {
	testchild.RunIfChild()
	os.Exit(m.Run())
}

func writeIdentity(t *testing.T) (server.IdentityFiles, *pki.CA) {
	t.Helper()
	ca, _, f := testpki.ServerFiles(t)
	return server.IdentityFiles{Cert: f.Cert, Key: f.Key}, ca
}

// TestChildCountsAndQuits starts a child server, makes a handshake, and
// reads the child's counters over the control channel.
func TestChildCountsAndQuits(t *testing.T) {
	t.Parallel()
	files, ca := writeIdentity(t)
	child, err := server.StartChild(context.Background(), servertest.ChildOptions(server.Options{Identities: []server.IdentityFiles{files}}))
	if err != nil {
		t.Fatal(err)
	}
	c, err := tls.Dial("tcp", child.Hello().Addr, &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost"})
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("x"))
	c.Read(make([]byte, 1))
	c.Close()
	got, err := child.Counters()
	if err != nil {
		t.Fatal(err)
	}
	if got.Handshakes != 1 || got.CPUNanos <= 0 || got.AllocBytes == 0 {
		t.Errorf("counters %+v: want 1 handshake and the child's own CPU and allocations", got)
	}
	if err := child.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if _, err := net.Dial("tcp", child.Hello().Addr); err == nil {
		t.Error("child still accepts connections after Close")
	}
}

// TestChildStartErrorsSayWhy: a child that cannot start reports its own
// reason (the file at fault) to the parent.
func TestChildStartErrorsSayWhy(t *testing.T) {
	t.Parallel()
	files, _ := writeIdentity(t)
	missing := server.IdentityFiles{Cert: filepath.Join(t.TempDir(), "nope.pem"), Key: files.Key}
	_, err := server.StartChild(context.Background(), servertest.ChildOptions(server.Options{Identities: []server.IdentityFiles{missing}}))
	if err == nil || !strings.Contains(err.Error(), "nope.pem") {
		t.Fatalf("error %v, want one naming nope.pem", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, err = server.StartChild(context.Background(), servertest.ChildOptions(server.Options{Listen: ln.Addr().String(), Identities: []server.IdentityFiles{files}}))
	if err == nil || !strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("error %v, want address already in use", err)
	}
}

// TestChildCountersIncludeRefusedHandshakes reads the child's counters
// right after each refused handshake, as the runner does at the end of an
// iteration: every refusal the client has seen must be counted already,
// although the server sends its alert before it counts.
func TestChildCountersIncludeRefusedHandshakes(t *testing.T) {
	t.Parallel()
	files, ca := writeIdentity(t)
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := pki.WriteCertsPEM(caFile, ca.Root()); err != nil {
		t.Fatal(err)
	}
	other := testpki.CA(t)
	foreign, err := other.IssueClient("foreign")
	if err != nil {
		t.Fatal(err)
	}
	child, err := server.StartChild(context.Background(), servertest.ChildOptions(server.Options{
		Identities: []server.IdentityFiles{files}, Mutual: true, ClientCA: caFile}))
	if err != nil {
		t.Fatal(err)
	}
	defer child.Close()
	for i := 1; i <= 100; i++ {
		cfg := &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost", Certificates: []tls.Certificate{foreign.TLSCertificate()},
			MaxVersion: []uint16{tls.VersionTLS12, tls.VersionTLS13}[i%2]}
		c, err := tls.Dial("tcp", child.Hello().Addr, cfg)
		if err == nil {
			c.Write([]byte("x"))
			_, err = c.Read(make([]byte, 1)) // TLS 1.3: the refusal arrives here
			c.Close()
		}
		if err == nil {
			t.Fatal("a certificate from another CA was accepted")
		}
		got, err := child.Counters()
		if err != nil {
			t.Fatal(err)
		}
		if n := got.Failures["verify"]; n != int64(i) {
			t.Fatalf("after %d refused handshakes the counters say %v", i, got.Failures)
		}
	}
}
