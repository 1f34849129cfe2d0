package loadgen_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/field"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/stats"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// dialLog records which side dialed each connection, in order.
type dialLog struct {
	mu    sync.Mutex
	sides []string
	// onDial, when set, is called with the side and its count of dials
	// so far, before the dial.
	onDial func(side string, n int)
}

// loggedDialer dials through Dialer and logs its side's dials.
type loggedDialer struct {
	client.Dialer
	side string
	log  *dialLog
}

func (d loggedDialer) Dial(ctx context.Context, deadline time.Time) (net.Conn, error) {
	d.log.mu.Lock()
	d.log.sides = append(d.log.sides, d.side)
	n := 0
	for _, s := range d.log.sides {
		if s == d.side {
			n++
		}
	}
	on := d.log.onDial
	d.log.mu.Unlock()
	if on != nil {
		on(d.side, n)
	}
	return d.Dialer.Dial(ctx, deadline)
}

// interleavedCase returns the sides of an interleaved case, one per
// server, their dials logged in log; Record.Side is left to
// RunInterleaved.
func interleavedCase(name string, log *dialLog, servers ...*testServer) []measure.HandshakeCase {
	sides := make([]measure.HandshakeCase, len(servers))
	for i, s := range servers {
		hc := s.handshakeCase(name, tls.VersionTLS13, false, 2)
		hc.Handshakes, hc.Iterations, hc.Warmup = 8, 4, 1
		hc.Dialer = loggedDialer{Dialer: hc.Dialer, side: []string{"a", "b", "a2"}[i], log: log}
		hc.Record.Versus = "other"
		sides[i] = hc
	}
	return sides
}

// abbaLog is the dial log of rounds in ABBA order: warm-up rounds, then
// measured ones, each numbered from 0, every iteration handshakes dials.
func abbaLog(names []string, warmup, rounds, handshakes int) []string {
	var want []string
	for _, phase := range []int{warmup, rounds} {
		for r := range phase {
			order := slices.Clone(names)
			if r%2 == 1 {
				slices.Reverse(order)
			}
			for _, side := range order {
				for range handshakes {
					want = append(want, side)
				}
			}
		}
	}
	return want
}

// TestInterleavedABBA: the sides' iterations alternate in ABBA order,
// warm-up included, and every side's record holds one sample per round.
func TestInterleavedABBA(t *testing.T) {
	t.Parallel()
	for _, n := range []int{2, 3} {
		t.Run(fmt.Sprintf("%d sides", n), func(t *testing.T) {
			t.Parallel()
			var servers []*testServer
			for range n {
				servers = append(servers, startServer(t, nil))
			}
			log := &dialLog{}
			sides := interleavedCase("abba", log, servers...)
			progress := map[int]int{}
			for i := range sides {
				sides[i].Progress = func(p measure.Progress) {
					if !p.Warmup {
						progress[i]++
					}
				}
			}
			recs, err := loadgen.RunInterleaved(context.Background(), sides)
			if err != nil {
				t.Fatal(err)
			}
			names := []string{"a", "b", "a2"}[:n]
			if want := abbaLog(names, 1, 4, 8); !slices.Equal(log.sides, want) {
				t.Errorf("dials in order\n%v\nwant\n%v", log.sides, want)
			}
			if len(recs) != n {
				t.Fatalf("%d records, want %d", len(recs), n)
			}
			for i, rec := range recs {
				if rec.Side != names[i] || rec.Versus != "other" || rec.Iterations != 4 || len(rec.SamplesUS) != 4 ||
					rec.StoppedBy != results.StoppedIterations || rec.Verdict != "" || rec.TargetError != nil {
					t.Errorf("record %d: side %q versus %q, %d iterations (%d samples), stopped by %q, verdict %q, target %v",
						i, rec.Side, rec.Versus, rec.Iterations, len(rec.SamplesUS), rec.StoppedBy, rec.Verdict, rec.TargetError)
				}
				if rec.Handshakes != 32 || rec.ServerResumed == nil || rec.Errors != 0 {
					t.Errorf("record %d: %d handshakes, %d errors: want 32 without errors, counted by its own server", i, rec.Handshakes, rec.Errors)
				}
				if progress[i] != 4 {
					t.Errorf("side %d reported %d measured iterations, want 4", i, progress[i])
				}
			}
		})
	}
}

// TestInterleavedResume: each side primes its own sessions and resumes
// against its own server.
func TestInterleavedResume(t *testing.T) {
	t.Parallel()
	a, b := startServer(t, nil), startServer(t, nil)
	sides := []measure.HandshakeCase{a.handshakeCase("resume", tls.VersionTLS13, true, 2), b.handshakeCase("resume", tls.VersionTLS13, true, 2)}
	recs, err := loadgen.RunInterleaved(context.Background(), sides)
	if err != nil {
		t.Fatal(err)
	}
	for i, rec := range recs {
		if rec.ResumptionRate != 1 || rec.ServerResumed == nil || *rec.ServerResumed != rec.Resumed {
			t.Errorf("side %d: resumption %.3f, server %v of %d resumed", i, rec.ResumptionRate, rec.ServerResumed, rec.Resumed)
		}
	}
}

// TestInterleavedSideDies: side b's server goes away mid-case; the round
// it failed in is dropped on both sides, side b fails and the error
// names it.
func TestInterleavedSideDies(t *testing.T) {
	t.Parallel()
	a, b := startServer(t, nil), startServer(t, nil)
	sides := interleavedCase("dies", &dialLog{}, a, b)
	sides[1].Progress = func(p measure.Progress) {
		if !p.Warmup && p.Iteration == 2 {
			b.stop()
		}
	}
	recs, err := loadgen.RunInterleaved(context.Background(), sides)
	var ce *measure.CaseError
	if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), "side b: ") || strings.Contains(err.Error(), "side a") {
		t.Fatalf("error %v: want side b's CaseError alone", err)
	}
	if len(recs) != 2 || recs[0] == nil || recs[1] == nil {
		t.Fatalf("records %v: want both", recs)
	}
	for i, rec := range recs {
		if rec.Iterations != 2 || len(rec.SamplesUS) != 2 || rec.StoppedBy != results.StoppedFailed {
			t.Errorf("side %d: %d iterations, stopped by %q: want 2, failed", i, rec.Iterations, rec.StoppedBy)
		}
	}
	if recs[0].Verdict != "" || !strings.Contains(strings.Join(recs[0].Notes, "\n"), "stopped after 2 of 4 iterations: side b failed") {
		t.Errorf("side a: verdict %q, notes %q", recs[0].Verdict, recs[0].Notes)
	}
	if recs[1].Verdict != measure.VerdictFailed {
		t.Errorf("side b: verdict %q, want failed", recs[1].Verdict)
	}
}

// TestInterleavedDiesInFirstRound: a side that fails before any round
// was kept leaves no records; its error says why.
func TestInterleavedDiesInFirstRound(t *testing.T) {
	t.Parallel()
	a, b := startServer(t, nil), startServer(t, nil)
	sides := interleavedCase("dies-first", &dialLog{}, a, b)
	sides[1].Progress = func(p measure.Progress) {
		if p.Warmup {
			b.stop()
		}
	}
	recs, err := loadgen.RunInterleaved(context.Background(), sides)
	var ce *measure.CaseError
	if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), "side b: ") || strings.Contains(err.Error(), "side a") {
		t.Fatalf("error %v: want side b's CaseError alone", err)
	}
	if len(recs) != 2 || recs[0] != nil || recs[1] != nil {
		t.Errorf("records %v: want none", recs)
	}
}

// TestInterleavedInterrupted: ctx ends in the middle of side b's
// iteration of round 2: that round is dropped on both sides.
func TestInterleavedInterrupted(t *testing.T) {
	t.Parallel()
	a, b := startServer(t, nil), startServer(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	log := &dialLog{onDial: func(side string, n int) {
		// b's dials: 8 in the warm-up, 8 in each of rounds 0 and 1,
		// then the 4th of round 2 (a ran first in it).
		if side == "b" && n == 8+8+8+4 {
			cancel()
		}
	}}
	sides := interleavedCase("interrupted", log, a, b)
	sides[0].Iterations, sides[1].Iterations = 10, 10
	recs, err := loadgen.RunInterleaved(ctx, sides)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v: want the interruption", err)
	}
	for _, side := range []string{"side a: ", "side b: "} {
		if !strings.Contains(err.Error(), side) {
			t.Errorf("error %q does not name %q", err, side)
		}
	}
	if len(recs) != 2 || recs[0] == nil || recs[1] == nil {
		t.Fatalf("records %v: want both", recs)
	}
	for i, rec := range recs {
		if rec.Iterations != 2 || rec.StoppedBy != results.StoppedInterrupted {
			t.Errorf("side %d: %d iterations, stopped by %q: want 2, interrupted", i, rec.Iterations, rec.StoppedBy)
		}
	}
}

// TestInterleavedGateFailsOneSide: side b fails its error-rate gate
// (half its clients distrust the server); side a's record passes.
func TestInterleavedGateFailsOneSide(t *testing.T) {
	t.Parallel()
	a, b := startServer(t, nil), startServer(t, nil)
	sides := interleavedCase("gate", &dialLog{}, a, b)
	bad := tlsconf.Client(tlsconf.ClientOptions{Version: tls.VersionTLS13, RootCAs: x509.NewCertPool(), ServerName: "localhost"})
	sides[1].Clients = append(sides[1].Clients, bad)
	recs, err := loadgen.RunInterleaved(context.Background(), sides)
	var ee *measure.ErrorRateError
	if !errors.As(err, &ee) || !strings.HasPrefix(err.Error(), "side b: ") {
		t.Fatalf("error %v: want side b's error rate", err)
	}
	if recs[0] == nil || recs[1] == nil || recs[0].Verdict != "" || recs[1].Verdict != measure.VerdictFailed {
		t.Fatalf("records %v: want side a passed, side b failed", recs)
	}
	if recs[0].Iterations != 4 || recs[1].Iterations != 4 || recs[1].StoppedBy != results.StoppedIterations {
		t.Errorf("iterations %d and %d, side b stopped by %q: want 4 each, all planned", recs[0].Iterations, recs[1].Iterations, recs[1].StoppedBy)
	}
}

// TestInterleavedWarmupFails: side b's server does not resume; its
// warm-up fails, and nothing is measured on either side.
func TestInterleavedWarmupFails(t *testing.T) {
	t.Parallel()
	a := startServer(t, nil)
	b := startServer(t, func(c *tls.Config) { c.SessionTicketsDisabled = true })
	sides := []measure.HandshakeCase{a.handshakeCase("warm", tls.VersionTLS13, true, 2), b.handshakeCase("warm", tls.VersionTLS13, true, 2)}
	recs, err := loadgen.RunInterleaved(context.Background(), sides)
	var re *measure.ResumptionError
	if !errors.As(err, &re) || !strings.HasPrefix(err.Error(), "side b: ") {
		t.Fatalf("error %v: want side b's resumption error", err)
	}
	if len(recs) != 2 || recs[0] != nil || recs[1] != nil {
		t.Errorf("records %v: want none", recs)
	}
}

// TestInterleavedTargetError: rounds go on past the minimum until the
// paired ratio's error reaches the target (a stand-in that reaches it
// at the 6th round, and the real comparison with a loose target), or
// the time per side ends them.
func TestInterleavedTargetError(t *testing.T) {
	t.Parallel()
	a, b, a2 := startServer(t, nil), startServer(t, nil), startServer(t, nil)
	standIn := func(base, cand []float64, alpha float64) stats.PairedComparison {
		if len(base) != len(cand) {
			panic(fmt.Sprintf("%d and %d samples compared", len(base), len(cand)))
		}
		return stats.PairedComparison{N: len(base), RelError: 1 / float64(len(base))}
	}
	tests := []struct {
		name      string
		target    float64
		caseTime  time.Duration
		compare   bool // use the stand-in
		stopped   string
		kept      int // exact; 0: at least 2
		note      string
		iteration int
	}{
		{name: "stand-in", target: 0.17, caseTime: 10 * time.Minute, compare: true, stopped: results.StoppedTargetError, kept: 6, iteration: 4},
		{name: "real", target: 1, caseTime: 10 * time.Minute, stopped: results.StoppedTargetError, kept: 20, iteration: 20},
		{name: "time", target: 1e-6, caseTime: 100 * time.Millisecond, stopped: results.StoppedCaseTime, iteration: 4,
			note: "--target-error 0.0001% not reached: the error was "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sides := interleavedCase("target/"+tt.name, &dialLog{}, a, b, a2)
			for i := range sides {
				sides[i].Iterations = tt.iteration
				sides[i].Words = cliWords
			}
			// The stop settings are side a's.
			sides[0].TargetError, sides[0].MaxDuration = tt.target, tt.caseTime
			if tt.compare {
				loadgen.SetComparePaired(&sides[0], standIn)
			}
			recs, err := loadgen.RunInterleaved(context.Background(), sides)
			if err != nil {
				t.Fatal(err)
			}
			for i, rec := range recs {
				if rec.StoppedBy != tt.stopped || (tt.kept > 0 && rec.Iterations != tt.kept) || rec.Iterations < 2 ||
					rec.Iterations != recs[0].Iterations || rec.TargetError == nil || *rec.TargetError != tt.target {
					t.Errorf("side %d: stopped by %q after %d iterations (side a %d), target %v; want %q after %d",
						i, rec.StoppedBy, rec.Iterations, recs[0].Iterations, rec.TargetError, tt.stopped, tt.kept)
				}
				notes := strings.Join(rec.Notes, "\n")
				if tt.note != "" && (!strings.Contains(notes, tt.note) || !strings.Contains(notes, "of the ratio of side b to side a") ||
					!strings.Contains(notes, "--case-time 100ms per side")) {
					t.Errorf("side %d: notes %q", i, notes)
				}
			}
			if tt.name == "real" {
				c := stats.ComparePaired(recs[0].SamplesUS, recs[1].SamplesUS, 0.05)
				if !(c.RelError <= tt.target) {
					t.Errorf("stopped at a paired error of %v, above the target", c.RelError)
				}
			}
		})
	}
}

// TestInterleavedValidation: the sides must be 2 or 3, each valid on its
// own, and agree on what pairs their iterations.
func TestInterleavedValidation(t *testing.T) {
	t.Parallel()
	s := startServer(t, nil)
	base := func() []measure.HandshakeCase { return interleavedCase("valid", &dialLog{}, s, s) }
	resumeB := func(sides []measure.HandshakeCase) {
		sides[1] = s.handshakeCase("valid", tls.VersionTLS13, true, 2)
		sides[1].Handshakes, sides[1].Iterations, sides[1].Warmup = 8, 4, 1
	}
	tests := []struct {
		name   string
		mutate func([]measure.HandshakeCase) []measure.HandshakeCase
		field  string
		side   string
	}{
		{"one side", func(c []measure.HandshakeCase) []measure.HandshakeCase { return c[:1] }, "Sides", ""},
		{"four sides", func(c []measure.HandshakeCase) []measure.HandshakeCase { return append(c, c[0], c[0]) }, "Sides", ""},
		{"side b without a dialer", func(c []measure.HandshakeCase) []measure.HandshakeCase { c[1].Dialer = nil; return c }, "Dialer", "side b: "},
		{"concurrency", func(c []measure.HandshakeCase) []measure.HandshakeCase { c[1].Concurrency = 3; return c }, "Concurrency", "side b: "},
		{"handshakes by default", func(c []measure.HandshakeCase) []measure.HandshakeCase { c[1].Handshakes = 0; return c }, "Handshakes", "side b: "},
		{"iterations", func(c []measure.HandshakeCase) []measure.HandshakeCase { c[1].Iterations = 5; return c }, "Iterations", "side b: "},
		{"warm-up", func(c []measure.HandshakeCase) []measure.HandshakeCase { c[1].Warmup = 0; return c }, "Warmup", "side b: "},
		{"resume", func(c []measure.HandshakeCase) []measure.HandshakeCase { resumeB(c); return c }, "Resume", "side b: "},
		{"version", func(c []measure.HandshakeCase) []measure.HandshakeCase { c[1].Version = tls.VersionTLS12; return c }, "Version", "side b: "},
		{"side a2's", func(c []measure.HandshakeCase) []measure.HandshakeCase {
			c = append(c, c[0])
			c[2].Iterations = 1
			return c
		}, "Iterations", "side a2: "},
		{"side a's target", func(c []measure.HandshakeCase) []measure.HandshakeCase { c[0].TargetError = -1; return c }, "TargetError", "side a: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			recs, err := loadgen.RunInterleaved(context.Background(), tt.mutate(base()))
			var fe *field.Error
			if !errors.As(err, &fe) || fe.Field != tt.field || !strings.HasPrefix(err.Error(), tt.side) || recs != nil {
				t.Errorf("records %v, error %v: want a field error naming %s, for %q", recs, err, tt.field, tt.side)
			}
		})
	}
}

// TestInterleavedWarmupBounded: the case time bounds an interleaved
// case's warm-up rounds as it does a single side's: past a quarter of it
// per side no round starts (the first always runs), and both sides'
// records say so.
func TestInterleavedWarmupBounded(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		caseTime time.Duration
		rounds   int
	}{
		{"cut", time.Nanosecond, 1},
		{"no case time", 0, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			log := &dialLog{}
			sides := interleavedCase("warmup/"+tt.name, log, startServer(t, nil), startServer(t, nil))
			warmed := 0
			for i := range sides {
				sides[i].Warmup, sides[i].MaxDuration, sides[i].Words = 3, tt.caseTime, cliWords
				sides[i].Iterations = 2
				if i == 0 {
					sides[i].Progress = func(p measure.Progress) {
						if p.Warmup {
							warmed++
						}
					}
				}
			}
			recs, err := loadgen.RunInterleaved(context.Background(), sides)
			if err != nil {
				t.Fatal(err)
			}
			if warmed != tt.rounds {
				t.Errorf("side a warmed %d rounds, want %d", warmed, tt.rounds)
			}
			for _, rec := range recs {
				notes := strings.Join(rec.Notes, "\n")
				want := "warm-up cut short after 1 of 3 iterations by --case-time 1ns per side"
				if cut := strings.Contains(notes, want); cut != (tt.rounds < 3) {
					t.Errorf("side %s notes %q: cut %v, want %v", rec.Side, notes, cut, tt.rounds < 3)
				}
			}
		})
	}
}
