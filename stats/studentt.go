package stats

import "math"

// StudentTQuantile returns the p-quantile (inverse CDF) of Student's t
// distribution with dof degrees of freedom: the t with P(T <= t) = p. For
// example StudentTQuantile(0.9995, 9) ≈ 4.7809, the factor of a two-sided
// 99.9% confidence interval from 10 samples.
//
// The result is accurate to about 1e-12 relative for every dof and tails
// down to 1e-30 (near p = 0.5, where t is tiny, to about 1e-16 absolute).
// Note that p near 1 is coarse in float64 (1-1e-13 is really 1-0.99998e-13),
// so ask for extreme tails as lower tails, with small p. It returns NaN for
// dof < 1 or p outside [0, 1], and -Inf or +Inf for p = 0 or 1.
//
// github.com/aclements/go-moremath/stats (TDist with the generic InvCDF) is
// not used instead: its CDF subtracts from 1 and sums math.Lgamma values,
// so at the 99.9% level it is off by 1.7e-10 relative at dof 1e7 and by
// 6e-5 at dof 2^40 (below the normal limit, and not monotonic in dof), its
// lower tails lose all precision (28% at p = 1e-30), p = 0.5 gives -1e-8
// rather than 0, and a NaN p panics.
func StudentTQuantile(p float64, dof int) float64 {
	switch {
	case dof < 1 || !(p >= 0 && p <= 1):
		return math.NaN()
	case p == 0:
		return math.Inf(-1)
	case p == 1:
		return math.Inf(1)
	case p == 0.5:
		return 0
	}
	// Work with the smaller tail probability q and restore the sign at the
	// end: a tail of 1e-12 keeps its full relative precision as q, but
	// not as the distance of a CDF value from 1. (1-p is exact for p in
	// [0.5, 1], Sterbenz's lemma.)
	q, sign := p, -1.0
	if p > 0.5 {
		q, sign = 1-p, 1
	}
	return sign * upperTailInverse(q, float64(dof))
}

// largeDOF is where upperTailInverse switches to the Cornish-Fisher
// expansion. Above it the expansion's truncation error, O(z^11/v^5), is
// below 1e-15 relative for tails down to 1e-16 (5e-14 at 1e-30), while
// the continued fraction needs O(sqrt(v)) iterations and accumulates
// rounding (3e-11 relative at v = 1e6).
const largeDOF = 1e4

// upperTailInverse returns t > 0 with P(T > t) = q, for 0 < q < 0.5.
func upperTailInverse(q, v float64) float64 {
	// Closed forms exist for 1 and 2 degrees of freedom; they are exact
	// where the general iteration is slowest (the heaviest tails).
	switch v {
	case 1: // Cauchy: t = tan(π(1/2 - q)) = 1/tan(πq)
		return 1 / math.Tan(math.Pi*q)
	case 2:
		return (1 - 2*q) / math.Sqrt(2*q*(1-q))
	}

	guess := cornishFisher(normalUpperQuantile(q), v)
	if v > largeDOF {
		return guess
	}
	if !(guess > 0 && guess < math.Inf(1)) { // defensive: any start works
		guess = 1
	}

	// Bracket the root: upperTail is decreasing in t, upperTail(0) = 0.5 > q,
	// and upperTail(+Inf) = 0 < q ends the doubling at the latest. (The
	// root stays below 1e108 for v >= 3 and any float64 q.)
	lo, hi := 0.0, math.Max(guess, 1)
	for upperTail(hi, v) > q {
		lo, hi = hi, 2*hi
	}

	// Newton's method, safeguarded by bisection: the tail is convex, so a
	// Newton step from the right of the root can overshoot below zero for
	// the heavy tails of small v; any step leaving the bracket bisects it
	// instead. The bracket shrinks every iteration, so this terminates.
	logNorm := tLogNorm(v)
	t := guess
	if !(t > lo && t < hi) {
		t = lo + (hi-lo)/2
	}
	for range 500 {
		f := upperTail(t, v) - q
		if f == 0 {
			return t
		}
		if f > 0 {
			lo = t
		} else {
			hi = t
		}
		// d/dt upperTail = -pdf(t), so Newton's step is +f/pdf.
		next := t + f/math.Exp(logNorm-(v+1)/2*math.Log1p(t*t/v))
		if !(next > lo && next < hi) {
			next = lo + (hi-lo)/2
		}
		// Newton converges quadratically: once a step is this small the
		// error left is far smaller still, and below it the steps only
		// chase the rounding noise of upperTail.
		if math.Abs(next-t) <= 1e-14*next || hi-lo <= 1e-15*hi {
			return next
		}
		t = next
	}
	return t
}

// upperTail returns P(T > t) for t >= 0 and v degrees of freedom:
// I_x(v/2, 1/2) / 2 with x = v/(v+t²).
func upperTail(t, v float64) float64 {
	t2 := t * t
	if math.IsInf(t2, 1) {
		// The tail is below the smallest float64 long before t² overflows
		// for the v this is used with (v >= 3).
		return 0
	}
	// x and 1-x are computed separately so that neither loses precision
	// when the other is close to 1.
	x := v / (v + t2)
	y := t2 / (v + t2)
	return regIncBeta(v/2, 0.5, x, y) / 2
}

// normalUpperQuantile returns z with P(Z > z) = q for a standard normal Z,
// 0 < q < 0.5.
func normalUpperQuantile(q float64) float64 {
	z := math.Sqrt2 * math.Erfcinv(2*q)
	if math.IsInf(z, 1) {
		// math.Erfcinv(x) is Erfinv(1-x), and 1-x rounds to 1 below
		// x = 1e-16. Start from the asymptotic inverse of q ≈ φ(z)/z.
		l := -2 * math.Log(q)
		z = math.Sqrt(l - math.Log(l) - math.Log(2*math.Pi))
	}
	// The same rounding of 1-x costs Erfcinv precision in every small
	// tail: the absolute error of 1e-16 is 5e-9 relative at q = 1e-8.
	// math.Erfc keeps full relative precision in the tail, so a few Newton
	// steps on it restore z to full precision.
	for range 8 {
		pdf := math.Exp(-z*z/2) / math.Sqrt(2*math.Pi)
		step := (math.Erfc(z/math.Sqrt2)/2 - q) / pdf
		if math.IsNaN(step) || math.IsInf(step, 0) {
			break // q so small that φ(z) underflows: z is as good as it gets
		}
		z += step
		if math.Abs(step) <= 1e-15*z {
			break
		}
	}
	return z
}

// tLogNorm returns the log of the normalising constant of Student's t
// density, Γ((v+1)/2) / (sqrt(vπ) Γ(v/2)) = 1 / (sqrt(v) B(v/2, 1/2)).
func tLogNorm(v float64) float64 {
	return -0.5*math.Log(v) - logBeta(v/2, 0.5)
}

// cornishFisher returns the Cornish-Fisher expansion of Student's t
// quantile from the standard normal quantile z (Abramowitz and Stegun
// 26.7.5). It is the starting point of the Newton search and, for very
// large v, the answer.
func cornishFisher(z, v float64) float64 {
	z2 := z * z
	g1 := z * (z2 + 1) / 4
	g2 := z * ((5*z2+16)*z2 + 3) / 96
	g3 := z * (((3*z2+19)*z2+17)*z2 - 15) / 384
	g4 := z * ((((79*z2+776)*z2+1482)*z2-1920)*z2 - 945) / 92160
	return z + (g1+(g2+(g3+g4/v)/v)/v)/v
}

// regIncBeta returns the regularized incomplete beta function I_x(a, b)
// for a, b > 0, given both x and y = 1-x (the caller computes y without
// cancellation). It evaluates the continued fraction on whichever side
// converges quickly: directly when x < (a+1)/(a+b+2), otherwise through
// I_x(a, b) = 1 - I_y(b, a).
func regIncBeta(a, b, x, y float64) float64 {
	switch {
	case x <= 0:
		return 0
	case y <= 0:
		return 1
	}
	// x^a y^b / B(a,b), in logs so that large a does not underflow early.
	// Each log comes from whichever of x and y is the smaller, which the
	// caller computed to full relative precision: with a = 5e5, an error
	// of one ulp in log(x) near x = 1 would already cost 5e-11.
	lx, ly := math.Log(x), math.Log(y)
	if x > 0.5 {
		lx = math.Log1p(-y)
	}
	if y > 0.5 {
		ly = math.Log1p(-x)
	}
	front := math.Exp(a*lx + b*ly - logBeta(a, b))
	if x < (a+1)/(a+b+2) {
		return front * betaContinuedFraction(a, b, x) / a
	}
	return 1 - front*betaContinuedFraction(b, a, y)/b
}

// logBeta returns log B(a, b) = log Γ(a) + log Γ(b) - log Γ(a+b) for
// a, b > 0.
//
// Summing math.Lgamma values directly loses the small difference between
// log Γ(a) and log Γ(a+b) when a is large: for Student's t with
// v = 1e6, a = 5e5 and log Γ(a) ≈ 6e6, so one ulp is 1e-9, which becomes a
// relative error of 1e-9 in every tail probability. For large arguments
// the Stirling series is used instead, arranged so that the large terms
// cancel algebraically rather than numerically:
//
//	log Γ(x) = (x-1/2) log x - x + log(2π)/2 + δ(x)
//	log Γ(a) - log Γ(a+b) = -(a-1/2) log1p(b/a) - b log(a+b) + b + δ(a) - δ(a+b)
func logBeta(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if a < stirlingMin {
		la, _ := math.Lgamma(a)
		lb, _ := math.Lgamma(b)
		lab, _ := math.Lgamma(a + b)
		return la + lb - lab
	}
	diff := -(a-0.5)*math.Log1p(b/a) - b*math.Log(a+b) + b + stirlingCorrection(a) - stirlingCorrection(a+b)
	if b < stirlingMin {
		lb, _ := math.Lgamma(b)
		return lb + diff
	}
	// log Γ(b) by Stirling too; its -b cancels the +b in diff.
	return (b-0.5)*math.Log(b) + 0.5*math.Log(2*math.Pi) + stirlingCorrection(b) + diff - b
}

// stirlingMin is where the truncated series in stirlingCorrection is
// accurate to float64 precision.
const stirlingMin = 10

// stirlingCorrection returns δ(x) = log Γ(x) - ((x-1/2) log x - x +
// log(2π)/2) for x >= stirlingMin, from its asymptotic series
// Σ B(2k) / (2k(2k-1) x^(2k-1)) = 1/(12x) - 1/(360x³) + 1/(1260x⁵) -
// 1/(1680x⁷) + 1/(1188x⁹) - 691/(360360x¹¹) + 1/(156x¹³); the first omitted
// term, 3617/(122400x¹⁵), is below 3e-17 for x >= 10.
func stirlingCorrection(x float64) float64 {
	r := 1 / x
	r2 := r * r
	return r * (1.0/12 - r2*(1.0/360-r2*(1.0/1260-r2*(1.0/1680-r2*(1.0/1188-r2*(691.0/360360-r2/156))))))
}

// betaContinuedFraction evaluates the continued fraction of the incomplete
// beta function,
//
//	1 / (1 + d1 / (1 + d2 / (1 + ...)))
//	d(2m+1) = -(a+m)(a+b+m) x / ((a+2m)(a+2m+1))
//	d(2m)   =  m(b-m) x / ((a+2m-1)(a+2m))
//
// with the modified Lentz method, which needs no a-priori number of terms.
func betaContinuedFraction(a, b, x float64) float64 {
	// tiny replaces a zero denominator, as Lentz's method prescribes.
	const tiny = 1e-300
	const eps = 1e-16
	guard := func(v float64) float64 {
		if math.Abs(v) < tiny {
			return tiny
		}
		return v
	}
	c := 1.0
	d := 1 / guard(1-(a+b)*x/(a+1)) // d1 folded into the first denominator
	h := d
	for m := 1; m <= 100000; m++ {
		fm := float64(m)
		// Even term d(2m).
		num := fm * (b - fm) * x / ((a + 2*fm - 1) * (a + 2*fm))
		d = 1 / guard(1+num*d)
		c = guard(1 + num/c)
		h *= d * c
		// Odd term d(2m+1).
		num = -(a + fm) * (a + b + fm) * x / ((a + 2*fm) * (a + 2*fm + 1))
		d = 1 / guard(1+num*d)
		c = guard(1 + num/c)
		delta := d * c
		h *= delta
		if math.Abs(delta-1) < eps {
			break
		}
	}
	return h
}
