package merge_test

import (
	"fmt"
	"time"

	"github.com/tlsbench/tlsbench/merge"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/stats"
)

// shard is what shard i of a run of two writes for a case: n handshakes
// of latency d in one iteration of a second.
func shard(i int, n int64, d time.Duration) results.Record {
	l := stats.NewLatency()
	for range n {
		l.Record(d)
	}
	hist, _ := l.Encode()
	perHS := 1e6 / float64(n) // µs of the iteration's wall time per handshake
	return results.Record{
		Name: "handshake/tls1.3/full/c2", Kind: results.KindHandshake, TLSVersion: "1.3", Concurrency: 1,
		Handshakes: n, HandshakesPerSec: float64(n), Histogram: hist,
		Iterations: 1, SamplesUS: []float64{perHS}, SampleHandshakes: []int64{n},
		MeanUS: perHS, MedianUS: perHS, MinUS: perHS, MaxUS: perHS,
		Shard: &i, Shards: 2, RunPlan: "3f9a", Env: results.Env{TLSBenchVersion: "v1.4.0"},
	}
}

func Example() {
	// Shard 0 was fast, shard 1 slow: the merged median is drawn from
	// both histograms merged, not from the shards' medians averaged.
	recs, err := merge.Merge(merge.Options{}, merge.Source{Name: "shards.jsonl", Records: []results.Record{
		shard(0, 900, 2*time.Millisecond),
		shard(1, 100, 40*time.Millisecond),
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	r := recs[0]
	fmt.Printf("%s: %d handshakes from %d shards, %.0f per second\n", r.Name, r.Handshakes, len(r.ShardRuns), r.HandshakesPerSec)
	fmt.Printf("p50 %.0f µs, p99 %.0f µs; one iteration of %.0f µs per handshake\n", r.P50US, r.P99US, r.MeanUS)
	// Output:
	// handshake/tls1.3/full/c2: 1000 handshakes from 2 shards, 1000 per second
	// p50 2000 µs, p99 40031 µs; one iteration of 1000 µs per handshake
}
