package stats

import (
	"math"
	"slices"
)

// ConfidenceLevel is the two-sided confidence level of [Summary.Error].
const ConfidenceLevel = 0.999

// errorQuantile is the t quantile behind a two-sided ConfidenceLevel
// interval. As an untyped constant expression it is exact until rounded
// once to 0.9995, which computing it at run time would not be.
const errorQuantile = 1 - (1-ConfidenceLevel)/2

// Summary describes a set of per-iteration values (for example microseconds
// per handshake), in the terms BenchmarkDotNet uses.
type Summary struct {
	N    int
	Mean float64
	// Error is the half-width of the 99.9% confidence interval of the mean,
	// from Student's t with N-1 degrees of freedom: t(0.9995, N-1) ·
	// StdDev / sqrt(N). It is NaN when N < 2, since one value says nothing
	// about the spread.
	Error float64
	// StdDev is the sample standard deviation (divisor N-1); 0 when N == 1
	// (BenchmarkDotNet's convention).
	StdDev float64
	// Median is the middle value, or the mean of the two middle values
	// when N is even.
	Median   float64
	Min, Max float64
}

// Summarize computes the Summary of samples without modifying them.
//
// With no samples every field but N is NaN, so that a missing value can
// never be mistaken for a measured zero. If any sample is NaN, so is every
// statistic: a NaN means a broken measurement, and a median or minimum that
// silently skipped it would hide that.
func Summarize(samples []float64) Summary {
	n := len(samples)
	nan := math.NaN()
	s := Summary{N: n, Mean: nan, Error: nan, StdDev: nan, Median: nan, Min: nan, Max: nan}
	if n == 0 || slices.ContainsFunc(samples, math.IsNaN) {
		return s
	}

	sorted := slices.Clone(samples)
	slices.Sort(sorted)
	s.Min, s.Max = sorted[0], sorted[n-1]
	if n%2 == 1 {
		s.Median = sorted[n/2]
	} else {
		// Halve before adding so that two huge values cannot overflow.
		s.Median = sorted[n/2-1]/2 + sorted[n/2]/2
	}

	var sum float64
	for _, x := range samples {
		sum += x
	}
	s.Mean = sum / float64(n)
	if n == 1 {
		s.StdDev = 0
		return s
	}

	// Corrected two-pass algorithm (Chan, Golub, LeVeque 1983): the second
	// term removes the rounding error of the mean, which matters when the
	// spread is tiny relative to the values (e.g. 1000.001 µs ± 0.001).
	var ss, comp float64
	for _, x := range samples {
		d := x - s.Mean
		ss += d * d
		comp += d
	}
	variance := (ss - comp*comp/float64(n)) / float64(n-1)
	s.StdDev = math.Sqrt(math.Max(variance, 0))
	s.Error = StudentTQuantile(errorQuantile, n-1) * s.StdDev / math.Sqrt(float64(n))
	return s
}
