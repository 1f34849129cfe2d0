package compare_test

import (
	"fmt"

	"github.com/tlsbench/tlsbench/report/compare"
	"github.com/tlsbench/tlsbench/results"
)

func ExampleCompare() {
	rec := func(samples ...float64) results.Record {
		return results.Record{
			Name: "handshake/tls1.3/full/c1", Kind: results.KindHandshake, TLSVersion: "1.3",
			Concurrency: 1, Handshakes: 640, Iterations: len(samples), SamplesUS: samples,
		}
	}
	base := []results.Record{rec(418, 420, 422, 419, 421)}
	cand := []results.Record{rec(502, 504, 506, 503, 505)} // 20% slower

	c := compare.Compare(base, cand, compare.CompareOptions{Alpha: 0.05})
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
