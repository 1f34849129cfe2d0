package report_test

import (
	"fmt"
	"os"

	"github.com/tlsbench/tlsbench/report"
	"github.com/tlsbench/tlsbench/results"
)

func ExampleParseFormat() {
	_, err := report.ParseFormat("xml")
	fmt.Println(err)
	// Output: unknown report format "xml" (valid: table, markdown, csv, json, benchfmt, html)
}

func ExampleRender() {
	recs := []results.Record{{
		Name: "handshake/tls1.3/resume/c1", Kind: results.KindHandshake,
		TLSVersion: "1.3", Resume: true, Concurrency: 1,
		Handshakes: 256, Resumed: 256, ResumptionRate: 1, ServerResumed: results.Int(256),
		Iterations: 2, MeanUS: 162.5, StddevUS: 0.7, MedianUS: 162.5, MinUS: 162, MaxUS: 163,
		SamplesUS: []float64{162, 163},
		Env:       results.Env{GoVersion: "go1.26.0", GOOS: "linux", GOARCH: "amd64", GOMAXPROCS: 2},
	}}
	if err := report.Render(os.Stdout, report.Benchfmt, recs); err != nil {
		fmt.Println(err)
	}
	// Output:
	// Unit handshakes/s better=higher
	// Unit B/op assume=exact
	// Unit resumed-% better=higher
	// Unit resumed-% assume=exact
	// Unit server-resumed-% better=higher
	// Unit server-resumed-% assume=exact
	// goos: linux
	// goarch: amd64
	// go: go1.26.0
	// gomaxprocs: 2
	//
	// BenchmarkHandshake/tls1.3/resume/c1-2 128 162000 ns/op 6173 handshakes/s 0 B/op 100 resumed-% 100 server-resumed-%
	// BenchmarkHandshake/tls1.3/resume/c1-2 128 163000 ns/op 6135 handshakes/s 0 B/op 100 resumed-% 100 server-resumed-%
}

// A table laid out to a terminal of 60 columns: the columns that matter,
// and a line naming the others.
func ExampleWriteTextLayout() {
	rec := func(name string, resume bool, mean float64) results.Record {
		r := results.Record{
			Name: name, Kind: results.KindHandshake, TLSVersion: "1.3", Resume: resume, Concurrency: 1,
			Handshakes: 512, Iterations: 4, MeanUS: mean + 20, SamplesUS: []float64{mean + 19, mean + 20, mean + 20, mean + 21},
			P50US: mean - 20, P99US: 2 * mean, HandshakesPerSec: 1e6 / (mean + 20),
		}
		r.SetHandshakeFigure([]float64{mean - 1, mean, mean, mean + 1})
		if resume {
			r.Resumed, r.ResumptionRate = 512, 1
		}
		return r
	}
	recs := []results.Record{rec("handshake/tls1.3/full/c1", false, 400), rec("handshake/tls1.3/resume/c1", true, 160)}
	d := report.BuildDocument(recs)
	d.Env = nil
	d.Blocks = d.Blocks[:1] // the handshakes
	if err := report.WriteTextLayout(os.Stdout, d, report.Layout{Width: 60, Wider: "--wide"}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// Handshakes
	//            per handshake  latency
	// name       mean    error  p50  p99  conn/s     wall  resumed
	//              µs       µs   µs   µs          µs/conn   client
	// full/c1     400     5.28  380  800    2381      420       0%
	// resume/c1   160     5.28  140  320    5556      180     100%
	//   name: handshake/tls1.3/ left off the start of each
	//   left out to fit 60 columns: stddev, median, min, max,
	//     client CPU, server CPU, alloc, group, errors (--wide
	//     shows them)
	//   per handshake: an iteration's time / its handshakes (an
	//     inverse throughput, not a latency), error: 99.9%
	//     confidence; latency: of single handshakes
}
