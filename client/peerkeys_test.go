package client_test

import (
	"crypto/tls"
	"sync/atomic"
	"testing"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/pki"
)

// tlsServer serves TLS with id on loopback, completing each handshake,
// until the test ends.
func tlsServer(t *testing.T, id *pki.Identity) string {
	t.Helper()
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{id.TLSCertificate()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.(*tls.Conn).Handshake()
			}()
		}
	}()
	return ln.Addr().String()
}

// TestWatchPeerKeys: real handshakes with an ECDSA and an Ed25519 server
// are counted by the key of the certificate each presented, a
// verification hook the configuration had still runs, and a client that
// saw no certificate has no summary.
func TestWatchPeerKeys(t *testing.T) {
	t.Parallel()
	ca := testpki.CA(t)
	ecdsaID, err := ca.IssueServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	edID, err := ca.IssueServer(nil, pki.WithKeyType(pki.Ed25519))
	if err != nil {
		t.Fatal(err)
	}
	var verified atomic.Int64
	cfg := &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost", VerifyConnection: func(tls.ConnectionState) error {
		verified.Add(1)
		return nil
	}}
	if got := client.WatchPeerKeys([]*tls.Config{cfg.Clone()}, pki.KeyTypeName).Summary(); got != "" {
		t.Errorf("no handshake: summary %q, want none", got)
	}
	keys := client.WatchPeerKeys([]*tls.Config{cfg}, pki.KeyTypeName)
	for _, addr := range []string{tlsServer(t, ecdsaID), tlsServer(t, ecdsaID), tlsServer(t, edID)} {
		conn, err := tls.Dial("tcp", addr, cfg)
		if err != nil {
			t.Fatal(err)
		}
		conn.Close()
	}
	if got, want := keys.Summary(), "ecdsa-p256:2,ed25519:1"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	if verified.Load() != 3 {
		t.Errorf("the configuration's own hook ran %d times, want 3", verified.Load())
	}
	var none *client.PeerKeys
	if none.Summary() != "" {
		t.Error("a nil PeerKeys has a summary")
	}
}
