package loadgen

import (
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/stats"
)

// The test hooks of a case (testHooks), for the external tests.

// SetIterationCap lowers the most iterations hc measures towards a target
// error without a time limit, so that a test need not run
// results.MaxIterations of them.
func SetIterationCap(hc *measure.HandshakeCase, n int) { hooksOf(hc).IterationCap = n }

// SetComparePaired replaces stats.ComparePaired in hc's stop rule.
func SetComparePaired(hc *measure.HandshakeCase, f func(base, cand []float64, alpha float64) stats.PairedComparison) {
	hooksOf(hc).ComparePaired = f
}

func hooksOf(hc *measure.HandshakeCase) *measure.TestHooks {
	if hc.Hooks == nil {
		hc.Hooks = &measure.TestHooks{}
	}
	return hc.Hooks
}

// SetRecordPhases turns the recording of hc's phases off (or back on),
// for the benchmark that measures what recording them costs.
func SetRecordPhases(hc *measure.HandshakeCase, on bool) { hooksOf(hc).NoPhases = !on }
