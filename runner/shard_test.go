package runner_test

import (
	"context"
	"crypto/tls"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/runner"
)

// countingTarget is a TLS echo server on loopback that counts the
// handshakes it completed; it returns its address and CA file.
func countingTarget(t *testing.T) (string, string, *atomic.Int64) {
	t.Helper()
	cfg, ca := testpki.Server(t)
	var n atomic.Int64
	cfg.VerifyConnection = func(tls.ConnectionState) error {
		n.Add(1)
		return nil
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go echo(ln)
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := pki.WriteCertsPEM(caFile, ca.Root()); err != nil {
		t.Fatal(err)
	}
	return ln.Addr().String(), caFile, &n
}

// runShards runs shards shards of p at once and returns each one's
// records.
func runShards(t *testing.T, p runner.Plan, shards int) [][]results.Record {
	t.Helper()
	out := make([][]results.Record, shards)
	errs := make([]error, shards)
	var wg sync.WaitGroup
	for i := range shards {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q := p
			q.Shard = runner.Shard{Index: i, Count: shards}
			errs[i] = runner.Run(context.Background(), q, func(r *results.Record) error {
				out[i] = append(out[i], *r)
				return nil
			})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		var fc *runner.FailedCases
		if err != nil && !errors.As(err, &fc) {
			// A loaded machine may fail a gate; the split is what is
			// tested here, and the records are written either way.
			t.Fatalf("shard %d: %v", i, err)
		}
	}
	return out
}

// TestShardsSplitTheWaveAndBeginTogether: two shards of a closed-loop
// run make waves of 2 and 1 for a concurrency of 3, carry the same plan
// digest, and begin each case's measured part no earlier than its common
// start.
func TestShardsSplitTheWaveAndBeginTogether(t *testing.T) {
	t.Parallel()
	addr, caFile, _ := countingTarget(t)
	p := runner.Plan{Versions: []uint16{tls.VersionTLS13}, Resume: []bool{false, true}, Concurrency: []int{3},
		Handshakes: 128, Iterations: 2, Warmup: 1, Duration: 400 * time.Millisecond, ConnTimeout: 20 * time.Second,
		MaxErrorRate: 1, Target: runner.Target{Addr: addr, CAFile: caFile, ServerName: "localhost"},
		StartAt: time.Now().Add(time.Second)}
	slot := p.CaseSlot()
	recs := runShards(t, p, 2)
	var plan string
	for i, rs := range recs {
		if len(rs) != 2 {
			t.Fatalf("shard %d: %d records, want 2", i, len(rs))
		}
		for k, r := range rs {
			if r.Shard == nil || *r.Shard != i || r.Shards != 2 || r.RunPlan == "" || r.Env.Host == "" {
				t.Errorf("shard %d, %s: shard %v of %d, plan %q, host %q", i, r.Name, r.Shard, r.Shards, r.RunPlan, r.Env.Host)
			}
			if want := p.StartAt.UTC().Format(time.RFC3339Nano); r.StartAt != want {
				t.Errorf("shard %d, %s: start_at %q, want the run's common start %q", i, r.Name, r.StartAt, want)
			}
			if r.KeyType != string(pki.ECDSAP256) {
				t.Errorf("shard %d, %s: key_type %q, want the target's certificate's, %s", i, r.Name, r.KeyType, pki.ECDSAP256)
			}
			if plan == "" {
				plan = r.RunPlan
			} else if r.RunPlan != plan {
				t.Errorf("shard %d, %s: plan %s, another shard's %s", i, r.Name, r.RunPlan, plan)
			}
			if want := []int{2, 1}[i]; r.Concurrency != want {
				t.Errorf("shard %d, %s: concurrency %d, want its share of the wave, %d", i, r.Name, r.Concurrency, want)
			}
			if r.Params["concurrency"] != "3" || r.Name != []string{"handshake/tls1.3/full/c3", "handshake/tls1.3/resume/c3"}[k] {
				t.Errorf("shard %d: case %s with params %v: the name and params are the whole run's", i, r.Name, r.Params)
			}
			began, err1 := time.Parse(time.RFC3339Nano, r.CaseStarted)
			ended, err2 := time.Parse(time.RFC3339Nano, r.CaseEnded)
			boundary := p.StartAt.Add(time.Duration(k) * slot)
			if err1 != nil || err2 != nil || began.Before(boundary) || ended.Before(began) || r.StartLateUS == nil {
				t.Errorf("shard %d, %s: measured from %q to %q (late %v µs), common start %v", i, r.Name, r.CaseStarted, r.CaseEnded, r.StartLateUS, boundary)
			}
			if r.Handshakes == 0 || len(r.SampleHandshakes) != len(r.SamplesUS) {
				t.Errorf("shard %d, %s: %d handshakes, samples %d of %d", i, r.Name, r.Handshakes, len(r.SampleHandshakes), len(r.SamplesUS))
			}
		}
	}
}

// TestOpenLoopShardsShareTheSchedule: two shards of 200 starts per
// second each schedule half of every window (rate_target 100 each),
// keep their share of the cap on open connections, and account for
// every connection they scheduled.
func TestOpenLoopShardsShareTheSchedule(t *testing.T) {
	t.Parallel()
	addr, caFile, served := countingTarget(t)
	p := runner.Plan{Versions: []uint16{tls.VersionTLS13}, Resume: []bool{false}, Rates: []float64{200},
		Handshakes: 128, Iterations: 2, Warmup: 0, Duration: 400 * time.Millisecond, ConnTimeout: 20 * time.Second,
		MaxErrorRate: 1, Target: runner.Target{Addr: addr, CAFile: caFile, ServerName: "localhost"},
		MaxInflight: 41, StartAt: time.Now().Add(time.Second)}
	recs := runShards(t, p, 2)
	var made int64
	for i, rs := range recs {
		if len(rs) != 1 {
			t.Fatalf("shard %d: %d records", i, len(rs))
		}
		r := rs[0]
		if r.RateTarget == nil || *r.RateTarget != 100 || r.Name != "handshake/tls1.3/full/r200" {
			t.Errorf("shard %d: %s, rate target %v, want the shard's share, 100", i, r.Name, r.RateTarget)
		}
		if want := []int{21, 20}[i]; r.MaxInflight != want {
			t.Errorf("shard %d: max_inflight %d, want its share of 41, %d", i, r.MaxInflight, want)
		}
		// Each 200 ms window of the whole schedule holds 40 starts, 20
		// a shard: every one succeeded, failed or was dropped.
		var dropped int64
		if r.Dropped != nil {
			dropped = *r.Dropped
		}
		if got := r.Handshakes + r.Errors + dropped; got != 40 {
			t.Errorf("shard %d: %d handshakes, %d errors, %d dropped: %d connections, want 20 a window over 2", i, r.Handshakes, r.Errors, dropped, got)
		}
		made += r.Handshakes
	}
	if n := served.Load(); n < made {
		t.Errorf("the server completed %d handshakes, the shards %d", n, made)
	}
}

// TestShardValidation: a sharded plan that cannot work names the field
// at fault.
func TestShardValidation(t *testing.T) {
	t.Parallel()
	base := func() runner.Plan {
		return runner.Plan{Versions: []uint16{tls.VersionTLS13}, Resume: []bool{false}, Concurrency: []int{4},
			Handshakes: 128, Iterations: 2, Duration: time.Second, Target: runner.Target{Addr: "127.0.0.1:8443"},
			Shard: runner.Shard{Index: 0, Count: 2}, StartAt: time.Now().Add(time.Minute)}
	}
	tests := []struct {
		name   string
		change func(*runner.Plan)
		field  string
	}{
		{"index past the count", func(p *runner.Plan) { p.Shard.Index = 2 }, "Shard"},
		{"negative index", func(p *runner.Plan) { p.Shard.Index = -1 }, "Shard"},
		{"too many shards", func(p *runner.Plan) { p.Shard.Count = plan.MaxShards + 1 }, "Shard"},
		{"negative count", func(p *runner.Plan) { p.Shard.Count = -1 }, "Shard"},
		{"built-in server", func(p *runner.Plan) { p.Target = runner.Target{} }, "Shard"},
		{"no duration", func(p *runner.Plan) { p.Duration = 0 }, "Shard"},
		{"no start", func(p *runner.Plan) { p.StartAt = time.Time{} }, "Shard"},
		{"interleaved", func(p *runner.Plan) { p.Versus.Self = true }, "Shard"},
		{"proxy", func(p *runner.Plan) { p.Proxy.URL = "http://127.0.0.1:3128" }, "Shard"},
		{"wave smaller than the shards", func(p *runner.Plan) { p.Concurrency = []int{1} }, "Concurrency"},
		{"window smaller than the shards", func(p *runner.Plan) { p.Concurrency, p.Rates = nil, []float64{1} }, "Rates"},
		{"in-flight cap smaller than the shards", func(p *runner.Plan) { p.Concurrency, p.Rates, p.MaxInflight = nil, []float64{1000}, 1 }, "MaxInflight"},
		{"default in-flight cap smaller than the shards", func(p *runner.Plan) {
			p.Concurrency, p.Rates, p.Shard.Count = nil, []float64{1e6}, plan.MaxShards
		}, "MaxInflight"},
	}
	for _, tc := range tests {
		p := base()
		tc.change(&p)
		var fe *plan.Error
		if err := p.Validate(); !errors.As(err, &fe) || fe.Setting == nil || fe.Setting.Name != plan.OfField(tc.field).Name {
			t.Errorf("%s: %v, want an error of field %s", tc.name, err, tc.field)
		}
	}
	p := base()
	if err := p.Validate(); err != nil {
		t.Errorf("a valid sharded plan: %v", err)
	}
	open := base()
	open.Concurrency, open.Rates, open.MaxInflight = nil, []float64{1000}, 2
	if err := open.Validate(); err != nil {
		t.Errorf("an in-flight cap of one connection a shard: %v", err)
	}
	single := base()
	single.Shard, single.Target, single.Versus.Self = runner.Shard{}, runner.Target{}, true
	var fe *plan.Error
	if err := single.Validate(); !errors.As(err, &fe) || fe.Setting == nil || fe.Setting.Name != plan.OfField("StartAt").Name {
		t.Errorf("a start time for an interleaved run, where it would be ignored: %v, want an error of field StartAt", err)
	}
}

// TestLateShardSaysHowLate: a shard that begins after the common start
// (a pod scheduled late) measures at once, and its record says how late,
// with a note past 100 ms.
func TestLateShardSaysHowLate(t *testing.T) {
	t.Parallel()
	addr, caFile, _ := countingTarget(t)
	p := runner.Plan{Versions: []uint16{tls.VersionTLS13}, Resume: []bool{false}, Concurrency: []int{2},
		Handshakes: 128, Iterations: 2, Duration: 200 * time.Millisecond, ConnTimeout: 20 * time.Second, MaxErrorRate: 1,
		Target: runner.Target{Addr: addr, CAFile: caFile, ServerName: "localhost"},
		Shard:  runner.Shard{Index: 1, Count: 2}, StartAt: time.Now().Add(-300 * time.Millisecond)}
	recs := run(t, p)
	r := recs[0]
	if r.StartLateUS == nil || *r.StartLateUS < 300_000 {
		t.Fatalf("start late %v µs, want at least 300000", r.StartLateUS)
	}
	noted := false
	for _, n := range r.Notes {
		noted = noted || strings.Contains(n, "after its common start")
	}
	if !noted {
		t.Errorf("no note of the late start: %q", r.Notes)
	}
}

// TestInterruptedWhileWaitingForTheStart: a shard interrupted before its
// common start measures nothing and says it was interrupted.
func TestInterruptedWhileWaitingForTheStart(t *testing.T) {
	t.Parallel()
	addr, caFile, served := countingTarget(t)
	p := runner.Plan{Versions: []uint16{tls.VersionTLS13}, Resume: []bool{true}, Concurrency: []int{2},
		Handshakes: 128, Iterations: 2, Duration: 200 * time.Millisecond, ConnTimeout: 20 * time.Second, MaxErrorRate: 1,
		MinResumption: 0.99, Target: runner.Target{Addr: addr, CAFile: caFile, ServerName: "localhost"},
		Shard: runner.Shard{Index: 0, Count: 2}, StartAt: time.Now().Add(time.Hour)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var recs int
	go func() {
		done <- runner.Run(ctx, p, func(*results.Record) error { recs++; return nil })
	}()
	// Priming (a resume case: one wave, of this shard's 1) happens
	// before the wait: once the server has seen it, the shard waits.
	deadline := time.Now().Add(time.Minute)
	for served.Load() < 1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) || recs != 0 {
			t.Errorf("interrupted while waiting: %v, %d records; want the interruption and none", err, recs)
		}
	case <-time.After(time.Minute):
		t.Fatal("the shard kept waiting after the interruption")
	}
}
