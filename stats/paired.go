package stats

import "math"

// PairedComparison is the comparison of two sides measured in pairs: an
// interleaved A/B run, where base[i] and cand[i] were measured in the same
// round, one right after the other, so that what drifts during a run
// (other load, CPU frequency, caches) hits both values of a pair alike.
// The comparison is judged on the per-pair ratios cand[i]/base[i], which
// cancel that drift, instead of on the two samples as if independent.
type PairedComparison struct {
	// N is the number of pairs used (pairs with a value that is not a
	// positive finite number are left out, counted in Dropped).
	N, Dropped int
	// Ratio is the geometric mean of the per-pair ratios cand/base:
	// exp(mean(log(cand[i]/base[i]))). Below 1 the candidate is smaller.
	// NaN without pairs.
	Ratio float64
	// Lo and Hi bound the 99.9% confidence interval of Ratio (Student's t
	// on the log-ratios, N-1 degrees of freedom); NaN with fewer than two
	// pairs.
	Lo, Hi float64
	// RelError is the interval's relative half-width: (Hi-Lo)/2/Ratio;
	// NaN with fewer than two pairs. It is what a target error is held
	// to in an interleaved run.
	RelError float64
	// P is the two-sided p-value of the Wilcoxon signed-rank test of the
	// log-ratios against 0 (exact for small N, the normal approximation
	// with tie and continuity corrections beyond); NaN without pairs, 1
	// when every ratio is exactly 1.
	P float64
	// TooFew reports that N pairs cannot reach alpha however large the
	// difference (the smallest two-sided p of N pairs is 2/2^N).
	TooFew bool
}

// ComparePaired compares cand with base pair by pair at significance
// level alpha (outside (0, 1) or NaN: 0.05). base and cand must have the
// same length; extra values of the longer one are ignored. It does not
// modify either slice.
func ComparePaired(base, cand []float64, alpha float64) PairedComparison {
	nan := math.NaN()
	return PairedComparison{Ratio: nan, Lo: nan, Hi: nan, RelError: nan, P: nan, TooFew: true}
}

// PairedMinSamples is the smallest number of pairs with which the
// Wilcoxon signed-rank test of ComparePaired can reach alpha at all.
func PairedMinSamples(alpha float64) int { return 0 }
