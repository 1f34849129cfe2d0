package merge

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/results"
)

// TestMergeRefusesHostileCounts: a shard's record whose figures cannot
// be summed (the sum overflows) or whose histogram does not hold the
// latencies its record counts is refused as bad input, naming the
// input, the record and the field, not merged into a record that
// contradicts itself.
func TestMergeRefusesHostileCounts(t *testing.T) {
	t.Parallel()
	recs, _ := twoShards(t)
	a, b := recs[0], recs[1]
	edit := func(r results.Record, f func(*results.Record)) results.Record {
		r.ErrorsByKind = map[string]int64{"timeout": 1, "reset": 1}
		r.SampleHandshakes = slices.Clone(r.SampleHandshakes)
		f(&r)
		return r
	}
	huge := int64(math.MaxInt64 - 1)
	cases := []struct {
		name  string
		recs  []results.Record
		at    int // the record blamed, from 1
		field string
		want  string
	}{
		{"handshakes", []results.Record{edit(a, func(r *results.Record) { r.Handshakes = huge }), b}, 2, "handshakes",
			"550, added to the 9223372036854775806 of the records before, overflows the sum"},
		{"errors", []results.Record{a, edit(b, func(r *results.Record) { r.Errors = math.MaxInt64 })}, 2, "errors", "overflows the sum"},
		{"errors by kind", []results.Record{edit(a, func(r *results.Record) { r.ErrorsByKind["timeout"] = math.MaxInt64 }), b}, 2, "errors_by_kind.timeout", "overflows the sum"},
		{"negative", []results.Record{edit(a, func(r *results.Record) { r.Resumed = math.MinInt64 }), edit(b, func(r *results.Record) { r.Resumed = -1 })}, 2, "resumed", "overflows the sum"},
		{"window's handshakes", []results.Record{edit(a, func(r *results.Record) { r.SampleHandshakes[1] = huge }), b}, 2, "sample_handshakes[1]", "overflows the sum"},
		{"a sample's time", []results.Record{edit(a, func(r *results.Record) { r.SamplesUS = slices.Clone(r.SamplesUS); r.SamplesUS[0] = 1e308 })}, 1, "samples_us[0]", "beyond the largest time"},
		{"handshakes per second", []results.Record{edit(a, func(r *results.Record) { r.HandshakesPerSec = math.MaxFloat64 }), edit(b, func(r *results.Record) { r.HandshakesPerSec = math.MaxFloat64 })}, 2, "handshakes_per_sec", "overflows the sum"},
		{"cost per handshake", []results.Record{edit(a, func(r *results.Record) { r.ClientCPUUS = results.Float(1e307) })}, 1, "client_cpu_us", "per handshake over 2000 handshakes is beyond the largest number"},
		{"concurrency", []results.Record{edit(a, func(r *results.Record) { r.Concurrency = math.MaxInt }), b}, 2, "concurrency", "overflows the sum"},
		{"group count", []results.Record{edit(a, func(r *results.Record) { r.Group = "x25519:9223372036854775807" }), b}, 2, "group", "overflows the sum"},
		{"a part's handshakes", []results.Record{
			edit(a, func(r *results.Record) {
				r.Parts = map[string]results.PartFigures{results.PartFull: {Handshakes: huge}}
			}),
			edit(b, func(r *results.Record) { r.Parts = map[string]results.PartFigures{results.PartFull: {Handshakes: 2}} }),
		}, 2, "parts.full.handshakes", "overflows the sum"},
		{"fewer latencies than handshakes", []results.Record{a, edit(b, func(r *results.Record) { r.Handshakes, r.Resumed = 600, 300 })}, 2, "histogram",
			"holds 550 latencies, but handshakes says 600: a histogram holds one latency per handshake counted"},
		{"another shard's histogram", []results.Record{a, edit(b, func(r *results.Record) { r.Histogram = a.Histogram })}, 2, "histogram", "holds 2000 latencies, but handshakes says 550"},
		{"a phase's count", []results.Record{edit(a, func(r *results.Record) {
			p := r.Phases[results.PhaseConnect]
			p.Count--
			r.Phases = map[string]results.Phase{results.PhaseTotal: r.Phases[results.PhaseTotal], results.PhaseConnect: p}
		}), b}, 1, "phases.connect.histogram", "holds 2000 latencies, but phases.connect.count says 1999"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := Merge(Options{}, Source{Name: "shards.jsonl", Records: c.recs})
			var me *Error
			if !errors.As(err, &me) || me.Field != c.field || me.Pos.Record != c.at || me.Case != a.Name || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want record %d's %s refused, saying %q", err, c.at, c.field, c.want)
			}
			if !strings.HasPrefix(err.Error(), "shards.jsonl: record ") || strings.Contains(err.Error(), "contradicts itself") {
				t.Errorf("err = %v: not blamed on the input", err)
			}
		})
	}
}

// TestMergeReadsHostileLines: a shard's results file with a count that
// overflows the merged sum, or a histogram that disagrees with its
// record, is refused naming the file and the line, as a user reads it.
func TestMergeReadsHostileLines(t *testing.T) {
	t.Parallel()
	recs, _ := twoShards(t)
	line := func(r results.Record) []byte {
		b, err := results.Marshal(&r)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	overflow := recs[1]
	// Resumed 275 of 2^63-1 handshakes is a resumption rate of 0, as
	// the record says: it reads as a record, and only its sum is wrong.
	overflow.Handshakes, overflow.ResumptionRate = math.MaxInt64, 0
	short := recs[1]
	short.Handshakes, short.Resumed = 500, 250
	noHist := recs[1]
	noHist.Histogram = ""
	for _, tc := range []struct {
		name string
		bad  results.Record
		want string
	}{
		{"overflow", overflow, "s1.jsonl: line 2 (handshake/tls1.3/full/c8): handshakes: 9223372036854775807, added to the 2000 of the records before, overflows the sum"},
		{"short count", short, "s1.jsonl: line 2 (handshake/tls1.3/full/c8): histogram: holds 550 latencies, but handshakes says 500"},
		{"no histogram", noHist, "s1.jsonl: line 2 (handshake/tls1.3/full/c8): histogram: absent, but the record has 550 handshakes"},
	} {
		m := New(Options{})
		if err := m.Read("s0.jsonl", bytes.NewReader(line(recs[0]))); err != nil {
			t.Fatal(err)
		}
		in := append([]byte("shard 1 starting\n"), line(tc.bad)...)
		err := m.Read("s1.jsonl", bytes.NewReader(in))
		if err == nil {
			_, err = m.Records()
		}
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestMergeCoverage: a merge says which shards it had, counting those
// merged, and names those missing, everywhere or from some cases.
func TestMergeCoverage(t *testing.T) {
	t.Parallel()
	it := [][]time.Duration{latencies(10, time.Millisecond, 0, 1, 1)}
	walls := []time.Duration{10 * time.Millisecond}
	rec := func(shards, shard int, name string) results.Record {
		return shardRecord(t, shards, shardSpec{shard: shard, name: name, iters: it, walls: walls})
	}
	for _, tc := range []struct {
		name string
		recs []results.Record
		want string
		done bool
	}{
		{"every shard", []results.Record{rec(2, 0, "c1"), rec(2, 1, "c1")}, "2 shards", true},
		{"one of one", []results.Record{rec(1, 0, "c1")}, "1 shard", true},
		{"one of two", []results.Record{rec(2, 0, "c1"), rec(2, 0, "c2")}, "1 of 2 shards (shard 1 missing)", false},
		{"missing and partial", []results.Record{rec(4, 0, "c1"), rec(4, 0, "c2"), rec(4, 2, "c1"), rec(4, 3, "c2")},
			"3 of 4 shards (shard 1 missing; shards 2, 3 missing from some cases)", false},
	} {
		m := New(Options{AllowMissing: true})
		for i := range tc.recs {
			if err := m.Add(Pos{Source: "x", Record: i + 1}, &tc.recs[i]); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := m.Records(); err != nil {
			t.Fatal(err)
		}
		if c := m.Coverage(); c.String() != tc.want || c.Complete() != tc.done {
			t.Errorf("%s: %q (complete %v), want %q (%v)", tc.name, c, c.Complete(), tc.want, tc.done)
		}
	}
	if c := New(Options{}).Coverage(); c.Shards != 0 || !c.Complete() {
		t.Errorf("no records: %+v", c)
	}
}
