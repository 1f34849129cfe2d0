package merge

import (
	"fmt"
	"slices"
	"time"

	"github.com/tlsbench/tlsbench/results"
)

// caseState is one case's merge so far: the shards' figures folded as
// they were read, and what the merged record needs of each shard.
type caseState struct {
	key     caseKey
	tmpl    results.Record // the first record read, histograms dropped: the merged record's form
	shards  map[int]Pos
	runs    []results.ShardRun
	withHS  []int // shards that made handshakes
	records int

	handshakes, errs, resumed int64
	errorsByKind              map[string]int64
	// folded are the figures the record's fold tags say how to merge
	// (results.FoldedFields), by index in that list.
	folded          []foldAcc
	hps             float64
	concurrency     int
	maxInflight     int
	identities      int
	cpus            int
	sameConcurrency bool
	extra           map[string]*extraAcc
	extraOrder      []string
	groups, ciphers countedAcc
	quicVersions    countedAcc
	relays          map[string][]int

	total, service, lateness histAcc
	phases                   phaseSet
	parts                    map[string]*partAcc
	partOrder                []string
	samples                  sampleAcc
	// hsSamples combine the handshake figure's samples as samples does
	// the wall time's; hsRecords counts the records that had them.
	hsSamples sampleAcc
	hsRecords int

	failed  bool
	notes   noteAcc
	stopped map[string][]int
	timing  timing
	env     results.Env
	envOf   int // the shard env is from: the lowest
}

// partAcc is one part of a mix (full or resumed handshakes).
type partAcc struct {
	handshakes int64
	withHS     []int
	phases     phaseSet
	// clientCPU and serverCPU are the part's CPU per handshake, over
	// the shards whose part had handshakes.
	clientCPU, serverCPU weighted
}

// weighted is a figure per handshake, weighted by each shard's
// handshakes; known when every record had it.
type weighted struct {
	sum float64 // Σ value·handshakes
	hs  int64
	n   int
}

func (w *weighted) add(a *adder, field string, v *float64, hs int64) {
	if v != nil {
		w.sum = add(a, field, w.sum, perHandshakeTotal(a, field, *v, hs))
		w.hs = add(a, field, w.hs, hs)
		w.n++
	}
}

// perHandshakeTotal is a figure per handshake times the handshakes,
// refused when the product is beyond the largest number.
func perHandshakeTotal(a *adder, field string, v float64, hs int64) float64 {
	p := v * float64(hs)
	if overflows(0, p, p) {
		a.refuse(field, "%v per handshake over %d handshakes is beyond the largest number: no run measures that much; was the line edited?", v, hs)
		return 0
	}
	return p
}

func (w *weighted) value(records int) *float64 {
	switch {
	case w.n != records:
		return nil
	case w.hs == 0:
		return results.Float(0)
	}
	return results.Float(w.sum / float64(w.hs))
}

func newCase(rec *results.Record) *caseState {
	c := &caseState{
		key:             caseKey{rec.Name, rec.Side},
		tmpl:            *rec,
		shards:          map[int]Pos{},
		errorsByKind:    map[string]int64{},
		folded:          make([]foldAcc, len(results.FoldedFields())),
		extra:           map[string]*extraAcc{},
		stopped:         map[string][]int{},
		relays:          map[string][]int{},
		sameConcurrency: true,
		envOf:           -1,
	}
	c.samples.open = rec.RateTarget != nil
	c.hsSamples.field = "handshake_samples_us"
	// The merged record's histograms and lists are rebuilt from all
	// shards; the first's would only pin memory.
	t := &c.tmpl
	t.Histogram, t.ServiceHistogram, t.StartLatenessHistogram = "", "", ""
	t.Phases, t.Parts, t.Notes, t.SamplesUS, t.SampleHandshakes = nil, nil, nil, nil, nil
	t.ErrorsByKind, t.Extra = nil, nil
	t.SetHandshakeFigure(nil)
	return c
}

// add folds one shard's record of the case; its histograms are queued
// on f. A sum that overflows refuses the record (and leaves the case
// half-added: the merge is over).
func (c *caseState) add(f *folder, pos Pos, rec *results.Record) error {
	shard := *rec.Shard
	if err := c.checkSamples(pos, rec); err != nil {
		return err
	}
	if err := c.timing.add(pos, rec, shard); err != nil {
		return err
	}
	a := &adder{pos: pos, name: rec.Name}
	if err := c.addHistograms(f, a, rec, shard); err != nil {
		return err
	}
	c.shards[shard] = pos
	c.records++
	if rec.Handshakes > 0 {
		c.withHS = append(c.withHS, shard)
	}
	c.addCounts(a, rec)
	c.addCosts(a, rec)
	c.addState(rec, shard)
	c.samples.add(a, rec.SamplesUS, rec.SampleHandshakes)
	if rec.HandshakeSamplesUS != nil {
		c.hsSamples.add(a, rec.HandshakeSamplesUS, rec.SampleHandshakes)
		c.hsRecords++
	}
	c.runs = append(c.runs, results.ShardRun{Shard: shard, Handshakes: rec.Handshakes, CaseStarted: rec.CaseStarted,
		CaseEnded: rec.CaseEnded, StartLateUS: rec.StartLateUS, Env: rec.Env})
	if c.envOf < 0 || shard < c.envOf {
		c.env, c.envOf = rec.Env, shard
	}
	return a.err
}

// checkSamples refuses samples that cannot be combined per window.
func (c *caseState) checkSamples(pos Pos, rec *results.Record) error {
	refuse := func(format string, args ...any) error {
		return &Error{Pos: pos, Case: rec.Name, Field: "sample_handshakes", Reason: fmt.Sprintf(format, args...)}
	}
	switch {
	case rec.SampleHandshakes == nil && len(rec.SamplesUS) > 0:
		return refuse("absent: the record was written by a tlsbench too old to merge (its samples cannot be combined per window); measure the run again with this version")
	case len(rec.SampleHandshakes) != len(rec.SamplesUS):
		return refuse("holds %d values but samples_us %d: one count per sample", len(rec.SampleHandshakes), len(rec.SamplesUS))
	case rec.HandshakeSamplesUS != nil && len(rec.HandshakeSamplesUS) != len(rec.SamplesUS):
		return &Error{Pos: pos, Case: rec.Name, Field: "handshake_samples_us", Reason: fmt.Sprintf("holds %d values but samples_us %d: one per iteration", len(rec.HandshakeSamplesUS), len(rec.SamplesUS))}
	case perIterationLength(rec) != "":
		return &Error{Pos: pos, Case: rec.Name, Field: perIterationLength(rec), Reason: fmt.Sprintf("holds another number of values than samples_us (%d): one per iteration", len(rec.SamplesUS))}
	case (rec.RateTarget != nil) != c.samples.open:
		return &Error{Pos: pos, Case: rec.Name, Field: "rate_target", Reason: "one shard's case is open loop, another's closed loop: the records are of different runs"}
	}
	for i, n := range rec.SampleHandshakes {
		if n < 0 {
			return refuse("value %d is %d: a count cannot be negative", i, n)
		}
	}
	return nil
}

// addHistograms queues the shard's latency, service, start lateness
// and phase histograms to be folded into the case's. The latency
// histogram is required of a record with handshakes: its percentiles
// (p50_us to p999_us, never null) could not be drawn without it.
func (c *caseState) addHistograms(f *folder, a *adder, rec *results.Record, shard int) error {
	pos := a.pos
	if rec.Histogram == "" && rec.Handshakes > 0 {
		return &Error{Pos: pos, Case: rec.Name, Field: "histogram", Reason: fmt.Sprintf("absent, but the record has %d handshakes, whose latencies the merged percentiles (p50_us to p999_us) are drawn from; give the shard's results as tlsbench wrote them", rec.Handshakes)}
	}
	// The histogram holds the latency of every successful handshake of
	// the measured iterations, as handshakes counts them: the merge
	// checks that they agree as it decodes it.
	c.total.add(f, rec.Histogram, rec.Handshakes, true, shard, pos, rec.Name, "histogram")
	c.service.add(f, rec.ServiceHistogram, -1, rec.ServiceP50US != nil, shard, pos, rec.Name, "service_histogram")
	c.lateness.add(f, rec.StartLatenessHistogram, -1, rec.StartLatenessP50US != nil, shard, pos, rec.Name, "start_lateness_histogram")
	if err := c.phases.add(f, pos, rec.Name, rec.Phases, shard, "phases.", rec.Histogram); err != nil {
		return err
	}
	for _, name := range sortedKeys(rec.Parts) {
		part := rec.Parts[name]
		acc := c.parts[name]
		if acc == nil && name != results.PartFull && name != results.PartResumed {
			return &Error{Pos: pos, Case: rec.Name, Field: "parts", Reason: fmt.Sprintf("part %q: a mix has the parts %q and %q", name, results.PartFull, results.PartResumed)}
		}
		if acc == nil {
			if c.parts == nil {
				c.parts = map[string]*partAcc{}
			}
			acc = &partAcc{}
			c.parts[name] = acc
			c.partOrder = append(c.partOrder, name)
		}
		field := "parts." + name + "."
		acc.handshakes = add(a, field+"handshakes", acc.handshakes, part.Handshakes)
		if part.Handshakes > 0 {
			acc.withHS = append(acc.withHS, shard)
			acc.clientCPU.add(a, field+"client_cpu_us", part.ClientCPUUS, part.Handshakes)
			acc.serverCPU.add(a, field+"server_cpu_us", part.ServerCPUUS, part.Handshakes)
		}
		if err := acc.phases.add(f, pos, rec.Name, part.Phases, shard, "parts."+name+".phases.", ""); err != nil {
			return err
		}
	}
	return nil
}

// addCounts sums the shard's counts and rates.
func (c *caseState) addCounts(a *adder, rec *results.Record) {
	c.handshakes = add(a, "handshakes", c.handshakes, rec.Handshakes)
	c.errs = add(a, "errors", c.errs, rec.Errors)
	c.resumed = add(a, "resumed", c.resumed, rec.Resumed)
	for k, v := range rec.ErrorsByKind {
		c.errorsByKind[k] = addKey(a, "errors_by_kind.", k, c.errorsByKind[k], v)
	}
	c.hps = add(a, "handshakes_per_sec", c.hps, rec.HandshakesPerSec)
	if rec.Concurrency != c.tmpl.Concurrency {
		c.sameConcurrency = false
	}
	c.concurrency = add(a, "concurrency", c.concurrency, rec.Concurrency)
	c.maxInflight = add(a, "max_inflight", c.maxInflight, rec.MaxInflight)
	c.identities = add(a, "client_identities", c.identities, rec.ClientIdentities)
	c.groups.add(a, "group", rec.Group, rec.Handshakes)
	c.ciphers.add(a, "cipher", rec.Cipher, rec.Handshakes)
	c.quicVersions.add(a, "quic_version", rec.QUICVersion, rec.Handshakes)
}

// addCosts folds the shard's figures that fold by rule and its extra
// measurements.
func (c *caseState) addCosts(a *adder, rec *results.Record) {
	for i, f := range results.FoldedFields() {
		c.folded[i].add(a, f, rec)
	}
	for _, k := range sortedKeys(rec.Extra) {
		acc := c.extra[k]
		if acc == nil {
			acc = &extraAcc{}
			c.extra[k] = acc
			c.extraOrder = append(c.extraOrder, k)
		}
		acc.add(a, k, rec.Extra[k], rec.Handshakes)
	}
	c.cpus = add(a, "cpus_available", c.cpus, rec.CPUsAvailable)
}

// addState folds the shard's verdict, notes and how its case ended.
func (c *caseState) addState(rec *results.Record, shard int) {
	if rec.Verdict != "" {
		c.failed = true
	}
	for _, n := range rec.Notes {
		c.notes.add(n, shard)
	}
	c.stopped[rec.StoppedBy] = append(c.stopped[rec.StoppedBy], shard)
	if rec.ProxyRelay != "" {
		c.relays[rec.ProxyRelay] = append(c.relays[rec.ProxyRelay], shard)
	}
}

// missing returns the shards of the run without a record of the case.
func (c *caseState) missing(shards int) []int {
	var out []int
	for i := range shards {
		if _, ok := c.shards[i]; !ok {
			out = append(out, i)
		}
	}
	return out
}

// timing is when the shards ran the case.
type timing struct {
	first, last         time.Time // the earliest and latest start
	firstShard, lastOne int
	ended               time.Time
	started, endedStr   string
	lateUS              opt[float64]
	lateShards          []int
}

// lateLimitUS is how late a shard may begin a case before the merge
// notes it: 100 ms.
const lateLimitUS = 100_000

func (t *timing) add(pos Pos, rec *results.Record, shard int) error {
	if rec.CaseStarted != "" {
		ts, err := time.Parse(time.RFC3339Nano, rec.CaseStarted)
		if err != nil {
			return &Error{Pos: pos, Case: rec.Name, Field: "case_started", Reason: fmt.Sprintf("%q is not an RFC 3339 time", rec.CaseStarted)}
		}
		if t.first.IsZero() || ts.Before(t.first) {
			t.first, t.firstShard, t.started = ts, shard, rec.CaseStarted
		}
		if t.last.IsZero() || ts.After(t.last) {
			t.last, t.lastOne = ts, shard
		}
	}
	if rec.CaseEnded != "" {
		ts, err := time.Parse(time.RFC3339Nano, rec.CaseEnded)
		if err != nil {
			return &Error{Pos: pos, Case: rec.Name, Field: "case_ended", Reason: fmt.Sprintf("%q is not an RFC 3339 time", rec.CaseEnded)}
		}
		if t.ended.IsZero() || ts.After(t.ended) {
			t.ended, t.endedStr = ts, rec.CaseEnded
		}
	}
	t.lateUS.max(rec.StartLateUS)
	if rec.StartLateUS != nil && *rec.StartLateUS > lateLimitUS {
		t.lateShards = append(t.lateShards, shard)
	}
	return nil
}

// notes says when the shards did not run the case at the same time.
func (t *timing) notes() []string {
	var out []string
	if d := t.last.Sub(t.first); d > lateLimitUS*time.Microsecond {
		out = append(out, fmt.Sprintf("the shards began the case %s apart (shard %d first, shard %d last): their windows were not measured at the same time, so the combined samples and rates mix different moments",
			d.Round(time.Millisecond), t.firstShard, t.lastOne))
	}
	if len(t.lateShards) > 0 {
		slices.Sort(t.lateShards)
		out = append(out, fmt.Sprintf("%s began the case more than 100 ms after its common start (the latest by %.0f ms)",
			shardWord(t.lateShards), t.lateUS.v/1e3))
	}
	return out
}

// perIterationLength names the first figure per iteration of rec whose
// values are not one per sample of samples_us, "" when none.
func perIterationLength(rec *results.Record) string {
	for _, f := range results.FoldedFields() {
		if xs := f.Samples(rec); xs != nil && len(xs) != len(rec.SamplesUS) {
			return f.Name
		}
	}
	return ""
}
