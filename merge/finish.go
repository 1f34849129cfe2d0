package merge

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/stats"
)

// finish builds the merged record of the case, for a run of shards.
func (c *caseState) finish(shards int) (results.Record, error) {
	rec := c.tmpl
	var notes []string
	rec.Shard, rec.Shards = nil, shards
	slices.SortFunc(c.runs, func(a, b results.ShardRun) int { return cmp.Compare(a.Shard, b.Shard) })
	rec.ShardRuns = c.runs
	if miss := c.missing(shards); len(miss) > 0 {
		rec.MissingShards = miss
		notes = append(notes, fmt.Sprintf("%s of %d missing: the figures lack their load", shardWord(miss), shards))
	}
	rec.Env = c.env
	rec.Env.Host = ""
	c.finishCounts(&rec)
	c.finishCosts(&rec, &notes)
	c.finishTiming(&rec, &notes)
	if err := c.finishLatency(&rec, &notes); err != nil {
		return rec, fmt.Errorf("%s: encoding a merged histogram: %w", rec.Name, err)
	}
	samples, n := c.samples.finish(&notes)
	setSummary(&rec, samples, n)
	c.finishHandshakeFigure(&rec, &notes)
	c.checkRate(&rec, &notes)
	c.finishState(&rec, &notes)
	rec.Notes = append(notes, c.notes.finish(c.records)...)
	if err := rec.Validate(); err != nil {
		return rec, fmt.Errorf("%s: the merged record contradicts itself: %v", rec.Name, err)
	}
	return rec, nil
}

// setSummary stores the samples and their statistics as a single run
// does.
func setSummary(rec *results.Record, samples []float64, n []int64) {
	rec.Iterations, rec.SamplesUS, rec.SampleHandshakes = len(samples), samples, n
	rec.MeanUS, rec.StddevUS, rec.MedianUS, rec.MinUS, rec.MaxUS, rec.ErrorUS = 0, 0, 0, 0, 0, nil
	if len(samples) == 0 {
		rec.SamplesUS, rec.SampleHandshakes = []float64{}, nil
		return
	}
	s := stats.Summarize(samples)
	rec.MeanUS, rec.StddevUS, rec.MedianUS, rec.MinUS, rec.MaxUS = s.Mean, s.StdDev, s.Median, s.Min, s.Max
	if !math.IsNaN(s.Error) {
		rec.ErrorUS = results.Float(s.Error)
	}
}

// finishHandshakeFigure combines the shards' handshake figures per
// iteration, as the wall time's samples are: when every shard recorded
// one; otherwise it is left out, with a note.
func (c *caseState) finishHandshakeFigure(rec *results.Record, notes *[]string) {
	switch {
	case c.hsRecords == 0:
		return
	case c.hsRecords < c.records:
		*notes = append(*notes, fmt.Sprintf("the handshake figure (handshake_mean_us ...) is left out: %d of the %d shards' records have none", c.records-c.hsRecords, c.records))
		return
	}
	var same []string // the wall time's samples noted these already
	hs, _ := c.hsSamples.finish(&same)
	if len(hs) == len(rec.SamplesUS) {
		rec.SetHandshakeFigure(hs)
	}
}

// checkRate keeps a closed-loop case's handshakes_per_sec (the sum of
// the shards' rates) within what its samples allow, as every record's
// is: when the shards' iterations took different times, or some
// measured more of them, the sum can exceed the union's rate over the
// iterations the samples describe, and then that rate is recorded.
func (c *caseState) checkRate(rec *results.Record, notes *[]string) {
	if c.samples.open || len(rec.SamplesUS) == 0 || rec.MinUS <= 0 {
		return
	}
	fastest, slowest := 1e6/rec.MinUS, 1e6/rec.MaxUS
	if rec.HandshakesPerSec <= 1.05*fastest && rec.HandshakesPerSec >= 0.95*slowest {
		return
	}
	var wall float64
	var hs int64
	for i, s := range rec.SamplesUS {
		wall += s * float64(rec.SampleHandshakes[i])
		hs += rec.SampleHandshakes[i]
	}
	*notes = append(*notes, fmt.Sprintf("handshakes_per_sec is the shards' rate together over the iterations every shard measured (their own rates add up to %.4g, which their samples cannot give: their iterations took different times)", rec.HandshakesPerSec))
	rec.HandshakesPerSec = float64(hs) / (wall / 1e6)
}

func (c *caseState) finishCounts(rec *results.Record) {
	rec.Handshakes, rec.Errors, rec.Resumed = c.handshakes, c.errs, c.resumed
	rec.ResumptionRate = 0
	if c.handshakes > 0 {
		rec.ResumptionRate = float64(c.resumed) / float64(c.handshakes)
	}
	if len(c.errorsByKind) > 0 {
		rec.ErrorsByKind = c.errorsByKind
	}
	rec.HandshakesPerSec = c.hps
	// Each shard made a share of the case's waves: their sizes add up
	// to the run's, unless every shard recorded the run's own.
	rec.Concurrency = c.concurrency
	if c.sameConcurrency && c.records > 1 && c.tmpl.Params["concurrency"] == strconv.Itoa(c.tmpl.Concurrency) {
		rec.Concurrency = c.tmpl.Concurrency
	}
	rec.MaxInflight, rec.ClientIdentities = c.maxInflight, c.identities
	rec.Group, rec.Cipher = c.groups.String(), c.ciphers.String()
	if c.tmpl.QUICVersion != "" {
		rec.QUICVersion = c.quicVersions.String()
	}
}

func (c *caseState) finishCosts(rec *results.Record, notes *[]string) {
	for i, f := range results.FoldedFields() {
		c.folded[i].finish(f, rec, c.records)
	}
	rec.Extra = nil
	var dropped []string
	for _, k := range c.extraOrder {
		v, ok := c.extra[k].value(k, c.records)
		if !ok {
			dropped = append(dropped, k)
			continue
		}
		if rec.Extra == nil {
			rec.Extra = map[string]float64{}
		}
		rec.Extra[k] = v
	}
	if len(dropped) > 0 {
		*notes = append(*notes, "extra figures left out, as the shards' cannot be merged into one exactly: "+strings.Join(dropped, ", "))
	}
	rec.CPUsAvailable = c.cpus
	rec.ProxyRelay = ""
	if len(c.relays) == 1 {
		for r := range c.relays {
			rec.ProxyRelay = r
		}
	} else if len(c.relays) > 1 {
		*notes = append(*notes, "the proxy's relay modes differed among the shards and are left out")
	}
}

func (c *caseState) finishTiming(rec *results.Record, notes *[]string) {
	rec.CaseStarted, rec.CaseEnded = c.timing.started, c.timing.endedStr
	rec.StartLateUS = c.timing.lateUS.any()
	*notes = append(*notes, c.timing.notes()...)
}

// finishLatency draws every percentile from the merged histograms; a
// histogram a shard lacked leaves its percentiles out, with a note. (A
// record with handshakes and no latency histogram was refused: p50_us to
// p999_us cannot be left out.)
func (c *caseState) finishLatency(rec *results.Record, notes *[]string) error {
	rec.P50US, rec.P90US, rec.P99US, rec.P999US, rec.Histogram = 0, 0, 0, 0, ""
	if l := c.total.latency(); l != nil {
		rec.P50US, rec.P90US, rec.P99US, rec.P999US = l.PercentileUS(50), l.PercentileUS(90), l.PercentileUS(99), l.PercentileUS(99.9)
		enc, err := l.Encode()
		if err != nil {
			return err
		}
		rec.Histogram = enc
	}
	if err := c.finishOpen(rec, notes); err != nil {
		return err
	}
	phases, err := c.phases.finish(c.withHS, "", &c.total, notes)
	if err != nil {
		return err
	}
	rec.Phases = phases
	if len(c.parts) > 0 {
		rec.Parts = map[string]results.PartFigures{}
		for _, name := range c.partOrder {
			p := c.parts[name]
			ph, err := p.phases.finish(p.withHS, name+" part's ", nil, notes)
			if err != nil {
				return err
			}
			rec.Parts[name] = results.PartFigures{Handshakes: p.handshakes, Phases: ph,
				ClientCPUUS: p.clientCPU.value(len(p.withHS)), ServerCPUUS: p.serverCPU.value(len(p.withHS))}
		}
	}
	return nil
}

// finishOpen draws the service and start lateness percentiles from
// their merged histograms.
func (c *caseState) finishOpen(rec *results.Record, notes *[]string) error {
	rec.ServiceP50US, rec.ServiceP90US, rec.ServiceP99US, rec.ServiceP999US = nil, nil, nil, nil
	rec.StartLatenessP50US, rec.StartLatenessP99US = nil, nil
	if ok, note := c.service.known("service_p50_us to service_p999_us"); !ok {
		*notes = append(*notes, note)
	} else if l := c.service.latency(); l != nil {
		rec.ServiceP50US, rec.ServiceP90US = results.Float(l.PercentileUS(50)), results.Float(l.PercentileUS(90))
		rec.ServiceP99US, rec.ServiceP999US = results.Float(l.PercentileUS(99)), results.Float(l.PercentileUS(99.9))
		enc, err := l.Encode()
		if err != nil {
			return err
		}
		rec.ServiceHistogram = enc
	}
	if ok, note := c.lateness.known("start_lateness_p50_us and start_lateness_p99_us"); !ok {
		*notes = append(*notes, note)
	} else if l := c.lateness.latency(); l != nil {
		rec.StartLatenessP50US, rec.StartLatenessP99US = results.Float(l.PercentileUS(50)), results.Float(l.PercentileUS(99))
		enc, err := l.Encode()
		if err != nil {
			return err
		}
		rec.StartLatenessHistogram = enc
	}
	return nil
}

// stopOrder ranks how a case ended, the worst first: the merged case
// ended as its worst shard did.
var stopOrder = []string{results.StoppedFailed, results.StoppedInterrupted, results.StoppedCaseTime,
	results.StoppedIterationCap, results.StoppedTargetError, results.StoppedIterations, ""}

func (c *caseState) finishState(rec *results.Record, notes *[]string) {
	rec.Verdict = ""
	if c.failed {
		rec.Verdict = "failed"
	}
	if len(c.stopped) > 1 {
		var parts []string
		worst := ""
		for _, s := range stopOrder {
			if shards, ok := c.stopped[s]; ok {
				if worst == "" {
					worst = s
				}
				slices.Sort(shards)
				parts = append(parts, fmt.Sprintf("%s by %q", shardWord(shards), s))
			}
		}
		rec.StoppedBy = worst
		*notes = append(*notes, "the shards' cases ended differently: "+strings.Join(parts, ", "))
	}
}

// countedAcc adds up a value recorded per case as a name, or as names
// with their counts ("p256:8,x25519:120"), by handshakes.
type countedAcc map[string]int64

func (acc *countedAcc) add(a *adder, field, v string, handshakes int64) {
	if v == "" {
		return
	}
	if *acc == nil {
		*acc = countedAcc{}
	}
	for _, part := range strings.Split(v, ",") {
		name, num, ok := cutLast(part, ":")
		n, err := strconv.ParseInt(num, 10, 64)
		if !ok || err != nil {
			name, n = part, handshakes
		}
		(*acc)[name] = add(a, field, (*acc)[name], n)
	}
}

func cutLast(s, sep string) (string, string, bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// String writes the one name, or every name with its count, sorted.
func (a countedAcc) String() string {
	names := slices.Sorted(maps.Keys(a))
	if len(names) == 1 {
		return names[0]
	}
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s:%d", n, a[n])
	}
	return strings.Join(parts, ",")
}

// extraAcc merges one key of the records' extra figures.
type extraAcc struct {
	sum, weighted float64
	hs            int64
	n             int
}

// add folds one record's value of extra figure key.
func (e *extraAcc) add(a *adder, key string, v float64, hs int64) {
	e.sum = addKey(a, "extra.", key, e.sum, v)
	if p := v * float64(hs); !overflows(0, p, p) {
		e.weighted = addKey(a, "extra.", key, e.weighted, p)
	} else {
		perHandshakeTotal(a, "extra."+key, v, hs) // refuses
	}
	e.hs = addKey(a, "extra.", key, e.hs, hs)
	e.n++
}

// summedExtra are the extra figures that add up over shards: counts,
// and the cores each shard's client used.
var summedExtra = map[string]bool{"client_cores_used": true, "proxy_origin_handshakes": true, "proxy_origin_resumed": true}

// value merges the key: summed, weighted by handshakes (a figure per
// handshake), or not at all (ok false) when its meaning is not known,
// or a shard lacks it.
func (e *extraAcc) value(key string, records int) (float64, bool) {
	switch {
	case e.n != records:
		return 0, false
	case summedExtra[key]:
		return e.sum, true
	case strings.HasSuffix(key, "_per_handshake"):
		if e.hs == 0 {
			return 0, true
		}
		return e.weighted / float64(e.hs), true
	}
	return 0, false
}

// noteAcc keeps the shards' notes once each, with the shards that wrote
// them, grouped by their shape (the text with its numbers left out), so
// that a note every shard writes with its own figures ("other load took
// 12%") stays one note however many shards there are.
type noteAcc struct {
	shapes map[string]*noteShape
	order  []string
}

type noteShape struct {
	texts  []string // as first written, in order
	shards map[string][]int
	all    []int
}

// manyShards is how many shards' differing versions of a note are kept
// each; beyond it, one stands for all.
const manyShards = 3

func (a *noteAcc) add(note string, shard int) {
	if a.shapes == nil {
		a.shapes = map[string]*noteShape{}
	}
	key := noteShapeOf(note)
	sh := a.shapes[key]
	if sh == nil {
		sh = &noteShape{shards: map[string][]int{}}
		a.shapes[key] = sh
		a.order = append(a.order, key)
	}
	if _, ok := sh.shards[note]; !ok {
		sh.texts = append(sh.texts, note)
	}
	sh.shards[note] = append(sh.shards[note], shard)
	sh.all = append(sh.all, shard)
}

// noteShapeOf is a note with its runs of digits replaced by one mark.
func noteShapeOf(note string) string {
	var b strings.Builder
	digits := false
	for _, r := range note {
		if r >= '0' && r <= '9' {
			if !digits {
				b.WriteByte('#')
			}
			digits = true
			continue
		}
		digits = false
		b.WriteRune(r)
	}
	return b.String()
}

// finish writes each note once: as it is when every shard wrote it,
// after the shards that did otherwise; a note many shards wrote, each
// with its own figures, once with the first shard's figures.
func (a *noteAcc) finish(records int) []string {
	var out []string
	for _, key := range a.order {
		sh := a.shapes[key]
		if len(sh.texts) > 1 && len(sh.all) > manyShards {
			slices.Sort(sh.all)
			first := sh.shards[sh.texts[0]]
			out = append(out, fmt.Sprintf("%s, each with its own figures (%s's here): %s", shardWord(sh.all), shardWord(first[:1]), sh.texts[0]))
			continue
		}
		for _, n := range sh.texts {
			shards := sh.shards[n]
			if len(shards) == records {
				out = append(out, n)
				continue
			}
			slices.Sort(shards)
			out = append(out, shardWord(shards)+": "+n)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
