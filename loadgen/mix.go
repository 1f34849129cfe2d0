package loadgen

import (
	"crypto/tls"
	"github.com/tlsbench/tlsbench/measure"
	"math"
	"sync/atomic"
)

// A mix (HandshakeCase.ResumeRatio) resumes a fixed share of each
// iteration's or window's connections and makes full handshakes on the
// rest. Which connections offer a session is decided by their index in
// the iteration, not at random, so that every iteration has exactly its
// share (to one connection) and the gate can hold the server to it.
// Connections that do not offer still store the session they get: they
// keep the pool warm for those that do, as priming does.

// offers reports whether connection i (0-based) of an iteration offers a
// session in a mix of share f: the offers are spread evenly, so that any
// run of n connections from the iteration's start holds floor(n·f) of
// them. The small slack keeps shares such as 0.29 from losing an offer
// to the rounding of the product.
func offers(i int, f float64) bool {
	const slack = 1e-9
	return math.Floor(float64(i+1)*f+slack) > math.Floor(float64(i)*f+slack)
}

// mixClients returns, for a mix, the clients' configurations that do not
// offer a session but store the one they get (nil otherwise).
func mixClients(hc *measure.HandshakeCase) []*tls.Config {
	if hc.ResumeRatio == nil {
		return nil
	}
	out := make([]*tls.Config, len(hc.Clients))
	for i, c := range hc.Clients {
		out[i] = c.Clone()
		out[i].ClientSessionCache = depositOnly{c.ClientSessionCache}
	}
	return out
}

// clientFor is the configuration of connection i of the iteration in
// progress, made as client: in a mix, one that does not offer a session
// unless the connection is one of the share that does.
func (r *caseRunner) clientFor(client, i int) *tls.Config {
	switch {
	case r.full == nil:
		return r.Case.Clients[client]
	case !offers(i, *r.Case.ResumeRatio):
		return r.full[client]
	case r.offer != nil:
		return r.offer[client]
	}
	return r.Case.Clients[client] // priming: its own deposit-only clients
}

// dryCache is a client session cache that counts the offers that found
// no session: a mix that resumed less than its share because the
// client had nothing to offer is not the server's doing.
type dryCache struct {
	tls.ClientSessionCache
	dry *atomic.Int64
}

func (c dryCache) Get(key string) (*tls.ClientSessionState, bool) {
	cs, ok := c.ClientSessionCache.Get(key)
	if !ok || cs == nil {
		c.dry.Add(1)
	}
	return cs, ok
}

// watchDry returns, for a mix, copies of clients whose caches count into
// dry the offers that found no session (nil otherwise).
func watchDry(clients []*tls.Config, dry *atomic.Int64) []*tls.Config {
	out := make([]*tls.Config, len(clients))
	for i, c := range clients {
		out[i] = c.Clone()
		out[i].ClientSessionCache = dryCache{c.ClientSessionCache, dry}
	}
	return out
}
