package runner_test

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/internal/testchild"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/runner"
	"github.com/tlsbench/tlsbench/server"
	"github.com/tlsbench/tlsbench/tlsconf"
)

func TestMain(m *testing.M) {
	// A program that links the runner but does not dispatch to its
	// children (see library_test.go) stands in for the tests.
	if mode := os.Getenv(undispatchedVar); mode != "" {
		os.Exit(undispatchedMain(mode))
	}
	// As a program that uses the runner as a library must: the
	// Example's children are this binary, re-run.
	runner.RunChildIfAsked()
	testchild.RunIfChild()
	os.Exit(m.Run())
}

func smallPlan() runner.Plan {
	return runner.Plan{
		Versions:      []uint16{tls.VersionTLS12, tls.VersionTLS13},
		Resume:        []bool{false, true},
		Concurrency:   []int{1, 128},
		Handshakes:    128,
		Iterations:    2,
		Warmup:        1,
		MinResumption: 0.99,
		ChildEnv:      []string{testchild.Env()},
	}
}

func run(t *testing.T, p runner.Plan) []results.Record {
	t.Helper()
	return collect(t, len(p.Cases()), func(emit func(*results.Record) error) error {
		return runner.Run(context.Background(), p, emit)
	})
}

// collect runs a plan through run and returns its records, failing the
// test on an error or when there is not one record per case.
func collect(t *testing.T, cases int, run func(emit func(*results.Record) error) error) []results.Record {
	t.Helper()
	var recs []results.Record
	err := run(func(r *results.Record) error {
		recs = append(recs, *r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != cases {
		t.Fatalf("%d records for %d cases", len(recs), cases)
	}
	return recs
}

// TestResumptionVerifiedAgainstChildServer runs a small matrix against the
// built-in server in its own process: resume cases must resume every
// handshake (TLS 1.3 at concurrency 128 included), full cases none, and
// the server's own count must agree with the client's. Concurrency 128
// takes 128 handshakes (one whole wave); concurrency 1, whose
// handshakes follow one another, needs fewer and runs as a plan of its
// own.
func TestResumptionVerifiedAgainstChildServer(t *testing.T) {
	t.Parallel()
	for _, size := range []struct{ concurrency, handshakes int }{{1, 32}, {128, 128}} {
		t.Run(fmt.Sprintf("c%d", size.concurrency), func(t *testing.T) {
			t.Parallel()
			p := smallPlan()
			p.Concurrency, p.Handshakes = []int{size.concurrency}, size.handshakes
			for _, rec := range run(t, p) {
				checkResumptionRecord(t, rec, p.Handshakes)
			}
		})
	}
}

// checkResumptionRecord checks one record of a plan of handshakes
// handshakes per iteration against the built-in child server.
func checkResumptionRecord(t *testing.T, rec results.Record, handshakes int) {
	t.Helper()
	t.Run(rec.Name, func(t *testing.T) {
		want := 0.0
		if rec.Resume {
			want = 1
		}
		if rec.ResumptionRate != want {
			t.Errorf("client resumption rate %.4f, want %.0f", rec.ResumptionRate, want)
		}
		if rec.ServerResumed == nil || *rec.ServerResumed != rec.Resumed {
			t.Errorf("server resumed %v, client %d: they must agree", rec.ServerResumed, rec.Resumed)
		}
		if rec.Errors != 0 || rec.Handshakes != int64(rec.Iterations*handshakes) {
			t.Errorf("handshakes %d errors %d (%v), want %d and none", rec.Handshakes, rec.Errors, rec.ErrorsByKind, rec.Iterations*handshakes)
		}
		if rec.ClientCPUUS == nil || *rec.ClientCPUUS <= 0 || rec.ServerCPUUS == nil || *rec.ServerCPUUS <= 0 {
			t.Errorf("client CPU %v, server CPU %v: both must be measured", rec.ClientCPUUS, rec.ServerCPUUS)
		}
		if rec.ServerAllocBytes == nil || *rec.ServerAllocBytes <= 0 || rec.AllocBytes <= 0 {
			t.Errorf("alloc client %v server %v: both must be measured", rec.AllocBytes, rec.ServerAllocBytes)
		}
		if rec.Transport != "tcp" || rec.KeyType != "ecdsa-p256" || rec.Group == "" || rec.Env.GoVersion == "" {
			t.Errorf("descriptive fields: transport %q key %q group %q env %+v", rec.Transport, rec.KeyType, rec.Group, rec.Env)
		}
		if len(rec.SamplesUS) != rec.Iterations || rec.MeanUS <= 0 || rec.P99US < rec.P50US || rec.Histogram == "" {
			t.Errorf("statistics missing: samples %v mean %v p50 %v p99 %v", rec.SamplesUS, rec.MeanUS, rec.P50US, rec.P99US)
		}
		var sum int64
		for _, n := range rec.SampleHandshakes {
			sum += n
		}
		if len(rec.SampleHandshakes) != len(rec.SamplesUS) || sum != rec.Handshakes {
			t.Errorf("sample handshakes %v (sum %d) for %d samples and %d handshakes: want one count per sample, summing to the handshakes",
				rec.SampleHandshakes, sum, len(rec.SamplesUS), rec.Handshakes)
		}
	})
}

func TestMemoryTransportAndKeyTypes(t *testing.T) {
	t.Parallel()
	p := smallPlan()
	p.Versions = []uint16{tls.VersionTLS13}
	p.Concurrency = []int{8}
	p.Handshakes = 16
	p.KeyTypes = []pki.KeyType{pki.Ed25519}
	p.Groups = []tls.CurveID{tls.X25519}
	p.Transports = []string{runner.TransportTCP, runner.TransportMemory}
	recs := run(t, p)
	names := map[string]bool{}
	for _, rec := range recs {
		names[rec.Name] = true
		if rec.Group != "x25519" || rec.KeyType != "ed25519" {
			t.Errorf("%s: group %q key %q, want x25519 and ed25519", rec.Name, rec.Group, rec.KeyType)
		}
	}
	for _, want := range []string{
		"handshake/tls1.3/full/ed25519/x25519/c8",
		"handshake/tls1.3/resume/ed25519/x25519/memory/c8",
	} {
		if !names[want] {
			t.Errorf("no case named %s among %v", want, names)
		}
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		mutate func(*runner.Plan)
		want   string
	}{
		{"no versions", func(p *runner.Plan) { p.Versions = nil }, "Versions"},
		{"zero concurrency", func(p *runner.Plan) { p.Concurrency = []int{0} }, "Concurrency"},
		{"bad min resumption", func(p *runner.Plan) { p.MinResumption = 2 }, "MinResumption"},
		{"pq group with 1.2", func(p *runner.Plan) { p.Groups = []tls.CurveID{tls.X25519MLKEM768} }, "Groups"},
		{"transport", func(p *runner.Plan) { p.Transports = []string{"udp"} }, "Transports"},
	}
	for _, tt := range tests {
		p := smallPlan()
		tt.mutate(&p)
		err := p.Validate()
		var fe *plan.Error
		if !errors.As(err, &fe) || fe.Setting == nil || fe.Setting.Name != plan.OfField(tt.want).Name || strings.Contains(err.Error(), "--") {
			t.Errorf("%s: error %v, want a field error naming %s (and no flag)", tt.name, err, tt.want)
		}
	}
}

// TestMutualResumptionBothReuseModes: with client certificates and
// several identities, resumption holds at 100% at concurrency 1 and 128,
// TLS 1.2 and 1.3, with reusable tickets and with single-use ones (the
// latter against the stateful store, whose ids really are single-use), and
// the server sees exactly the identities presented.
//
// Concurrency 128 takes its 128 handshakes (one wave, each connection
// wanting its own session at once); concurrency 1 needs only enough to
// go round the four identities several times, so it runs as a plan of
// its own with 32. The warm-up is kept (a case's sessions come from it);
// under the race detector one measured iteration follows it, not two.
func TestMutualResumptionBothReuseModes(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("long: 16 cases at concurrency 128")
	}
	for _, mode := range []struct {
		reuse tlsconf.TicketReuse
		store string
	}{{tlsconf.ReuseMulti, server.StoreTickets}, {tlsconf.ReuseSingle, server.StoreStateful}} {
		for _, size := range []struct{ concurrency, handshakes int }{{1, 32}, {128, 128}} {
			t.Run(fmt.Sprintf("%s/c%d", mode.reuse, size.concurrency), func(t *testing.T) {
				t.Parallel()
				p := smallPlan()
				p.Mutual = true
				p.ClientIdentities = 4
				p.TicketReuse = mode.reuse
				p.Server.SessionStore = mode.store
				p.Concurrency, p.Handshakes = []int{size.concurrency}, size.handshakes
				if raceDetector {
					p.Iterations = 1
				}
				checkMutualResumption(t, run(t, p))
			})
		}
	}
}

// checkMutualResumption checks that every mutual record resumed all its
// handshakes (resume cases) or none (full cases), by both ends' counts.
func checkMutualResumption(t *testing.T, recs []results.Record) {
	t.Helper()
	for _, rec := range recs {
		if !rec.Mutual || rec.ClientIdentities != 4 {
			t.Errorf("%s: mutual %v identities %d", rec.Name, rec.Mutual, rec.ClientIdentities)
		}
		want := 0.0
		if rec.Resume {
			want = 1
		}
		if rec.ResumptionRate != want || rec.ServerResumed == nil || *rec.ServerResumed != rec.Resumed {
			t.Errorf("%s: client rate %.4f (want %.0f), server resumed %v of client %d",
				rec.Name, rec.ResumptionRate, want, rec.ServerResumed, rec.Resumed)
		}
	}
}

// TestKeyCacheOnOff runs a PKCS#12 server identity with the key cache on
// and off: with it off the server decrypts the key once per full
// handshake and never for a resumed one; with it on, never after load.
func TestKeyCacheOnOff(t *testing.T) {
	t.Parallel()
	p := smallPlan()
	p.Concurrency = []int{4}
	p.Handshakes = 16
	p.KeyCache = []bool{true, false}
	useP12Identity(t, &p)
	for _, rec := range run(t, p) {
		if rec.KeyCache == nil {
			t.Fatalf("%s: key_cache missing", rec.Name)
		}
		want := 0.0
		if !*rec.KeyCache && !rec.Resume {
			want = 1
		}
		if got := rec.Extra["server_key_decryptions_per_handshake"]; got != want {
			t.Errorf("%s: %.3f server key decryptions per handshake, want %.0f", rec.Name, got, want)
		}
		if wantName := map[bool]string{true: "keycache-on", false: "keycache-off"}[*rec.KeyCache]; !strings.Contains(rec.Name, wantName) {
			t.Errorf("%s: name lacks %s", rec.Name, wantName)
		}
	}
}

// useP12Identity gives p's built-in server an encrypted PKCS#12 identity
// (ECDSA P-256) with its password file: the identity whose key cache
// matters.
func useP12Identity(t *testing.T, p *runner.Plan) {
	t.Helper()
	dir := t.TempDir()
	pw := filepath.Join(dir, "pw")
	if err := os.WriteFile(pw, []byte("test password\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	layout, err := pki.Init(pki.InitOptions{Dir: filepath.Join(dir, "pki"), P12Password: "test password"})
	if err != nil {
		t.Fatal(err)
	}
	p.Server.Identities = []server.IdentityFiles{{P12: layout.ServerP12[pki.ECDSAP256]}}
	p.Server.P12PasswordFile = pw
}
