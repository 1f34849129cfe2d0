package probe_test

import (
	"testing"

	"github.com/tlsbench/tlsbench/internal/peers"
	"github.com/tlsbench/tlsbench/probe"
)

// ngtcp2's example server (HTTP/3 only, over GnuTLS): QUIC v1 (v2 is
// refused with Version Negotiation), one ticket per connection for six
// hours, allowing early data; it accepts early data, again on a ticket's
// second use, and in a replayed flight, which it acknowledges and
// answers (its anti-replay window does not stop a replay from another
// address seconds later).
func TestQUICNgtcp2Server(t *testing.T) {
	t.Parallel()
	p := newPKI(t)
	addr := peers.NGTCP2T(t, peers.NGTCP2Config{Cert: p.CertFile, Key: p.KeyFile}).Addr
	for _, req := range []probe.Request{probe.RequestHTTP, probe.RequestHTTPGet} {
		o := quicOptions(p, addr)
		o.Request = req
		rep := runProbe(t, o)
		checkQUIC(t, rep, expectQUIC{Handshake: "yes", V1: "yes", V2: "no:Version Negotiation, listing", Tickets: "yes:21600 s",
			MaxEarlyData: "yes", Resumption: "yes", EarlyData: "yes:answered: HTTP/3.0 200 OK", Reuse: "yes",
			Replay: "yes:1-RTT packets alone", ALPN: probe.ALPNHTTP3, Response: "HTTP/3.0 200 OK"})
	}
}
