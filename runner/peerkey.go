package runner

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/tls"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/results"
)

// peerKeys records the key type of the leaf certificate an external
// server presented, as the client saw it on every handshake (the
// built-in server's is the one the run gave it): an external server's
// key is what it is, and it sets what a full handshake costs.
type peerKeys struct {
	mu    sync.Mutex
	count map[string]int64
}

// watchPeerKeys makes the case's clients count the key types of the
// server's certificates, when the case measures an external server
// directly (through a proxy the client sees the proxy's certificate);
// nil otherwise. The configurations are the case's own.
func watchPeerKeys(c *Case, sp *sideSpec, cfgs []*tls.Config) *peerKeys {
	if sp.target.Addr == "" || c.KeyType != "" || c.Proxy != "" {
		return nil
	}
	k := &peerKeys{count: map[string]int64{}}
	for _, cfg := range cfgs {
		next := cfg.VerifyConnection
		cfg.VerifyConnection = func(cs tls.ConnectionState) error {
			// Called on every handshake, resumed ones too (their
			// certificates are the session's), whether or not the
			// chain was verified.
			if len(cs.PeerCertificates) > 0 {
				k.add(peerKeyType(cs.PeerCertificates[0].PublicKey))
			}
			if next != nil {
				return next(cs)
			}
			return nil
		}
	}
	return k
}

func (k *peerKeys) add(kt string) {
	if kt == "" {
		return
	}
	k.mu.Lock()
	k.count[kt]++
	k.mu.Unlock()
}

// record sets rec's key type: the one every handshake saw, or each with
// its count, as a group is recorded when they differed; left as it is
// when no handshake saw a certificate.
func (k *peerKeys) record(rec *results.Record) {
	if k == nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	switch len(k.count) {
	case 0:
		return
	case 1:
		for kt := range k.count {
			rec.KeyType = kt
		}
		return
	}
	parts := make([]string, 0, len(k.count))
	for _, kt := range slices.Sorted(maps.Keys(k.count)) {
		parts = append(parts, fmt.Sprintf("%s:%d", kt, k.count[kt]))
	}
	rec.KeyType = strings.Join(parts, ",")
}

// peerKeyType names a certificate's public key as key types are named
// (ecdsa-p256, rsa-2048, ed25519), sizes and curves tlsbench does not
// issue included (rsa-4096, ecdsa-p521); "" for another kind of key.
func peerKeyType(pub crypto.PublicKey) string {
	if kt, ok := pki.KeyTypeOf(pub); ok {
		return string(kt)
	}
	switch p := pub.(type) {
	case *rsa.PublicKey:
		return fmt.Sprintf("rsa-%d", p.N.BitLen())
	case *ecdsa.PublicKey:
		return "ecdsa-" + strings.ToLower(strings.ReplaceAll(p.Curve.Params().Name, "-", ""))
	}
	return ""
}
