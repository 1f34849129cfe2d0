package proxy_test

import (
	"crypto/tls"
	"io"
	"testing"

	"github.com/tlsbench/tlsbench/proxy"
)

// TestOriginSessionsOff: without origin sessions every origin handshake
// is a full one, while the client's leg still resumes.
func TestOriginSessionsOff(t *testing.T) {
	t.Parallel()
	org := startOrigin(t)
	p := startProxy(t, org, proxy.Options{MintCache: true})
	cache := tls.NewLRUClientSessionCache(4)
	for range 3 {
		tc := p.tunnel(t, org, &tls.Config{ClientSessionCache: cache})
		tc.Write([]byte("x"))
		io.ReadFull(tc, make([]byte, 1))
		tc.Close()
	}
	waitFor(t, "the relays to end", func() bool { return p.Counters().Active == 0 })
	if c := p.Counters(); c.OriginHandshakes != 3 || c.OriginResumed != 0 || c.ClientResumed != 2 {
		t.Errorf("counters %+v: want 3 full origin handshakes, 2 resumed client ones", c)
	}
}
