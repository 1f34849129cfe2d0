package server

import (
	"bytes"
	"crypto/sha256"
	"crypto/tls"
	"encoding/binary"
	"sync"
	"time"
)

// Early data (0-RTT) is decided where the session is: crypto/tls asks
// UnwrapSession for the session of the client's ticket, and accepts the
// early data the client sent only when the session it gets back allows
// it (SessionState.EarlyData), QUIC's own checks agreeing (quic-go's:
// the transport parameters the ticket remembers still hold). The tickets
// the server issues over QUIC always allow early data, whatever the
// policy, so that clients offer it; the policy then says yes or no per
// resumption. Over TCP, Go's server never accepts early data and its
// tickets never allow it: the policy has nothing to decide there.

// earlyDataWindow is how old a ticket may be for its early data to be
// accepted under EarlyDataSingleUse, and so how long the server must
// remember each ticket whose early data it accepted: a replay of an
// older ticket is refused for its age, a younger one for being
// remembered. One minute covers a benchmark's resumptions, which use
// each ticket within the iteration that received it.
const earlyDataWindow = time.Minute

// earlyDataMemory bounds the tickets remembered at once (about 120 MB
// of heap when full, measured): over a million 0-RTT resumptions a
// minute, far above
// what a handshake server reaches on a few cores. When it is full the
// server refuses early data rather than forget a ticket.
const earlyDataMemory = 1 << 20

// issuedTag prefixes the time a ticket was issued (Unix nanoseconds, big
// endian) in a session's Extra data, under EarlyDataSingleUse: a ticket
// does not say its age to the server otherwise (crypto/tls keeps the
// creation time it seals to itself).
var issuedTag = []byte("tlsbench-issued:")

// earlyData is the server's early-data policy.
type earlyData struct {
	policy string // EarlyDataAccept, EarlyDataReject or EarlyDataSingleUse
	seen   *replayCache
	now    func() time.Time
}

func newEarlyData(policy string) *earlyData {
	if policy == "" {
		// Refusing replays is the safe default (nginx and quic-go ship
		// with 0-RTT off): accept is a lab's explicit choice.
		policy = EarlyDataSingleUse
	}
	e := &earlyData{policy: policy, now: time.Now}
	if policy == EarlyDataSingleUse {
		e.seen = newReplayCache(earlyDataMemory)
	}
	return e
}

// stamp adds the issue time to a session that allows early data, when
// the policy needs it.
func (e *earlyData) stamp(ss *tls.SessionState) {
	if e == nil || e.seen == nil || !ss.EarlyData {
		return
	}
	tag := binary.BigEndian.AppendUint64(append([]byte(nil), issuedTag...), uint64(e.now().UnixNano()))
	ss.Extra = append(ss.Extra, tag)
}

// allow says whether the session of ticket identity may carry early
// data; stateful is true when the identity is a stateful store's id,
// which resumes once at most and so cannot be replayed.
func (e *earlyData) allow(identity []byte, ss *tls.SessionState, stateful bool) bool {
	switch {
	case e == nil || e.policy == EarlyDataAccept:
		return true
	case e.policy == EarlyDataReject:
		return false
	case stateful:
		return true
	}
	issued, ok := sessionIssued(ss)
	now := e.now()
	if !ok || now.Sub(issued) > earlyDataWindow || now.Before(issued.Add(-earlyDataWindow)) {
		return false // too old to tell from a replay, or never stamped
	}
	return e.seen.firstUse(identity, issued.Add(earlyDataWindow), now)
}

// sessionIssued returns the issue time stamp added.
func sessionIssued(ss *tls.SessionState) (time.Time, bool) {
	for _, x := range ss.Extra {
		if rest, ok := bytes.CutPrefix(x, issuedTag); ok && len(rest) == 8 {
			return time.Unix(0, int64(binary.BigEndian.Uint64(rest))), true
		}
	}
	return time.Time{}, false
}

// replayCache remembers the tickets whose early data was accepted, each
// until its expiry, capacity at most: the anti-replay memory of RFC 8446
// section 8, keyed by ticket rather than by ClientHello (crypto/tls does
// not show the server the ClientHello's bytes, and a replayed flight
// carries the same ticket anyway).
type replayCache struct {
	capacity int

	mu    sync.Mutex
	seen  map[uint64]time.Time // ticket digest → expiry
	order []replayEntry        // insertion order, for expiry
}

type replayEntry struct {
	key     uint64
	expires time.Time
}

func newReplayCache(capacity int) *replayCache {
	return &replayCache{capacity: capacity, seen: make(map[uint64]time.Time)}
}

// firstUse records identity until expires and reports whether it was
// new. It reports false when the cache is full of unexpired tickets.
// The digest is 64 bits of SHA-256: a collision among a million tickets
// is out of reach, and would only refuse early data, never accept a
// replay.
func (r *replayCache) firstUse(identity []byte, expires, now time.Time) bool {
	sum := sha256.Sum256(identity)
	key := binary.BigEndian.Uint64(sum[:8])
	r.mu.Lock()
	defer r.mu.Unlock()
	r.expire(now)
	if exp, ok := r.seen[key]; ok && now.Before(exp) {
		return false
	}
	if len(r.seen) >= r.capacity {
		return false
	}
	r.seen[key] = expires
	r.order = append(r.order, replayEntry{key, expires})
	return true
}

// expire forgets the oldest entries that have expired. Entries expire
// roughly in insertion order (each a fixed window after its ticket was
// issued); one that outlives those after it only delays their removal.
func (r *replayCache) expire(now time.Time) {
	n := 0
	for n < len(r.order) && !now.Before(r.order[n].expires) {
		if exp, ok := r.seen[r.order[n].key]; ok && !now.Before(exp) {
			delete(r.seen, r.order[n].key)
		}
		n++
	}
	// Reslicing drops them without copying the rest; append moves the
	// live entries to a new array when it needs room.
	r.order = r.order[n:]
}
