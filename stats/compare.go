package stats

import (
	"math"
	"slices"

	"golang.org/x/perf/benchmath"
)

// Comparison is the result of comparing a candidate's per-iteration values
// with a base's (tlsbench compare).
type Comparison struct {
	// Ratio is mean(candidate) / mean(base): below 1 the candidate is
	// faster when the values are times.
	Ratio float64
	// RatioSD is the standard deviation of Ratio by first-order error
	// propagation, treating the two samples as independent:
	//
	//	RatioSD = |Ratio| · sqrt((sd_base/mean_base)² + (sd_cand/mean_cand)²)
	//
	// with the sample standard deviations (divisor N-1). Being built from
	// standard deviations, not standard errors, it describes how much the
	// ratio of one candidate iteration to one base iteration spreads, not
	// the uncertainty of Ratio itself (which shrinks with sqrt(N)). It is
	// NaN when either sample has fewer than 2 values, since a single
	// value's spread is unknown, not zero.
	RatioSD float64
	// P is the two-sided Mann-Whitney U test p-value of the hypothesis that
	// both samples come from the same distribution, from
	// benchmath.AssumeNothing. It is NaN when either sample is empty or
	// holds a NaN, and 1 when all values of both samples are equal.
	P float64
	// TooFew reports that, as benchmath judges it, the samples are too
	// small for the test to reach alpha however different they were: P is
	// above alpha and both samples are smaller than the size at which two
	// equal-size samples could first reach alpha. A "no difference" verdict
	// then means "not enough data", and a report should say so.
	TooFew bool
}

// Compare compares cand with base at significance level alpha (typically
// 0.05; alpha outside (0, 1) or NaN means benchmath's default, 0.05). It
// does not modify either slice.
func Compare(base, cand []float64, alpha float64) Comparison {
	if !(alpha > 0 && alpha < 1) {
		alpha = benchmath.DefaultThresholds.CompareAlpha
	}
	b, c := Summarize(base), Summarize(cand)
	cmp := Comparison{Ratio: c.Mean / b.Mean, RatioSD: math.NaN(), P: math.NaN()}
	if b.N >= 2 && c.N >= 2 {
		cmp.RatioSD = math.Abs(cmp.Ratio) * math.Hypot(b.StdDev/b.Mean, c.StdDev/c.Mean)
	}

	n1, n2 := len(base), len(cand)
	if n1 == 0 || n2 == 0 || math.IsNaN(b.Mean) || math.IsNaN(c.Mean) {
		// benchmath would report P = 1 with a warning; NaN says plainly
		// that there was no test. Empty samples can never reach alpha.
		cmp.TooFew = n1 == 0 || n2 == 0
		return cmp
	}

	// NewSample sorts its argument in place, so give it copies.
	th := &benchmath.Thresholds{CompareAlpha: alpha}
	r := benchmath.AssumeNothing.Compare(
		benchmath.NewSample(slices.Clone(base), th),
		benchmath.NewSample(slices.Clone(cand), th))
	// On a test failure (all values equal) benchmath reports P = 1 and a
	// warning, which is the right verdict: no difference.
	cmp.P = r.P
	cmp.TooFew = r.P > alpha && n1 < uTestMinSamples(alpha) && n2 < uTestMinSamples(alpha)
	return cmp
}

// uTestMinSamples mirrors benchmath.AssumeNothing's (unexported) rule: the
// smallest n for which two samples of n values each, completely separated,
// give a two-sided U-test p-value of at most alpha. That smallest p is
// 2/C(2n, n): of the C(2n, n) equally likely rank orders under the null
// hypothesis, only the two fully separated ones are that extreme. benchmath
// only tabulates n up to 9 and answers 10 beyond, and so does this.
//
// The rule is re-derived here rather than parsed out of benchmath's warning
// text, because benchmath's warnings also carry the U test's own failures
// and none of them has a type to test for. TestTooFewMatchesBenchmath keeps
// the two in step.
func uTestMinSamples(alpha float64) int {
	const maxN = 9
	binom := 1.0 // C(2n, n), built incrementally
	for n := 1; n <= maxN; n++ {
		binom = binom * float64(2*n) * float64(2*n-1) / float64(n*n)
		if 2/binom <= alpha {
			return n
		}
	}
	return maxN + 1
}

// MinSamples is the smallest number of values per sample with which the
// U test of [Compare] can reach significance level alpha at all (two
// equal-size, completely separated samples). A report that says "too few
// samples" uses it to say how many iterations would be enough, which is
// the actionable part of the verdict.
func MinSamples(alpha float64) int {
	if !(alpha > 0 && alpha < 1) {
		alpha = benchmath.DefaultThresholds.CompareAlpha
	}
	return uTestMinSamples(alpha)
}
