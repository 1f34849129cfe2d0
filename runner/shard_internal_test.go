package runner

import (
	"cmp"
	"crypto/tls"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/measure"
)

func shardedPlan() Plan {
	return Plan{Versions: []uint16{tls.VersionTLS12, tls.VersionTLS13}, Resume: []bool{false, true}, Concurrency: []int{8},
		Handshakes: 128, Iterations: 4, Warmup: 1, Duration: 2 * time.Second,
		Target: Target{Addr: "127.0.0.1:8443"}, Shard: Shard{Index: 1, Count: 3},
		StartAt: time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)}
}

// TestCaseSlotsFollowThePlan: each case of a sharded run begins one slot
// after the one before, the slot being its windows and a gap of a tenth
// of them, at least a second; a run that is not sharded only waits for
// its first case.
func TestCaseSlotsFollowThePlan(t *testing.T) {
	t.Parallel()
	p := shardedPlan()
	// 5 windows of 500 ms, and the one-second gap (a tenth is 250 ms).
	if got, want := p.CaseSlot(), 3500*time.Millisecond; got != want {
		t.Errorf("slot %v, want %v", got, want)
	}
	long := p
	long.Duration, long.Iterations, long.Warmup = 100*time.Second, 10, 0
	if got, want := long.CaseSlot(), 110*time.Second; got != want {
		t.Errorf("slot of a long case %v, want %v (a tenth of the case as the gap)", got, want)
	}
	cases := p.Cases()
	cases[1].NotRunnable = "skipped" // takes no slot
	starts := p.caseStarts(cases)
	want := []time.Duration{0, -1, 3500 * time.Millisecond, 7000 * time.Millisecond}
	for i, c := range cases {
		at, ok := starts[c.Name]
		if want[i] < 0 {
			if ok {
				t.Errorf("%s cannot run but begins at %v", c.Name, at)
			}
			continue
		}
		if !at.Equal(p.StartAt.Add(want[i])) {
			t.Errorf("%s begins at %v, want start + %v", c.Name, at, want[i])
		}
	}
	if got, want := p.RunLength(), 4*3500*time.Millisecond; got != want {
		t.Errorf("run length %v, want %v", got, want)
	}
	single := p
	single.Shard = Shard{}
	if s := single.caseStarts(single.Cases()); len(s) != 1 || !s[single.Cases()[0].Name].Equal(p.StartAt) {
		t.Errorf("unsharded run: starts %v, want the first case at the start only", s)
	}
	if s := (&Plan{}).caseStarts(cases); len(s) != 0 {
		t.Errorf("no start time: starts %v", s)
	}
}

// TestRunPlanDigest: every shard of one run computes the same digest,
// and any change to what is measured changes it.
func TestRunPlanDigest(t *testing.T) {
	t.Parallel()
	base := shardedPlan()
	d := base.RunPlan()
	if len(d) != 16 {
		t.Fatalf("digest %q, want 16 hex digits", d)
	}
	other := base
	other.Shard.Index = 2
	if other.RunPlan() != d {
		t.Error("the shard's index changed the plan's digest")
	}
	for name, change := range map[string]func(*Plan){
		"start":       func(p *Plan) { p.StartAt = p.StartAt.Add(time.Second) },
		"shards":      func(p *Plan) { p.Shard.Count = 4 },
		"target":      func(p *Plan) { p.Target.Addr = "127.0.0.1:8444" },
		"sni":         func(p *Plan) { p.Target.ServerName = "example.com" },
		"concurrency": func(p *Plan) { p.Concurrency = []int{16} },
		"duration":    func(p *Plan) { p.Duration = 3 * time.Second },
		"iterations":  func(p *Plan) { p.Iterations = 5 },
		"warmup":      func(p *Plan) { p.Warmup = 2 },
		"versions":    func(p *Plan) { p.Versions = []uint16{tls.VersionTLS13} },
		"rate":        func(p *Plan) { p.Concurrency, p.Rates = nil, []float64{100} },
		"arrival":     func(p *Plan) { p.Concurrency, p.Rates, p.Arrival = nil, []float64{100}, "poisson" },
	} {
		p := base
		change(&p)
		if p.RunPlan() == d {
			t.Errorf("changing the %s kept the digest", name)
		}
	}
}

// TestShardClientIdentities: with several client identities, each shard
// presents its own, k ≡ index (mod count), and together they present
// every one once.
func TestShardClientIdentities(t *testing.T) {
	t.Parallel()
	ids := make([]clientIdentity, 7)
	for i := range ids {
		ids[i].scope = string(rune('a' + i))
	}
	seen := map[string]int{}
	for i := range 3 {
		p := Plan{Shard: Shard{Index: i, Count: 3}}
		st := &runState{plan: &p}
		for _, id := range st.shardClients(ids) {
			seen[id.scope]++
		}
	}
	if len(seen) != len(ids) {
		t.Errorf("identities presented: %v, want all %d", seen, len(ids))
	}
	for s, n := range seen {
		if n != 1 {
			t.Errorf("identity %s presented by %d shards", s, n)
		}
	}
	p := Plan{}
	if got := (&runState{plan: &p}).shardClients(ids); len(got) != len(ids) {
		t.Errorf("unsharded: %d identities, want %d", len(got), len(ids))
	}
}

// TestShardLoadShares: each shard of a sharded case makes its share of
// the wave, the handshakes, the rate and the cap on open connections
// (the default cap when none is given); the shares add up to the run's,
// every shard has some, and a run that is not sharded keeps its load.
func TestShardLoadShares(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                  string
		shards                int
		concurrency, inflight int // the run's; inflight 0: the default
		rate                  float64
		wantInflight          []int // per shard, open loop only
		wantConcurrency       []int // per shard, closed loop only
	}{
		{"open loop, cap split with a remainder", 3, 0, 10, 300, []int{4, 3, 3}, nil},
		{"open loop, cap of one each", 4, 0, 4, 100, []int{1, 1, 1, 1}, nil},
		{"open loop, the default cap split", 3, 0, 0, 300, []int{1366, 1365, 1365}, nil},
		{"open loop, one shard", 1, 0, 7, 100, []int{7}, nil},
		{"closed loop", 3, 8, 0, 0, nil, []int{3, 3, 2}},
	} {
		var inflight, concurrency int
		for i := range tc.shards {
			p := Plan{MaxInflight: tc.inflight, Shard: Shard{Index: i, Count: tc.shards}}
			hc := measure.HandshakeCase{Concurrency: tc.concurrency, Handshakes: 128, Rate: tc.rate}
			if tc.rate > 0 {
				hc.MaxInflight = tc.inflight
			}
			p.shardLoad(&hc)
			if hc.Shard != i || hc.Shards != tc.shards {
				t.Errorf("%s, shard %d: placed as %d of %d", tc.name, i, hc.Shard, hc.Shards)
			}
			if tc.rate > 0 {
				if hc.MaxInflight != tc.wantInflight[i] || hc.Rate != tc.rate/float64(tc.shards) {
					t.Errorf("%s, shard %d: cap %d, rate %v; want %d, %v", tc.name, i, hc.MaxInflight, hc.Rate, tc.wantInflight[i], tc.rate/float64(tc.shards))
				}
			} else if hc.MaxInflight != 0 || hc.Concurrency != tc.wantConcurrency[i] {
				t.Errorf("%s, shard %d: concurrency %d, cap %d; want %d and no cap", tc.name, i, hc.Concurrency, hc.MaxInflight, tc.wantConcurrency[i])
			}
			inflight += hc.MaxInflight
			concurrency += hc.Concurrency
		}
		if want := cmp.Or(tc.inflight, measure.DefaultMaxInflight); tc.rate > 0 && inflight != want {
			t.Errorf("%s: the shards' caps add up to %d, want the run's %d", tc.name, inflight, want)
		}
		if concurrency != tc.concurrency {
			t.Errorf("%s: the shards' waves add up to %d, want %d", tc.name, concurrency, tc.concurrency)
		}
	}
	single := Plan{MaxInflight: 10}
	hc := measure.HandshakeCase{Rate: 100, MaxInflight: 10, Handshakes: 128}
	single.shardLoad(&hc)
	if hc.MaxInflight != 10 || hc.Rate != 100 || hc.Handshakes != 128 || hc.Shards != 0 {
		t.Errorf("unsharded: %+v", hc)
	}
}
