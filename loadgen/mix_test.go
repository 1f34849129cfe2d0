package loadgen_test

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"errors"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tlsbench/tlsbench/internal/field"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// checkMix checks a mix's record against its share f of perIter
// connections in each of iters iterations: the client and the server
// count exactly the even spread's resumptions, and the parts add up.
func checkMix(t *testing.T, rec *results.Record, f float64, perIter, iters int) {
	t.Helper()
	want := int64(math.Floor(float64(perIter)*f+1e-9)) * int64(iters)
	if rec.Handshakes != int64(perIter*iters) {
		t.Fatalf("handshakes %d, want %d", rec.Handshakes, perIter*iters)
	}
	if rec.Resumed != want {
		t.Errorf("client resumed %d, want %d", rec.Resumed, want)
	}
	if rec.ServerResumed == nil || *rec.ServerResumed != want {
		t.Errorf("server resumed %v, want %d", rec.ServerResumed, want)
	}
	if rec.ResumeRatio == nil || *rec.ResumeRatio != f {
		t.Errorf("resume_ratio %v, want %g", rec.ResumeRatio, f)
	}
	full, resumed := rec.Parts[results.PartFull], rec.Parts[results.PartResumed]
	if full.Handshakes != rec.Handshakes-want || resumed.Handshakes != want {
		t.Errorf("parts: full %d, resumed %d; want %d and %d", full.Handshakes, resumed.Handshakes, rec.Handshakes-want, want)
	}
	for name, p := range rec.Parts {
		for _, ph := range []string{results.PhaseTotal, results.PhaseConnect, results.PhaseHandshake} {
			if got := p.Phases[ph].Count; got != p.Handshakes {
				t.Errorf("part %s phase %s counts %d, want its %d handshakes", name, ph, got, p.Handshakes)
			}
		}
	}
	if rec.Verdict != "" && !onlyScheduleMissed(rec) {
		t.Errorf("verdict %q: %v", rec.Verdict, rec.Notes)
	}
}

// onlyScheduleMissed reports whether an open-loop record failed only
// because the machine could not hold the schedule (see runOpen).
func onlyScheduleMissed(rec *results.Record) bool {
	failed := 0
	for _, n := range rec.Notes {
		if strings.HasPrefix(n, "failed: ") {
			if !strings.HasPrefix(n, "failed: the schedule was not held") {
				return false
			}
			failed++
		}
	}
	return rec.RateTarget != nil && failed > 0
}

// TestMixResumesItsShare runs mixes against the built-in server over
// loopback, TLS 1.2 and 1.3, at shares that do and do not divide an
// iteration: client and server both count the share in every iteration
// (the gate passed), and the totals are exact.
func TestMixResumesItsShare(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)
	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		for _, f := range []float64{0, 0.25, 0.5, 0.8, 1} {
			name := "mix-" + tlsconf.VersionName(v) + "-" + strconv.FormatFloat(f, 'f', -1, 64)
			t.Run(name, func(t *testing.T) {
				hc := s.handshakeCase(name, v, true, 4)
				hc.ResumeRatio = share(f)
				hc.Iterations = 3
				rec, err := loadgen.RunHandshakes(context.Background(), hc)
				if err != nil {
					t.Fatal(err)
				}
				checkMix(t, rec, f, 32, 3)
			})
		}
	}
}

// TestMixOpenLoop: a mix on a schedule resumes its share of each window.
func TestMixOpenLoop(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)
	hc := s.openCase("handshake/tls1.3/mix50/r200", tls.VersionTLS13, true, 200, 20)
	hc.ResumeRatio = share(0.5)
	hc.Iterations = 3
	rec := runOpen(t, hc)
	if rec.RateTarget == nil {
		t.Fatal("no rate_target: not an open-loop record")
	}
	checkMix(t, rec, 0.5, 20, 3)
}

// TestMixFailsWhenServerStopsResuming: a server that does not resume
// fails a mix's gate, in the warm-up (no record) or in the measured
// iterations (record kept, marked failed), and one whose ticket key
// rotates after every measured iteration fails it part-way.
func TestMixFailsWhenServerStopsResuming(t *testing.T) {
	t.Parallel()
	noTickets := startServer(t, func(c *tls.Config) { c.SessionTicketsDisabled = true })
	var rotating *tls.Config
	rotate := startServer(t, func(c *tls.Config) { rotating = c })
	var mu sync.Mutex
	newKey := func() {
		mu.Lock()
		defer mu.Unlock()
		var k [32]byte
		rand.Read(k[:])
		rotating.SetSessionTicketKeys([][32]byte{k})
	}
	for _, tt := range []struct {
		name    string
		s       *testServer
		warmup  int
		rotates bool
		why     string
	}{
		{"no-tickets-warmup", noTickets, 1, false, "the server issued fewer sessions than the mix uses"},
		{"no-tickets-measured", noTickets, 0, false, "the server issued fewer sessions than the mix uses"},
		{"rotated-key", rotate, 1, true, "the server did not resume every session offered"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			hc := tt.s.handshakeCase(tt.name, tls.VersionTLS13, true, 4)
			hc.ResumeRatio, hc.Warmup, hc.Iterations = share(0.5), tt.warmup, 3
			if tt.rotates {
				hc.Progress = func(p measure.Progress) {
					if !p.Warmup {
						newKey()
					}
				}
			}
			rec, err := loadgen.RunHandshakes(context.Background(), hc)
			var me *measure.MixError
			if !errors.As(err, &me) {
				t.Fatalf("error %v: want a MixError", err)
			}
			if msg := err.Error(); !strings.Contains(msg, "ResumeRatio 0.5") || !strings.Contains(msg, "want 16") || !strings.Contains(msg, tt.why) {
				t.Errorf("message %q should name the share asked for, the count wanted and %q", msg, tt.why)
			}
			if me.Warmup != (tt.warmup > 0 && !tt.rotates) {
				t.Errorf("warm-up %v, want %v", me.Warmup, !me.Warmup)
			}
			if me.Warmup {
				if rec != nil {
					t.Errorf("a warm-up failure wrote a record: %+v", rec)
				}
				return
			}
			if rec == nil || rec.Verdict != measure.VerdictFailed {
				t.Fatalf("record %+v: want it kept, marked failed", rec)
			}
			if tt.rotates && (len(me.Fell) == 0 || len(me.Fell) == 3 || me.Fell[0].Iteration == 1) {
				t.Errorf("fell %v: want the iterations after the first rotation, not the first", me.Fell)
			}
		})
	}
}

// undercounting is a server observer that reports none of the server's
// resumptions: the client's count alone cannot pass the gate.
type undercounting struct{ inProcess }

func (u undercounting) Snapshot() (measure.ServerSnapshot, error) {
	s, err := u.inProcess.Snapshot()
	s.Resumed = 0
	return s, err
}

// TestMixGateReadsTheServer: a mix the client sees resumed in its share
// still fails when the server's own count disagrees, in the warm-up (no
// record) as in the measured iterations (record kept, marked failed).
func TestMixGateReadsTheServer(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)
	for _, warmup := range []int{1, 0} {
		hc := s.handshakeCase("server-disagrees", tls.VersionTLS12, true, 2)
		hc.ResumeRatio, hc.Server, hc.Warmup = share(0.5), undercounting{inProcess{s.srv}}, warmup
		rec, err := loadgen.RunHandshakes(context.Background(), hc)
		var me *measure.MixError
		if !errors.As(err, &me) || me.Warmup != (warmup > 0) {
			t.Fatalf("warm-up %d: error %v: want a MixError from the warm-up exactly when there is one", warmup, err)
		}
		if (rec == nil) != me.Warmup || rec != nil && rec.Verdict != measure.VerdictFailed {
			t.Errorf("warm-up %d: record %+v: want none after a failed warm-up, else one marked failed", warmup, rec)
		}
		if n := len(me.Fell); n != 2-warmup || !me.Fell[0].Server || me.Fell[0].Resumed != 0 || me.Fell[0].Total != 32 {
			t.Errorf("warm-up %d: fell %+v: want every iteration, on the server's count of 0 of 32", warmup, me.Fell)
		}
		if !strings.Contains(err.Error(), "the server counted 0 of 32 resumed") {
			t.Errorf("message %q should say what the server counted", err)
		}
	}
}

// TestMixSettingsRefused: a share outside 0..1, or a mix without the
// clients' session caches, is refused by field before anything runs.
func TestMixSettingsRefused(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)
	for _, tt := range []struct {
		name   string
		f      float64
		resume bool
	}{
		{"above-one", 1.5, true},
		{"negative", -0.1, true},
		{"nan", math.NaN(), true},
		{"no-resume", 0.5, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			hc := s.handshakeCase(tt.name, tls.VersionTLS13, tt.resume, 1)
			hc.ResumeRatio = share(tt.f)
			_, err := loadgen.RunHandshakes(context.Background(), hc)
			var fe *field.Error
			if !errors.As(err, &fe) || fe.Field != "ResumeRatio" {
				t.Fatalf("error %v: want one naming ResumeRatio", err)
			}
		})
	}
}

// stingyCache is a client session cache that hands each session out once
// and stores only the first limit sessions it is given: a client whose
// sessions run out.
type stingyCache struct {
	mu       sync.Mutex
	sessions []*tls.ClientSessionState
	puts     int
	limit    int
}

func (c *stingyCache) Get(string) (*tls.ClientSessionState, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.sessions) == 0 {
		return nil, false
	}
	cs := c.sessions[len(c.sessions)-1]
	c.sessions = c.sessions[:len(c.sessions)-1]
	return cs, true
}

func (c *stingyCache) Put(_ string, cs *tls.ClientSessionState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cs != nil && c.puts < c.limit {
		c.puts++
		c.sessions = append(c.sessions, cs)
	}
}

// TestMixThatRunsOutOfSessions: a mix whose client has no session left to
// offer fails its gate, and says that the client, not the server, fell
// short.
func TestMixThatRunsOutOfSessions(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)
	hc := s.handshakeCase("dry", tls.VersionTLS13, true, 4)
	co := tlsconf.ClientOptions{Version: tls.VersionTLS13, RootCAs: s.roots, ServerName: "localhost", Sessions: &stingyCache{limit: 4}}
	hc.Clients = []*tls.Config{tlsconf.Client(co)}
	hc.ResumeRatio, hc.Warmup = share(0.5), 0
	rec, err := loadgen.RunHandshakes(context.Background(), hc)
	var me *measure.MixError
	if !errors.As(err, &me) || rec == nil || rec.Verdict != measure.VerdictFailed {
		t.Fatalf("record %v, error %v: want the record marked failed and a MixError", rec, err)
	}
	// The 4 primed sessions serve the first 4 offers; the other 12 of
	// the first iteration find none.
	if f := me.Fell[0]; f.Iteration != 1 || f.Resumed != 4 || f.Dry != 12 {
		t.Errorf("fell %+v: want iteration 1 with 4 resumed and 12 offers that found no session", f)
	}
	for _, want := range []string{"12 connections had no session to offer", "the client had no session to offer for some connections"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
}
