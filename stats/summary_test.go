package stats

import (
	"math"
	"slices"
	"testing"
)

func TestSummarize(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	// Expected values by hand; the Error column is t(0.9995, N-1)·sd/sqrt(N)
	// with t from TestStudentTQuantilePrecise's references (mpmath).
	tests := []struct {
		name    string
		samples []float64
		want    Summary
	}{
		{
			name:    "empty",
			samples: nil,
			want:    Summary{N: 0, Mean: nan, Error: nan, StdDev: nan, Median: nan, Min: nan, Max: nan},
		},
		{
			name:    "one value",
			samples: []float64{7},
			want:    Summary{N: 1, Mean: 7, Error: nan, StdDev: 0, Median: 7, Min: 7, Max: 7},
		},
		{
			// Odd N. sd = sqrt(((3-2)²+(1-2)²+0)/2) = 1;
			// Error = 31.599054576443621 / sqrt(3).
			name:    "odd N",
			samples: []float64{3, 1, 2},
			want:    Summary{N: 3, Mean: 2, Error: 18.2437226658474, StdDev: 1, Median: 2, Min: 1, Max: 3},
		},
		{
			// Even N: the median is the mean of the two middle values.
			// sd = sqrt(5/3); Error = 8.6103015813792751 · sd / 2.
			name:    "even N",
			samples: []float64{4, 1, 3, 2},
			want:    Summary{N: 4, Mean: 2.5, Error: 8.342392337771843, StdDev: 1.2909944487358056, Median: 2.5, Min: 1, Max: 4},
		},
		{
			// 1..10, shuffled: mean 5.5, sd = sqrt(82.5/9) = 3.0276503540974917,
			// Error = 4.7809125859311391 · 3.0276503540974917 / sqrt(10).
			name:    "1 to 10",
			samples: []float64{7, 3, 10, 1, 5, 9, 2, 8, 4, 6},
			want:    Summary{N: 10, Mean: 5.5, Error: 4.5773753095839258, StdDev: 3.0276503540974917, Median: 5.5, Min: 1, Max: 10},
		},
		{
			// Non-integers, even N: sorted 9.75 10 10.5 11 12.25 13.5.
			name:    "fractional",
			samples: []float64{10.5, 12.25, 11.0, 9.75, 13.5, 10.0},
			want:    Summary{N: 6, Mean: 11.166666666666667, Error: 4.0555818159324379, StdDev: 1.4462595433277758, Median: 10.75, Min: 9.75, Max: 13.5},
		},
		{
			// No spread: the confidence interval has zero width.
			name:    "constant",
			samples: []float64{5, 5, 5, 5},
			want:    Summary{N: 4, Mean: 5, Error: 0, StdDev: 0, Median: 5, Min: 5, Max: 5},
		},
		{
			// A tiny spread on a large offset, where a one-pass
			// sum-of-squares formula would lose every digit. sd as for
			// the "odd N" case.
			name:    "large offset",
			samples: []float64{1e9 + 3, 1e9 + 1, 1e9 + 2},
			want:    Summary{N: 3, Mean: 1e9 + 2, Error: 18.2437226658474, StdDev: 1, Median: 1e9 + 2, Min: 1e9 + 1, Max: 1e9 + 3},
		},
		{
			name:    "negative",
			samples: []float64{-1, -3, -2},
			want:    Summary{N: 3, Mean: -2, Error: 18.2437226658474, StdDev: 1, Median: -2, Min: -3, Max: -1},
		},
		{
			// A NaN is a broken measurement: nothing is reported.
			name:    "NaN",
			samples: []float64{1, nan, 3},
			want:    Summary{N: 3, Mean: nan, Error: nan, StdDev: nan, Median: nan, Min: nan, Max: nan},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.samples)
			got := Summarize(in)
			if !slices.Equal(in, tt.samples) && !slices.ContainsFunc(in, math.IsNaN) {
				t.Errorf("Summarize modified its argument: %v, was %v", in, tt.samples)
			}
			if got.N != tt.want.N {
				t.Errorf("N = %d, want %d", got.N, tt.want.N)
			}
			for _, f := range []struct {
				name      string
				got, want float64
			}{
				{"Mean", got.Mean, tt.want.Mean},
				{"Error", got.Error, tt.want.Error},
				{"StdDev", got.StdDev, tt.want.StdDev},
				{"Median", got.Median, tt.want.Median},
				{"Min", got.Min, tt.want.Min},
				{"Max", got.Max, tt.want.Max},
			} {
				if math.IsNaN(f.want) != math.IsNaN(f.got) || relErr(f.got, f.want) > 1e-12 {
					t.Errorf("%s = %.17g, want %.17g", f.name, f.got, f.want)
				}
			}
		})
	}
}

// TestSummarizeErrorIsStudentT pins the definition of Error for a range of
// N, independently of the hand-computed table above.
func TestSummarizeErrorIsStudentT(t *testing.T) {
	t.Parallel()
	for n := 2; n <= 40; n++ {
		samples := make([]float64, n)
		for i := range samples {
			samples[i] = 100 + float64(i*i%7) // some spread, not symmetric
		}
		s := Summarize(samples)
		want := StudentTQuantile(0.9995, n-1) * s.StdDev / math.Sqrt(float64(n))
		if relErr(s.Error, want) > 1e-15 {
			t.Errorf("N=%d: Error = %.17g, want t(0.9995, %d)·sd/sqrt(N) = %.17g", n, s.Error, n-1, want)
		}
	}
}
