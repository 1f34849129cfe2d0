package compare

import (
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/report"
	"github.com/tlsbench/tlsbench/results"
)

// sidedRecord is side s of an interleaved case: n iterations of 100
// handshakes whose wall time, client and server CPU per handshake are
// the given means with a few percent of noise, drift shared by the sides
// as an interleaved run's is.
func sidedRecord(side string, n int, wall, client, server float64, seed uint64) results.Record {
	r := rand.New(rand.NewPCG(seed, 7))
	drift := rand.New(rand.NewPCG(1, 1)) // the same on every side
	rec := results.Record{Name: "handshake/tls1.3/full/c8", Kind: results.KindHandshake, Side: side, TLSVersion: "1.3",
		Concurrency: 8, Transport: "tcp", Handshakes: int64(100 * n), Iterations: n}
	noise := func(v float64) float64 { return v * (1 + 0.03*(r.Float64()-0.5)) * (1 + 0.2*drift.Float64()) }
	for range n {
		rec.SamplesUS = append(rec.SamplesUS, noise(wall))
		rec.SampleHandshakes = append(rec.SampleHandshakes, 100)
		rec.ClientCPUSamplesUS = append(rec.ClientCPUSamplesUS, noise(client))
		rec.ServerCPUSamplesUS = append(rec.ServerCPUSamplesUS, noise(server))
		rec.AllocSamplesBytes = append(rec.AllocSamplesBytes, 40000)
	}
	rec.MeanUS = wall
	return rec
}

func metricOfCase(t *testing.T, cc *CaseComparison, m string) MetricComparison {
	t.Helper()
	mc, ok := cc.Metric(m)
	if !ok {
		t.Fatalf("%s: no %s comparison (metrics %+v)", cc.Name, m, cc.Metrics)
	}
	return mc
}

// TestPairedMetricsServerOnly: a pair in which only the server's CPU
// changed is flagged on server CPU, not on the client's or the
// allocations, and the line says where; an A/A pair flags nothing; the
// gates on each metric fail and pass accordingly.
func TestPairedMetricsServerOnly(t *testing.T) {
	t.Parallel()
	recs := []results.Record{sidedRecord("a", 30, 300, 100, 150, 1), sidedRecord("b", 30, 420, 100, 320, 2)}
	c, err := ComparePaired(recs, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cc := &c.Cases[0]
	if mc := metricOfCase(t, cc, results.MetricServerCPU); mc.Verdict != Slower || !(mc.Ratio > 2 && mc.Ratio < 2.3) || !(mc.CILo > 1.9) {
		t.Errorf("server CPU: %+v, want slower at about 2.13x", mc)
	}
	for _, m := range []string{results.MetricClientCPU, results.MetricAlloc} {
		if mc := metricOfCase(t, cc, m); mc.Verdict != NoChange && mc.Verdict != WithinNoise {
			t.Errorf("%s: %+v, want no change", m, mc)
		}
	}
	if _, ok := cc.Metric(results.MetricProxyCPU); ok {
		t.Errorf("a proxy CPU comparison without a proxy")
	}
	line := metricsLine(cc, true)
	if !strings.HasPrefix(line, "server CPU +11") || !strings.Contains(line, "client CPU unchanged") || !strings.Contains(line, "wall +") {
		t.Errorf("line %q", line)
	}
	if err := c.CheckGates([]Gate{{results.MetricClientCPU, 0.05}, {results.MetricAlloc, 0.05}}); err != nil {
		t.Errorf("client CPU and allocation gates: %v", err)
	}
	err = c.CheckGates([]Gate{{results.MetricServerCPU, 0.05}})
	var me *MetricRegressionError
	if !errors.As(err, &me) || len(me.Cases) != 1 || !strings.Contains(err.Error(), "more server CPU than side a") {
		t.Errorf("server CPU gate: %v", err)
	}

	aa := []results.Record{sidedRecord("a", 30, 300, 100, 150, 1), sidedRecord("b", 30, 300, 100, 150, 2)}
	c, err = ComparePaired(aa, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{results.MetricWall, results.MetricClientCPU, results.MetricServerCPU, results.MetricAlloc} {
		if mc := metricOfCase(t, &c.Cases[0], m); mc.Verdict != NoChange && mc.Verdict != WithinNoise {
			t.Errorf("A/A %s: %+v", m, mc)
		}
	}
	if err := c.CheckGates([]Gate{{results.MetricWall, 0.05}, {results.MetricServerCPU, 0.05}, {results.MetricClientCPU, 0.05}, {results.MetricAlloc, 0.05}}); err != nil {
		t.Errorf("A/A gates: %v", err)
	}
}

// TestMetricsNotResolved: a server CPU read in 10 ms ticks over
// iterations of a few ticks is not judged, and its gate cannot pass it.
func TestMetricsNotResolved(t *testing.T) {
	t.Parallel()
	recs := []results.Record{sidedRecord("a", 30, 300, 100, 150, 1), sidedRecord("b", 30, 420, 100, 320, 2)}
	for i := range recs {
		recs[i].ServerCPUTickUS = results.Float(10000) // 100 × 150 µs is 1.5 ticks
	}
	c, err := ComparePaired(recs, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mc := metricOfCase(t, &c.Cases[0], results.MetricServerCPU)
	if mc.Verdict != NotResolved || !strings.Contains(mc.Note, "steps of 10 ms") {
		t.Errorf("server CPU in ticks: %+v", mc)
	}
	if !strings.Contains(metricsLine(&c.Cases[0], true), "server CPU not resolved") {
		t.Errorf("line %q", metricsLine(&c.Cases[0], true))
	}
	if err := c.CheckGates([]Gate{{results.MetricServerCPU, 0.05}}); err == nil || !strings.Contains(err.Error(), "not resolved") {
		t.Errorf("gate on an unresolved metric: %v", err)
	}
	// Iterations of 1000 handshakes measure 15 ticks and more: judged.
	for i := range recs {
		for j := range recs[i].SampleHandshakes {
			recs[i].SampleHandshakes[j] = 1000
		}
	}
	c, _ = ComparePaired(recs, CompareOptions{})
	if mc := metricOfCase(t, &c.Cases[0], results.MetricServerCPU); mc.Verdict != Slower {
		t.Errorf("server CPU over long iterations: %+v", mc)
	}
}

// TestSeparateMetrics: two separate files are judged per metric too,
// with the U test.
func TestSeparateMetrics(t *testing.T) {
	t.Parallel()
	a, b := sidedRecord("", 30, 300, 100, 150, 1), sidedRecord("", 30, 300, 100, 320, 2)
	c := Compare([]results.Record{a}, []results.Record{b}, CompareOptions{})
	cc := &c.Cases[0]
	if mc := metricOfCase(t, cc, results.MetricServerCPU); mc.Verdict != Slower {
		t.Errorf("server CPU: %+v", mc)
	}
	if mc := metricOfCase(t, cc, results.MetricClientCPU); mc.Verdict == Slower || mc.Verdict == Faster {
		t.Errorf("client CPU: %+v", mc)
	}
	if line := metricsLine(cc, false); !strings.Contains(line, "server CPU +1") || !strings.Contains(line, "p=") {
		t.Errorf("line %q", line)
	}
}

// TestBenchfmtCostUnits: the benchfmt lines of a case with its costs per
// iteration carry each iteration's, one unit a metric, so that benchstat
// compares them as it compares the time.
func TestBenchfmtCostUnits(t *testing.T) {
	t.Parallel()
	rec := sidedRecord("", 3, 300, 100, 150, 1)
	rec.HandshakesPerSec = 1e6 / 300
	out := string(render(t, report.Benchfmt, []results.Record{rec}))
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "BenchmarkHandshake") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 3:\n%s", len(lines), out)
	}
	for i, l := range lines {
		for _, unit := range []string{"client-cpu-ns/hs", "server-cpu-ns/hs", "alloc-B/hs"} {
			if !strings.Contains(l, " "+unit) {
				t.Errorf("line %d lacks %s: %s", i, unit, l)
			}
		}
		if want := strconv.FormatFloat(math.Round(rec.ServerCPUSamplesUS[i]*1000), 'f', -1, 64); !strings.Contains(l, want+" server-cpu-ns/hs") {
			t.Errorf("line %d: server CPU %s ns not found: %s", i, want, l)
		}
	}
	if strings.Contains(out, "proxy-cpu-ns/hs") || !strings.Contains(out, "Unit server-cpu-ns/hs better=lower") {
		t.Errorf("units:\n%s", out)
	}
}

// TestMetricGateLeavesOutThroughput: a cost gate judges handshake cases
// only, as the comparison does, so that a throughput case beside them
// neither fails it as untested nor hides a handshake case's regression.
func TestMetricGateLeavesOutThroughput(t *testing.T) {
	t.Parallel()
	tp := func(mbps float64) results.Record {
		return results.Record{Name: "throughput/tls1.3/aes128gcm/16k", Kind: results.KindThroughput, TLSVersion: "1.3",
			BufferBytes: 16384, MBps: results.Float(mbps), Iterations: 5, SamplesUS: []float64{1, 1, 1, 1, 1}}
	}
	same := Compare([]results.Record{sidedRecord("", 30, 300, 100, 150, 1), tp(1000)},
		[]results.Record{sidedRecord("", 30, 300, 100, 150, 2), tp(1000)}, CompareOptions{})
	if len(same.Cases) != 2 {
		t.Fatalf("%d cases compared, want the handshake and the throughput case", len(same.Cases))
	}
	if err := same.CheckGates([]Gate{{results.MetricServerCPU, 0.05}}); err != nil {
		t.Errorf("server CPU gate of an unchanged handshake case beside a throughput case: %v", err)
	}
	slower := Compare([]results.Record{sidedRecord("", 30, 300, 100, 150, 1), tp(1000)},
		[]results.Record{sidedRecord("", 30, 300, 100, 320, 2), tp(1000)}, CompareOptions{})
	var me *MetricRegressionError
	if err := slower.CheckGates([]Gate{{results.MetricServerCPU, 0.05}}); !errors.As(err, &me) || len(me.Cases) != 1 || len(me.Untested) != 0 {
		t.Errorf("server CPU gate of a slower handshake case beside a throughput case: %v", err)
	}
}
