package runner_test

import (
	"context"
	"crypto/tls"
	"maps"
	"slices"
	"testing"

	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/runner"
)

// BenchmarkMixParts sets the CPU per handshake of a half-resumed mix's
// parts against the full-only and resumed-only cases of the same run,
// against the built-in server in a child process:
//
//	go test ./runner -run '^$' -bench MixParts -benchtime 5x
//
// One op is one run of the three cases (shares 0, 0.5 and 1; 4 measured
// iterations of 128 handshakes at concurrency 1 after one warm-up).
// Metrics, the median over the runs: each side's part over the case of
// its kind alone (client-resumed/alone is the client's CPU per resumed
// handshake of the mix over that of the resumed-only case), 1 when a
// part costs what its kind costs alone, and mix/alone, the whole mix's
// CPU over the mean of the two cases alone. Their spread between runs
// on a shared machine is tens of percent: compare medians of several.
func BenchmarkMixParts(b *testing.B) {
	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		b.Run("tls"+tls.VersionName(v)[4:], func(b *testing.B) {
			p := mixPlan(0, 0.5, 1)
			p.Versions, p.Concurrency, p.Handshakes, p.Iterations = []uint16{v}, []int{1}, 128, 4
			ratios := map[string][]float64{}
			for b.Loop() {
				byShare := map[float64]results.Record{}
				err := runner.Run(context.Background(), p, func(r *results.Record) error {
					byShare[*r.ResumeRatio] = *r
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
				addPartRatios(ratios, byShare)
			}
			for _, name := range slices.Sorted(maps.Keys(ratios)) {
				b.ReportMetric(median(ratios[name]), name)
			}
		})
	}
}

// addPartRatios adds one run's ratios of a mix's parts (share 0.5) to
// the cases alone (shares 0 and 1), for each side whose figures it has.
func addPartRatios(ratios map[string][]float64, byShare map[float64]results.Record) {
	full, mix, resumed := byShare[0], byShare[0.5], byShare[1]
	pf, pr := mix.Parts[results.PartFull], mix.Parts[results.PartResumed]
	for _, side := range []struct {
		name                       string
		full, mix, resumed, pf, pr *float64
	}{
		{"client", full.ClientCPUUS, mix.ClientCPUUS, resumed.ClientCPUUS, pf.ClientCPUUS, pr.ClientCPUUS},
		{"server", full.ServerCPUUS, mix.ServerCPUUS, resumed.ServerCPUUS, pf.ServerCPUUS, pr.ServerCPUUS},
	} {
		if side.full == nil || side.mix == nil || side.resumed == nil || side.pf == nil || side.pr == nil {
			continue
		}
		ratios[side.name+"-full/alone"] = append(ratios[side.name+"-full/alone"], *side.pf / *side.full)
		ratios[side.name+"-resumed/alone"] = append(ratios[side.name+"-resumed/alone"], *side.pr / *side.resumed)
		ratios[side.name+"-mix/alone"] = append(ratios[side.name+"-mix/alone"], *side.mix/((*side.full+*side.resumed)/2))
	}
}

func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	return (s[(len(s)-1)/2] + s[len(s)/2]) / 2
}
