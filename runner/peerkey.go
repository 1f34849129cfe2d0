package runner

import (
	"crypto/tls"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/results"
)

// watchPeerKeys makes the case's clients count the key types of the
// server's certificates, when the case measures an external server
// directly (the built-in server's key is the one the run gave it;
// through a proxy the client sees the proxy's certificate); nil
// otherwise. The configurations are the case's own.
func watchPeerKeys(c *Case, sp *sideSpec, cfgs []*tls.Config) *client.PeerKeys {
	if sp.target.Addr == "" || c.KeyType != "" || c.Proxy != "" {
		return nil
	}
	return client.WatchPeerKeys(cfgs, pki.KeyTypeName)
}

// recordPeerKeys sets rec's key type to what the handshakes saw, left as
// it is when none saw a certificate.
func recordPeerKeys(k *client.PeerKeys, rec *results.Record) {
	if kt := k.Summary(); kt != "" {
		rec.KeyType = kt
	}
}
