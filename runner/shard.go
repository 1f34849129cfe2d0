package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"time"

	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/results"
)

// A sharded run is one run split over several generator processes
// (usually on as many machines), each a shard that makes its share of
// the load against one external server. The shards do not talk to each
// other: they agree because they compute the same things from the same
// plan — its cases, each shard's share of each case's load, and when
// each case begins (StartAt, then one fixed slot per case). Their
// records are joined afterwards (tlsbench merge).

// Shard places a run in a sharded run: shard Index (from 0) of Count.
// The zero value is a run that is not sharded.
type Shard struct{ Index, Count int }

// Enabled reports whether the run is a shard.
func (s Shard) Enabled() bool { return s.Count > 0 }

// share is the shard's share of total (the whole run's): total/Count,
// the remainder one each to the lowest indices.
func (s Shard) share(total int) int { return measure.ShareOf(total, s.Index, s.Count) }

// The gap after each case of a sharded run, before the next begins:
// the tail of the last window's connections, the record, and the next
// case's priming (a resume case fills its session cache before its
// common start) happen in it. A tenth of the case, at least a second.
const (
	minCaseGap   = time.Second
	caseGapShare = 10 // the gap is 1/caseGapShare of the case
)

// shardLoad gives a sharded run's case (hc, set up with the whole run's
// load) this shard's share of it: of the wave, of the handshakes per
// iteration, of the rate and of the cap on open connections, so that
// the shards together make the load one generator would.
func (p *Plan) shardLoad(hc *measure.HandshakeCase) {
	s := p.Shard
	if !s.Enabled() {
		return
	}
	hc.Shard, hc.Shards = s.Index, s.Count
	hc.Concurrency, hc.Handshakes = s.share(hc.Concurrency), s.share(hc.Handshakes)
	if hc.Rate > 0 {
		hc.Rate /= float64(s.Count)
		hc.MaxInflight = s.share(p.inflightCap())
	}
}

// CaseSlot is the time a sharded run gives each case: its warm-up and
// measured windows (Duration/Iterations each) and the gap after them.
// Every shard computes the same slots from the plan, so a case begins
// at the same instant everywhere.
func (p *Plan) CaseSlot() time.Duration {
	if p.Duration <= 0 || p.Iterations <= 0 {
		return 0
	}
	window := p.Duration / time.Duration(p.Iterations)
	body := window * time.Duration(p.Warmup+p.Iterations)
	return body + max(minCaseGap, body/caseGapShare)
}

// caseStarts is when each runnable case begins, by name: in a sharded
// run StartAt and then one slot (CaseSlot) per runnable case; otherwise
// only the first case waits for StartAt. Empty without StartAt.
func (p *Plan) caseStarts(cases []Case) map[string]time.Time {
	starts := map[string]time.Time{}
	if p.StartAt.IsZero() {
		return starts
	}
	at := p.StartAt
	for _, c := range cases {
		if c.NotRunnable != "" {
			continue
		}
		starts[c.Name] = at
		if !p.Shard.Enabled() {
			break
		}
		at = at.Add(p.CaseSlot())
	}
	return starts
}

// RunLength is how long the run's cases take from StartAt in a sharded
// run: the slots of its runnable cases together; 0 otherwise.
func (p *Plan) RunLength() time.Duration {
	if !p.Shard.Enabled() {
		return 0
	}
	var n time.Duration
	for _, c := range p.Cases() {
		if c.NotRunnable == "" {
			n++
		}
	}
	return n * p.CaseSlot()
}

// validateShard checks a sharded plan: what it is given, and that every
// shard gets a share of every case's load.
func (p *Plan) validateShard() error {
	s := p.Shard
	if err := plan.CheckShard(s.Index, s.Count); err != nil {
		return err
	}
	if !s.Enabled() {
		if !p.StartAt.IsZero() && (p.Versus.enabled() || p.FindRate != nil) {
			// Their cases are measured elsewhere than where the start
			// is waited for: it would be ignored.
			return plan.Errorf(plan.Settings.StartAt, nil, "%s delays handshake cases measured one after the other, not interleaved sides or a rate search", plan.Settings.StartAt)
		}
		return nil
	}
	sh := plan.Sharding{By: plan.Settings.Shard, Target: p.Target.Addr != "", Timed: p.Duration > 0, StartAt: !p.StartAt.IsZero()}
	for _, u := range []struct {
		setting *plan.Setting
		given   bool
	}{
		{plan.Settings.Versus, p.Versus.Target.Addr != ""}, {plan.Settings.VersusServer, p.Versus.Executable != ""},
		{plan.Settings.VersusSelf, p.Versus.Self}, {plan.Settings.Proxy, p.Proxy.URL != ""},
		{plan.Settings.FindRate, p.FindRate != nil}, {plan.Settings.TargetError, p.TargetError > 0},
	} {
		if u.given {
			sh.Unsplittable = append(sh.Unsplittable, u.setting)
		}
	}
	if err := sh.Check(); err != nil {
		return err
	}
	return plan.Shares{
		Count: s.Count, ClientIdentities: p.ClientIdentities, Concurrency: p.Concurrency,
		Rates: p.Rates, MaxInflight: p.inflightCap(), Window: p.Duration / time.Duration(max(p.Iterations, 1)),
	}.Check()
}

// inflightCap is the run's cap on open connections in open-loop cases:
// MaxInflight, or the load generator's default.
func (p *Plan) inflightCap() int {
	if p.MaxInflight > 0 {
		return p.MaxInflight
	}
	return measure.DefaultMaxInflight
}

// planDigest is what RunPlan digests: everything that decides what a
// shard measures, but not which shard it is nor where its records go.
type planDigest struct {
	Cases         []digestCase
	Concurrency   []int
	Rates         []float64
	Arrival       string
	MaxInflight   int
	ResumeRatios  []float64
	Duration      time.Duration
	Iterations    int
	Warmup        int
	Handshakes    int
	MinResumption float64
	MaxErrorRate  float64
	ConnTimeout   time.Duration
	SessionPool   int
	TicketReuse   int
	Mutual        bool
	Target        string
	ServerName    string
	Insecure      bool
	ALPN          []string
	Request       string
	Shards        int
	StartAt       string
}

type digestCase struct {
	Name   string
	Params map[string]string // encoding/json writes map keys sorted
}

// RunPlan is the run's plan digest (Record.RunPlan): the first 16 hex
// digits of the SHA-256 of a canonical form of what the shards must
// agree on, the same on every shard of one run.
func (p *Plan) RunPlan() string {
	d := planDigest{
		Concurrency: p.Concurrency, Rates: p.Rates, Arrival: p.Arrival, MaxInflight: p.MaxInflight,
		ResumeRatios: p.ResumeRatios, Duration: p.Duration, Iterations: p.Iterations, Warmup: p.Warmup,
		Handshakes: p.Handshakes, MinResumption: p.MinResumption, MaxErrorRate: p.MaxErrorRate,
		ConnTimeout: p.ConnTimeout, SessionPool: p.SessionPool, TicketReuse: int(p.TicketReuse), Mutual: p.Mutual,
		Target: p.Target.Addr, ServerName: p.Target.ServerName, Insecure: p.Target.Insecure, ALPN: p.Target.ALPN,
		Request: string(p.request()), Shards: p.Shard.Count, StartAt: p.StartAt.UTC().Format(time.RFC3339Nano),
	}
	for _, c := range p.Cases() {
		d.Cases = append(d.Cases, digestCase{Name: c.Name, Params: c.Params})
	}
	b, _ := json.Marshal(d)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// hostName is the machine's name for Env.Host ("" when unknown).
func hostName() string {
	h, _ := os.Hostname()
	return h
}

// shardRecord marks a shard's record: which shard, of how many, of
// which run.
func (st *runState) shardRecord(rec *results.Record) {
	s := st.plan.Shard
	if !s.Enabled() {
		return
	}
	i := s.Index
	rec.Shard, rec.Shards, rec.RunPlan = &i, s.Count, st.runPlan
	rec.StartAt = st.plan.StartAt.UTC().Format(time.RFC3339Nano)
}

// shardClients keeps, in a sharded run with several client identities,
// this shard's: identities k ≡ Index (mod Count), so that no identity's
// sessions are used by two shards.
func (st *runState) shardClients(ids []clientIdentity) []clientIdentity {
	s := st.plan.Shard
	if s.Count <= 1 || len(ids) <= 1 {
		return ids
	}
	var out []clientIdentity
	for k := s.Index; k < len(ids); k += s.Count {
		out = append(out, ids[k])
	}
	return out
}
