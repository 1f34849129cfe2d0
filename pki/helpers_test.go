package pki_test

import (
	"crypto"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/pki"
)

// RSA key generation is slow on the 2-core CI machine (seconds for 3072
// bits), so each key type is generated once per test binary and shared
// through WithKey. Certificates are still fresh per test.
var (
	keyMu    sync.Mutex
	keyCache = map[pki.KeyType]crypto.Signer{}
)

func testKey(t testing.TB, kt pki.KeyType) crypto.Signer {
	t.Helper()
	keyMu.Lock()
	defer keyMu.Unlock()
	if k, ok := keyCache[kt]; ok {
		return k
	}
	k, err := kt.Generate()
	if err != nil {
		t.Fatalf("generate %s key: %v", kt, err)
	}
	keyCache[kt] = k
	return k
}

// issuerUnder returns root itself, or a new intermediate CA under it.
func issuerUnder(t testing.TB, root *pki.CA, intermediate bool) *pki.CA {
	t.Helper()
	if !intermediate {
		return root
	}
	issuer, err := root.NewIntermediate()
	if err != nil {
		t.Fatal(err)
	}
	return issuer
}

type handshakeResult struct {
	client, server       tls.ConnectionState
	clientErr, serverErr error
}

// handshake runs a TLS handshake over net.Pipe, followed by a one-byte
// server-to-client write. The write matters: in TLS 1.3 the client finishes
// its handshake before the server has verified the client certificate, so a
// rejection only reaches the client when it reads; and net.Pipe is
// unbuffered, so an alert nobody reads would block the server forever.
func handshake(t *testing.T, serverCfg, clientCfg *tls.Config) handshakeResult {
	t.Helper()
	c1, c2 := net.Pipe()
	return handshakeOver(t, c1, c2, serverCfg, clientCfg)
}

// handshakeTCP is handshake over a loopback TCP connection, whose kernel
// buffers let both sides write at once (see TestClientAuthRejected).
func handshakeTCP(t *testing.T, serverCfg, clientCfg *tls.Config) handshakeResult {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			accepted <- nil
			return
		}
		accepted <- c
	}()
	c2, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c1 := <-accepted
	if c1 == nil {
		c2.Close()
		t.Fatal("accept failed")
	}
	return handshakeOver(t, c1, c2, serverCfg, clientCfg)
}

// handshakeOver runs the server on c1 and the client on c2 and closes both.
func handshakeOver(t *testing.T, c1, c2 net.Conn, serverCfg, clientCfg *tls.Config) handshakeResult {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	c1.SetDeadline(deadline)
	c2.SetDeadline(deadline)
	srv, cli := tls.Server(c1, serverCfg), tls.Client(c2, clientCfg)

	var res handshakeResult
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer c1.Close()
		res.serverErr = srv.Handshake()
		if res.serverErr == nil {
			res.server = srv.ConnectionState()
			_, res.serverErr = srv.Write([]byte{1})
		}
	}()
	res.clientErr = cli.Handshake()
	if res.clientErr == nil {
		res.client = cli.ConnectionState()
		var b [1]byte
		_, res.clientErr = io.ReadFull(cli, b[:])
	}
	c2.Close()
	<-done
	var ne net.Error
	if errors.As(res.clientErr, &ne) && ne.Timeout() || errors.As(res.serverErr, &ne) && ne.Timeout() {
		t.Fatalf("handshake timed out: client %v, server %v", res.clientErr, res.serverErr)
	}
	return res
}

func serverConfig(id *pki.Identity) *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{id.TLSCertificate()}}
}

func fileMode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}
