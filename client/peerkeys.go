package client

import (
	"crypto"
	"crypto/tls"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
)

// PeerKeys counts the key types of the leaf certificates a server
// presented to clients, as each connection saw them on its handshake:
// an external server's key is what it is, and it sets what a full
// handshake costs.
type PeerKeys struct {
	name  func(crypto.PublicKey) string
	mu    sync.Mutex
	count map[string]int64
}

// WatchPeerKeys makes clients (changed in place) count the key type of
// the server's leaf certificate on every handshake, resumed ones too
// (their certificates are the session's), whether or not the chain was
// verified. name names a key ("" for one it does not name, which is not
// counted); the caller's naming, so that the counts read as its key
// types do.
func WatchPeerKeys(clients []*tls.Config, name func(crypto.PublicKey) string) *PeerKeys {
	k := &PeerKeys{name: name, count: map[string]int64{}}
	for _, cfg := range clients {
		next := cfg.VerifyConnection
		cfg.VerifyConnection = func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) > 0 {
				k.add(k.name(cs.PeerCertificates[0].PublicKey))
			}
			if next != nil {
				return next(cs)
			}
			return nil
		}
	}
	return k
}

func (k *PeerKeys) add(kt string) {
	if kt == "" {
		return
	}
	k.mu.Lock()
	k.count[kt]++
	k.mu.Unlock()
}

// Summary is the key type every handshake saw, or each with its count
// when they differed ("ecdsa-p256:3,rsa-2048:1", sorted), as a group of
// key types is recorded; "" when no handshake saw a certificate (or k
// is nil).
func (k *PeerKeys) Summary() string {
	if k == nil {
		return ""
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.count) == 1 {
		for kt := range k.count {
			return kt
		}
	}
	parts := make([]string, 0, len(k.count))
	for _, kt := range slices.Sorted(maps.Keys(k.count)) {
		parts = append(parts, fmt.Sprintf("%s:%d", kt, k.count[kt]))
	}
	return strings.Join(parts, ",")
}
