package proxy

import (
	"github.com/tlsbench/tlsbench/internal/counts"
	"sync"
	"sync/atomic"

	"github.com/tlsbench/tlsbench/internal/usage"
)

// Counters is a snapshot of what the proxy has done since it started.
type Counters struct {
	// Accepted counts TCP connections, Active those open now, Connects
	// the CONNECT requests answered 200.
	Accepted int64 `json:"accepted"`
	Active   int64 `json:"active"`
	Connects int64 `json:"connects"`
	// Refused counts requests answered with an error status, by reason
	// (RefusedMethod, RefusedPort, ...).
	Refused map[string]int64 `json:"refused,omitempty"`
	// ClientHandshakes and OriginHandshakes count the completed TLS
	// handshakes on each leg; ClientResumed and OriginResumed those of
	// them that resumed a session.
	ClientHandshakes int64 `json:"client_handshakes"`
	ClientResumed    int64 `json:"client_resumed"`
	OriginHandshakes int64 `json:"origin_handshakes"`
	OriginResumed    int64 `json:"origin_resumed"`
	// Failures counts failed connections by kind: "client:"/"origin:"
	// plus the handshake failure's kind, "relay:" plus an error's kind;
	// FailureSNIMismatch the client handshakes refused because the
	// client's SNI named another host than its CONNECT request.
	Failures map[string]int64 `json:"failures,omitempty"`
	// BytesToOrigin and BytesToClient are the payload bytes relayed each
	// way; UserSpaceBytes those of them that crossed user space (all of
	// them but what splice moved).
	BytesToOrigin  int64 `json:"bytes_to_origin"`
	BytesToClient  int64 `json:"bytes_to_client"`
	UserSpaceBytes int64 `json:"user_space_bytes"`
	// Relay counts relayed connections by the mode of each leg:
	// "client:user", "client:ktls", "client:splice", "origin:…".
	Relay map[string]int64 `json:"relay,omitempty"`
	// Fallbacks counts the legs that kernel TLS (Options.KTLS auto)
	// could not take and that were relayed in user space, by leg and
	// reason: "client:" or "origin:" plus FallbackTLS12Resumed, ...
	Fallbacks map[string]int64 `json:"fallbacks,omitempty"`
	// Mints counts certificates signed; MintHits and MintMisses the
	// lookups of the mint cache (a miss waits for a mint, its own or a
	// concurrent one for the same host).
	Mints      int64 `json:"mints"`
	MintHits   int64 `json:"mint_hits"`
	MintMisses int64 `json:"mint_misses"`
	// CPUNanos and AllocBytes are the whole proxy process's CPU time and
	// cumulative heap allocation; meaningful only when the proxy runs in
	// a process of its own.
	CPUNanos   int64  `json:"cpu_ns"`
	AllocBytes uint64 `json:"alloc_bytes"`
}

// Reasons of Counters.Refused.
const (
	RefusedSource    = "source"      // client not on loopback or --allow
	RefusedMethod    = "method"      // not CONNECT (405)
	RefusedMalformed = "malformed"   // not HTTP/1.x, or too long (400)
	RefusedPort      = "port"        // port not allowed (403)
	RefusedDest      = "destination" // destination address or name not allowed (403)
	RefusedMaxConns  = "max-conns"   // over the connection cap (503)
	RefusedOrigin    = "origin"      // origin unreachable or not trusted (502)
	RefusedTimeout   = "timeout"     // no complete request in time
	RefusedHostName  = "bad-host"    // CONNECT to something that is no host (400)
)

// FailureSNIMismatch is the Counters.Failures key of a client handshake
// refused because its SNI is not the CONNECT host.
const FailureSNIMismatch = "client:sni-mismatch"

// Sub returns the counts between earlier and c (Active is c's).
func (c Counters) Sub(earlier Counters) Counters {
	return Counters{
		Accepted:         c.Accepted - earlier.Accepted,
		Active:           c.Active,
		Connects:         c.Connects - earlier.Connects,
		Refused:          counts.Sub(c.Refused, earlier.Refused),
		ClientHandshakes: c.ClientHandshakes - earlier.ClientHandshakes,
		ClientResumed:    c.ClientResumed - earlier.ClientResumed,
		OriginHandshakes: c.OriginHandshakes - earlier.OriginHandshakes,
		OriginResumed:    c.OriginResumed - earlier.OriginResumed,
		Failures:         counts.Sub(c.Failures, earlier.Failures),
		BytesToOrigin:    c.BytesToOrigin - earlier.BytesToOrigin,
		BytesToClient:    c.BytesToClient - earlier.BytesToClient,
		UserSpaceBytes:   c.UserSpaceBytes - earlier.UserSpaceBytes,
		Relay:            counts.Sub(c.Relay, earlier.Relay),
		Fallbacks:        counts.Sub(c.Fallbacks, earlier.Fallbacks),
		Mints:            c.Mints - earlier.Mints,
		MintHits:         c.MintHits - earlier.MintHits,
		MintMisses:       c.MintMisses - earlier.MintMisses,
		CPUNanos:         c.CPUNanos - earlier.CPUNanos,
		AllocBytes:       c.AllocBytes - earlier.AllocBytes,
	}
}

// counters are the live counts behind Counters. The relay adds its
// bytes with one atomic add per write, so that a snapshot taken at an
// iteration boundary covers exactly the bytes moved before it.
type counters struct {
	accepted, active, connects                   atomic.Int64
	clientHS, clientResumed, originHS, originRes atomic.Int64
	toOrigin, toClient, userSpace                atomic.Int64

	mu       sync.Mutex
	refused  map[string]int64
	failures map[string]int64
	relay    map[string]int64
	fallback map[string]int64
}

func newCounters() *counters {
	return &counters{refused: map[string]int64{}, failures: map[string]int64{}, relay: map[string]int64{}, fallback: map[string]int64{}}
}

func (c *counters) add(m map[string]int64, key string) {
	c.mu.Lock()
	m[key]++
	c.mu.Unlock()
}

// snapshot returns the counts, with this process's CPU and allocations
// and the minter's counts.
func (c *counters) snapshot(m *minter) Counters {
	u := usage.Self()
	s := Counters{
		Accepted: c.accepted.Load(), Active: c.active.Load(), Connects: c.connects.Load(),
		ClientHandshakes: c.clientHS.Load(), ClientResumed: c.clientResumed.Load(),
		OriginHandshakes: c.originHS.Load(), OriginResumed: c.originRes.Load(),
		BytesToOrigin: c.toOrigin.Load(), BytesToClient: c.toClient.Load(), UserSpaceBytes: c.userSpace.Load(),
		CPUNanos: int64(u.CPU), AllocBytes: u.AllocBytes,
	}
	c.mu.Lock()
	s.Refused = counts.Clone(c.refused)
	s.Failures = counts.Clone(c.failures)
	s.Relay = counts.Clone(c.relay)
	s.Fallbacks = counts.Clone(c.fallback)
	c.mu.Unlock()
	s.Mints, s.MintHits, s.MintMisses = m.mints.Load(), m.hits.Load(), m.misses.Load()
	return s
}
