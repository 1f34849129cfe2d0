package runner_test

import (
	"context"
	"crypto/tls"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/runner"
)

// mixPlan is a plan of shares of resumed connections: 32 connections per
// iteration, two iterations, in waves of 4.
func mixPlan(ratios ...float64) runner.Plan {
	p := smallPlan()
	p.Resume, p.ResumeRatios = nil, ratios
	p.Concurrency, p.Handshakes = []int{4}, 32
	return p
}

// TestMixAgainstChildServer runs shares 0, 0.5 and 1 against the child
// server, TLS 1.2 and 1.3: they are named full, mix50 and resume, carry
// their share, and the client and the server count exactly the share
// resumed (0, half, all); only the mix has parts, and they split each
// side's CPU: a full handshake costs either side more than a resumed
// one (a certificate signed and verified), and the parts add up to the
// whole. (Where the two differ by a fraction, the server's TLS 1.3
// handshakes, which key-exchange alike, are not compared: a loaded
// machine blurs that much.) Not parallel: the client's CPU is the test
// process's, and the other tests' handshakes beside it made a full
// handshake's share (5.7 ms under the race detector) read as a resumed
// one's.
func TestMixAgainstChildServer(t *testing.T) {
	recs := run(t, mixPlan(0, 0.5, 1))
	if len(recs) != 6 {
		t.Fatalf("%d records, want 6", len(recs))
	}
	for _, rec := range recs {
		f := *rec.ResumeRatio
		seg := map[float64]string{0: "/full/", 0.5: "/mix50/", 1: "/resume/"}[f]
		want := int64(f * 64)
		switch {
		case !strings.Contains(rec.Name, seg) || rec.Params["resume_ratio"] != runner.RateName(f) || rec.Params["resume"] != "":
			t.Errorf("%s: params %v: want segment %s and resume_ratio %g in place of resume", rec.Name, rec.Params, seg, f)
		case rec.Handshakes != 64 || rec.Resumed != want || rec.ServerResumed == nil || *rec.ServerResumed != want:
			t.Errorf("%s: %d handshakes, client resumed %d, server %v: want %d of 64", rec.Name, rec.Handshakes, rec.Resumed, rec.ServerResumed, want)
		case (f == 0.5) != (rec.Parts != nil):
			t.Errorf("%s: parts %v: want them in the mix only", rec.Name, rec.Parts)
		case f == 0.5 && (rec.Parts[results.PartResumed].Handshakes != 32 || rec.Parts[results.PartFull].Phases[results.PhaseHandshake].Count != 32):
			t.Errorf("%s: parts %+v: want 32 handshakes each, with their phases", rec.Name, rec.Parts)
		case rec.Verdict != "":
			t.Errorf("%s: verdict %q, notes %v", rec.Name, rec.Verdict, rec.Notes)
		}
		if f == 0.5 {
			checkPartCPU(t, rec, rec.TLSVersion == "1.2")
		}
	}
}

// checkPartCPU checks the CPU figures of a mix's parts: both sides have
// them, they add up to the whole, and a full handshake costs the client
// (and, with server set, the server) more than a resumed one.
func checkPartCPU(t *testing.T, rec results.Record, server bool) {
	t.Helper()
	full, resumed := rec.Parts[results.PartFull], rec.Parts[results.PartResumed]
	for _, side := range []struct {
		name          string
		whole         *float64
		full, resumed *float64
		costlier      bool
	}{
		{"client", rec.ClientCPUUS, full.ClientCPUUS, resumed.ClientCPUUS, true},
		{"server", rec.ServerCPUUS, full.ServerCPUUS, resumed.ServerCPUUS, server},
	} {
		if side.whole == nil || side.full == nil || side.resumed == nil {
			t.Errorf("%s: %s CPU whole %v, full %v, resumed %v: want all three (notes %v)", rec.Name, side.name, side.whole, side.full, side.resumed, rec.Notes)
			continue
		}
		sum := (*side.full*float64(full.Handshakes) + *side.resumed*float64(resumed.Handshakes)) / float64(rec.Handshakes)
		if math.Abs(sum-*side.whole) > 1e-6**side.whole {
			t.Errorf("%s: %s CPU parts %.1f (full) and %.1f (resumed) µs add up to %.3f µs per handshake, not the whole's %.3f",
				rec.Name, side.name, *side.full, *side.resumed, sum, *side.whole)
		}
		if *side.resumed <= 0 || side.costlier && *side.full <= *side.resumed {
			t.Errorf("%s: %s CPU per full handshake %.1f µs, per resumed one %.1f µs: a full handshake must cost more",
				rec.Name, side.name, *side.full, *side.resumed)
		}
	}
}

// TestMixOpenLoopAgainstChildServer: a mix on a schedule resumes half of
// every window, by the client's count and the server's.
func TestMixOpenLoopAgainstChildServer(t *testing.T) {
	t.Parallel()
	p := mixPlan(0.5)
	p.Versions, p.Concurrency, p.Rates, p.Handshakes, p.Iterations = []uint16{tls.VersionTLS13}, nil, []float64{200}, 40, 3
	var recs []results.Record
	err := runner.Run(context.Background(), p, func(r *results.Record) error {
		recs = append(recs, *r)
		return nil
	})
	var re *measure.RateError
	if err != nil && !(errors.As(err, &re) && re.Cause != measure.CauseInflight) {
		t.Fatal(err) // a loaded machine may miss the rate, nothing else
	}
	if len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	rec := recs[0]
	if rec.Name != "handshake/tls1.3/mix50/r200" || rec.Handshakes != 120 || rec.Resumed != 60 || rec.ServerResumed == nil || *rec.ServerResumed != 60 {
		t.Errorf("%s: %d handshakes, resumed %d, server %v: want 60 of 120", rec.Name, rec.Handshakes, rec.Resumed, rec.ServerResumed)
	}
}

// TestMixFailsWhenTicketKeysRotate: the child server's ticket keys are
// replaced after the first measured iteration: the sessions the mix
// offers in the second are declined, the case fails its gate naming
// that iteration and what the server declined, and its record is kept,
// marked failed.
func TestMixFailsWhenTicketKeysRotate(t *testing.T) {
	t.Parallel()
	keys := filepath.Join(t.TempDir(), "ticket.keys")
	writeTicketKey(t, keys)
	p := mixPlan(0.5)
	// Waves of 16: the first wave after the rotation sends its 8 offers
	// of old sessions while the connections that deposit new ones are
	// still waiting for the server, so several are declined whatever
	// order the machine runs them in (with waves of 4, a loaded machine
	// could let a deposit come first and the one or two declined fall
	// within the gate's slack).
	p.Versions, p.Iterations, p.Concurrency = []uint16{tls.VersionTLS13}, 3, []int{16}
	p.Server.TicketKeysFile = keys
	p.Progress = func(pr runner.CaseProgress) {
		if !pr.Warmup && pr.Iteration == 1 {
			writeTicketKey(t, keys)
			time.Sleep(1200 * time.Millisecond) // the server looks at most once a second
		}
	}
	var recs []results.Record
	err := runner.Run(context.Background(), p, func(r *results.Record) error {
		recs = append(recs, *r)
		return nil
	})
	var fc *runner.FailedCases
	var me *measure.MixError
	if !errors.As(err, &fc) || !errors.As(err, &me) || len(me.Fell) == 0 || me.Fell[0].Iteration != 2 {
		t.Fatalf("error %v: want the mix's gate failed from measured iteration 2", err)
	}
	if f := me.Fell[0]; f.Resumed >= 16 || f.Declined["undecryptable"] == 0 {
		t.Errorf("iteration 2: %+v: want fewer than 16 resumed and sessions declined as undecryptable", f)
	}
	if len(recs) != 1 || recs[0].Verdict != "failed" || !strings.Contains(strings.Join(recs[0].Notes, "\n"), "failed: the resumed share missed") {
		t.Errorf("records %+v: want the case's, marked failed with the reason", recs)
	}
}

// TestMixPlanRefused: shares outside 0..1, given twice, or beside the
// resumption axis are refused by field.
func TestMixPlanRefused(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		mutate func(*runner.Plan)
		want   string
	}{
		{"above-one", func(p *runner.Plan) { p.ResumeRatios = []float64{1.5} }, "between 0 (all full) and 1"},
		{"negative", func(p *runner.Plan) { p.ResumeRatios = []float64{-0.5} }, "between 0 (all full) and 1"},
		{"twice", func(p *runner.Plan) { p.ResumeRatios = []float64{0.5, 0.5} }, "0.5 is given twice"},
		{"both", func(p *runner.Plan) { p.Resume = []bool{true} }, "resume-ratio and resume"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := mixPlan(0.5)
			tt.mutate(&p)
			err := p.Validate()
			var fe *plan.Error
			if !errors.As(err, &fe) || fe.Setting == nil || fe.Setting.Name != plan.OfField("ResumeRatios").Name || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v: want one on ResumeRatios saying %q", err, tt.want)
			}
		})
	}
}

// TestMixNames: shares name their cases by percentage.
func TestMixNames(t *testing.T) {
	t.Parallel()
	for f, want := range map[float64]string{0: "full", 1: "resume", 0.5: "mix50", 0.8: "mix80", 0.125: "mix12.5", 0.29: "mix29", 0.001: "mix0.1"} {
		if got := runner.MixName(f); got != want {
			t.Errorf("MixName(%g) = %s, want %s", f, got, want)
		}
	}
}

// TestMixInterleaved: a mix measured on two sides of the built-in server
// (--versus-self) resumes its share on both, each record split into
// parts.
func TestMixInterleaved(t *testing.T) {
	t.Parallel()
	p := mixPlan(0.25)
	p.Versions, p.Versus = []uint16{tls.VersionTLS13}, runner.Versus{Self: true}
	var recs []results.Record
	if err := runner.Run(context.Background(), p, func(r *results.Record) error {
		recs = append(recs, *r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 {
		t.Fatalf("%d records, want one per side", len(recs))
	}
	for _, rec := range recs {
		if rec.Resumed != 16 || rec.ServerResumed == nil || *rec.ServerResumed != 16 || rec.Parts[results.PartResumed].Handshakes != 16 {
			t.Errorf("side %s: resumed %d, server %v, parts %+v: want 16 of 64", rec.Side, rec.Resumed, rec.ServerResumed, rec.Parts)
		}
	}
}
