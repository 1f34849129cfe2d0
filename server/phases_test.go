package server

import (
	"crypto/tls"
	"testing"

	"github.com/tlsbench/tlsbench/stats"
)

// counts decodes c's phase histograms into their counts; a phase absent
// from c is -1.
func phaseCounts(t *testing.T, c Counters) map[string]int64 {
	t.Helper()
	out := map[string]int64{PhaseHandshake: -1, PhaseKey: -1, PhaseSessionStore: -1}
	for name, e := range c.Phases {
		l, err := stats.DecodeLatency(e)
		must(t, err)
		out[name] = l.Count()
	}
	return out
}

// TestServerPhaseCounts: the server times every completed handshake, its
// key manager in every handshake that asked it for a certificate (not a
// TLS 1.3 resumption), and each session store operation, for both
// stores; a failed handshake is not timed.
func TestServerPhaseCounts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		version uint16
		store   string
		// per full handshake then per resumed one: key manager calls
		// and session store operations
		fullKey, fullStore, resKey, resStore int64
	}{
		{tls.VersionTLS13, StoreTickets, 1, 1, 0, 2},
		{tls.VersionTLS13, StoreStateful, 1, 1, 0, 2},
		{tls.VersionTLS12, StoreTickets, 1, 1, 1, 1},
		{tls.VersionTLS12, StoreStateful, 1, 1, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tls.VersionName(tt.version)+"/"+tt.store, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			srv, addr := start(t, Options{Identities: []IdentityFiles{f.server}, SessionStore: tt.store})
			c := f.client(-1, tt.version)
			if resumed, err := c.connect(addr); err != nil || resumed {
				t.Fatalf("first connection: resumed %v, %v", resumed, err)
			}
			full := phaseCounts(t, srv.Counters())
			want := map[string]int64{PhaseHandshake: 1, PhaseKey: tt.fullKey, PhaseSessionStore: tt.fullStore}
			if full[PhaseHandshake] != 1 || full[PhaseKey] != tt.fullKey || full[PhaseSessionStore] < tt.fullStore {
				t.Fatalf("after a full handshake: %v, want %v", full, want)
			}
			if resumed, err := c.connect(addr); err != nil || !resumed {
				t.Fatalf("second connection: resumed %v, %v", resumed, err)
			}
			after := phaseCounts(t, srv.Counters())
			if after[PhaseHandshake]-full[PhaseHandshake] != 1 || after[PhaseKey]-full[PhaseKey] != tt.resKey ||
				after[PhaseSessionStore]-full[PhaseSessionStore] < tt.resStore {
				t.Errorf("a resumed handshake added %v to %v: want 1 handshake, %d key manager, at least %d store operations",
					after, full, tt.resKey, tt.resStore)
			}
			// A client that trusts nobody fails its handshake: not timed.
			bad := &tls.Config{ServerName: "localhost", MinVersion: tt.version, MaxVersion: tt.version}
			(&client{cfg: bad}).connect(addr)
			srv.settle()
			if got := phaseCounts(t, srv.Counters())[PhaseHandshake]; got != after[PhaseHandshake] {
				t.Errorf("a failed handshake was timed: %d, want %d", got, after[PhaseHandshake])
			}
		})
	}
}

// TestServerPhasesAbsentWithoutParts: a server from a plain tls.Config
// has no key manager and one with tickets off no session store: those
// phases are absent, not empty.
func TestServerPhasesAbsentWithoutParts(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	srv, _ := start(t, Options{Identities: []IdentityFiles{f.server}, DisableTickets: true})
	if got := phaseCounts(t, srv.Counters()); got[PhaseSessionStore] != -1 || got[PhaseKey] != 0 || got[PhaseHandshake] != 0 {
		t.Errorf("tickets off: %v, want no session store phase", got)
	}
	plain := New(&tls.Config{})
	if got := phaseCounts(t, plain.Counters()); got[PhaseKey] != -1 || got[PhaseSessionStore] != -1 || got[PhaseHandshake] != 0 {
		t.Errorf("plain configuration: %v, want the handshake phase only", got)
	}
}
