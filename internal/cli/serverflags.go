package cli

import (
	"time"

	"github.com/tlsbench/tlsbench/server"
)

// serverFlags are the built-in server's flags. One definition serves
// `tlsbench serve` and `tlsbench run` (for the server run starts), so the
// two cannot drift apart.
type serverFlags struct {
	listen           string
	mutual           bool
	sessionStore     string
	sessionCapacity  int
	sessionTTL       time.Duration
	ticketKeys       string
	revoked          string
	handshakeTimeout time.Duration
}

func defineServerFlags(fs *flagSet, defaultListen string) *serverFlags {
	f := &serverFlags{}
	fs.StringVar(&f.listen, "listen", defaultListen, "TCP `address` the built-in server listens on")
	fs.BoolVar(&f.mutual, "mutual", false, "require and verify client certificates (mutual TLS)")
	fs.StringVar(&f.sessionStore, "session-store", server.StoreTickets,
		"server session store: tickets (stateless, reusable) or stateful (server-side, single-use ids)")
	fs.IntVar(&f.sessionCapacity, "session-capacity", server.DefaultSessionCapacity, "sessions the stateful store keeps")
	fs.DurationVar(&f.sessionTTL, "session-ttl", server.DefaultSessionTTL, "lifetime of a session in the stateful store")
	fs.StringVar(&f.ticketKeys, "ticket-keys", "", "`FILE` of session ticket keys (64 hex digits a line; first encrypts, all decrypt; re-read on change)")
	fs.StringVar(&f.revoked, "revoked", "", "`FILE` of revoked client certificate SHA-256 thumbprints (hex, one a line; re-read on change)")
	fs.DurationVar(&f.handshakeTimeout, "handshake-timeout", 10*time.Second, "server's limit for one handshake")
	return f
}

// apply copies the flags into o and validates them.
func (f *serverFlags) apply(o *server.Options) error {
	o.Listen = f.listen
	o.Mutual = f.mutual
	o.SessionStore = f.sessionStore
	o.SessionCapacity = f.sessionCapacity
	o.SessionTTL = f.sessionTTL
	o.TicketKeysFile = f.ticketKeys
	o.RevokedFile = f.revoked
	o.HandshakeTimeout = f.handshakeTimeout
	if f.sessionCapacity < 1 {
		return usagef("--session-capacity %d: must be at least 1", f.sessionCapacity)
	}
	if f.sessionTTL <= 0 {
		return usagef("--session-ttl %v: must be positive", f.sessionTTL)
	}
	if f.handshakeTimeout <= 0 {
		return usagef("--handshake-timeout %v: must be positive", f.handshakeTimeout)
	}
	for flag, path := range map[string]string{"--ticket-keys": f.ticketKeys, "--revoked": f.revoked} {
		if path != "" && !fileExists(path) {
			return usagef("%s %s: no such file", flag, path)
		}
	}
	if f.revoked != "" && !f.mutual {
		return usagef("--revoked applies to client certificates: add --mutual")
	}
	return nil
}
