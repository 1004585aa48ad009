// Package stats holds the few statistics a campaign reports: the Wilson
// score interval of a proportion, Newcombe's hybrid score interval for a
// difference of two proportions, Fisher's exact test, Student's t quantile
// and a mean with its t interval, order statistics of durations, and
// τ-bench's pass^k.
//
// Everything is written from the published formulas (no dependency) and
// tested against published reference values.
package stats

import (
	"math"
	"math/big"
	"sort"
)

// Z95 is the standard normal quantile for a two-sided 95 % interval.
const Z95 = 1.959963984540054

// Interval is a closed interval [Low, High].
type Interval struct {
	Low, High float64
}

// Wilson returns the Wilson score interval (without continuity correction)
// for x successes out of n at the normal quantile z (Newcombe 1998a,
// method 3). ok is false when n is 0.
func Wilson(x, n int, z float64) (iv Interval, ok bool) {
	if n <= 0 || x < 0 || x > n {
		return Interval{}, false
	}
	nf := float64(n)
	p := float64(x) / nf
	z2 := z * z
	den := 1 + z2/nf
	center := (p + z2/(2*nf)) / den
	half := z / den * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	iv = Interval{Low: center - half, High: center + half}
	// Exact bounds at the edges (rounding must not put 0/n above 0).
	if x == 0 {
		iv.Low = 0
	}
	if x == n {
		iv.High = 1
	}
	return iv, true
}

// Newcombe returns the hybrid score interval (Newcombe 1998b, method 10)
// for the difference p1 − p2 of two independent proportions x1/n1 and
// x2/n2, built from the two Wilson intervals. ok is false when n1 or n2 is 0.
func Newcombe(x1, n1, x2, n2 int, z float64) (d float64, iv Interval, ok bool) {
	w1, ok1 := Wilson(x1, n1, z)
	w2, ok2 := Wilson(x2, n2, z)
	if !ok1 || !ok2 {
		return 0, Interval{}, false
	}
	p1, p2 := float64(x1)/float64(n1), float64(x2)/float64(n2)
	d = p1 - p2
	iv.Low = d - math.Sqrt(sq(p1-w1.Low)+sq(w2.High-p2))
	iv.High = d + math.Sqrt(sq(w1.High-p1)+sq(p2-w2.Low))
	return d, iv, true
}

func sq(x float64) float64 { return x * x }

// FisherExact returns the two-sided p-value of Fisher's exact test for the
// 2×2 table [[a, b], [c, d]]: the sum of the probabilities of every table
// with the same margins that is no more probable than the observed one (the
// convention of R's fisher.test, with the same relative tolerance 1e-7).
func FisherExact(a, b, c, d int) float64 {
	if a < 0 || b < 0 || c < 0 || d < 0 {
		return math.NaN()
	}
	r1, c1, n := a+b, a+c, a+b+c+d
	lo, hi := max(0, c1-(n-r1)), min(r1, c1)
	logp := func(x int) float64 {
		return logChoose(r1, x) + logChoose(n-r1, c1-x) - logChoose(n, c1)
	}
	obs := logp(a)
	limit := obs + math.Log1p(1e-7)
	var p float64
	for x := lo; x <= hi; x++ {
		if lp := logp(x); lp <= limit {
			p += math.Exp(lp)
		}
	}
	return min(p, 1)
}

func logChoose(n, k int) float64 {
	return lgamma(float64(n+1)) - lgamma(float64(k+1)) - lgamma(float64(n-k+1))
}

func lgamma(x float64) float64 {
	v, _ := math.Lgamma(x)
	return v
}

// TQuantile returns the p-quantile of Student's t distribution with df
// degrees of freedom (df > 0, 0 < p < 1), by inverting the distribution
// function, which is computed from the regularized incomplete beta function.
func TQuantile(p, df float64) float64 {
	switch {
	case !(p > 0 && p < 1) || !(df > 0):
		return math.NaN()
	case p == 0.5:
		return 0
	case p < 0.5:
		return -TQuantile(1-p, df)
	}
	// The upper tail probability q = 1 − p = I_x(df/2, 1/2)/2 with
	// x = df/(df+t²); solve for x by bisection on the monotone I_x, then
	// t = sqrt(df(1−x)/x).
	q := 2 * (1 - p)
	lo, hi := 0.0, 1.0
	for range 200 {
		mid := (lo + hi) / 2
		if incBeta(df/2, 0.5, mid) < q {
			lo = mid
		} else {
			hi = mid
		}
		if hi-lo < 1e-17 {
			break
		}
	}
	x := (lo + hi) / 2
	return math.Sqrt(df * (1 - x) / x)
}

// incBeta is the regularized incomplete beta function I_x(a, b), by its
// continued fraction (Lentz's method).
func incBeta(a, b, x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	lbeta := lgamma(a+b) - lgamma(a) - lgamma(b)
	front := math.Exp(lbeta + a*math.Log(x) + b*math.Log1p(-x))
	if x > (a+1)/(a+b+2) {
		return 1 - front*betaCF(b, a, 1-x)/b
	}
	return front * betaCF(a, b, x) / a
}

func betaCF(a, b, x float64) float64 {
	const tiny = 1e-300
	c, d := 1.0, 1-(a+b)*x/(a+1)
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= 1000; m++ {
		mf := float64(m)
		num := mf * (b - mf) * x / ((a + 2*mf - 1) * (a + 2*mf))
		d, c = 1+num*d, 1+num/c
		d, c = fixTiny(d, tiny), fixTiny(c, tiny)
		d = 1 / d
		h *= d * c
		num = -(a + mf) * (a + b + mf) * x / ((a + 2*mf) * (a + 2*mf + 1))
		d, c = 1+num*d, 1+num/c
		d, c = fixTiny(d, tiny), fixTiny(c, tiny)
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < 1e-16 {
			break
		}
	}
	return h
}

func fixTiny(v, tiny float64) float64 {
	if math.Abs(v) < tiny {
		return tiny
	}
	return v
}

// MeanInterval returns the mean of xs and its two-sided 95 % interval by
// Student's t with len(xs)−1 degrees of freedom. ok is false for an empty
// slice; hasInterval is false with fewer than two values.
func MeanInterval(xs []float64) (mean float64, iv Interval, hasInterval, ok bool) {
	n := len(xs)
	if n == 0 {
		return 0, Interval{}, false, false
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(n)
	if n < 2 {
		return mean, Interval{}, false, true
	}
	var ss float64
	for _, x := range xs {
		ss += sq(x - mean)
	}
	se := math.Sqrt(ss/float64(n-1)) / math.Sqrt(float64(n))
	half := TQuantile(0.975, float64(n-1)) * se
	return mean, Interval{Low: mean - half, High: mean + half}, true, true
}

// Median returns the median of xs (the mean of the two middle values for an
// even count); ok is false for an empty slice.
func Median(xs []float64) (float64, bool) {
	n := len(xs)
	if n == 0 {
		return 0, false
	}
	s := sorted(xs)
	if n%2 == 1 {
		return s[n/2], true
	}
	return (s[n/2-1] + s[n/2]) / 2, true
}

// Percentile returns the nearest-rank p-th percentile (0 < p ≤ 100) of xs:
// the smallest value with at least p % of the values at or below it.
func Percentile(xs []float64, p float64) (float64, bool) {
	n := len(xs)
	if n == 0 || !(p > 0 && p <= 100) {
		return 0, false
	}
	s := sorted(xs)
	rank := int(math.Ceil(p / 100 * float64(n)))
	return s[max(rank, 1)-1], true
}

func sorted(xs []float64) []float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s
}

// PassHatK is τ-bench's pass^k estimate: the chance that k runs drawn
// without replacement from n judged runs, c of them PASS, all pass —
// C(c,k)/C(n,k), computed exactly in rationals and rounded once to the
// nearest float64. ok is false unless 1 ≤ k ≤ n and 0 ≤ c ≤ n.
func PassHatK(c, n, k int) (float64, bool) {
	if k < 1 || k > n || c < 0 || c > n {
		return 0, false
	}
	r := big.NewRat(1, 1)
	for i := 0; i < k; i++ {
		if c-i <= 0 {
			return 0, true
		}
		r.Mul(r, big.NewRat(int64(c-i), int64(n-i)))
	}
	f, _ := r.Float64()
	return f, true
}
