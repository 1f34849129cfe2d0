package client

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tlsbench/tlsbench/client/sessionid"
	"github.com/tlsbench/tlsbench/internal/connerr"
)

// IDSessions keeps the TLS 1.2 sessions that a case's connections resume
// by session ID (sessionid.Resume): up to size per client identity,
// scoped by the index of the client's configuration, so that a session
// made as one identity is never offered as another. It is safe for
// concurrent use, and so is a session offered by several connections at
// once. A session ID may be offered again and again: sessions are handed
// out in turn, whatever the ticket reuse setting says of tickets.
type IDSessions struct {
	size int

	mu     sync.Mutex
	scopes map[int]*idRing
	// groups are the key exchange groups of the sessions' full
	// handshakes, which their resumptions report as crypto/tls reports
	// a resumed session's.
	groups map[*sessionid.Session]tls.CurveID

	// noID counts the full handshakes whose server gave no session ID,
	// misses the resumptions it declined (it started a new session).
	noID, misses atomic.Int64
}

type idRing struct {
	sessions []*sessionid.Session // newest last
	next     int
}

// NewIDSessions returns a pool keeping up to size sessions per client
// (at least 1).
func NewIDSessions(size int) *IDSessions {
	return &IDSessions{size: max(size, 1), scopes: map[int]*idRing{}, groups: map[*sessionid.Session]tls.CurveID{}}
}

// Get is the next session of client's scope to offer, nil when it has
// none.
func (p *IDSessions) Get(client int) *sessionid.Session {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.scopes[client]
	if r == nil || len(r.sessions) == 0 {
		return nil
	}
	r.next %= len(r.sessions)
	s := r.sessions[r.next]
	r.next++
	return s
}

// Put keeps s, made with a key exchange of group, in client's scope, the
// oldest going once it is full.
func (p *IDSessions) Put(client int, s *sessionid.Session, group tls.CurveID) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.scopes[client]
	if r == nil {
		r = &idRing{}
		p.scopes[client] = r
	}
	if len(r.sessions) == p.size {
		delete(p.groups, r.sessions[0])
		r.sessions = slices.Delete(r.sessions, 0, 1)
	}
	r.sessions = append(r.sessions, s)
	p.groups[s] = group
}

// group is the key exchange group of s's full handshake.
func (p *IDSessions) group(s *sessionid.Session) tls.CurveID {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.groups[s]
}

// Drop forgets s, a session whose resumption failed: a server may drop
// a session after a failed resumption of it (OpenSSL does).
func (p *IDSessions) Drop(client int, s *sessionid.Session) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r := p.scopes[client]; r != nil {
		r.sessions = slices.DeleteFunc(r.sessions, func(x *sessionid.Session) bool { return x == s })
		delete(p.groups, s)
	}
}

// Len is how many sessions client's scope holds.
func (p *IDSessions) Len(client int) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r := p.scopes[client]; r != nil {
		return len(r.sessions)
	}
	return 0
}

// ErrNotResumed is a resumption by session ID that the server declined
// (see sessionid.ErrNotResumed): the connection is closed, and a full
// handshake on a new one replaces the session.
var ErrNotResumed = sessionid.ErrNotResumed

// IDState is what a handshake by ID gives a connection's sample.
type IDState struct {
	Resumed bool
	Cipher  uint16
	// Group is the key exchange's; of a resumed session, its full
	// handshake's, as crypto/tls reports it for a resumed tls.Conn.
	Group tls.CurveID
	// Dry says the connection was to offer a session and client's
	// scope had none: it made a full handshake instead.
	Dry bool
}

// Handshake runs the handshake of a connection whose case resumes by
// session ID on conn: with offer, sessionid.Resume with client's next
// session; otherwise, or when the scope has none, a full handshake
// (sessionid.Handshake, with cfg: no session ticket extension) whose
// session the scope keeps. A declined resumption is ErrNotResumed, with
// the session dropped (the server started a new one); any other failed
// resumption drops it too. conn's deadline bounds the handshake, which
// starts no goroutine of its own.
func (p *IDSessions) Handshake(conn net.Conn, cfg *tls.Config, client int, offer bool) (Conn, IDState, error) {
	var s *sessionid.Session
	if offer {
		s = p.Get(client)
	}
	if s == nil {
		tc, ns, err := sessionid.Handshake(context.Background(), conn, cfg)
		st := IDState{Dry: offer}
		switch {
		case errors.Is(err, sessionid.ErrNoSessionID):
			// A full handshake all the same: the server keeps nothing
			// to resume by ID.
			p.noID.Add(1)
			err = nil
		}
		if err != nil {
			return nil, st, err
		}
		cs := tc.ConnectionState()
		st.Cipher, st.Group = cs.CipherSuite, cs.CurveID
		if ns != nil {
			p.Put(client, ns, cs.CurveID)
		}
		return tc, st, nil
	}
	c, err := sessionid.Resume(context.Background(), conn, s)
	if err != nil {
		if errors.Is(err, sessionid.ErrNotResumed) {
			p.misses.Add(1)
		}
		p.Drop(client, s)
		return nil, IDState{}, err
	}
	return c, IDState{Resumed: true, Cipher: c.ConnectionState().CipherSuite, Group: p.group(s)}, nil
}

// Counts are the full handshakes that got no session ID and the
// resumptions the server declined, so far.
func (p *IDSessions) Counts() (noID, misses int64) { return p.noID.Load(), p.misses.Load() }

// Why says in one clause why the case's sessions did not resume by ID,
// from what its connections saw.
func (p *IDSessions) Why() string {
	noID, misses := p.Counts()
	switch {
	case misses > 0:
		return "the server did not resume the session ID (it started a new session; its session cache may be off, too small, or shorter-lived than the case)"
	case noID > 0:
		return "the server gave no session ID; it resumes by ticket only, if at all"
	}
	return "the server did not resume the session IDs offered"
}

// Notes say, for a case's record, how many of its full handshakes got no
// session ID and how many of its resumptions the server declined, over
// the whole case (priming and warm-up included); none for a nil p.
func (p *IDSessions) Notes() []string {
	if p == nil {
		return nil
	}
	var out []string
	noID, misses := p.Counts()
	if noID > 0 {
		out = append(out, fmt.Sprintf("%d full handshakes got no session ID from the server: it resumes by ticket only, if at all", noID))
	}
	if misses > 0 {
		out = append(out, fmt.Sprintf("the server did not resume %d session IDs offered (it started new sessions: each such connection made a full handshake on a new connection, counted as not resumed)", misses))
	}
	return out
}

// ErrKind is connerr's kind of a connection's error, with the failures
// of a resumption by session ID named as crypto/tls's are: a server's
// alert as "alert:" and its name.
func ErrKind(err error) string {
	var alert *sessionid.AlertError
	switch {
	case errors.As(err, &alert):
		return "alert:" + strings.TrimPrefix(tls.AlertError(alert.Alert).Error(), "tls: ")
	case errors.Is(err, sessionid.ErrBadFinished):
		return connerr.BadFinished
	case errors.Is(err, sessionid.ErrBadRecordMAC):
		return connerr.BadRecordMAC
	case errors.Is(err, sessionid.ErrUnsupportedSuite):
		return connerr.UnsupportedSuite
	}
	return connerr.Kind(err)
}
