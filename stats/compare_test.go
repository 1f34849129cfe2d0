package stats

import (
	"math"
	"slices"
	"testing"

	"golang.org/x/perf/benchmath"
)

func TestCompare(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	base := []float64{100, 102, 99, 101, 103, 98, 100.5, 101.5, 99.5, 100.2}
	shifted := make([]float64, len(base))
	for i, v := range base {
		shifted[i] = v + 20
	}
	reversed := slices.Clone(base)
	slices.Reverse(reversed)
	equal := []float64{5, 5, 5, 5, 5, 5, 5, 5, 5, 5}
	baseMean := Summarize(base).Mean

	// pLess means P must be below the value, pMore above it; pExact, when
	// not NaN, pins P.
	tests := []struct {
		name                string
		base, cand          []float64
		alpha               float64
		ratio, ratioSD      float64 // NaN ratioSD: not checked unless wantSDNaN
		wantSDNaN           bool
		pLess, pMore, pWant float64
		tooFew, pNaN        bool
	}{
		{
			// Same values in another order: no difference at all.
			name: "identical", base: base, cand: reversed, alpha: 0.05,
			ratio: 1, ratioSD: math.Sqrt2 * Summarize(base).StdDev / baseMean,
			pMore: 0.5, pWant: 1,
		},
		{
			// Fully separated 10 vs 10: the exact U test gives
			// 2/C(20,10) = 1.0825e-5.
			name: "shifted", base: base, cand: shifted, alpha: 0.05,
			ratio: (baseMean + 20) / baseMean, ratioSD: nan,
			pLess: 0.05, pWant: 2.0 / 184756,
		},
		{
			// 2 vs 2 can at best reach P = 2/C(4,2) = 1/3.
			name: "2 vs 2 separated", base: []float64{100, 101}, cand: []float64{200, 201}, alpha: 0.05,
			ratio: 200.5 / 100.5, ratioSD: nan,
			pWant: 1.0 / 3, tooFew: true,
		},
		{
			name: "2 vs 2 overlapping", base: []float64{100, 102}, cand: []float64{101, 103}, alpha: 0.05,
			ratio: 102.0 / 101, ratioSD: nan,
			pMore: 0.05, pWant: nan, tooFew: true,
		},
		{
			// 3 vs 3 at best 2/C(6,3) = 0.1: too few at 0.05 ...
			name: "3 vs 3 at 0.05", base: []float64{1, 2, 3}, cand: []float64{4, 5, 6}, alpha: 0.05,
			ratio: 2.5, ratioSD: nan,
			pWant: 0.1, tooFew: true,
		},
		{
			// ... enough at 0.2.
			name: "3 vs 3 at 0.2", base: []float64{1, 2, 3}, cand: []float64{4, 5, 6}, alpha: 0.2,
			ratio: 2.5, ratioSD: nan,
			pWant: 0.1,
		},
		{
			// 4 vs 4 reaches 2/C(8,4) = 0.0286 < 0.05.
			name: "4 vs 4 at 0.05", base: []float64{1, 2, 3, 4}, cand: []float64{5, 6, 7, 8}, alpha: 0.05,
			ratio: 6.5 / 2.5, ratioSD: nan,
			pWant: 2.0 / 70,
		},
		{
			// At 0.01 it takes 5 vs 5 (2/C(10,5) = 0.0079).
			name: "4 vs 4 at 0.01", base: []float64{1, 2, 3, 4}, cand: []float64{5, 6, 7, 8}, alpha: 0.01,
			ratio: 6.5 / 2.5, ratioSD: nan,
			pWant: 2.0 / 70, tooFew: true,
		},
		{
			// alpha 0 means benchmath's default, 0.05.
			name: "default alpha", base: []float64{1, 2, 3}, cand: []float64{4, 5, 6}, alpha: 0,
			ratio: 2.5, ratioSD: nan,
			pWant: 0.1, tooFew: true,
		},
		{
			// RatioSD by hand: both coefficients of variation are
			// sqrt(2)/10, so RatioSD = 2·sqrt(2·0.02) = 0.4.
			name: "ratio SD", base: []float64{9, 11}, cand: []float64{18, 22}, alpha: 0.05,
			ratio: 2, ratioSD: 0.4,
			pWant: 1.0 / 3, tooFew: true,
		},
		{
			// No spread anywhere: benchmath's U test cannot run; that is
			// "no difference" (P = 1), and 10 values are not too few.
			name: "all equal", base: equal, cand: equal, alpha: 0.05,
			ratio: 1, ratioSD: 0,
			pWant: 1,
		},
		{
			// benchmath's rule looks at the equal-size minimum only: 1
			// vs 10 is not flagged, though it can at best reach
			// 2/11 = 0.18. TooFew follows benchmath, as benchstat does.
			name: "one vs many", base: []float64{100}, cand: base, alpha: 0.05,
			ratio: baseMean / 100, wantSDNaN: true,
			pWant: nan, pMore: 0.05,
		},
		{
			name: "empty base", base: nil, cand: base, alpha: 0.05,
			ratio: nan, wantSDNaN: true, pNaN: true, tooFew: true,
		},
		{
			name: "empty candidate", base: base, cand: []float64{}, alpha: 0.05,
			ratio: nan, wantSDNaN: true, pNaN: true, tooFew: true,
		},
		{
			name: "NaN value", base: base, cand: []float64{1, nan, 3}, alpha: 0.05,
			ratio: nan, wantSDNaN: true, pNaN: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, c := slices.Clone(tt.base), slices.Clone(tt.cand)
			got := Compare(b, c, tt.alpha)
			if !slices.Equal(b, tt.base) || (!slices.ContainsFunc(c, math.IsNaN) && !slices.Equal(c, tt.cand)) {
				t.Errorf("Compare modified its arguments")
			}
			if math.IsNaN(tt.ratio) != math.IsNaN(got.Ratio) || relErr(got.Ratio, tt.ratio) > 1e-12 {
				t.Errorf("Ratio = %.17g, want %.17g", got.Ratio, tt.ratio)
			}
			switch {
			case tt.wantSDNaN:
				if !math.IsNaN(got.RatioSD) {
					t.Errorf("RatioSD = %v, want NaN", got.RatioSD)
				}
			case !math.IsNaN(tt.ratioSD):
				if relErr(got.RatioSD, tt.ratioSD) > 1e-12 {
					t.Errorf("RatioSD = %.17g, want %.17g", got.RatioSD, tt.ratioSD)
				}
			}
			if tt.pNaN != math.IsNaN(got.P) {
				t.Errorf("P = %v, want NaN: %v", got.P, tt.pNaN)
			}
			if !math.IsNaN(tt.pWant) && tt.pWant != 0 && relErr(got.P, tt.pWant) > 1e-9 {
				t.Errorf("P = %.17g, want %.17g", got.P, tt.pWant)
			}
			if tt.pLess != 0 && !(got.P < tt.pLess) {
				t.Errorf("P = %v, want < %v", got.P, tt.pLess)
			}
			if tt.pMore != 0 && !(got.P > tt.pMore) {
				t.Errorf("P = %v, want > %v", got.P, tt.pMore)
			}
			if got.TooFew != tt.tooFew {
				t.Errorf("TooFew = %v, want %v (P = %v)", got.TooFew, tt.tooFew, got.P)
			}
		})
	}
}

// TestTooFewMatchesBenchmath keeps TooFew in step with benchmath's own
// "need >= N samples to detect a difference" warning, which is the only
// warning AssumeNothing.Compare gives when the U test itself succeeds.
func TestTooFewMatchesBenchmath(t *testing.T) {
	t.Parallel()
	for _, alpha := range []float64{0.5, 1.0 / 3, 0.2, 0.1, 0.05, 2.0 / 70, 0.01, 0.001, 1e-4, 1e-5} {
		for n1 := 1; n1 <= 11; n1++ {
			for n2 := 1; n2 <= 11; n2++ {
				for _, shape := range []string{"interleaved", "separated"} {
					base := make([]float64, n1)
					for i := range base {
						base[i] = float64(2 * i)
					}
					cand := make([]float64, n2)
					for j := range cand {
						cand[j] = float64(2*j + 1)
						if shape == "separated" {
							cand[j] += 1000
						}
					}
					th := &benchmath.Thresholds{CompareAlpha: alpha}
					r := benchmath.AssumeNothing.Compare(
						benchmath.NewSample(slices.Clone(base), th),
						benchmath.NewSample(slices.Clone(cand), th))
					got := Compare(base, cand, alpha)
					if want := len(r.Warnings) > 0; got.TooFew != want {
						t.Errorf("alpha %v, %d vs %d %s: TooFew = %v, benchmath warnings %v", alpha, n1, n2, shape, got.TooFew, r.Warnings)
					}
					if got.P != r.P {
						t.Errorf("alpha %v, %d vs %d %s: P = %v, benchmath says %v", alpha, n1, n2, shape, got.P, r.P)
					}
				}
			}
		}
	}
}

func TestUTestMinSamples(t *testing.T) {
	t.Parallel()
	// Smallest n with 2/C(2n, n) <= alpha; C(2n, n) = 2, 6, 20, 70, 252,
	// 924, 3432, 12870, 48620 for n = 1..9; benchmath stops at 9 and
	// answers 10 beyond.
	tests := []struct {
		alpha float64
		want  int
	}{
		{1, 1}, {0.5, 2}, {1.0 / 3, 2}, {0.2, 3}, {0.1, 3}, {0.05, 4},
		{0.01, 5}, {0.001, 7}, {2.0 / 48620, 9}, {1e-5, 10}, {1e-9, 10},
	}
	for _, tt := range tests {
		if got := uTestMinSamples(tt.alpha); got != tt.want {
			t.Errorf("uTestMinSamples(%v) = %d, want %d", tt.alpha, got, tt.want)
		}
	}
}

func TestMinSamples(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		alpha float64
		want  int
	}{{0.05, 4}, {0.01, 5}, {0, 4}, {2, 4}, {math.NaN(), 4}, {0.2, 3}} {
		if got := MinSamples(tt.alpha); got != tt.want {
			t.Errorf("MinSamples(%v) = %d, want %d", tt.alpha, got, tt.want)
		}
	}
}
