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

func ExampleCompare() {
	rec := func(samples ...float64) results.Record {
		return results.Record{
			Name: "handshake/tls1.3/full/c1", Kind: results.KindHandshake, TLSVersion: "1.3",
			Concurrency: 1, Handshakes: 640, Iterations: len(samples), SamplesUS: samples,
		}
	}
	base := []results.Record{rec(418, 420, 422, 419, 421)}
	cand := []results.Record{rec(502, 504, 506, 503, 505)} // 20% slower

	c := report.Compare(base, cand, report.CompareOptions{Alpha: 0.05})
	cc := c.Cases[0]
	fmt.Printf("%s: %s, ratio %.2f, p=%.3f\n", cc.Name, cc.Verdict, cc.Ratio, cc.P)
	// The CI gate: fail when a case is significantly slower by more than 5%.
	if err := c.CheckRegressions(0.05); err != nil {
		fmt.Println(err)
	}
	// Output:
	// handshake/tls1.3/full/c1: slower, ratio 1.20, p=0.008
	// regression gate: 1 case is significantly slower than the baseline by more than 5% (alpha 0.05): handshake/tls1.3/full/c1 (+20.0% slower, p=0.008)
}
