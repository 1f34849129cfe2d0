package runner_test

import (
	"context"
	"crypto/tls"
	"errors"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/runner"
	"github.com/tlsbench/tlsbench/server"
)

// quicPlan is a small plan of TLS 1.3 cases over QUIC against the
// built-in child server.
func quicPlan() runner.Plan {
	p := smallPlan()
	p.Versions = []uint16{tls.VersionTLS13}
	p.Transports = []string{runner.TransportQUIC}
	p.Concurrency = []int{1, 8}
	p.Handshakes = 32
	p.Iterations = 3
	return p
}

// TestQUICAgainstChildServer: over QUIC, full cases resume nothing and
// resume cases everything, on both ends; with early data every resumed
// connection sends its request in its first flight and the built-in
// server takes all of it, as both ends count: run gives it accept when
// the plan sets no policy (the server's own default refuses a ticket's
// second early data, and the load generator offers each ticket again and
// again), and the record says so. A full case with early data is
// listed, not run.
func TestQUICAgainstChildServer(t *testing.T) {
	t.Parallel()
	p := quicPlan()
	p.Axes = plan.Values{"early_data": {false, true}}
	recs := run(t, p)
	if len(recs) != 8 {
		t.Fatalf("%d records, want 8", len(recs))
	}
	for _, rec := range recs {
		t.Run(rec.Name, func(t *testing.T) {
			if rec.Params["early_data"] == "on" && !rec.Resume {
				if rec.Handshakes != 0 || !strings.Contains(strings.Join(rec.Notes, " "), "not runnable: early data is sent when resuming") {
					t.Errorf("a full case with early data: %d handshakes, notes %q; want it not run, saying why", rec.Handshakes, rec.Notes)
				}
				return
			}
			checkQUICRecord(t, &rec)
			if rec.Params["early_data"] != "on" {
				if rec.EarlyDataOffered != nil {
					t.Errorf("early data counted (%d offered) in a case that sends none", *rec.EarlyDataOffered)
				}
				return
			}
			if !strings.Contains(rec.Name, "/0rtt/") || rec.EarlyData == nil || !*rec.EarlyData {
				t.Errorf("name %q, early_data %v: want a 0rtt segment and early_data true", rec.Name, rec.EarlyData)
			}
			checkEarly(t, &rec, rec.Handshakes, rec.Handshakes, 0)
			if rec.EarlyDataPolicy != server.EarlyDataAccept {
				t.Errorf("early-data policy %q recorded, want %q", rec.EarlyDataPolicy, server.EarlyDataAccept)
			}
		})
	}
}

// checkQUICRecord checks what every QUIC record of the built-in server
// has: resumption as asked, verified on both ends; the QUIC version;
// no connect phase, a first response for every connection; the policy.
func checkQUICRecord(t *testing.T, rec *results.Record) {
	t.Helper()
	want := int64(0)
	if rec.Resume {
		want = rec.Handshakes
	}
	if rec.Resumed != want || rec.ServerResumed == nil || *rec.ServerResumed != want {
		t.Errorf("resumed %d (server %v) of %d handshakes, want %d on both ends", rec.Resumed, rec.ServerResumed, rec.Handshakes, want)
	}
	if rec.Transport != "quic" || rec.QUICVersion != "v1" || rec.Errors != 0 || rec.Verdict != "" || rec.Handshakes == 0 {
		t.Errorf("transport %q, QUIC version %q, %d handshakes, errors %v, verdict %q", rec.Transport, rec.QUICVersion, rec.Handshakes, rec.ErrorsByKind, rec.Verdict)
	}
	if _, ok := rec.Phases[results.PhaseConnect]; ok {
		t.Error("a QUIC record has a connect phase")
	}
	if n := rec.Phases[results.PhaseFirstResponse].Count; n != rec.Handshakes {
		t.Errorf("first_response over %d connections, want all %d", n, rec.Handshakes)
	}
	if rec.ServerCPUUS == nil || rec.ClientCPUUS == nil {
		t.Errorf("client CPU %v, server CPU %v: both must be measured", rec.ClientCPUUS, rec.ServerCPUUS)
	}
	if rec.EarlyDataPolicy == "" {
		t.Error("no early-data policy in a record of the built-in server")
	}
	// Far below the server's limits: no Retry, no refusal, and the
	// record says so.
	if rec.ServerQUICRetries == nil || *rec.ServerQUICRetries != 0 || rec.ServerQUICRefused == nil || *rec.ServerQUICRefused != 0 {
		t.Errorf("server_quic_retries %v, server_quic_refused %v: want both 0", countOf(rec.ServerQUICRetries), countOf(rec.ServerQUICRefused))
	}
}

// checkEarly checks a record's early-data counts, the client's and the
// server's, which must agree.
func checkEarly(t *testing.T, rec *results.Record, offered, accepted, rejected int64) {
	t.Helper()
	for name, v := range map[string]*int64{"offered": rec.EarlyDataOffered, "accepted": rec.EarlyDataAccepted, "rejected": rec.EarlyDataRejected,
		"server accepted": rec.ServerEarlyDataAccepted, "server rejected": rec.ServerEarlyDataRejected} {
		if v == nil {
			t.Fatalf("early data %s missing", name)
		}
	}
	o, a, r := *rec.EarlyDataOffered, *rec.EarlyDataAccepted, *rec.EarlyDataRejected
	if o != offered || a != accepted || r != rejected {
		t.Errorf("early data offered %d, accepted %d, rejected %d; want %d, %d, %d", o, a, r, offered, accepted, rejected)
	}
	if *rec.ServerEarlyDataAccepted != a || *rec.ServerEarlyDataRejected != r {
		t.Errorf("the server counted %d accepted and %d rejected, the client %d and %d", *rec.ServerEarlyDataAccepted, *rec.ServerEarlyDataRejected, a, r)
	}
}

// TestQUICEarlyDataPolicies: the built-in server's policies, on resumed
// connections that all send early data. Accepted (side a) and rejected
// (side b, --versus-set early-data-policy=reject) are measured in one
// interleaved run, so that both meet the same machine: rejected early
// data is counted by both ends and is a result, not a failure, and the
// answer comes a round trip later than when it is accepted. single-use
// accepts a ticket's first use and rejects the same ticket offered again
// (and still resumes it).
func TestQUICEarlyDataPolicies(t *testing.T) {
	t.Parallel()
	p := quicPlan()
	p.Resume, p.Axes, p.Concurrency = []bool{true}, plan.Values{"early_data": {true}}, []int{4}
	p.Versus = runner.Versus{Self: true, Settings: []runner.VersusSetting{{Name: "early-data-policy", Value: server.EarlyDataReject}}}
	var accept, reject results.Record
	recs := collect(t, 2, func(emit func(*results.Record) error) error { return runner.Run(context.Background(), p, emit) })
	for _, rec := range recs {
		checkQUICRecord(t, &rec)
		switch rec.Side {
		case results.SideA:
			accept = rec
		case results.SideB:
			reject = rec
		}
	}
	if accept.EarlyDataPolicy != server.EarlyDataAccept || reject.EarlyDataPolicy != server.EarlyDataReject {
		t.Fatalf("policies recorded: side a %q, side b %q", accept.EarlyDataPolicy, reject.EarlyDataPolicy)
	}
	checkEarly(t, &accept, accept.Handshakes, accept.Handshakes, 0)
	checkEarly(t, &reject, reject.Handshakes, 0, reject.Handshakes)
	fa, fr := accept.Phases[results.PhaseFirstResponse].P50US, reject.Phases[results.PhaseFirstResponse].P50US
	ba, br := accept.Phases[results.PhaseFirstByte].P50US, reject.Phases[results.PhaseFirstByte].P50US
	t.Logf("first response p50: accepted %.0f µs, rejected %.0f µs; after the handshake: %.0f µs, %.0f µs", fa, fr, ba, br)
	// From the end of the handshake, a rejection adds a round trip
	// and the server's answer. From the dial, the same round trip is
	// to be seen beside the handshake's own spread, which the race
	// detector multiplies past it: only the first is held to there.
	if br <= ba || (fr <= fa && !raceDetector) {
		t.Errorf("the answer to rejected early data came %.0f µs after the handshake (%.0f µs from the dial), accepted %.0f µs (%.0f µs): want it later", br, fr, ba, fa)
	}

	single := quicPlan()
	single.Resume, single.Axes, single.EarlyDataPolicy = []bool{true}, plan.Values{"early_data": {true}}, server.EarlyDataSingleUse
	// One connection at a time, two sessions kept and offered in turn
	// while each connection adds its own: every other connection offers
	// a session that was offered before.
	single.Concurrency, single.SessionPool = []int{1}, 2
	rec := run(t, single)[0]
	checkQUICRecord(t, &rec)
	if rec.EarlyDataPolicy != server.EarlyDataSingleUse || *rec.EarlyDataOffered != rec.Handshakes || *rec.EarlyDataAccepted == 0 || *rec.EarlyDataRejected == 0 {
		t.Errorf("single-use (%q): %d handshakes offered %d, accepted %d, rejected %d; want first uses accepted, reuses rejected",
			rec.EarlyDataPolicy, rec.Handshakes, *rec.EarlyDataOffered, *rec.EarlyDataAccepted, *rec.EarlyDataRejected)
	}
	checkEarly(t, &rec, rec.Handshakes, *rec.EarlyDataAccepted, *rec.EarlyDataRejected)
}

// TestQUICEarlyDataGateAgainstLiar: a built-in server whose count of
// early data accepted is lower than the client saw (a test hook halves
// it) fails the case, with its record kept and marked, and the run goes
// on.
func TestQUICEarlyDataGateAgainstLiar(t *testing.T) {
	t.Parallel()
	p := quicPlan()
	p.Resume, p.Axes, p.Concurrency = []bool{true}, plan.Values{"early_data": {true}}, []int{1, 4}
	runner.SetServerObserver(&p, func(obs measure.ServerObserver) measure.ServerObserver { return halfAccepted{obs} })
	var recs []*results.Record
	err := runner.Run(context.Background(), p, func(r *results.Record) error { recs = append(recs, r); return nil })
	var fc *runner.FailedCases
	var ee *measure.EarlyDataError
	if !errors.As(err, &fc) || len(fc.Errs) != 2 || !errors.As(err, &ee) {
		t.Fatalf("error %v: want both cases failed with an EarlyDataError", err)
	}
	if len(recs) != 2 {
		t.Fatalf("%d records, want both kept", len(recs))
	}
	for _, r := range recs {
		if r.Verdict != measure.VerdictFailed || !strings.Contains(strings.Join(r.Notes, " "), "not accepted as such by the server") {
			t.Errorf("%s: verdict %q, notes %q: want failed, saying why", r.Name, r.Verdict, r.Notes)
		}
	}
}

// halfAccepted reports half the early data the server accepted.
type halfAccepted struct{ measure.ServerObserver }

func (h halfAccepted) Snapshot() (measure.ServerSnapshot, error) {
	s, err := h.ServerObserver.Snapshot()
	s.EarlyDataAccepted /= 2
	return s, err
}

// TestQUICOpenLoopAndVersus: QUIC cases run on a schedule (--rate) and
// interleaved against a second built-in server (--versus-self).
func TestQUICOpenLoopAndVersus(t *testing.T) {
	t.Parallel()
	open := quicPlan()
	open.Resume, open.Axes = []bool{true}, plan.Values{"early_data": {true}}
	open.Concurrency, open.Rates, open.Handshakes = nil, []float64{50}, 10
	versus := quicPlan()
	versus.Resume, versus.Concurrency = []bool{true}, []int{4}
	versus.Versus = runner.Versus{Self: true}
	for name, p := range map[string]runner.Plan{"open loop": open, "versus": versus} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var recs []*results.Record
			if err := runner.Run(context.Background(), p, func(r *results.Record) error { recs = append(recs, r); return nil }); err != nil {
				t.Fatal(err)
			}
			if len(recs) == 0 {
				t.Fatal("no records")
			}
			for _, r := range recs {
				checkQUICRecord(t, r)
			}
		})
	}
}

// countOf is *p to print, or nil.
func countOf(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}
