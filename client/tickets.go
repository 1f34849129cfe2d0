package client

import (
	"crypto/tls"
	"sync"
)

// ticketUse wraps a client session cache to count how often each session
// is offered. Against a server whose tickets are single-use, the sessions
// offered for the first time resume and those offered again do not: the
// counts tell that apart from a server that declines at random, without
// the server's own counts.
type ticketUse struct {
	tls.ClientSessionCache
	mu        sync.Mutex
	offered   map[*tls.ClientSessionState]bool
	firstUses int64
	reuses    int64
}

// TrackTicketUse returns copies of clients whose session caches count
// ticket use.
func TrackTicketUse(clients []*tls.Config) []*tls.Config {
	out := make([]*tls.Config, len(clients))
	for i, c := range clients {
		out[i] = c.Clone()
		out[i].ClientSessionCache = &ticketUse{ClientSessionCache: c.ClientSessionCache, offered: map[*tls.ClientSessionState]bool{}}
	}
	return out
}

func (t *ticketUse) Get(key string) (*tls.ClientSessionState, bool) {
	cs, ok := t.ClientSessionCache.Get(key)
	if ok && cs != nil {
		t.mu.Lock()
		if t.offered[cs] {
			t.reuses++
		} else {
			t.offered[cs] = true
			t.firstUses++
		}
		t.mu.Unlock()
	}
	return cs, ok
}

// TicketCounts sums the first uses and reuses of the tracked caches of
// clients (zero without tracking).
func TicketCounts(clients []*tls.Config) (first, again int64) {
	for _, c := range clients {
		if t, ok := c.ClientSessionCache.(*ticketUse); ok {
			t.mu.Lock()
			first += t.firstUses
			again += t.reuses
			t.mu.Unlock()
		}
	}
	return first, again
}
