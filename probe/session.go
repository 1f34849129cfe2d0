package probe

import (
	"crypto/tls"
	"errors"
	"sync"
	"time"

	"golang.org/x/crypto/cryptobyte"
)

// recorder is the client session cache of one probe connection. It offers
// exactly the session it was given (or none) and keeps every session
// crypto/tls stores during the connection.
//
// Counting Put calls is how the probe counts TLS 1.3 tickets: crypto/tls
// stores one session per NewSessionTicket message it accepts, and those
// messages are encrypted, so they cannot be seen on the wire without the
// traffic secrets. crypto/tls drops tickets whose lifetime is 0 ("do not
// use") before storing them; such tickets are not counted.
type recorder struct {
	mu          sync.Mutex
	offer       *tls.ClientSessionState
	gets        int
	puts        []*tls.ClientSessionState
	invalidated bool
	// clock is the connection's (nil: the real one); skews says, for
	// each session stored, how far the real time at its receipt was
	// past the whole second crypto/tls recorded (see ticketSkew).
	clock func() time.Time
	skews map[*tls.ClientSessionState]time.Duration
}

func (r *recorder) Get(string) (*tls.ClientSessionState, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.gets++
	return r.offer, r.offer != nil
}

func (r *recorder) Put(_ string, cs *tls.ClientSessionState) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if cs == nil {
		// crypto/tls drops the offered session after a failed
		// resumption attempt.
		r.invalidated = true
		return
	}
	r.puts = append(r.puts, cs)
	if r.skews == nil {
		r.skews = make(map[*tls.ClientSessionState]time.Duration)
	}
	clock := time.Now()
	if r.clock != nil {
		clock = r.clock()
	}
	r.skews[cs] = time.Since(time.Unix(clock.Unix(), 0))
}

// ticketSkew is how much older than it is crypto/tls will take the
// ticket of cs to be, in the connection that offers it: crypto/tls
// notes a ticket's receipt in whole seconds of the receiving
// connection's clock and reports its age (obfuscated_ticket_age) from
// that, up to a second too old with the real clock, more with a frozen
// one. A server may refuse early data for an age it knows is wrong
// (GnuTLS does when the client's age exceeds its own); the probe's
// connections that offer a ticket run that much behind, so that the
// age they report is the real one.
func (r *recorder) ticketSkew(cs *tls.ClientSessionState) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.skews[cs]
}

func (r *recorder) stored() []*tls.ClientSessionState {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*tls.ClientSessionState(nil), r.puts...)
}

// errSessionEncoding means crypto/tls's session encoding was not the one
// this parser knows; the lifetime is then reported as unknown rather than
// guessed.
var errSessionEncoding = errors.New("unrecognized crypto/tls session encoding")

// sessionTimes reads the creation time and, for TLS 1.3, the use-by time
// (creation plus the ticket's lifetime) of a client session.
//
// crypto/tls does not expose a ticket's lifetime, but it keeps it: a TLS
// 1.3 client session's use_by is the client's clock at receipt plus the
// ticket_lifetime of the NewSessionTicket message, and SessionState.Bytes
// encodes it, in a format documented in crypto/tls/ticket.go ("opaque and
// may change between Go versions"). The parse checks every length and the
// fields it can cross-check; on any mismatch it returns errSessionEncoding.
// TestTicketLifetimeGoServer pins it against crypto/tls's own server,
// whose lifetime is known (7 days).
func sessionTimes(cs *tls.ClientSessionState, version, suite uint16) (created, useBy uint64, err error) {
	_, st, err := cs.ResumptionState()
	if err != nil || st == nil {
		return 0, 0, errSessionEncoding
	}
	b, err := st.Bytes()
	if err != nil {
		return 0, 0, errSessionEncoding
	}
	r := cryptobyte.String(b)
	var (
		v, cipher         uint16
		typ, ems, early   uint8
		secret, alpn      cryptobyte.String
		extra, certs, vcs cryptobyte.String
		ageAdd            uint32
	)
	if !r.ReadUint16(&v) || !r.ReadUint8(&typ) || !r.ReadUint16(&cipher) || !r.ReadUint64(&created) ||
		!r.ReadUint8LengthPrefixed(&secret) || len(secret) == 0 || !r.ReadUint24LengthPrefixed(&extra) ||
		!r.ReadUint8(&ems) || ems > 1 || !r.ReadUint8(&early) || early > 1 ||
		!r.ReadUint24LengthPrefixed(&certs) || len(certs) == 0 || !r.ReadUint24LengthPrefixed(&vcs) {
		return 0, 0, errSessionEncoding
	}
	if v != version || typ != 2 || cipher != suite {
		return 0, 0, errSessionEncoding
	}
	if early == 1 && !r.ReadUint8LengthPrefixed(&alpn) {
		return 0, 0, errSessionEncoding
	}
	if v < tls.VersionTLS13 {
		return created, 0, nil
	}
	if !r.ReadUint64(&useBy) || !r.ReadUint32(&ageAdd) || useBy < created {
		return 0, 0, errSessionEncoding
	}
	return created, useBy, nil
}

// ticketLifetime is the lifetime a TLS 1.3 server announced for the ticket
// of cs, exact when the connection's clock was frozen (see connect).
func ticketLifetime(cs *tls.ClientSessionState, version, suite uint16) (uint32, error) {
	created, useBy, err := sessionTimes(cs, version, suite)
	if err != nil {
		return 0, err
	}
	d := useBy - created
	if d == 0 || time.Duration(d)*time.Second > 7*24*time.Hour {
		// crypto/tls ignores lifetime-0 tickets and rejects ones over
		// 7 days, so neither can be in a stored session.
		return 0, errSessionEncoding
	}
	return uint32(d), nil
}
