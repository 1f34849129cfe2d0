package server

import (
	"crypto/tls"
	"testing"
	"time"
)

// TestEarlyDataSingleUse: under single-use, a stamped ticket's early data
// is allowed on its first use only, not when it is older than the
// window, not unstamped, and refused rather than forgotten when the
// memory is full; a remembered ticket is forgotten once its window has
// passed, when it could no longer be accepted anyway.
func TestEarlyDataSingleUse(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_000_000, 0)
	e := newEarlyData(EarlyDataSingleUse)
	e.now = func() time.Time { return now }
	e.seen = newReplayCache(2)
	ticket := func(issued time.Time) *tls.SessionState {
		ss := &tls.SessionState{EarlyData: true}
		e.now = func() time.Time { return issued }
		e.stamp(ss)
		e.now = func() time.Time { return now }
		return ss
	}
	steps := []struct {
		name     string
		identity string
		ss       *tls.SessionState
		want     bool
	}{
		{"first use", "a", ticket(now), true},
		{"replay", "a", ticket(now), false},
		{"another ticket", "b", ticket(now.Add(-time.Second)), true},
		{"older than the window", "c", ticket(now.Add(-earlyDataWindow - time.Second)), false},
		{"unstamped", "d", &tls.SessionState{EarlyData: true}, false},
		{"memory full", "e", ticket(now), false},
	}
	for _, s := range steps {
		if got := e.allow([]byte(s.identity), s.ss, false); got != s.want {
			t.Errorf("%s: allowed %v, want %v", s.name, got, s.want)
		}
	}
	if got := e.allow([]byte("a"), ticket(now), true); !got {
		t.Error("a stateful id (single use by itself) was refused")
	}
	now = now.Add(earlyDataWindow + time.Second)
	if got := e.allow([]byte("f"), ticket(now), false); !got || len(e.seen.seen) != 1 {
		t.Errorf("after the window: allowed %v with %d remembered, want allowed with the expired ones forgotten", got, len(e.seen.seen))
	}
}

// TestEarlyDataPolicies: accept and reject decide alone, and stamp
// nothing; no policy is single-use.
func TestEarlyDataPolicies(t *testing.T) {
	t.Parallel()
	if e := newEarlyData(""); e.policy != EarlyDataSingleUse || e.seen == nil {
		t.Errorf("no policy is %q, want %q with its memory of tickets", e.policy, EarlyDataSingleUse)
	}
	for policy, want := range map[string]bool{EarlyDataAccept: true, EarlyDataReject: false} {
		e := newEarlyData(policy)
		ss := &tls.SessionState{EarlyData: true}
		e.stamp(ss)
		if len(ss.Extra) != 0 || e.allow([]byte("x"), ss, false) != want || e.allow([]byte("x"), ss, false) != want {
			t.Errorf("policy %q: extra %q, want none and allowed %v every time", policy, ss.Extra, want)
		}
	}
}
