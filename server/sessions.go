package server

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tlsbench/tlsbench/stats"
)

// Session stores: where the server keeps what it needs to resume a
// session.
const (
	// StoreTickets keeps nothing: the session state travels in an
	// encrypted ticket (Go's default, stateless and reusable).
	StoreTickets = "tickets"
	// StoreStateful keeps sessions in a bounded server-side store; the
	// ticket is only an opaque random id, and each id can be used once
	// (as OpenSSL's stateful TLS 1.3 tickets and anti-replay caches do).
	StoreStateful = "stateful"
)

// thumbprintTag prefixes the client certificate's SHA-256 thumbprint in a
// session's Extra data, so that every session records the identity it was
// established with.
var thumbprintTag = []byte("tlsbench-client-sha256:")

// sessionPolicy implements WrapSession and UnwrapSession: it records the
// client identity in every session, keeps sessions in the stateful store
// when configured, reloads shared ticket keys, and declines sessions of
// revoked certificates.
type sessionPolicy struct {
	cfg        *tls.Config
	store      *statefulStore // nil with StoreTickets
	revoked    *revocationList
	ticketKeys *watchedFile
	earlyData  *earlyData // what resumptions over QUIC do with early data

	declinedRevoked atomic.Int64
	// Sessions not resumed because the server could not use what the
	// client offered, by cause: a ticket it cannot decrypt (its key was
	// rotated away, or it was never this server's), a stateful id that
	// was evicted for room, one past its time to live, and one the store
	// never had or had already resumed once (single use).
	declinedUndecryptable atomic.Int64
	declinedEvicted       atomic.Int64
	declinedExpired       atomic.Int64
	declinedUnknown       atomic.Int64

	// storeTime is the time of each wrap and unwrap that did work
	// (Counters.Phases).
	storeTime stats.Latency
}

// declined returns the counts of refused sessions by reason, for
// Counters.Declined.
func (p *sessionPolicy) declined() map[string]int64 {
	return map[string]int64{
		DeclinedRevoked: p.declinedRevoked.Load(), DeclinedUndecryptable: p.declinedUndecryptable.Load(),
		DeclinedEvicted: p.declinedEvicted.Load(), DeclinedExpired: p.declinedExpired.Load(),
		DeclinedUnknown: p.declinedUnknown.Load(),
	}
}

// Reasons in Counters.Declined.
const (
	DeclinedRevoked       = "revoked"       // the session's client certificate is revoked
	DeclinedUndecryptable = "undecryptable" // a ticket under a key the server does not have
	DeclinedEvicted       = "evicted"       // a stateful id dropped to make room
	DeclinedExpired       = "expired"       // a stateful id past its time to live
	DeclinedUnknown       = "unknown"       // a stateful id never issued or already used
)

func (p *sessionPolicy) wrap(cs tls.ConnectionState, ss *tls.SessionState) ([]byte, error) {
	defer p.timeStore(time.Now())
	if len(cs.PeerCertificates) > 0 {
		sum := sha256.Sum256(cs.PeerCertificates[0].Raw)
		ss.Extra = append(ss.Extra, append(append([]byte(nil), thumbprintTag...), sum[:]...))
	}
	if p.ticketKeys != nil {
		p.ticketKeys.maybeReload()
	}
	p.earlyData.stamp(ss)
	if p.store == nil {
		return p.cfg.EncryptTicket(cs, ss)
	}
	state, err := ss.Bytes()
	if err != nil {
		return nil, err
	}
	id := make([]byte, 32)
	if _, err := rand.Read(id); err != nil {
		return nil, err
	}
	p.store.put(string(id), state)
	return id, nil
}

func (p *sessionPolicy) unwrap(identity []byte, cs tls.ConnectionState) (*tls.SessionState, error) {
	if len(identity) == 0 {
		// crypto/tls asks with an empty TLS 1.2 ticket when the client
		// offered none: nothing was declined.
		return nil, nil
	}
	defer p.timeStore(time.Now())
	var ss *tls.SessionState
	if p.store == nil {
		if p.ticketKeys != nil {
			p.ticketKeys.maybeReload()
		}
		if ss, _ = p.cfg.DecryptTicket(identity, cs); ss == nil {
			p.declinedUndecryptable.Add(1)
			return nil, nil // a full handshake instead
		}
	} else {
		state, why := p.store.take(string(identity))
		if state != nil {
			ss, _ = tls.ParseSessionState(state)
		}
		if ss == nil {
			p.countDeclined(why)
			return nil, nil
		}
	}
	if p.revoked != nil {
		if thumb, ok := sessionThumbprint(ss); ok && p.revoked.isRevoked(thumb) {
			p.declinedRevoked.Add(1)
			return nil, nil
		}
	}
	if ss.EarlyData {
		// A ticket issued over QUIC: the session resumes either way;
		// the policy says whether its early data is accepted.
		ss.EarlyData = p.earlyData.allow(identity, ss, p.store != nil)
	}
	return ss, nil
}

// countDeclined counts a stateful id the store could not resume.
func (p *sessionPolicy) countDeclined(why string) {
	switch why {
	case DeclinedEvicted:
		p.declinedEvicted.Add(1)
	case DeclinedExpired:
		p.declinedExpired.Add(1)
	default:
		p.declinedUnknown.Add(1)
	}
}

// sessionThumbprint returns the client thumbprint a session recorded.
func sessionThumbprint(ss *tls.SessionState) ([32]byte, bool) {
	for _, e := range ss.Extra {
		if rest, ok := bytes.CutPrefix(e, thumbprintTag); ok && len(rest) == 32 {
			return [32]byte(rest), true
		}
	}
	return [32]byte{}, false
}

// verifyNotRevoked is the server's VerifyConnection: a revoked client
// certificate fails its full handshake (and any resumption that slipped
// through).
func (p *sessionPolicy) verifyNotRevoked(cs tls.ConnectionState) error {
	if p.revoked == nil || len(cs.PeerCertificates) == 0 {
		return nil
	}
	if thumb := sha256.Sum256(cs.PeerCertificates[0].Raw); p.revoked.isRevoked(thumb) {
		return &revokedError{thumb: thumb, cert: cs.PeerCertificates[0]}
	}
	return nil
}

type revokedError struct {
	thumb [32]byte
	cert  *x509.Certificate // for the log line
}

func (e *revokedError) Error() string {
	return "client certificate " + hex.EncodeToString(e.thumb[:]) + " is revoked"
}

// statefulStore is a bounded map of session states with a time to live;
// the oldest entry goes first when it is full.
type statefulStore struct {
	capacity int
	ttl      time.Duration
	now      func() time.Time

	mu      sync.Mutex
	entries map[string]storeEntry
	order   []string // insertion order, for eviction; may hold taken ids
	// evicted remembers the ids most recently dropped for room (at most
	// capacity of them, oldest first out), so that a client offering one
	// is told it was evicted rather than unknown.
	evicted      map[string]bool
	evictedOrder []string
}

type storeEntry struct {
	state   []byte
	expires time.Time
}

func newStatefulStore(capacity int, ttl time.Duration) *statefulStore {
	return &statefulStore{capacity: capacity, ttl: ttl, now: time.Now, entries: make(map[string]storeEntry), evicted: make(map[string]bool)}
}

func (s *statefulStore) put(id string, state []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.entries) >= s.capacity && len(s.order) > 0 {
		if _, live := s.entries[s.order[0]]; live {
			delete(s.entries, s.order[0])
			s.remember(s.order[0])
		}
		s.order = s.order[1:]
	}
	// Compact the order list when taken ids dominate it.
	if len(s.order) > 2*s.capacity {
		live := s.order[:0]
		for _, k := range s.order {
			if _, ok := s.entries[k]; ok {
				live = append(live, k)
			}
		}
		s.order = live
	}
	s.entries[id] = storeEntry{state: state, expires: s.now().Add(s.ttl)}
	s.order = append(s.order, id)
}

// remember records an evicted id, forgetting the oldest beyond capacity.
func (s *statefulStore) remember(id string) {
	s.evicted[id] = true
	s.evictedOrder = append(s.evictedOrder, id)
	for len(s.evictedOrder) > s.capacity {
		delete(s.evicted, s.evictedOrder[0])
		s.evictedOrder = s.evictedOrder[1:]
	}
}

// take removes and returns a live session, or nil and why not
// (DeclinedEvicted, DeclinedExpired or DeclinedUnknown): each id resumes
// at most once.
func (s *statefulStore) take(id string) ([]byte, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.entries[id]
	if !ok {
		if s.evicted[id] {
			delete(s.evicted, id)
			return nil, DeclinedEvicted
		}
		return nil, DeclinedUnknown
	}
	delete(s.entries, id)
	if s.now().After(e.expires) {
		return nil, DeclinedExpired
	}
	return e.state, ""
}

func (s *statefulStore) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.entries)
}

// IdentityKey is the short form of a client certificate's thumbprint used
// in Counters.Identities: the first 8 bytes of its SHA-256, in hex.
func IdentityKey(cert *x509.Certificate) string {
	sum := sha256.Sum256(cert.Raw)
	return hex.EncodeToString(sum[:8])
}
