package stats_test

import (
	"fmt"
	"time"

	"github.com/tlsbench/tlsbench/stats"
)

func ExampleSummarize() {
	// Microseconds per handshake of 10 measured iterations.
	perIteration := []float64{212.4, 208.9, 215.3, 210.1, 209.7, 211.8, 213.0, 207.6, 210.9, 212.2}
	s := stats.Summarize(perIteration)
	fmt.Printf("N=%d mean=%.2f µs error=%.2f µs (99.9%% CI: %.2f..%.2f)\n",
		s.N, s.Mean, s.Error, s.Mean-s.Error, s.Mean+s.Error)
	fmt.Printf("stddev=%.2f median=%.2f min=%.1f max=%.1f\n", s.StdDev, s.Median, s.Min, s.Max)
	// Output:
	// N=10 mean=211.19 µs error=3.37 µs (99.9% CI: 207.82..214.56)
	// stddev=2.23 median=211.35 min=207.6 max=215.3
}

func ExampleLatency() {
	// One histogram per load-generator worker, merged for the case.
	workers := []*stats.Latency{stats.NewLatency(), stats.NewLatency()}
	for i, w := range workers {
		for us := 1; us <= 1000; us++ {
			w.Record(time.Duration(us+i*1000) * time.Microsecond)
		}
	}
	all := stats.NewLatency()
	for _, w := range workers {
		all.Merge(w)
	}
	fmt.Printf("n=%d p50=%.0f p99=%.0f p99.9=%.0f µs\n",
		all.Count(), all.PercentileUS(50), all.PercentileUS(99), all.PercentileUS(99.9))

	// The results file keeps the whole distribution.
	enc, err := all.Encode()
	if err != nil {
		panic(err)
	}
	back, err := stats.DecodeLatency(enc)
	if err != nil {
		panic(err)
	}
	fmt.Printf("decoded: n=%d p99.9=%.0f µs\n", back.Count(), back.PercentileUS(99.9))
	// Output:
	// n=2000 p50=1000 p99=1980 p99.9=1998 µs
	// decoded: n=2000 p99.9=1998 µs
}

func ExampleCompare() {
	base := []float64{412, 405, 420, 409, 415, 411, 418, 407, 414, 410} // µs per full handshake
	cand := []float64{121, 118, 125, 119, 122, 120, 124, 117, 123, 121} // µs per resumed handshake
	c := stats.Compare(base, cand, 0.05)
	fmt.Printf("ratio %.3f ± %.3f, p=%.2g, too few: %v\n", c.Ratio, c.RatioSD, c.P, c.TooFew)

	c = stats.Compare(base[:3], cand[:3], 0.05)
	fmt.Printf("3 vs 3: p=%.2g, too few: %v\n", c.P, c.TooFew)
	// Output:
	// ratio 0.294 ± 0.007, p=1.1e-05, too few: false
	// 3 vs 3: p=0.1, too few: true
}

func ExampleComparePaired() {
	// µs per handshake of 8 interleaved rounds: the machine got slower
	// in the middle of the run, for both sides alike.
	base := []float64{200, 204, 260, 262, 258, 205, 201, 203}
	cand := []float64{210, 215, 272, 276, 270, 214, 212, 212}
	c := stats.ComparePaired(base, cand, 0.05)
	fmt.Printf("ratio %.3f (99.9%% CI %.3f..%.3f), p=%.4f, too few: %v\n", c.Ratio, c.Lo, c.Hi, c.P, c.TooFew)
	fmt.Println("pairs needed at alpha 0.05:", stats.PairedMinSamples(0.05))
	// Output:
	// ratio 1.049 (99.9% CI 1.041..1.058), p=0.0078, too few: false
	// pairs needed at alpha 0.05: 6
}
