package stats

import (
	"math"
	"slices"
	"testing"
)

// pairsFromLogs builds base/cand pairs whose log-ratios are d exactly
// enough: base 1000, cand 1000·e^d.
func pairsFromLogs(d []float64) (base, cand []float64) {
	for _, v := range d {
		base = append(base, 1000)
		cand = append(cand, 1000*math.Exp(v))
	}
	return base, cand
}

// signedRanks returns differences 0.01·k for the ranks k = 1..n, negative
// for the ranks in neg.
func signedRanks(n int, neg ...int) []float64 {
	d := make([]float64, n)
	for k := 1; k <= n; k++ {
		d[k-1] = 0.01 * float64(k)
		if slices.Contains(neg, k) {
			d[k-1] = -d[k-1]
		}
	}
	return d
}

func TestComparePairedSignedRank(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		logs   []float64
		p      float64
		tooFew bool
	}{
		// Exact: all 6 positive is the most extreme of 2^6 sign
		// patterns, with its mirror image: p = 2/64.
		{"6 all positive", signedRanks(6), 2.0 / 64, false},
		// 5 pairs cannot get below 2/32 = 0.0625 > 0.05.
		{"5 all positive", signedRanks(5), 2.0 / 32, true},
		{"6 all negative", signedRanks(6, 1, 2, 3, 4, 5, 6), 2.0 / 64, false},
		// n = 10, positive ranks {1, 3, 4}: W+ = 8. Subsets of 1..10
		// with sum <= 8: 1+1+1+2+2+3+4+5+6 (sums 0..8) = 25, so the
		// two-sided p = 2·25/1024, the tabled critical value of n = 10
		// at two-sided 0.05.
		{"10 W+=8", signedRanks(10, 2, 5, 6, 7, 8, 9, 10), 50.0 / 1024, false},
		// Positive ranks {8, 9, 10}: W+ = 27, next to the centre 27.5
		// of the distribution: each tail holds more than half, p = 1.
		{"10 central", signedRanks(10, 1, 2, 3, 4, 5, 6, 7), 1, false},
		// Normal approximation (n = 30 > 25), ranks 1..5 negative:
		// W+ = 465 - 15 = 450, mean 30·31/4 = 232.5, variance
		// 30·31·61/24 = 2363.75, z = (217.5 - 0.5)/48.618 = 4.46333,
		// p = erfc(z/√2) = 8.0696e-6.
		{"30 normal", signedRanks(30, 1, 2, 3, 4, 5), 8.06957614199733e-06, false},
		// Ties (n = 8): |d| = 1,1,2,...,7 (×0.01), one of the tied
		// pair negative. Ranks 1.5, 1.5, 3..8; W+ = 1.5+3+...+8 =
		// 34.5; mean 18; variance 8·9·17/24 - (2³-2)/48 = 50.875;
		// z = (16.5 - 0.5)/7.1327 = 2.24320, p = 0.0248840.
		// (The tied pair is 100 vs 101 and 101 vs 100, whose log-ratios
		// are exact negatives of each other in floating point.)
		{"8 ties", nil, 0.02488399513396539, false},
		// Zeros are dropped (Wilcoxon): 6 non-zero, all positive,
		// exact again; the 8 pairs are enough pairs for alpha.
		{"zeros dropped", append([]float64{0, 0}, signedRanks(6)...), 2.0 / 64, false},
		{"all zero", []float64{0, 0, 0, 0, 0, 0, 0}, 1, false},
		{"one pair", []float64{0.3}, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			base, cand := pairsFromLogs(tt.logs)
			if tt.logs == nil {
				base = []float64{101, 100, 100, 100, 100, 100, 100, 100}
				cand = []float64{100, 101, 102, 103, 104, 105, 106, 107}
			}
			got := ComparePaired(base, cand, 0.05)
			if math.Abs(got.P-tt.p) > 1e-9*math.Max(1, tt.p) && math.Abs(got.P-tt.p)/tt.p > 1e-6 {
				t.Errorf("P = %.10g, want %.10g", got.P, tt.p)
			}
			if got.TooFew != tt.tooFew {
				t.Errorf("TooFew = %v, want %v", got.TooFew, tt.tooFew)
			}
			if got.N != len(base) || got.Dropped != 0 {
				t.Errorf("N, Dropped = %d, %d, want %d, 0", got.N, got.Dropped, len(base))
			}
		})
	}
}

// TestExactSignedRankBruteForce checks the counting distribution against
// the enumeration of every sign pattern for small n.
func TestExactSignedRankBruteForce(t *testing.T) {
	t.Parallel()
	for n := 1; n <= 12; n++ {
		maxSum := n * (n + 1) / 2
		count := make([]int, maxSum+1)
		for mask := 0; mask < 1<<n; mask++ {
			s := 0
			for r := 1; r <= n; r++ {
				if mask&(1<<(r-1)) != 0 {
					s += r
				}
			}
			count[s]++
		}
		for w := 0; w <= maxSum; w++ {
			lo, hi := 0, 0
			for s := 0; s <= maxSum; s++ {
				if s <= w {
					lo += count[s]
				}
				if s >= w {
					hi += count[s]
				}
			}
			want := math.Min(1, 2*float64(min(lo, hi))/float64(int(1)<<n))
			if got := exactSignedRankP(n, w); math.Abs(got-want) > 1e-15 {
				t.Fatalf("n=%d w=%d: p = %v, want %v", n, w, got, want)
			}
		}
	}
}

func TestComparePairedInterval(t *testing.T) {
	t.Parallel()
	// log-ratios 0.1, 0.2, 0.3: mean 0.2, sd 0.1, N = 3, so the 99.9%
	// interval is exp(0.2 ± t(0.9995, 2)·0.1/√3) with t = 31.5991
	// (t with 2 degrees of freedom in closed form:
	// (1-2q)/sqrt(2q(1-q)), q = 0.0005).
	base, cand := pairsFromLogs([]float64{0.1, 0.2, 0.3})
	got := ComparePaired(base, cand, 0.05)
	q := 0.0005
	half := (1 - 2*q) / math.Sqrt(2*q*(1-q)) * 0.1 / math.Sqrt(3)
	want := PairedComparison{N: 3, Ratio: math.Exp(0.2), Lo: math.Exp(0.2 - half), Hi: math.Exp(0.2 + half)}
	want.RelError = (want.Hi - want.Lo) / 2 / want.Ratio
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"Ratio", got.Ratio, want.Ratio}, {"Lo", got.Lo, want.Lo}, {"Hi", got.Hi, want.Hi}, {"RelError", got.RelError, want.RelError}} {
		if math.Abs(c.got-c.want) > 1e-9*c.want {
			t.Errorf("%s = %.12g, want %.12g", c.name, c.got, c.want)
		}
	}
	if !(got.Lo < 1 && got.Hi > 1) {
		t.Errorf("3 pairs: interval %v..%v should contain 1", got.Lo, got.Hi)
	}

	// A constant ratio: no spread, a zero-width interval.
	got = ComparePaired([]float64{10, 20, 30}, []float64{20, 40, 60}, 0.05)
	if math.Abs(got.Ratio-2) > 1e-12 || math.Abs(got.Lo-2) > 1e-12 || math.Abs(got.Hi-2) > 1e-12 || got.RelError > 1e-12 {
		t.Errorf("constant ratio 2: %+v", got)
	}
}

func TestComparePairedEdges(t *testing.T) {
	t.Parallel()
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		name       string
		base, cand []float64
		n, dropped int
		ratioNaN   bool
		pNaN       bool
		ciNaN      bool
	}{
		{"empty", nil, nil, 0, 0, true, true, true},
		{"unequal lengths", []float64{1, 2, 3}, []float64{2}, 1, 0, false, false, true},
		{"bad values dropped", []float64{1, 0, -1, nan, inf, 2, 3}, []float64{2, 1, 1, 1, 1, 4, 6}, 3, 4, false, false, false},
		{"all dropped", []float64{0, nan}, []float64{1, 1}, 0, 2, true, true, true},
		{"extremes", []float64{1e-300, 1e300}, []float64{1e300, 1e-300}, 2, 0, false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, c := slices.Clone(tt.base), slices.Clone(tt.cand)
			got := ComparePaired(tt.base, tt.cand, 0.05)
			if !slices.Equal(b, tt.base) && !slices.ContainsFunc(b, math.IsNaN) || !slices.Equal(c, tt.cand) {
				t.Error("ComparePaired modified its arguments")
			}
			if got.N != tt.n || got.Dropped != tt.dropped {
				t.Errorf("N, Dropped = %d, %d, want %d, %d", got.N, got.Dropped, tt.n, tt.dropped)
			}
			if math.IsNaN(got.Ratio) != tt.ratioNaN || math.IsNaN(got.P) != tt.pNaN || math.IsNaN(got.Lo) != tt.ciNaN || math.IsNaN(got.RelError) != tt.ciNaN {
				t.Errorf("got %+v", got)
			}
			if !tt.ratioNaN && (got.Ratio <= 0 || math.IsInf(got.Ratio, 0)) && tt.name != "extremes" {
				t.Errorf("Ratio = %v", got.Ratio)
			}
		})
	}
}

func TestPairedMinSamples(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		alpha float64
		want  int
	}{
		{0.05, 6},       // 2/64 = 0.031 <= 0.05 < 2/32
		{0.0625, 5},     // 2/32 exactly
		{0.01, 8},       // 2/256 = 0.0078
		{0.001, 11},     // 2/2048 = 0.00098
		{0.5, 2},        // 2/4
		{0, 6},          // default 0.05
		{math.NaN(), 6}, // default 0.05
		{1, 6},          // outside (0, 1): default
		{1e-300, 998},   // 2^n >= 2e300 from n = log2(2e300) = 997.6
	} {
		if got := PairedMinSamples(tt.alpha); got != tt.want {
			t.Errorf("PairedMinSamples(%v) = %d, want %d", tt.alpha, got, tt.want)
		}
	}
	// The rule agrees with the test itself: n all-positive pairs reach
	// alpha exactly from PairedMinSamples on.
	for _, alpha := range []float64{0.05, 0.01} {
		m := PairedMinSamples(alpha)
		for n := m - 1; n <= m; n++ {
			b, c := pairsFromLogs(signedRanks(n))
			got := ComparePaired(b, c, alpha)
			if (got.P <= alpha) != (n == m) || got.TooFew != (n < m) {
				t.Errorf("alpha %v, n %d: P %v TooFew %v", alpha, n, got.P, got.TooFew)
			}
		}
	}
}

func FuzzComparePaired(f *testing.F) {
	f.Add(1.0, 2.0, 3.0, 4.0, 1.1, 2.2, 2.9, 4.4, 0.05)
	f.Add(0.0, -1.0, math.NaN(), math.Inf(1), 1.0, 1.0, 1.0, 1.0, 0.0)
	f.Add(1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 2.0)
	f.Fuzz(func(t *testing.T, b0, b1, b2, b3, c0, c1, c2, c3, alpha float64) {
		base := []float64{b0, b1, b2, b3, b0, b1, b2, b3}
		cand := []float64{c0, c1, c2, c3, c1, c0, c3, c2}
		got := ComparePaired(base, cand, alpha)
		if !math.IsNaN(got.P) && !(got.P >= 0 && got.P <= 1) {
			t.Fatalf("P = %v", got.P)
		}
		if got.N+got.Dropped != len(base) {
			t.Fatalf("N %d + Dropped %d != %d", got.N, got.Dropped, len(base))
		}
		if got.N > 0 && math.IsNaN(got.P) {
			t.Fatalf("%d pairs but no p-value", got.N)
		}
		if got.Lo > got.Hi {
			t.Fatalf("interval %v..%v", got.Lo, got.Hi)
		}
	})
}
