package runner_test

import (
	"context"
	"crypto/tls"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/peers"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/runner"
)

// sessionIDPlan is TLS 1.2, full and resumed, by ticket and by session
// ID, against target: a few handshakes per case.
func sessionIDPlan(target runner.Target) runner.Plan {
	p := smallPlan()
	p.Versions = []uint16{tls.VersionTLS12}
	p.Concurrency = []int{4}
	p.Handshakes = 32
	p.Target = target
	p.Axes = plan.Values{"resumption": {plan.ResumptionTickets, plan.ResumptionSessionID}}
	return p
}

// runSessionIDs runs p and returns its records by name, and the
// resumption errors of the cases that failed, by case name.
func runSessionIDs(t *testing.T, p runner.Plan) (map[string]results.Record, map[string]*measure.ResumptionError) {
	t.Helper()
	recs := map[string]results.Record{}
	err := runner.Run(context.Background(), p, func(r *results.Record) error {
		recs[r.Name] = *r
		return nil
	})
	fails := map[string]*measure.ResumptionError{}
	var fc *runner.FailedCases
	if errors.As(err, &fc) {
		for _, e := range fc.Errs {
			var re *measure.ResumptionError
			if !errors.As(e, &re) {
				t.Fatalf("case failure %v: want resumption failures only", e)
			}
			fails[re.Case] = re
		}
	} else if err != nil {
		t.Fatal(err)
	}
	return recs, fails
}

const (
	fullTickets  = "handshake/tls1.2/full/c4"
	fullByID     = "handshake/tls1.2/full/sid/c4"
	resumeTicket = "handshake/tls1.2/resume/c4"
	resumeByID   = "handshake/tls1.2/resume/sid/c4"
)

// TestSessionIDsAgainstNginx: nginx with a shared session cache, with
// and without tickets. Cases resuming by session ID resume every
// handshake either way, by the cache alone (no ticket extension is
// sent); those resuming by ticket resume when nginx has tickets and fail
// the resumption gate when it has not. Full cases run in both ways.
func TestSessionIDsAgainstNginx(t *testing.T) {
	t.Parallel()
	layout, err := pki.Init(pki.InitOptions{Dir: filepath.Join(t.TempDir(), "pki")})
	if err != nil {
		t.Fatal(err)
	}
	for _, tickets := range []bool{true, false} {
		t.Run(map[bool]string{true: "tickets-on", false: "tickets-off"}[tickets], func(t *testing.T) {
			t.Parallel()
			n := peers.NginxT(t, peers.NginxConfig{Cert: layout.ServerCerts[pki.ECDSAP256], Key: layout.ServerKeys[pki.ECDSAP256],
				Tickets: tickets, SessionCache: "shared:SSL:10m"})
			p := sessionIDPlan(runner.Target{Addr: n.Addr, CAFile: layout.RootCert, ServerName: "localhost", ALPN: []string{"http/1.1"}})
			recs, fails := runSessionIDs(t, p)
			// A warm-up that does not resume leaves no record.
			if want := map[bool]int{true: 4, false: 3}[tickets]; len(recs) != want {
				t.Fatalf("%d records: want %d", len(recs), want)
			}
			for _, name := range []string{fullByID, resumeByID} {
				r := recs[name]
				if r.Resumption != plan.ResumptionSessionID || r.Params["resumption"] != plan.ResumptionSessionID || r.Verdict != "" || r.Handshakes == 0 {
					t.Errorf("%s: resumption %q, params %v, verdict %q, %d handshakes", name, r.Resumption, r.Params, r.Verdict, r.Handshakes)
				}
			}
			if r := recs[resumeByID]; r.ResumptionRate != 1 || r.Resumed != r.Handshakes {
				t.Errorf("by session ID: resumed %d of %d (rate %v), want all", r.Resumed, r.Handshakes, r.ResumptionRate)
			}
			if r := recs[fullByID]; r.Resumed != 0 || r.Cipher == "" {
				t.Errorf("full by session ID: resumed %d, cipher %q", r.Resumed, r.Cipher)
			}
			if r, ok := recs[resumeTicket]; ok && r.Resumption != plan.ResumptionTickets {
				t.Errorf("tickets case: resumption %q", r.Resumption)
			}
			re := fails[resumeTicket]
			switch {
			case tickets && (len(fails) != 0 || recs[resumeTicket].ResumptionRate != 1):
				t.Errorf("tickets on: failures %v, ticket resumption rate %v: want every resume case to resume all", fails, recs[resumeTicket].ResumptionRate)
			case !tickets && (len(fails) != 1 || re == nil):
				t.Errorf("tickets off: failures %v: want the tickets resume case alone to fail its resumption gate", fails)
			}
			t.Logf("by ID: %d of %d resumed, by ticket: %d of %d", recs[resumeByID].Resumed, recs[resumeByID].Handshakes,
				recs[resumeTicket].Resumed, recs[resumeTicket].Handshakes)
		})
	}
}

// TestSessionIDsWithoutACache: nginx with neither a session cache nor
// tickets gives no session ID: the case resuming by session ID fails its
// resumption gate saying so; the full one runs, noting it.
func TestSessionIDsWithoutACache(t *testing.T) {
	t.Parallel()
	layout, err := pki.Init(pki.InitOptions{Dir: filepath.Join(t.TempDir(), "pki")})
	if err != nil {
		t.Fatal(err)
	}
	n := peers.NginxT(t, peers.NginxConfig{Cert: layout.ServerCerts[pki.ECDSAP256], Key: layout.ServerKeys[pki.ECDSAP256]})
	p := sessionIDPlan(runner.Target{Addr: n.Addr, CAFile: layout.RootCert, ServerName: "localhost", ALPN: []string{"http/1.1"}})
	p.Axes = plan.Values{"resumption": {plan.ResumptionSessionID}}
	recs, fails := runSessionIDs(t, p)
	re := fails[resumeByID]
	if re == nil || len(fails) != 1 {
		t.Fatalf("failures %v: want the session-ID resume case's", fails)
	}
	if msg := re.Error(); !strings.Contains(msg, "the server gave no session ID; it resumes by ticket only, if at all") {
		t.Errorf("reason %q does not say the server gave no session ID", msg)
	}
	if r, ok := recs[fullByID]; !ok || r.Verdict != "" || !strings.Contains(strings.Join(r.Notes, "\n"), "got no session ID from the server") {
		t.Errorf("full case %+v: want it measured, with a note that no session ID came", r.Notes)
	}
}

// TestSessionIDsEvicted: nginx with OpenSSL's built-in cache of one
// session and no tickets keeps only the newest session, so that most of
// the sessions a wave offers were evicted: the server starts new ones.
// Each such connection makes a full handshake on a new connection and
// counts as not resumed: the case fails its resumption gate saying the
// server did not resume the session ID; measured without the gate, its
// record counts every connection once, and notes the declined ones.
func TestSessionIDsEvicted(t *testing.T) {
	t.Parallel()
	layout, err := pki.Init(pki.InitOptions{Dir: filepath.Join(t.TempDir(), "pki")})
	if err != nil {
		t.Fatal(err)
	}
	n := peers.NginxT(t, peers.NginxConfig{Cert: layout.ServerCerts[pki.ECDSAP256], Key: layout.ServerKeys[pki.ECDSAP256], SessionCache: "builtin:1"})
	p := sessionIDPlan(runner.Target{Addr: n.Addr, CAFile: layout.RootCert, ServerName: "localhost", ALPN: []string{"http/1.1"}})
	p.Resume = []bool{true}
	p.Axes = plan.Values{"resumption": {plan.ResumptionSessionID}}
	_, fails := runSessionIDs(t, p)
	re := fails[resumeByID]
	if re == nil {
		t.Fatalf("failures %v: want the session-ID resume case's", fails)
	}
	if msg := re.Error(); !strings.Contains(msg, "the server did not resume the session ID") {
		t.Errorf("reason %q does not say the server declined the session IDs", msg)
	}
	p.MinResumption = 0
	recs, fails := runSessionIDs(t, p)
	r, ok := recs[resumeByID]
	if len(fails) != 0 || !ok {
		t.Fatalf("without the gate: failures %v, records %v", fails, recs)
	}
	if r.Handshakes != int64(p.Iterations*p.Handshakes) || r.Errors != 0 || r.ResumptionRate >= 0.9 ||
		!strings.Contains(strings.Join(r.Notes, "\n"), "the server did not resume") {
		t.Errorf("record: %d handshakes, %d errors, resumption rate %v, notes %q", r.Handshakes, r.Errors, r.ResumptionRate, r.Notes)
	}
	t.Logf("evicted: %d of %d resumed", r.Resumed, r.Handshakes)
}

// TestSessionIDsMutual: nginx verifying client certificates, with a
// session cache and no tickets: the mutual session made with the
// client's identity resumes by ID with it.
func TestSessionIDsMutual(t *testing.T) {
	t.Parallel()
	layout, err := pki.Init(pki.InitOptions{Dir: filepath.Join(t.TempDir(), "pki"), Clients: 1})
	if err != nil {
		t.Fatal(err)
	}
	n := peers.NginxT(t, peers.NginxConfig{Cert: layout.ServerCerts[pki.ECDSAP256], Key: layout.ServerKeys[pki.ECDSAP256],
		SessionCache: "shared:SSL:1m", VerifyClient: "on", ClientCA: layout.RootCert})
	p := sessionIDPlan(runner.Target{Addr: n.Addr, CAFile: layout.RootCert, ServerName: "localhost", ALPN: []string{"http/1.1"},
		CertFile: layout.ClientCerts[0], KeyFile: layout.ClientKeys[0]})
	p.Resume, p.Mutual = []bool{true}, true
	p.Axes = plan.Values{"resumption": {plan.ResumptionSessionID}}
	recs, fails := runSessionIDs(t, p)
	r, ok := recs["handshake/tls1.2/resume/sid/mutual/c4"]
	if len(fails) != 0 || !ok || r.ResumptionRate != 1 {
		t.Fatalf("failures %v, records %v: want the mutual case resumed by ID", fails, recs)
	}
}

// TestSessionIDsAgainstJSSE: Java's TLS server with tickets off resumes
// TLS 1.2 by session ID only: the session-id case resumes every
// handshake, the tickets one fails its resumption gate.
func TestSessionIDsAgainstJSSE(t *testing.T) {
	t.Parallel()
	layout, err := pki.Init(pki.InitOptions{Dir: filepath.Join(t.TempDir(), "pki")})
	if err != nil {
		t.Fatal(err)
	}
	srv := peers.JSSE(t, peers.JSSEConfig{Cert: layout.ServerCerts[pki.ECDSAP256], Key: layout.ServerKeys[pki.ECDSAP256], Mode: "echo",
		Protocols: []string{"TLSv1.2"}, NoTickets: true, NoDelay: true})
	p := sessionIDPlan(runner.Target{Addr: srv.Addr, CAFile: layout.RootCert, ServerName: "localhost", Request: client.RequestPing})
	p.Resume = []bool{true}
	recs, fails := runSessionIDs(t, p)
	r, ok := recs[resumeByID]
	if !ok || r.ResumptionRate != 1 || r.Errors != 0 {
		t.Errorf("by session ID: %+v", r)
	}
	if len(fails) != 1 || fails[resumeTicket] == nil {
		t.Errorf("failures %v: want the tickets case's alone", fails)
	}
	t.Logf("JSSE by ID: %d of %d resumed", r.Resumed, r.Handshakes)
}

// TestSessionIDsInterleaved: --versus-self against nginx interleaves
// both sides of each case, each side with its own sessions: both sides
// of the session-id resume case resume every handshake by ID.
func TestSessionIDsInterleaved(t *testing.T) {
	t.Parallel()
	layout, err := pki.Init(pki.InitOptions{Dir: filepath.Join(t.TempDir(), "pki")})
	if err != nil {
		t.Fatal(err)
	}
	n := peers.NginxT(t, peers.NginxConfig{Cert: layout.ServerCerts[pki.ECDSAP256], Key: layout.ServerKeys[pki.ECDSAP256],
		Tickets: true, SessionCache: "shared:SSL:10m"})
	p := sessionIDPlan(runner.Target{Addr: n.Addr, CAFile: layout.RootCert, ServerName: "localhost", ALPN: []string{"http/1.1"}})
	p.Resume = []bool{true}
	p.Versus = runner.Versus{Self: true}
	var recs []results.Record
	if err := runner.Run(context.Background(), p, func(r *results.Record) error {
		recs = append(recs, *r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	sides := 0
	for _, r := range recs {
		if r.Name != resumeByID {
			continue
		}
		sides++
		if r.ResumptionRate != 1 || r.Resumption != plan.ResumptionSessionID || r.Side == "" {
			t.Errorf("side %q: resumption %q, rate %v", r.Side, r.Resumption, r.ResumptionRate)
		}
	}
	if sides != 2 {
		t.Errorf("%d sides of %s, want 2 (records %d)", sides, resumeByID, len(recs))
	}
}

// TestSessionIDsMix: a mix resumes by session ID its share of each
// iteration's connections exactly, the others making full handshakes
// without the ticket extension that keep the pool warm.
func TestSessionIDsMix(t *testing.T) {
	t.Parallel()
	layout, err := pki.Init(pki.InitOptions{Dir: filepath.Join(t.TempDir(), "pki")})
	if err != nil {
		t.Fatal(err)
	}
	n := peers.NginxT(t, peers.NginxConfig{Cert: layout.ServerCerts[pki.ECDSAP256], Key: layout.ServerKeys[pki.ECDSAP256],
		SessionCache: "shared:SSL:10m"})
	p := sessionIDPlan(runner.Target{Addr: n.Addr, CAFile: layout.RootCert, ServerName: "localhost", ALPN: []string{"http/1.1"}})
	p.Resume, p.ResumeRatios = nil, []float64{0.5}
	p.Axes = plan.Values{"resumption": {plan.ResumptionSessionID}}
	recs, fails := runSessionIDs(t, p)
	r, ok := recs["handshake/tls1.2/mix50/sid/c4"]
	if len(fails) != 0 || !ok || r.Resumed != r.Handshakes/2 || r.Verdict != "" {
		t.Fatalf("failures %v, mix %+v: want half resumed", fails, r)
	}
}

// TestSessionIDsOpenLoop: an open-loop case resumes by session ID on
// its schedule as a closed-loop one does. A busy machine may not hold
// the schedule (a failure of its own): only resumption is judged here.
func TestSessionIDsOpenLoop(t *testing.T) {
	t.Parallel()
	layout, err := pki.Init(pki.InitOptions{Dir: filepath.Join(t.TempDir(), "pki")})
	if err != nil {
		t.Fatal(err)
	}
	n := peers.NginxT(t, peers.NginxConfig{Cert: layout.ServerCerts[pki.ECDSAP256], Key: layout.ServerKeys[pki.ECDSAP256],
		SessionCache: "shared:SSL:10m"})
	p := sessionIDPlan(runner.Target{Addr: n.Addr, CAFile: layout.RootCert, ServerName: "localhost", ALPN: []string{"http/1.1"}})
	p.Resume, p.Concurrency, p.Rates, p.Handshakes = []bool{true}, nil, []float64{100}, 20
	p.Axes = plan.Values{"resumption": {plan.ResumptionSessionID}}
	var recs []results.Record
	err = runner.Run(context.Background(), p, func(r *results.Record) error {
		recs = append(recs, *r)
		return nil
	})
	var re *measure.ResumptionError
	if errors.As(err, &re) {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].Name != "handshake/tls1.2/resume/sid/r100" || recs[0].ResumptionRate != 1 {
		t.Fatalf("records %+v (error %v): want the open-loop case resumed by ID", recs, err)
	}
}
