package stats

import (
	"math"
	"testing"
)

// relErr is |got-want|/|want|, or |got-want| when want is 0.
func relErr(got, want float64) float64 {
	if want == 0 {
		return math.Abs(got)
	}
	return math.Abs(got-want) / math.Abs(want)
}

// TestStudentTQuantileTable checks against a standard printed t table
// (one-sided upper-tail columns 0.0005 and 0.025, i.e. two-sided 99.9% and
// 95%), whose entries are rounded to 3 decimals.
func TestStudentTQuantileTable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		dof         int
		p9995, p975 float64
	}{
		{1, 636.619, 12.706},
		{2, 31.599, 4.303},
		{3, 12.924, 3.182},
		{4, 8.610, 2.776},
		{5, 6.869, 2.571},
		{6, 5.959, 2.447},
		{7, 5.408, 2.365},
		{8, 5.041, 2.306},
		{9, 4.781, 2.262},
		{10, 4.587, 2.228},
		{15, 4.073, 2.131},
		{20, 3.850, 2.086},
		{30, 3.646, 2.042},
		{60, 3.460, 2.000},
		{120, 3.373, 1.980},
	}
	const tol = 0.0005 + 1e-9 // half a unit in the table's last place
	for _, tt := range tests {
		if got := StudentTQuantile(0.9995, tt.dof); math.Abs(got-tt.p9995) > tol {
			t.Errorf("StudentTQuantile(0.9995, %d) = %.6f, table says %.3f", tt.dof, got, tt.p9995)
		}
		if got := StudentTQuantile(0.975, tt.dof); math.Abs(got-tt.p975) > tol {
			t.Errorf("StudentTQuantile(0.975, %d) = %.6f, table says %.3f", tt.dof, got, tt.p975)
		}
	}
}

// TestStudentTQuantilePrecise checks full precision against values computed
// with mpmath at 40 digits (root of betainc(v/2, 1/2, 0, v/(v+t²))/2 = 1-p).
// The required accuracy is 1e-6 relative; the check is much tighter so that
// a regression shows long before it matters.
func TestStudentTQuantilePrecise(t *testing.T) {
	t.Parallel()
	tests := []struct {
		p    float64
		dof  int
		want float64
	}{
		{0.9995, 1, 636.61924876871961621},
		{0.9995, 2, 31.599054576443620733},
		{0.9995, 3, 12.923978636687483065},
		{0.9995, 4, 8.6103015813792750967},
		{0.9995, 5, 6.8688266258811102474},
		{0.9995, 9, 4.7809125859311390663},
		{0.9995, 10, 4.5868938587026358996},
		{0.9995, 19, 3.8834058525920829199},
		{0.9995, 29, 3.6594050194663328566},
		{0.9995, 100, 3.3904913111642299194},
		{0.9995, 1000, 3.3002826484239129098},
		{0.9995, 100000, 3.2906240314118826697},
		{0.9995, 10000, 3.2914999659416046799},
		// Above 1e4 the implementation uses the Cornish-Fisher expansion.
		{0.9995, 10001, 3.291499868601752652},
		{0.9995, 1000000, 3.2905364612486911308},
		{0.9995, 10000000, 3.2905277044652224499},
		{0.975, 1, 12.706204736174704646},
		{0.975, 3, 3.1824463052837095927},
		{0.975, 9, 2.2621571627982055426},
		{0.975, 30, 2.04227245630123831},
		{0.975, 10000, 1.9602012398906262578},
		{0.975, 10001, 1.9602012161646410716},
		{0.975, 1000000, 1.9599663568141070353},
		{0.975, 10000000, 1.9599642217672054904},
		{0.995, 10, 3.1692726726169512346},
		{0.95, 5, 2.0150483733330242378},
		{0.9, 60, 1.2958210935157307852},
		{0.75, 3, 0.76489232840434528066},
		{0.6, 19, 0.25692281979615472629},
		{0.55, 1, 0.15838444032453629384},
		// Lower tail: the same magnitudes, negative. Extreme tails are
		// only given as lower tails, because the float64 nearest to
		// 1-1e-13 is 1-0.99998e-13: its quantile is not the one for 1e-13.
		{0.0005, 9, -4.7809125859311390663},
		{0.025, 30, -2.04227245630123831},
		{1e-9, 3, -1033.1096745038077294},
		{1e-13, 7, -144.5578936360919465},
		{1e-12, 9999, -7.0433724918794107604},
		{1e-12, 10001, -7.0433707124102788648},
		{1e-30, 9999, -11.502087123877277108},
		{1e-30, 10001, -11.502079490939127161},
	}
	for _, tt := range tests {
		got := StudentTQuantile(tt.p, tt.dof)
		if e := relErr(got, tt.want); e > 1e-10 {
			t.Errorf("StudentTQuantile(%v, %d) = %.17g, want %.17g (relative error %.2g)", tt.p, tt.dof, got, tt.want, e)
		}
	}

	// Next to the median the answer is tiny and the float64 spacing of p
	// itself (1e-16 absolute) dominates: check absolutely.
	if got, want := StudentTQuantile(0.500001, 5), 2.6343055241439285846e-6; math.Abs(got-want) > 1e-15 {
		t.Errorf("StudentTQuantile(0.500001, 5) = %.17g, want %.17g", got, want)
	}
}

// TestStudentTQuantileClosedForm4 compares the general algorithm with the
// closed form for 4 degrees of freedom (1 and 2 are computed in closed
// form by the implementation itself), over a wide range of tails: with
// a = 4q(1-q), the upper q quantile is 2 sqrt(cos(acos(sqrt(a))/3)/sqrt(a) - 1).
func TestStudentTQuantileClosedForm4(t *testing.T) {
	t.Parallel()
	closedForm := func(q float64) float64 {
		sa := math.Sqrt(4 * q * (1 - q))
		return 2 * math.Sqrt(math.Cos(math.Acos(sa)/3)/sa-1)
	}
	for _, q := range []float64{0.4, 0.25, 0.1, 0.05, 1e-2, 1e-3, 5e-4, 1e-6, 1e-9, 1e-12, 1e-15, 1e-100} {
		if got, want := StudentTQuantile(q, 4), -closedForm(q); relErr(got, want) > 1e-9 {
			t.Errorf("StudentTQuantile(%g, 4) = %.17g, closed form %.17g", q, got, want)
		}
		// The upper tail that 1-q really leaves in float64.
		if p := 1 - q; p < 1 {
			if got, want := StudentTQuantile(p, 4), closedForm(1-p); relErr(got, want) > 1e-9 {
				t.Errorf("StudentTQuantile(1-%g, 4) = %.17g, closed form %.17g", q, got, want)
			}
		}
	}
}

// TestStudentTQuantileInvertsCDF checks that the quantile is the inverse of
// the tail function for many dof and tails, including extreme ones, and
// that it is antisymmetric and monotonic.
func TestStudentTQuantileInvertsCDF(t *testing.T) {
	t.Parallel()
	dofs := []int{3, 4, 5, 7, 9, 15, 31, 64, 127, 500, 5000, 100000}
	tails := []float64{0.49, 0.3, 0.1, 0.025, 1e-3, 5e-4, 1e-5, 1e-8, 1e-12, 1e-16, 1e-30, 1e-200}
	for _, dof := range dofs {
		prev := 0.0
		for _, q := range tails {
			tq := -StudentTQuantile(q, dof)
			if !(tq > prev) {
				t.Errorf("dof %d: quantile for tail %g = %g, not above %g for a larger tail", dof, q, tq, prev)
			}
			prev = tq
			if got := upperTail(tq, float64(dof)); relErr(got, q) > 1e-11 {
				t.Errorf("dof %d: P(T > %.17g) = %.17g, want %g", dof, tq, got, q)
			}
			// Antisymmetry, for the tail that 1-q really leaves in float64.
			if p := 1 - q; p < 1 {
				if got, want := StudentTQuantile(p, dof), -StudentTQuantile(1-p, dof); relErr(got, want) > 1e-12 {
					t.Errorf("dof %d: StudentTQuantile(%v) = %.17g, want %.17g", dof, p, got, want)
				}
			}
		}
	}
}

// TestStudentTQuantileDecreasesWithDOF checks monotonicity in dof across
// the switch to the Cornish-Fisher expansion above dof 1e4, where a seam
// would show, and the limit of infinite dof, the normal distribution.
func TestStudentTQuantileDecreasesWithDOF(t *testing.T) {
	t.Parallel()
	for _, p := range []float64{0.9995, 0.975, 0.6} {
		prev := math.Inf(1)
		for _, dof := range []int{1, 2, 3, 10, 9_998, 9_999, 10_000, 10_001, 10_002, 1_000_000, 1 << 40} {
			got := StudentTQuantile(p, dof)
			if !(got < prev) {
				t.Errorf("StudentTQuantile(%v, %d) = %.17g, not below %.17g for dof-1", p, dof, got, prev)
			}
			prev = got
		}
		if z := math.Sqrt2 * math.Erfinv(2*p-1); relErr(prev, z) > 1e-9 {
			t.Errorf("StudentTQuantile(%v, 2^40) = %.17g, want the normal quantile %.17g", p, prev, z)
		}
	}
}

func TestStudentTQuantileEdges(t *testing.T) {
	t.Parallel()
	tests := []struct {
		p    float64
		dof  int
		want float64
	}{
		{0.5, 1, 0},
		{0.5, 9, 0},
		{0, 9, math.Inf(-1)},
		{1, 9, math.Inf(1)},
		{1, 1, math.Inf(1)},
		{0.9995, 0, math.NaN()},
		{0.9995, -3, math.NaN()},
		{-0.1, 9, math.NaN()},
		{1.1, 9, math.NaN()},
		{math.NaN(), 9, math.NaN()},
		{math.Inf(1), 9, math.NaN()},
	}
	for _, tt := range tests {
		got := StudentTQuantile(tt.p, tt.dof)
		if got != tt.want && !(math.IsNaN(got) && math.IsNaN(tt.want)) {
			t.Errorf("StudentTQuantile(%v, %d) = %v, want %v", tt.p, tt.dof, got, tt.want)
		}
	}
}

// TestNormalUpperQuantile checks the starting point of the t search
// against mpmath (50 digits), including tails where math.Erfcinv alone
// loses precision (1e-8) or overflows (below 1e-16).
func TestNormalUpperQuantile(t *testing.T) {
	t.Parallel()
	tests := []struct{ q, want float64 }{
		{0.25, 0.6744897501960817432},
		{0.0005, 3.2905267314918947932},
		{1e-8, 5.6120012441747887315},
		{1e-16, 8.2220822161304356127},
		{1e-30, 11.464024688443615727},
		{1e-100, 21.273453560965324295},
		{1e-300, 37.047096299361199237},
	}
	for _, tt := range tests {
		if got := normalUpperQuantile(tt.q); relErr(got, tt.want) > 1e-14 {
			t.Errorf("normalUpperQuantile(%g) = %.17g, want %.17g", tt.q, got, tt.want)
		}
	}
}

// TestLogBeta checks log B(a, b) against mpmath (30 digits) on both sides
// of the switch to the Stirling series, where plain math.Lgamma sums lose
// up to 1e-9 (a = 1e6).
func TestLogBeta(t *testing.T) {
	t.Parallel()
	tests := []struct{ a, b, want float64 }{
		{0.5, 0.5, math.Log(math.Pi)},
		{4.5, 0.5, math.Log(math.Pi * 35 / 128)}, // B(9/2,1/2) = π·(7·5·3·1)/(8·6·4·2)
		{10, 0.5, -0.56643279639759393488},
		{20.5, 0.5, -0.93175054329798683281},
		{100, 0.5, -1.7289701552775226921},
		{1e6, 0.5, -6.335390211057436965},
		{0.5, 1e6, -6.335390211057436965},
		{10, 12, -15.076003572521552576},
	}
	for _, tt := range tests {
		if got := logBeta(tt.a, tt.b); math.Abs(got-tt.want) > 1e-14 {
			t.Errorf("logBeta(%v, %v) = %.17g, want %.17g", tt.a, tt.b, got, tt.want)
		}
	}
}
