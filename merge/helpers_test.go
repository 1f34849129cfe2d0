package merge

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/stats"
)

// shardSpec is one shard's measurement of a case: the latencies of each
// iteration (window) and its wall time.
type shardSpec struct {
	shard   int
	name    string
	iters   [][]time.Duration
	walls   []time.Duration // closed loop: each iteration's wall time
	open    bool            // open loop: samples are mean latencies
	started time.Time
}

var runStart = time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)

// shardRecord builds the record a shard of a run of shards would write
// for spec: real histograms of its latencies, phases, samples.
func shardRecord(t testing.TB, shards int, spec shardSpec) results.Record {
	t.Helper()
	total, connect := stats.NewLatency(), stats.NewLatency()
	var samples []float64
	var n []int64
	var hs int64
	var wall time.Duration
	for i, it := range spec.iters {
		var sum time.Duration
		for _, d := range it {
			total.Record(d)
			connect.Record(d / 4)
			sum += d
		}
		hs += int64(len(it))
		n = append(n, int64(len(it)))
		if spec.open {
			samples = append(samples, float64(sum.Nanoseconds())/1e3/float64(len(it)))
		} else {
			samples = append(samples, float64(spec.walls[i].Nanoseconds())/1e3/float64(len(it)))
			wall += spec.walls[i]
		}
	}
	name := spec.name
	if name == "" {
		name = "handshake/tls1.3/full/c8"
	}
	shard := spec.shard
	started := spec.started
	if started.IsZero() {
		started = runStart
	}
	rec := results.Record{
		Name: name, Kind: results.KindHandshake, TLSVersion: "1.3", Resume: true, Concurrency: max(8/shards, 1),
		Group: "x25519", Transport: "tcp", Target: "example:443",
		Params:     map[string]string{"concurrency": "8", "tls_version": "1.3"},
		Handshakes: hs, Errors: 2, ErrorsByKind: map[string]int64{"timeout": 1, "reset": 1},
		Resumed: hs / 2, ServerResumed: nil,
		ClientCPUUS: results.Float(100 + float64(shard)*10), AllocBytes: 1000 * float64(shard+1),
		Extra: map[string]float64{"client_cores_used": 0.5, "server_key_decryptions_per_handshake": float64(shard), "mystery": 1},
		Shard: &shard, Shards: shards, RunPlan: "plan-1",
		CaseStarted: started.Format(time.RFC3339Nano), CaseEnded: started.Add(10 * time.Second).Format(time.RFC3339Nano),
		StartLateUS: results.Float(float64(started.Sub(runStart).Microseconds())),
		Env:         results.Env{TLSBenchVersion: "v1.0.0", GoVersion: "go1.26.8", GOOS: "linux", Host: fmt.Sprintf("pod-%d", shard)},
	}
	rec.ResumptionRate = float64(rec.Resumed) / float64(max(hs, 1))
	if spec.open {
		rec.Concurrency = 0
		rec.RateTarget, rec.RateAchieved = results.Float(1000), results.Float(990)
		rec.Arrival, rec.MaxInflight = results.ArrivalConstant, 100
		rec.Late, rec.Dropped = results.Int(int64(shard)), results.Int(0)
		rec.ServiceHistogram = encode(t, connect)
		rec.ServiceP50US = results.Float(connect.PercentileUS(50))
		rec.StartLatenessHistogram = encode(t, connect)
		rec.StartLatenessP50US = results.Float(connect.PercentileUS(50))
		rec.HandshakesPerSec = 990
	} else if wall > 0 {
		rec.HandshakesPerSec = float64(hs) / wall.Seconds()
	}
	rec.Histogram = encode(t, total)
	rec.P50US, rec.P90US, rec.P99US, rec.P999US = total.PercentileUS(50), total.PercentileUS(90), total.PercentileUS(99), total.PercentileUS(99.9)
	rec.Phases = map[string]results.Phase{
		results.PhaseTotal:   phase(t, total),
		results.PhaseConnect: phase(t, connect),
	}
	setSummary(&rec, samples, n)
	if err := rec.Validate(); err != nil {
		t.Fatalf("test record of shard %d: %v", shard, err)
	}
	return rec
}

func encode(t testing.TB, l *stats.Latency) string {
	t.Helper()
	s, err := l.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func phase(t testing.TB, l *stats.Latency) results.Phase {
	t.Helper()
	p, err := phaseOf(l)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// latencies returns n latencies around base with a share tail of them
// stretched by tailX: a distribution whose percentiles averaging would
// get wrong.
func latencies(n int, base time.Duration, tail float64, tailX float64, seed int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		d := base + time.Duration((i*7919+seed)%1000)*base/1000
		if float64(i%1000) < tail*1000 {
			d = time.Duration(float64(d) * tailX)
		}
		out[i] = d
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }
