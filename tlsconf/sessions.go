package tlsconf

import (
	"crypto/tls"
	"fmt"
	"sync"
)

// TicketReuse says whether a cached session may be offered more than once.
type TicketReuse int

const (
	// ReuseMulti offers a cached session again and again (servers with
	// stateless, reusable tickets, such as Go's and OpenSSL's defaults).
	ReuseMulti TicketReuse = iota
	// ReuseSingle takes a session out of the pool when it is offered, for
	// servers that issue single-use tickets (anti-replay stores).
	ReuseSingle
)

// ParseTicketReuse parses "multi" or "single".
func ParseTicketReuse(s string) (TicketReuse, error) {
	switch s {
	case "multi":
		return ReuseMulti, nil
	case "single":
		return ReuseSingle, nil
	}
	return 0, fmt.Errorf("unknown ticket reuse %q (valid: multi, single)", s)
}

func (r TicketReuse) String() string {
	if r == ReuseSingle {
		return "single"
	}
	return "multi"
}

// SessionPool is a client session cache that keeps up to Size sessions per
// key, so that the concurrent handshakes of a wave each find a session. It
// is safe for concurrent use. Use Scoped to get the tls.ClientSessionCache
// for one client identity.
type SessionPool struct {
	size  int
	reuse TicketReuse

	mu    sync.Mutex
	pools map[string]*ring
}

// ring holds the sessions of one key, newest last.
type ring struct {
	sessions []*tls.ClientSessionState
	next     int // round-robin position for ReuseMulti
}

// NewSessionPool returns a pool keeping up to size sessions per key (at
// least 1).
func NewSessionPool(size int, reuse TicketReuse) *SessionPool {
	if size < 1 {
		size = 1
	}
	return &SessionPool{size: size, reuse: reuse, pools: make(map[string]*ring)}
}

// Scoped returns the session cache seen by connections that present the
// identity named by scope (for example the client certificate's SHA-256
// thumbprint; "" for connections without a certificate). Sessions stored
// through one scope are never returned through another.
func (p *SessionPool) Scoped(scope string) tls.ClientSessionCache {
	return scopedCache{pool: p, scope: scope}
}

// Len reports how many sessions the pool holds for scope and the
// connection cache key (server name or address).
func (p *SessionPool) Len(scope, key string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r := p.pools[poolKey(scope, key)]; r != nil {
		return len(r.sessions)
	}
	return 0
}

// poolKey joins scope and key unambiguously: a scope is a hex thumbprint
// or empty, and neither contains a NUL byte.
func poolKey(scope, key string) string { return scope + "\x00" + key }

func (p *SessionPool) get(k string) (*tls.ClientSessionState, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.pools[k]
	if r == nil || len(r.sessions) == 0 {
		return nil, false
	}
	if p.reuse == ReuseSingle {
		// Newest first: it has the longest lifetime left.
		last := len(r.sessions) - 1
		cs := r.sessions[last]
		r.sessions[last] = nil
		r.sessions = r.sessions[:last]
		return cs, true
	}
	r.next %= len(r.sessions)
	cs := r.sessions[r.next]
	r.next++
	return cs, true
}

func (p *SessionPool) put(k string, cs *tls.ClientSessionState) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if cs == nil {
		// crypto/tls asks to forget the key's entry after a handshake
		// that offered a session failed (a timeout, say) or when a
		// session expired. Which session it means cannot be told, and
		// dropping the whole scope would turn the next wave into full
		// handshakes at random; fresh sessions push out the old ones
		// instead, and crypto/tls itself skips an expired one it is
		// offered.
		return
	}
	r := p.pools[k]
	if r == nil {
		r = &ring{}
		p.pools[k] = r
	}
	if len(r.sessions) == p.size {
		copy(r.sessions, r.sessions[1:])
		r.sessions = r.sessions[:p.size-1]
	}
	r.sessions = append(r.sessions, cs)
}

type scopedCache struct {
	pool  *SessionPool
	scope string
}

func (c scopedCache) Get(key string) (*tls.ClientSessionState, bool) {
	return c.pool.get(poolKey(c.scope, key))
}

func (c scopedCache) Put(key string, cs *tls.ClientSessionState) {
	c.pool.put(poolKey(c.scope, key), cs)
}
