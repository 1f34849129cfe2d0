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
