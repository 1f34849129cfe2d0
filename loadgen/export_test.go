package loadgen

import "github.com/tlsbench/tlsbench/stats"

// The test hooks of a case (testHooks), for the external tests.

// SetIterationCap lowers the most iterations hc measures towards a target
// error without a time limit, so that a test need not run
// results.MaxIterations of them.
func SetIterationCap(hc *HandshakeCase, n int) { hooksOf(hc).iterationCap = n }

// SetComparePaired replaces stats.ComparePaired in hc's stop rule.
func SetComparePaired(hc *HandshakeCase, f func(base, cand []float64, alpha float64) stats.PairedComparison) {
	hooksOf(hc).comparePaired = f
}

func hooksOf(hc *HandshakeCase) *testHooks {
	if hc.hooks == nil {
		hc.hooks = &testHooks{}
	}
	return hc.hooks
}

// SetRecordPhases turns the recording of hc's phases off (or back on),
// for the benchmark that measures what recording them costs.
func SetRecordPhases(hc *HandshakeCase, on bool) { hooksOf(hc).noPhases = !on }
