package stats

import (
	"math"
	"slices"
)

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

// exactWilcoxonMax is the largest number of non-zero differences for
// which the signed-rank test counts its exact null distribution (2^25
// sign patterns, rank sums up to 325: a few thousand additions). Beyond
// it the normal approximation is within a few 1e-4 of the exact p-value.
const exactWilcoxonMax = 25

// ComparePaired compares cand with base pair by pair at significance
// level alpha (outside (0, 1) or NaN: 0.05). base and cand must have the
// same length; extra values of the longer one are ignored. It does not
// modify either slice.
//
// The signed-rank test follows Wilcoxon's treatment of zeros: pairs
// whose ratio is exactly 1 carry no sign and are left out of the ranking
// (they still count in N and in the interval). The exact null
// distribution is used when no two of the remaining |log-ratios| tie and
// there are at most 25 of them; otherwise the normal approximation with
// the tie-corrected variance and a continuity correction of 1/2.
func ComparePaired(base, cand []float64, alpha float64) PairedComparison {
	nan := math.NaN()
	pc := PairedComparison{Ratio: nan, Lo: nan, Hi: nan, RelError: nan, P: nan}
	n := min(len(base), len(cand))
	logs := make([]float64, 0, n)
	for i := range n {
		if !positiveFinite(base[i]) || !positiveFinite(cand[i]) {
			pc.Dropped++
			continue
		}
		// log(c)-log(b) rather than log(c/b): the quotient of two
		// extreme values can overflow or underflow, the logs cannot.
		logs = append(logs, math.Log(cand[i])-math.Log(base[i]))
	}
	pc.N = len(logs)
	pc.TooFew = pc.N < PairedMinSamples(alpha)
	if pc.N == 0 {
		return pc
	}
	s := Summarize(logs)
	pc.Ratio = math.Exp(s.Mean)
	pc.P = signedRankP(logs)
	if pc.N < 2 {
		return pc
	}
	half := StudentTQuantile(errorQuantile, pc.N-1) * s.StdDev / math.Sqrt(float64(pc.N))
	pc.Lo, pc.Hi = math.Exp(s.Mean-half), math.Exp(s.Mean+half)
	pc.RelError = (pc.Hi - pc.Lo) / 2 / pc.Ratio
	return pc
}

func positiveFinite(v float64) bool { return v > 0 && !math.IsInf(v, 1) }

// PairedMinSamples is the smallest number of pairs with which the
// Wilcoxon signed-rank test of ComparePaired can reach alpha at all.
func PairedMinSamples(alpha float64) int {
	if !(alpha > 0 && alpha < 1) {
		alpha = 0.05
	}
	// The most extreme of the 2^n equally likely sign patterns (all of
	// one sign) has the two-sided p-value 2/2^n.
	n, p := 1, 1.0
	for p > alpha {
		n, p = n+1, p/2
	}
	return n
}

// signedRankP is the two-sided p-value of the Wilcoxon signed-rank test
// of d against a median of 0 (zeros dropped).
func signedRankP(d []float64) float64 {
	nz := make([]float64, 0, len(d))
	for _, v := range d {
		if v != 0 {
			nz = append(nz, v)
		}
	}
	n := len(nz)
	if n == 0 {
		return 1 // every ratio exactly 1: no evidence of any change
	}
	ranks, tieTerm := absRanks(nz)
	var wPlus float64
	for i, v := range nz {
		if v > 0 {
			wPlus += ranks[i]
		}
	}
	if tieTerm == 0 && n <= exactWilcoxonMax {
		return exactSignedRankP(n, int(wPlus))
	}
	return normalSignedRankP(n, wPlus, tieTerm)
}

// absRanks ranks the absolute values of d (1 = smallest), giving tied
// values the mean of their ranks, and returns with the ranks the tie
// term Σ(t³-t) over the groups of t tied values.
func absRanks(d []float64) ([]float64, float64) {
	idx := make([]int, len(d))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		x, y := math.Abs(d[a]), math.Abs(d[b])
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	ranks := make([]float64, len(d))
	var tieTerm float64
	for i := 0; i < len(idx); {
		j := i + 1
		for j < len(idx) && math.Abs(d[idx[j]]) == math.Abs(d[idx[i]]) {
			j++
		}
		mean := float64(i+1+j) / 2 // ranks i+1 .. j
		for k := i; k < j; k++ {
			ranks[idx[k]] = mean
		}
		if t := float64(j - i); t > 1 {
			tieTerm += t*t*t - t
		}
		i = j
	}
	return ranks, tieTerm
}

// exactSignedRankP is the exact two-sided p-value of the rank sum w of
// the positive differences among n untied, non-zero ones: under the null
// hypothesis each of the 2^n sign patterns is equally likely, and
// count[s] of them give the rank sum s.
func exactSignedRankP(n, w int) float64 {
	maxSum := n * (n + 1) / 2
	count := make([]float64, maxSum+1)
	count[0] = 1
	for r := 1; r <= n; r++ {
		for s := maxSum; s >= r; s-- {
			count[s] += count[s-r]
		}
	}
	// The distribution is symmetric about maxSum/2: take the smaller
	// tail on the side of w and double it.
	if 2*w > maxSum {
		w = maxSum - w
	}
	var tail float64
	for s := 0; s <= w; s++ {
		tail += count[s]
	}
	return math.Min(1, 2*tail/math.Ldexp(1, n))
}

// normalSignedRankP is the two-sided p-value of the rank sum w by the
// normal approximation: mean n(n+1)/4, variance n(n+1)(2n+1)/24 less
// Σ(t³-t)/48 for ties, and |w - mean| reduced by 1/2 for continuity.
func normalSignedRankP(n int, w, tieTerm float64) float64 {
	fn := float64(n)
	mean := fn * (fn + 1) / 4
	variance := fn*(fn+1)*(2*fn+1)/24 - tieTerm/48
	if !(variance > 0) {
		return 1 // every difference tied with every other: no spread to judge
	}
	dev := math.Max(math.Abs(w-mean)-0.5, 0)
	return math.Min(1, math.Erfc(dev/math.Sqrt(variance)/math.Sqrt2))
}
