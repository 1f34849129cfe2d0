package report

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"

	"github.com/tlsbench/tlsbench/results"
)

// TestBenchfmtReader parses the benchfmt output with benchfmt's own reader
// (the one benchstat uses) and checks every line's name, iteration count,
// units, values and configuration against the records.
func TestBenchfmtReader(t *testing.T) {
	t.Parallel()
	recs := loadRecords(t, resultsFile)
	var buf bytes.Buffer
	if err := Render(&buf, Benchfmt, recs); err != nil {
		t.Fatal(err)
	}
	r := benchfmt.NewReader(&buf, "tlsbench.txt")
	var got []*benchfmt.Result
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Errorf("syntax error: %v", rec)
		case *benchfmt.Result:
			got = append(got, rec.Clone())
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	units := r.Units()
	for unit, want := range map[string]int{"sec/op": -1, "wall-sec/op": -1, "handshakes/s": 1, "resumed-%": 1, "client-cpu-sec/op": -1, "p99-sec": -1, "B/s": 1} {
		if got := units.GetBetter(unit); got != want {
			t.Errorf("unit %s: better %d, want %d", unit, got, want)
		}
	}
	for _, u := range []string{"B/op", "resumed-%", "client-cpu-sec/op", "p99-sec"} {
		if units.GetAssumption(u) != benchmath.AssumeExact {
			t.Errorf("unit %s: assumption %v, want exact", u, units.GetAssumption(u))
		}
	}

	i := 0
	next := func() *benchfmt.Result {
		if i >= len(got) {
			t.Fatalf("only %d benchmark lines", len(got))
		}
		i++
		return got[i-1]
	}
	for ri := range recs {
		rec := &recs[ri]
		if rec.Kind == results.KindThroughput {
			res := next()
			checkName(t, res, "Throughput", strings.TrimPrefix(rec.Name, "throughput/"))
			checkConfig(t, res, rec)
			checkValue(t, res, "B/s", *rec.MBps*1e6)
			checkValue(t, res, "client-cpu-%", *rec.ClientCPUPct)
			if rec.ServerCPUPct != nil {
				checkValue(t, res, "server-cpu-%", *rec.ServerCPUPct)
			} else if _, ok := res.Value("server-cpu-%"); ok {
				t.Errorf("%s: null server CPU written as a value", res.Name)
			}
			continue
		}
		for si, us := range rec.SamplesUS {
			res := next()
			checkName(t, res, "Handshake", strings.TrimPrefix(rec.Name, "handshake/"))
			checkConfig(t, res, rec)
			if want := int(rec.Handshakes) / rec.Iterations; res.Iters != want {
				t.Errorf("%s: %d iterations, want handshakes per iteration %d", res.Name, res.Iters, want)
			}
			// ns/op is the handshake figure where the record has it,
			// the wall time per connection beside it.
			if hs := rec.HandshakeSamplesUS; hs != nil {
				checkValue(t, res, "sec/op", hs[si]*1e-6)
				checkValue(t, res, "wall-sec/op", us*1e-6)
			} else {
				checkValue(t, res, "sec/op", us*1e-6)
			}
			checkValue(t, res, "handshakes/s", 1e6/us)
			checkValue(t, res, "B/op", rec.AllocBytes)
			checkValue(t, res, "resumed-%", rec.ResumptionRate*100)
			checkValue(t, res, "p99-sec", rec.P99US*1e-6)
			for _, c := range []struct {
				v    *float64
				unit string
			}{{rec.ClientCPUUS, "client-cpu-sec/op"}, {rec.ServerCPUUS, "server-cpu-sec/op"}, {rec.ProcessCPUUS, "process-cpu-sec/op"}} {
				if c.v != nil {
					checkValue(t, res, c.unit, *c.v*1e-6)
				} else if _, ok := res.Value(c.unit); ok {
					t.Errorf("%s: null %s written as a value", res.Name, c.unit)
				}
			}
			if rec.ServerResumed != nil {
				checkValue(t, res, "server-resumed-%", float64(*rec.ServerResumed)/float64(rec.Handshakes)*100)
			} else if _, ok := res.Value("server-resumed-%"); ok {
				t.Errorf("%s: null server_resumed written as a value", res.Name)
			}
			if rec.Errors > 0 {
				checkValue(t, res, "errors", float64(rec.Errors))
			}
			for _, v := range res.Values {
				if v.OrigUnit == "" && strings.Contains(v.Unit, "ns") {
					t.Errorf("%s: unit %s was not tidied", res.Name, v.Unit)
				}
			}
		}
	}
	if i != len(got) {
		t.Errorf("%d benchmark lines, want %d", len(got), i)
	}
}

func checkName(t *testing.T, res *benchfmt.Result, base, rest string) {
	t.Helper()
	gotBase, parts := res.Name.Parts()
	if string(gotBase) != base {
		t.Errorf("%s: base name %q, want %q", res.Name, gotBase, base)
	}
	var sb strings.Builder
	for _, p := range parts[:len(parts)-1] {
		sb.Write(p)
	}
	if sb.String() != "/"+rest {
		t.Errorf("%s: sub-benchmark parts %q, want %q", res.Name, sb.String(), "/"+rest)
	}
	if procs := string(parts[len(parts)-1]); procs != "-2" {
		t.Errorf("%s: GOMAXPROCS part %q, want -2", res.Name, procs)
	}
}

func checkConfig(t *testing.T, res *benchfmt.Result, rec *results.Record) {
	t.Helper()
	e := rec.Env
	for key, want := range map[string]string{
		"goos": e.GOOS, "goarch": e.GOARCH, "cpu": e.CPUModel, "go": e.GoVersion,
		"tlsbench": e.TLSBenchVersion, "gomaxprocs": "2", "kernel": e.Kernel,
		"peer-nginx": e.Peers["nginx"], "peer-openssl": e.Peers["openssl"],
	} {
		if got := res.GetConfig(key); got != want {
			t.Errorf("%s: config %s = %q, want %q", res.Name, key, got, want)
		}
	}
}

func checkValue(t *testing.T, res *benchfmt.Result, unit string, want float64) {
	t.Helper()
	got, ok := res.Value(unit)
	if !ok {
		t.Errorf("%s: no value in %s", res.Name, unit)
		return
	}
	// benchfmt output keeps at least four significant digits.
	if math.Abs(got-want) > 1e-3*math.Abs(want) {
		t.Errorf("%s: %s = %v, want %v", res.Name, unit, got, want)
	}
}
