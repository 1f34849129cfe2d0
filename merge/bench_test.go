package merge

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/stats"
)

// The scale of BenchmarkMerge: a run of 1,000 shards measuring 32
// cases, each shard's record of a case with histograms of thousands of
// distinct values (its latency, its phases, and in open-loop cases its
// service time and start lateness) and 30 samples.
const (
	benchShards   = 1000
	benchCases    = 32
	benchVariants = 4 // distinct shard records per case, reused round the shards
	benchSamples  = 30
	benchLatency  = 20_000 // latencies recorded into each shard's histograms
)

// BenchmarkMerge merges 1,000 shards × 32 cases (and 100 × 32 beside
// it): "records" adds decoded
// records one at a time (the library's work: every histogram decoded
// and folded into its case's), "jsonl" reads them as JSON lines as
// tlsbench merge does (each line decoded and checked as the results
// reader checks any record). Records are made as they are fed, never
// held all at once, so the memory measured is the merge's. live-MiB is
// the heap still in use when the merge is done: the merged histograms,
// bounded by their size and the number of cases, not by the handshakes.
func BenchmarkMerge(b *testing.B) {
	tmpl := benchTemplates(b)
	// 100 shards beside 1,000: the merge's live memory stays that of
	// the cases' histograms.
	for _, shards := range []int{100, benchShards} {
		b.Run(fmt.Sprintf("records/shards=%d", shards), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m := New(Options{})
				for s := range shards {
					for c := range benchCases {
						rec := tmpl[c][s%benchVariants]
						shard := s
						rec.Shard, rec.Shards = &shard, shards
						if err := m.Add(Pos{Source: "bench", Record: s*benchCases + c + 1}, &rec); err != nil {
							b.Fatal(err)
						}
					}
				}
				finishBench(b, m, shards)
			}
		})
	}
	b.Run(fmt.Sprintf("jsonl/shards=%d", benchShards), func(b *testing.B) {
		lines := benchLines(b, tmpl)
		b.ReportAllocs()
		for b.Loop() {
			pr, pw := io.Pipe()
			go writeShards(pw, lines)
			m := New(Options{})
			if err := m.Read("bench", pr); err != nil {
				b.Fatal(err)
			}
			finishBench(b, m, benchShards)
		}
	})
}

func finishBench(b *testing.B, m *Merger, shards int) {
	out, err := m.Records()
	if err != nil {
		b.Fatal(err)
	}
	if len(out) != benchCases || out[0].Shards != shards || len(out[0].ShardRuns) != shards {
		b.Fatalf("%d merged records", len(out))
	}
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "live-MiB")
	runtime.KeepAlive(m)
}

// benchTemplates returns, per case, benchVariants shard records whose
// latencies spread over thousands of histogram buckets.
func benchTemplates(b *testing.B) [][]results.Record {
	rng := rand.New(rand.NewPCG(7, 8))
	out := make([][]results.Record, benchCases)
	for c := range out {
		for v := range benchVariants {
			out[c] = append(out[c], benchRecord(b, rng, c, v))
		}
	}
	return out
}

func benchRecord(b *testing.B, rng *rand.Rand, c, v int) results.Record {
	open := c%2 == 1
	spec := shardSpec{shard: 0, name: fmt.Sprintf("handshake/tls1.3/full/case%02d", c), open: open}
	per := benchLatency / benchSamples
	median := float64(500+300*v) * float64(time.Microsecond)
	for range benchSamples {
		it := make([]time.Duration, per)
		for j := range it {
			it[j] = time.Duration(median * math.Exp(0.8*rng.NormFloat64()))
		}
		spec.iters = append(spec.iters, it)
		spec.walls = append(spec.walls, 100*time.Millisecond)
	}
	rec := shardRecord(b, benchShards, spec)
	// More phases, as a run against a target records them.
	hs, fb := stats.NewLatency(), stats.NewLatency()
	for range benchLatency {
		hs.Record(time.Duration(median * 0.7 * math.Exp(0.6*rng.NormFloat64())))
		fb.Record(time.Duration(median * 0.1 * math.Exp(rng.NormFloat64())))
	}
	rec.Phases[results.PhaseHandshake], rec.Phases[results.PhaseFirstByte] = phase(b, hs), phase(b, fb)
	return rec
}

// benchLines are the templates as JSON lines, with a placeholder for the
// shard's index.
func benchLines(b *testing.B, tmpl [][]results.Record) [][][]byte {
	out := make([][][]byte, len(tmpl))
	for c := range tmpl {
		for v := range tmpl[c] {
			rec := tmpl[c][v]
			ph := benchPlaceholder
			rec.Shard = &ph
			line, err := results.Marshal(&rec)
			if err != nil {
				b.Fatal(err)
			}
			out[c] = append(out[c], line)
		}
	}
	return out
}

const benchPlaceholder = 987654321

// writeShards writes every shard's lines, as the shards' logs would be
// concatenated: shard by shard, case by case.
func writeShards(w *io.PipeWriter, lines [][][]byte) {
	ph := []byte(fmt.Sprintf(`"shard":%d,`, benchPlaceholder))
	var buf bytes.Buffer
	for s := range benchShards {
		idx := []byte(fmt.Sprintf(`"shard":%d,`, s))
		for c := range lines {
			buf.Reset()
			line := lines[c][s%benchVariants]
			i := bytes.Index(line, ph)
			buf.Write(line[:i])
			buf.Write(idx)
			buf.Write(line[i+len(ph):])
			if _, err := w.Write(buf.Bytes()); err != nil {
				return
			}
		}
	}
	w.Close()
}
