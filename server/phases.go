package server

import (
	"time"

	"github.com/tlsbench/tlsbench/stats"
)

// The server times its own part of each handshake, for the client's
// report of where a handshake's time goes. The histograms are cumulative
// since the server started and travel in its counters (Counters.Phases),
// so that the client can difference them at its iteration boundaries as
// it does the counts: what a warm-up or a discarded iteration recorded
// is left out, and nothing is sent per connection.

// Phase names in Counters.Phases.
const (
	// PhaseHandshake: from the connection's accept to the end of the
	// server's handshake, per completed handshake.
	PhaseHandshake = "handshake"
	// PhaseKey: the key manager's time within a completed handshake
	// (choosing the identity, and reading and decrypting its key with
	// the key cache off), per handshake that asked it for a certificate.
	PhaseKey = "key"
	// PhaseSessionStore: the time of one session store operation (a
	// ticket sealed or opened, a stateful session stored or taken), per
	// operation: crypto/tls does not say which connection they are for.
	PhaseSessionStore = "session_store"
)

// phases are the server's cumulative phase histograms.
type phases struct {
	handshake, key stats.Latency
}

// AddKeyTime implements keys.KeyTimer: the key manager's time for this
// handshake, summed over its calls.
func (c *handshakeConn) AddKeyTime(d time.Duration) {
	c.keyTime += d
	c.keyUsed = true
}

// recordPhases adds a completed handshake that started at accepted.
func (s *Server) recordPhases(hc *handshakeConn, accepted time.Time) {
	s.phases.handshake.Record(time.Since(accepted))
	if hc.keyUsed {
		s.phases.key.Record(hc.keyTime)
	}
}

// encodedPhases returns the phase histograms the server keeps, encoded
// (stats.Latency.Encode): the key manager's only when the server has one,
// the session store's only when it resumes sessions.
func (s *Server) encodedPhases() map[string]string {
	out := map[string]string{}
	add := func(name string, l *stats.Latency) {
		if e, err := l.Encode(); err == nil {
			out[name] = e
		}
	}
	add(PhaseHandshake, &s.phases.handshake)
	if s.km != nil {
		add(PhaseKey, &s.phases.key)
	}
	if s.policy != nil {
		add(PhaseSessionStore, &s.policy.storeTime)
	}
	return out
}

// timeStore records a session store operation that started at start.
func (p *sessionPolicy) timeStore(start time.Time) {
	p.storeTime.Record(time.Since(start))
}
