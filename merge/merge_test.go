package merge

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/stats"
)

// twoShards is a closed-loop case on two shards whose latencies differ:
// shard 0 fast and tight, shard 1 slow with a long tail.
func twoShards(t *testing.T) ([]results.Record, [][]time.Duration) {
	fast := [][]time.Duration{latencies(900, 200*time.Microsecond, 0, 1, 1), latencies(1100, 210*time.Microsecond, 0, 1, 2)}
	slow := [][]time.Duration{latencies(300, 2*time.Millisecond, 0.05, 20, 3), latencies(250, 3*time.Millisecond, 0.05, 20, 4)}
	r0 := shardRecord(t, 2, shardSpec{shard: 0, iters: fast, walls: []time.Duration{time.Second, 1100 * time.Millisecond}})
	r1 := shardRecord(t, 2, shardSpec{shard: 1, iters: slow, walls: []time.Duration{1200 * time.Millisecond, 1000 * time.Millisecond}})
	return []results.Record{r0, r1}, append(fast, slow...)
}

func mergeOne(t *testing.T, opts Options, recs ...results.Record) results.Record {
	t.Helper()
	out, err := Merge(opts, Source{Name: "shards.jsonl", Records: recs})
	if err != nil {
		t.Fatalf("Merge: %v", err)
	}
	if len(out) != 1 {
		t.Fatalf("%d merged records, want 1", len(out))
	}
	return out[0]
}

// TestMergeHistograms: the merged histogram is the histogram of every
// shard's latencies recorded into one, and its percentiles are not the
// averages of the shards'.
func TestMergeHistograms(t *testing.T) {
	t.Parallel()
	recs, all := twoShards(t)
	got := mergeOne(t, Options{}, recs...)
	want := stats.NewLatency()
	for _, it := range all {
		for _, d := range it {
			want.Record(d)
		}
	}
	if enc := encode(t, want); got.Histogram != enc {
		t.Fatal("merged histogram differs from the histogram of all the shards' latencies")
	}
	for i, q := range []float64{50, 90, 99, 99.9} {
		p := []float64{got.P50US, got.P90US, got.P99US, got.P999US}[i]
		if p != want.PercentileUS(q) {
			t.Errorf("p%v = %v, want %v", q, p, want.PercentileUS(q))
		}
	}
	// Averaging would put p99 at about half shard 1's tail; the merged
	// p99 lies in shard 1's tail, far above.
	avg := (recs[0].P99US + recs[1].P99US) / 2
	if got.P99US < 1.5*avg || got.P50US > recs[0].P99US {
		t.Errorf("p99 %v (average of the shards' %v), p50 %v: the fixture does not tell merging from averaging", got.P99US, avg, got.P50US)
	}
	for _, name := range []string{results.PhaseTotal, results.PhaseConnect} {
		p := got.Phases[name]
		l, err := stats.DecodeLatency(p.Histogram)
		if err != nil || p.Count != recs[0].Phases[name].Count+recs[1].Phases[name].Count || l.Count() != p.Count {
			t.Errorf("phase %s: count %d, histogram %v: want the sum of the shards'", name, p.Count, err)
		}
	}
	if got.Phases[results.PhaseTotal].P99US != got.P99US {
		t.Errorf("total phase p99 %v, record p99 %v", got.Phases[results.PhaseTotal].P99US, got.P99US)
	}
}

// TestMergeCounts: counts and rates are sums, figures per handshake are
// weighted by handshakes, the merged record has a single run's form.
func TestMergeCounts(t *testing.T) {
	t.Parallel()
	recs, _ := twoShards(t)
	// Each shard's listen-queue counts are its machine's: the worst.
	recs[0].ListenOverflows, recs[0].ListenDrops = results.Int(3), results.Int(5)
	recs[1].ListenOverflows, recs[1].ListenDrops = results.Int(7), results.Int(7)
	got := mergeOne(t, Options{}, recs...)
	a, b := recs[0], recs[1]
	if got.ListenOverflows == nil || *got.ListenOverflows != 7 || got.ListenDrops == nil || *got.ListenDrops != 7 {
		t.Errorf("listen_overflows %v listen_drops %v, want the largest shard's, 7 and 7", got.ListenOverflows, got.ListenDrops)
	}
	if got.Handshakes != a.Handshakes+b.Handshakes || got.Errors != 4 || got.Resumed != a.Resumed+b.Resumed ||
		got.ErrorsByKind["timeout"] != 2 || got.ErrorsByKind["reset"] != 2 {
		t.Errorf("counts %d %d %d %v: want the sums", got.Handshakes, got.Errors, got.Resumed, got.ErrorsByKind)
	}
	if !near(got.HandshakesPerSec, a.HandshakesPerSec+b.HandshakesPerSec) {
		t.Errorf("handshakes_per_sec %v, want %v", got.HandshakesPerSec, a.HandshakesPerSec+b.HandshakesPerSec)
	}
	if want := float64(got.Resumed) / float64(got.Handshakes); got.ResumptionRate != want {
		t.Errorf("resumption_rate %v, want %v", got.ResumptionRate, want)
	}
	wantCPU := (*a.ClientCPUUS*float64(a.Handshakes) + *b.ClientCPUUS*float64(b.Handshakes)) / float64(got.Handshakes)
	if got.ClientCPUUS == nil || !near(*got.ClientCPUUS, wantCPU) || got.ServerCPUUS != nil {
		t.Errorf("client_cpu_us %v server_cpu_us %v, want %v and null", got.ClientCPUUS, got.ServerCPUUS, wantCPU)
	}
	if got.Extra["client_cores_used"] != 1 || !near(got.Extra["server_key_decryptions_per_handshake"], float64(b.Handshakes)/float64(got.Handshakes)) {
		t.Errorf("extra %v", got.Extra)
	}
	if _, ok := got.Extra["mystery"]; ok || !hasNote(got, "mystery") {
		t.Errorf("an extra figure of unknown meaning was merged, or left out without a note: %v %q", got.Extra, got.Notes)
	}
	if got.Concurrency != 8 || got.Shard != nil || got.Shards != 2 || got.Env.Host != "" || got.Env.TLSBenchVersion != "v1.0.0" {
		t.Errorf("concurrency %d shard %v shards %d env %+v", got.Concurrency, got.Shard, got.Shards, got.Env)
	}
	if len(got.ShardRuns) != 2 || got.ShardRuns[1].Shard != 1 || got.ShardRuns[1].Env.Host != "pod-1" || got.ShardRuns[0].Handshakes != a.Handshakes {
		t.Errorf("shard_runs %+v", got.ShardRuns)
	}
	if got.MissingShards != nil || got.Verdict != "" {
		t.Errorf("missing %v verdict %q", got.MissingShards, got.Verdict)
	}
	// It reads back as any record does.
	line, err := results.Marshal(&got)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := results.Decode(bytes.NewReader(line)); err != nil {
		t.Fatalf("the merged record does not read back: %v", err)
	}
}

// TestMergeSamplesClosedLoop: sample i is the longest shard's wall time
// of iteration i over both shards' handshakes; the statistics are
// recomputed from those samples.
func TestMergeSamplesClosedLoop(t *testing.T) {
	t.Parallel()
	recs, _ := twoShards(t)
	got := mergeOne(t, Options{}, recs...)
	// Iteration 0: walls 1 s (900 handshakes) and 1.2 s (300); 1: 1.1 s
	// (1100) and 1 s (250).
	want := []float64{1.2e6 / 1200, 1.1e6 / 1350}
	if len(got.SamplesUS) != 2 || !near(got.SamplesUS[0], want[0]) || !near(got.SamplesUS[1], want[1]) {
		t.Fatalf("samples %v, want %v", got.SamplesUS, want)
	}
	if !slices.Equal(got.SampleHandshakes, []int64{1200, 1350}) || got.Iterations != 2 {
		t.Errorf("sample_handshakes %v iterations %d", got.SampleHandshakes, got.Iterations)
	}
	s := stats.Summarize(want)
	if !near(got.MeanUS, s.Mean) || !near(got.StddevUS, s.StdDev) || got.ErrorUS == nil || !near(*got.ErrorUS, s.Error) ||
		got.MinUS != slices.Min(got.SamplesUS) || got.MaxUS != slices.Max(got.SamplesUS) {
		t.Errorf("mean %v stddev %v error %v: want %+v", got.MeanUS, got.StddevUS, got.ErrorUS, s)
	}
}

// TestMergeSamplesOpenLoop: sample i is the mean latency over every
// shard's successes of window i; open-loop counts and percentiles are
// merged.
func TestMergeSamplesOpenLoop(t *testing.T) {
	t.Parallel()
	w := func(n int, d time.Duration) []time.Duration {
		out := make([]time.Duration, n)
		for i := range out {
			out[i] = d
		}
		return out
	}
	a := shardRecord(t, 2, shardSpec{shard: 0, open: true, iters: [][]time.Duration{w(100, time.Millisecond), w(50, 2*time.Millisecond)}})
	b := shardRecord(t, 2, shardSpec{shard: 1, open: true, iters: [][]time.Duration{w(300, 5*time.Millisecond), w(150, 4*time.Millisecond)}})
	got := mergeOne(t, Options{}, a, b)
	want := []float64{(100*1000 + 300*5000) / 400.0, (50*2000 + 150*4000) / 200.0}
	if !near(got.SamplesUS[0], want[0]) || !near(got.SamplesUS[1], want[1]) {
		t.Errorf("samples %v, want %v", got.SamplesUS, want)
	}
	if *got.RateTarget != 2000 || *got.RateAchieved != 1980 || *got.Late != 1 || *got.Dropped != 0 || got.MaxInflight != 200 || got.Concurrency != 0 {
		t.Errorf("rate %v achieved %v late %v dropped %v inflight %d", *got.RateTarget, *got.RateAchieved, *got.Late, *got.Dropped, got.MaxInflight)
	}
	svc := stats.NewLatency()
	for _, r := range []results.Record{a, b} {
		l, err := stats.DecodeLatency(r.ServiceHistogram)
		if err != nil {
			t.Fatal(err)
		}
		svc.Merge(l)
	}
	if got.ServiceP50US == nil || *got.ServiceP50US != svc.PercentileUS(50) || *got.ServiceP999US != svc.PercentileUS(99.9) ||
		got.StartLatenessP99US == nil || got.ServiceHistogram != encode(t, svc) {
		t.Errorf("service p50 %v p99.9 %v, want %v %v", got.ServiceP50US, got.ServiceP999US, svc.PercentileUS(50), svc.PercentileUS(99.9))
	}
}

// TestMergeSampleLengths: shards that measured different numbers of
// iterations combine the iterations all measured, with a note.
func TestMergeSampleLengths(t *testing.T) {
	t.Parallel()
	recs, _ := twoShards(t)
	short := shardRecord(t, 2, shardSpec{shard: 1, iters: [][]time.Duration{latencies(10, time.Millisecond, 0, 1, 5)}, walls: []time.Duration{10 * time.Millisecond}})
	got := mergeOne(t, Options{}, recs[0], short)
	if got.Iterations != 1 || len(got.SampleHandshakes) != 1 || !hasNote(got, "the shards measured 1 to 2 iterations") ||
		!hasNote(got, "handshakes_per_sec is the shards' rate together") || !near(got.HandshakesPerSec, 1e6/got.SamplesUS[0]) {
		t.Errorf("iterations %d, notes %q", got.Iterations, got.Notes)
	}
}

// TestMergeState: a failed shard fails the case, notes keep their
// shard, disagreeing start times and a late shard are noted.
func TestMergeState(t *testing.T) {
	t.Parallel()
	recs, _ := twoShards(t)
	a, b := recs[0], recs[1]
	a.Notes = []string{"common note", "only on zero"}
	b.Notes = []string{"common note"}
	b.Verdict, b.StoppedBy, a.StoppedBy = "failed", results.StoppedFailed, results.StoppedIterations
	late := runStart.Add(250 * time.Millisecond)
	b.CaseStarted, b.StartLateUS = late.Format(time.RFC3339Nano), results.Float(250_000)
	a.MachineBusy, b.MachineBusy = results.Float(0.3), results.Float(0.95)
	got := mergeOne(t, Options{}, a, b)
	if got.Verdict != "failed" || got.StoppedBy != results.StoppedFailed {
		t.Errorf("verdict %q stopped_by %q", got.Verdict, got.StoppedBy)
	}
	for _, n := range []string{"common note", "shard 0: only on zero", "began the case 250ms apart", "shard 1 began the case more than 100 ms after", "ended differently"} {
		if !hasNote(got, n) {
			t.Errorf("no note %q in %q", n, got.Notes)
		}
	}
	if slices.Contains(got.Notes, "shard 1: common note") || *got.MachineBusy != 0.95 || *got.StartLateUS != 250_000 || got.CaseStarted != a.CaseStarted {
		t.Errorf("notes %q busy %v late %v started %q", got.Notes, *got.MachineBusy, *got.StartLateUS, got.CaseStarted)
	}
	// The timing remarks are the merge's warnings too, named by case.
	m := New(Options{})
	for i, r := range []results.Record{a, b} {
		if err := m.Add(Pos{Source: "x", Record: i + 1}, &r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.Records(); err != nil {
		t.Fatal(err)
	}
	w := m.Warnings()
	if len(w) != 2 || !strings.HasPrefix(w[0], a.Name+": the shards began the case 250ms apart (shard 0 first, shard 1 last)") ||
		!strings.HasPrefix(w[1], a.Name+": shard 1 began the case more than 100 ms after its common start") {
		t.Errorf("warnings %q, want the two timing remarks with their case", w)
	}
}

// TestMergeMissingHistogram: a shard with handshakes and no latency
// histogram is refused, naming it: p50_us to p999_us are never null, and
// 0 would be wrong. A shard without a phase the others measured leaves
// that phase out, with a note; one that made no handshake needs no
// histogram.
func TestMergeMissingHistogram(t *testing.T) {
	t.Parallel()
	recs, _ := twoShards(t)
	a, b := recs[0], recs[1]
	noHist := b
	noHist.Histogram = ""
	_, err := Merge(Options{}, Source{Name: "shards.jsonl", Records: []results.Record{a, noHist}})
	var me *Error
	if !errors.As(err, &me) || me.Field != "histogram" || me.Pos.Record != 2 || me.Case != b.Name ||
		!strings.Contains(err.Error(), "absent, but the record has 550 handshakes") {
		t.Errorf("err = %v, want record 2's histogram refused", err)
	}
	b.Phases = map[string]results.Phase{results.PhaseTotal: b.Phases[results.PhaseTotal]}
	got := mergeOne(t, Options{}, a, b)
	if got.Histogram == "" || got.P99US == 0 {
		t.Errorf("histogram %d bytes, p99 %v", len(got.Histogram), got.P99US)
	}
	if _, ok := got.Phases[results.PhaseConnect]; ok || !hasNote(got, "connect phase left out: shard 1") {
		t.Errorf("phases %v, notes %q", got.Phases, got.Notes)
	}
	if got.Phases[results.PhaseTotal].Count != a.Handshakes+b.Handshakes {
		t.Errorf("total phase %+v", got.Phases[results.PhaseTotal])
	}
	none := shardRecord(t, 2, shardSpec{shard: 1, iters: nil, walls: nil})
	none.Histogram, none.Phases = "", nil
	none.P50US, none.P90US, none.P99US, none.P999US = 0, 0, 0, 0
	got = mergeOne(t, Options{}, a, none)
	if got.Handshakes != a.Handshakes || got.P50US != a.P50US || got.P999US != a.P999US {
		t.Errorf("with a shard of no handshakes: %d handshakes, p50 %v p99.9 %v; want shard 0's %v %v", got.Handshakes, got.P50US, got.P999US, a.P50US, a.P999US)
	}
}

// TestMergeCasesAndSides: one record per case and side, in the order
// the cases first appear, whatever order the shards' records come in.
func TestMergeCasesAndSides(t *testing.T) {
	t.Parallel()
	it := [][]time.Duration{latencies(10, time.Millisecond, 0, 1, 1)}
	walls := []time.Duration{10 * time.Millisecond}
	var in []results.Record
	for shard := range 3 {
		names := []string{"handshake/b", "handshake/a"}
		if shard == 1 {
			names = []string{"handshake/a", "handshake/b"}
		}
		for _, n := range names {
			for _, side := range []string{results.SideA, results.SideB} {
				r := shardRecord(t, 3, shardSpec{shard: shard, name: n, iters: it, walls: walls})
				r.Side = side
				in = append(in, r)
			}
		}
	}
	out, err := Merge(Options{}, Source{Name: "x", Records: in})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range out {
		got = append(got, r.Name+"@"+r.Side)
		if r.Handshakes != 30 {
			t.Errorf("%s@%s: %d handshakes, want 30", r.Name, r.Side, r.Handshakes)
		}
	}
	if want := []string{"handshake/b@a", "handshake/b@b", "handshake/a@a", "handshake/a@b"}; !slices.Equal(got, want) {
		t.Errorf("cases %v, want %v", got, want)
	}
}

func hasNote(r results.Record, s string) bool {
	return slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, s) })
}

// TestMergeRefuses: every refusal names the input, the line and the
// field.
func TestMergeRefuses(t *testing.T) {
	t.Parallel()
	recs, _ := twoShards(t)
	a, b := recs[0], recs[1]
	edit := func(r results.Record, f func(*results.Record)) results.Record {
		r.Notes = slices.Clone(r.Notes)
		f(&r)
		return r
	}
	cases := []struct {
		name  string
		recs  []results.Record
		field string
		want  string
	}{
		{"not sharded", []results.Record{a, edit(b, func(r *results.Record) { r.Shard = nil })}, "shard", "not of a sharded run"},
		{"already merged", []results.Record{edit(a, func(r *results.Record) { r.Shard, r.ShardRuns = nil, []results.ShardRun{{}} })}, "shard", "already merged"},
		{"index out of range", []results.Record{edit(a, func(r *results.Record) { s := 2; r.Shard = &s })}, "shard", "shard 2 of 2"},
		{"negative index", []results.Record{edit(a, func(r *results.Record) { s := -1; r.Shard = &s })}, "shard", "shard -1 of 2"},
		{"too many shards", []results.Record{edit(a, func(r *results.Record) { r.Shards = 2_000_000_000 })}, "shards", "1 to 10000 shards"},
		{"no shards", []results.Record{edit(a, func(r *results.Record) { r.Shards = -3 })}, "shards", "1 to 10000 shards"},
		{"other plan", []results.Record{a, edit(b, func(r *results.Record) { r.RunPlan = "plan-2" })}, "run_plan", "different runs"},
		{"other version", []results.Record{a, edit(b, func(r *results.Record) { r.Env.TLSBenchVersion = "v2" })}, "env.tlsbench_version", "one tlsbench version"},
		{"other shards", []results.Record{a, edit(b, func(r *results.Record) { r.Shards = 3 })}, "shards", "different runs"},
		{"duplicate", []results.Record{a, b, a}, "shard", "already read at shards.jsonl: record 1"},
		{"too old", []results.Record{a, edit(b, func(r *results.Record) { r.SampleHandshakes = nil })}, "sample_handshakes", "too old to merge"},
		{"counts mismatch", []results.Record{a, edit(b, func(r *results.Record) { r.SampleHandshakes = r.SampleHandshakes[:1] })}, "sample_handshakes", "one count per sample"},
		{"bad histogram", []results.Record{a, edit(b, func(r *results.Record) { r.Histogram = "AAAA" + r.Histogram[4:] })}, "histogram", "does not decode"},
		{"bad phase", []results.Record{a, edit(b, func(r *results.Record) {
			p := r.Phases[results.PhaseConnect]
			p.Histogram = "garbage!"
			r.Phases = map[string]results.Phase{results.PhaseConnect: p}
		})}, "phases.connect.histogram", "does not decode"},
		{"many phases", []results.Record{edit(a, func(r *results.Record) {
			r.Phases = map[string]results.Phase{}
			for i := range 40 {
				r.Phases[fmt.Sprintf("p%02d", i)] = results.Phase{}
			}
		})}, "phases", "more than 32 phases"},
		{"other part", []results.Record{edit(a, func(r *results.Record) {
			r.Parts = map[string]results.PartFigures{"sideways": {Handshakes: 1}}
		})}, "parts", `part "sideways"`},
		{"throughput", []results.Record{edit(a, func(r *results.Record) { r.Kind = results.KindThroughput })}, "kind", "only handshake cases"},
		{"bad start", []results.Record{edit(a, func(r *results.Record) { r.CaseStarted = "yesterday" })}, "case_started", "RFC 3339"},
		{"other start", []results.Record{edit(a, func(r *results.Record) { r.StartAt = "2026-12-01T06:00:00Z" }), edit(b, func(r *results.Record) {
			r.StartAt, r.RunPlan = "2026-12-01T06:05:00Z", "plan-2"
		})}, "start_at", "2026-12-01T06:05:00Z, but shards.jsonl: record 1 has 2026-12-01T06:00:00Z: the shards were given different start times (--start-at)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := Merge(Options{}, Source{Name: "shards.jsonl", Records: c.recs})
			var me *Error
			if !errors.As(err, &me) || me.Field != c.field || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "shards.jsonl: record ") {
				t.Fatalf("err = %v, want an *Error on field %q saying %q", err, c.field, c.want)
			}
		})
	}
}

// TestMergeMissing: a missing shard, or a case some shard lacks, is
// refused unless allowed; allowed, the merged records list it.
func TestMergeMissing(t *testing.T) {
	t.Parallel()
	it := [][]time.Duration{latencies(10, time.Millisecond, 0, 1, 1)}
	walls := []time.Duration{10 * time.Millisecond}
	rec := func(shard int, name string) results.Record {
		return shardRecord(t, 3, shardSpec{shard: shard, name: name, iters: it, walls: walls})
	}
	whole := []results.Record{rec(0, "c1"), rec(0, "c2"), rec(2, "c1"), rec(2, "c2")}
	_, err := Merge(Options{}, Source{Name: "x", Records: whole})
	var miss *MissingError
	if !errors.As(err, &miss) || !miss.Everywhere || !slices.Equal(miss.Missing, []int{1}) || !strings.Contains(err.Error(), "shard 1 of 3: no records") {
		t.Fatalf("err = %v, want shard 1 missing everywhere", err)
	}
	partial := []results.Record{rec(0, "c1"), rec(0, "c2"), rec(1, "c1"), rec(2, "c1"), rec(2, "c2")}
	_, err = Merge(Options{}, Source{Name: "x", Records: partial})
	if !errors.As(err, &miss) || miss.Everywhere || miss.Case != "c2" || !strings.Contains(err.Error(), "shard 1 of 3: no record of case c2") {
		t.Fatalf("err = %v, want case c2 missing shard 1", err)
	}
	out, err := Merge(Options{AllowMissing: true}, Source{Name: "x", Records: partial})
	if err != nil {
		t.Fatal(err)
	}
	if out[0].MissingShards != nil || !slices.Equal(out[1].MissingShards, []int{1}) || !hasNote(out[1], "shard 1 of 3 missing") || out[1].Handshakes != 20 {
		t.Errorf("c1 missing %v, c2 missing %v notes %q handshakes %d", out[0].MissingShards, out[1].MissingShards, out[1].Notes, out[1].Handshakes)
	}
}

// TestMergeRead: a stream is read line by line; a JSON line that is not
// a record is refused with its line number, a line that is not JSON
// passed over and counted.
func TestMergeRead(t *testing.T) {
	t.Parallel()
	recs, _ := twoShards(t)
	var buf bytes.Buffer
	for i := range recs {
		line, _ := results.Marshal(&recs[i])
		buf.Write(line)
	}
	m := New(Options{})
	if err := m.Read("standard input", bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatal(err)
	}
	out, err := m.Records()
	if err != nil || len(out) != 1 || out[0].Handshakes != recs[0].Handshakes+recs[1].Handshakes {
		t.Fatalf("Records: %v", err)
	}
	// A shard's message is passed over and counted; a JSON line cut
	// short is refused.
	withLog := append([]byte("2026/12/01 06:00:00 starting shard 1\n"), buf.Bytes()...)
	m = New(Options{})
	if err := m.Read("standard input", bytes.NewReader(withLog)); err != nil {
		t.Fatalf("a log line among the records: %v", err)
	}
	if got := m.Skipped(); len(got) != 1 || got[0] != (Skipped{Source: "standard input", Lines: 1}) {
		t.Errorf("skipped %v, want the one log line", got)
	}
	buf.WriteString(`{"name":"handshake/tls1.3/full/c8","kin` + "\n")
	err = New(Options{}).Read("standard input", bytes.NewReader(buf.Bytes()))
	var me *Error
	if !errors.As(err, &me) || me.Pos.Line != 3 || !strings.HasPrefix(err.Error(), "standard input: line 3: not a tlsbench result") {
		t.Fatalf("err = %v, want line 3 refused", err)
	}
	bad := recs[1]
	bad.Handshakes = -1
	line, _ := results.Marshal(&bad)
	err = New(Options{}).Read("s1.jsonl", bytes.NewReader(line))
	if !errors.As(err, &me) || me.Case != bad.Name || !strings.HasPrefix(err.Error(), "s1.jsonl: line 1 ("+bad.Name+"): contradictory record") {
		t.Fatalf("err = %v", err)
	}
}

// TestMergeNothing: no records merge into none.
func TestMergeNothing(t *testing.T) {
	t.Parallel()
	out, err := Merge(Options{})
	if err != nil || out != nil {
		t.Fatalf("Merge() = %v, %v", out, err)
	}
}

// TestMergeReadBatches: a stream longer than a batch of lines is merged
// whole, and its faults are reported in the order of the lines.
func TestMergeReadBatches(t *testing.T) {
	t.Parallel()
	const shards = lineBatchSize + 44
	it := [][]time.Duration{latencies(5, time.Millisecond, 0, 1, 1)}
	walls := []time.Duration{5 * time.Millisecond}
	var lines [][]byte
	for s := range shards {
		r := shardRecord(t, shards, shardSpec{shard: s, iters: it, walls: walls})
		line, err := results.Marshal(&r)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, line)
	}
	stream := func(edit func([][]byte) [][]byte) *bytes.Reader {
		return bytes.NewReader(bytes.Join(edit(slices.Clone(lines)), nil))
	}
	m := New(Options{})
	if err := m.Read("s", stream(func(l [][]byte) [][]byte { return l })); err != nil {
		t.Fatal(err)
	}
	out, err := m.Records()
	if err != nil || len(out) != 1 || out[0].Handshakes != 5*shards || len(out[0].ShardRuns) != shards {
		t.Fatalf("Records: %v", err)
	}
	// A duplicate on line 6 is found before the garbage on line 290.
	err = New(Options{}).Read("s", stream(func(l [][]byte) [][]byte {
		l[5], l[289] = l[0], []byte("{garbage\n")
		return l
	}))
	var me *Error
	if !errors.As(err, &me) || me.Pos.Line != 6 || me.Field != "shard" {
		t.Fatalf("err = %v, want the duplicate on line 6", err)
	}
	err = New(Options{}).Read("s", stream(func(l [][]byte) [][]byte {
		l[289] = []byte("{garbage\n")
		return l
	}))
	if !errors.As(err, &me) || me.Pos.Line != 290 {
		t.Fatalf("err = %v, want line 290", err)
	}
}

// TestMergeParts: each part of a mix is merged as the record is: its
// handshakes summed, its phases from the merged histograms, its CPU per
// handshake weighted by each shard's handshakes of the part (unknown
// when a shard did not have it); a phase a shard did not measure is
// left out of that part, with a note.
func TestMergeParts(t *testing.T) {
	t.Parallel()
	recs, _ := twoShards(t)
	lat := func(base time.Duration, n, seed int) *stats.Latency {
		l := stats.NewLatency()
		for _, d := range latencies(n, base, 0.1, 10, seed) {
			l.Record(d)
		}
		return l
	}
	full := []*stats.Latency{lat(time.Millisecond, 300, 1), lat(3*time.Millisecond, 200, 2)}
	resumed := []*stats.Latency{lat(200*time.Microsecond, 100, 3), lat(900*time.Microsecond, 50, 4)}
	for i := range recs {
		recs[i].ResumeRatio = results.Float(0.3)
		recs[i].Parts = map[string]results.PartFigures{
			results.PartFull:    {Handshakes: full[i].Count(), Phases: map[string]results.Phase{results.PhaseTotal: phase(t, full[i]), results.PhaseConnect: phase(t, full[i])}},
			results.PartResumed: {Handshakes: resumed[i].Count(), Phases: map[string]results.Phase{results.PhaseTotal: phase(t, resumed[i])}},
		}
	}
	delete(recs[1].Parts[results.PartFull].Phases, results.PhaseConnect)
	// Client CPU of the full part: 400 µs on 300 handshakes, 600 on
	// 200: 480 merged. Server CPU of the resumed part: shard 1 has none.
	cpu := func(name string, i int, client, server *float64) {
		p := recs[i].Parts[name]
		p.ClientCPUUS, p.ServerCPUUS = client, server
		recs[i].Parts[name] = p
	}
	cpu(results.PartFull, 0, results.Float(400), results.Float(90))
	cpu(results.PartFull, 1, results.Float(600), results.Float(110))
	cpu(results.PartResumed, 0, results.Float(100), results.Float(30))
	cpu(results.PartResumed, 1, results.Float(100), nil)
	got := mergeOne(t, Options{}, recs...)
	if f, r := got.Parts[results.PartFull], got.Parts[results.PartResumed]; f.ClientCPUUS == nil || *f.ClientCPUUS != 480 ||
		f.ServerCPUUS == nil || *f.ServerCPUUS != 98 || r.ClientCPUUS == nil || *r.ClientCPUUS != 100 || r.ServerCPUUS != nil {
		t.Errorf("parts' CPU: full client %v server %v, resumed client %v server %v; want 480, 98, 100, unknown",
			f.ClientCPUUS, f.ServerCPUUS, r.ClientCPUUS, r.ServerCPUUS)
	}
	for name, ls := range map[string][]*stats.Latency{results.PartFull: full, results.PartResumed: resumed} {
		want := stats.NewLatency()
		want.Merge(ls[0])
		want.Merge(ls[1])
		p := got.Parts[name]
		if p.Handshakes != want.Count() || p.Phases[results.PhaseTotal].Histogram != encode(t, want) || p.Phases[results.PhaseTotal].P99US != want.PercentileUS(99) {
			t.Errorf("part %s: %d handshakes, p99 %v; want %d, %v", name, p.Handshakes, p.Phases[results.PhaseTotal].P99US, want.Count(), want.PercentileUS(99))
		}
	}
	if _, ok := got.Parts[results.PartFull].Phases[results.PhaseConnect]; ok || !hasNote(got, "full part's connect phase left out: shard 1") {
		t.Errorf("full part's phases %v, notes %q", got.Parts[results.PartFull].Phases, got.Notes)
	}
}

// TestMergeNotesOfManyShards: a note every shard writes with its own
// figures stays one note, however many shards.
func TestMergeNotesOfManyShards(t *testing.T) {
	t.Parallel()
	const shards = 40
	it := [][]time.Duration{latencies(5, time.Millisecond, 0, 1, 1)}
	walls := []time.Duration{5 * time.Millisecond}
	var in []results.Record
	for s := range shards {
		r := shardRecord(t, shards, shardSpec{shard: s, iters: it, walls: walls})
		r.Extra = nil
		r.Notes = []string{fmt.Sprintf("other load on the machine took %d%% of the CPU", 10+s), "the same everywhere"}
		if s == 7 {
			r.Notes = append(r.Notes, "failed: shard seven's own trouble at 12 ms")
		}
		in = append(in, r)
	}
	got := mergeOne(t, Options{}, in...)
	want := []string{
		"shards 0-39, each with its own figures (shard 0's here): other load on the machine took 10% of the CPU",
		"the same everywhere",
		"shard 7: failed: shard seven's own trouble at 12 ms",
	}
	if !slices.Equal(got.Notes, want) {
		t.Errorf("notes\n%q\nwant\n%q", got.Notes, want)
	}
}

// TestMergeContradiction: records that merge into a record contradicting
// itself (here one shard resumed, the other did not ask to) are refused.
func TestMergeContradiction(t *testing.T) {
	t.Parallel()
	recs, _ := twoShards(t)
	recs[0].Resume, recs[0].Resumed, recs[0].ResumptionRate = false, 0, 0
	_, err := Merge(Options{}, Source{Name: "x", Records: recs})
	if err == nil || !strings.Contains(err.Error(), "the merged record contradicts itself: resume is false but resumed is") {
		t.Fatalf("err = %v", err)
	}
}

// TestMergeEarlyData: QUIC cases' early-data counts are the shards' sums,
// the server's only when every shard has them, and the QUIC versions
// are counted by handshakes as groups are.
func TestMergeEarlyData(t *testing.T) {
	t.Parallel()
	recs, _ := twoShards(t)
	a, b := &recs[0], &recs[1]
	a.QUICVersion, b.QUICVersion = "v1", "v1:10,v2:5"
	a.EarlyDataOffered, a.EarlyDataAccepted, a.EarlyDataRejected = results.Int(40), results.Int(30), results.Int(10)
	b.EarlyDataOffered, b.EarlyDataAccepted, b.EarlyDataRejected = results.Int(15), results.Int(15), results.Int(0)
	a.ServerEarlyDataAccepted, a.ServerEarlyDataRejected = results.Int(30), results.Int(10)
	got := mergeOne(t, Options{}, recs...)
	if got.EarlyDataOffered == nil || *got.EarlyDataOffered != 55 || *got.EarlyDataAccepted != 45 || *got.EarlyDataRejected != 10 {
		t.Errorf("early data offered %v accepted %v rejected %v: want the sums 55, 45, 10", got.EarlyDataOffered, got.EarlyDataAccepted, got.EarlyDataRejected)
	}
	if got.ServerEarlyDataAccepted != nil || got.ServerEarlyDataRejected != nil {
		t.Error("the server's early-data counts were merged from one shard of two")
	}
	if want := fmt.Sprintf("v1:%d,v2:5", a.Handshakes+10); got.QUICVersion != want {
		t.Errorf("quic_version %q, want %q", got.QUICVersion, want)
	}
}

// TestMergeQUICRetries: the server's Retries and refusals of a QUIC case
// are the shards' sums, and absent when a shard lacks them.
func TestMergeQUICRetries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                     string
		bRetries, bRefused       *int64
		wantRetries, wantRefused *int64
	}{
		{"every shard", results.Int(5), results.Int(1), results.Int(12), results.Int(3)},
		{"one shard lacks them", nil, nil, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			recs, _ := twoShards(t)
			recs[0].ServerQUICRetries, recs[0].ServerQUICRefused = results.Int(7), results.Int(2)
			recs[1].ServerQUICRetries, recs[1].ServerQUICRefused = tt.bRetries, tt.bRefused
			got := mergeOne(t, Options{}, recs...)
			if !equalInt(got.ServerQUICRetries, tt.wantRetries) || !equalInt(got.ServerQUICRefused, tt.wantRefused) {
				t.Errorf("server_quic_retries %v, server_quic_refused %v: want %v, %v",
					intOf(got.ServerQUICRetries), intOf(got.ServerQUICRefused), intOf(tt.wantRetries), intOf(tt.wantRefused))
			}
		})
	}
}

func equalInt(a, b *int64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// intOf is *p to print, or nil.
func intOf(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}
