package proxy_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/tlsbench/tlsbench/proxy"
)

// TestTunnelEchoes: a CONNECT through the proxy reaches the origin, the
// client verifies the minted certificate with the proxy's CA, and bytes
// go both ways; the counters say what happened.
func TestTunnelEchoes(t *testing.T) {
	t.Parallel()
	org := startOrigin(t)
	p := startProxy(t, org, proxy.Options{MintCache: true})
	tc := p.tunnel(t, org, nil)
	msg := []byte("hello through the proxy")
	if _, err := tc.Write(msg); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(msg))
	if _, err := io.ReadFull(tc, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, msg) {
		t.Fatalf("echo %q, want %q", got, msg)
	}
	if cn := tc.ConnectionState().PeerCertificates[0].Subject.CommonName; cn != "localhost" {
		t.Errorf("minted certificate for %q, want localhost", cn)
	}
	tc.Close()
	waitFor(t, "the relay to end", func() bool { return p.Counters().Active == 0 })
	c := p.Counters()
	if c.Connects != 1 || c.ClientHandshakes != 1 || c.OriginHandshakes != 1 || c.Mints != 1 ||
		c.BytesToOrigin != int64(len(msg)) || c.BytesToClient != int64(len(msg)) || c.Relay["client:user"] != 1 || c.Relay["origin:user"] != 1 {
		t.Errorf("counters %+v", c)
	}
}
