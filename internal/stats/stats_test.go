package stats

import (
	"math"
	"testing"
)

func near(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.6f, want %.6f (±%g)", name, got, want, tol)
	}
}

// Newcombe R.G. (1998a) "Two-sided confidence intervals for the single
// proportion", Stat Med 17:857–872, Table I, method 3 (score, no
// continuity correction).
func TestWilsonNewcombe1998a(t *testing.T) {
	for _, c := range []struct {
		x, n      int
		low, high float64
	}{
		{81, 263, 0.2553, 0.3662},
		{15, 148, 0.0624, 0.1605},
		{0, 20, 0.0000, 0.1611},
		{1, 29, 0.0061, 0.1718},
	} {
		iv, ok := Wilson(c.x, c.n, Z95)
		if !ok {
			t.Fatalf("Wilson(%d, %d) not ok", c.x, c.n)
		}
		near(t, "low", iv.Low, c.low, 5e-5)
		near(t, "high", iv.High, c.high, 5e-5)
	}
	if _, ok := Wilson(0, 0, Z95); ok {
		t.Error("Wilson(0, 0) ok, want no interval")
	}
	if iv, _ := Wilson(10, 10, Z95); iv.High != 1 {
		t.Errorf("Wilson(10, 10).High = %v, want exactly 1", iv.High)
	}
}

// Newcombe R.G. (1998b) "Interval estimation for the difference between
// independent proportions: comparison of eleven methods", Stat Med
// 17:873–890, Table II, method 10 (hybrid score).
func TestNewcombe1998bTableII(t *testing.T) {
	for _, c := range []struct {
		x1, n1, x2, n2 int
		low, high      float64
	}{
		{56, 70, 48, 80, 0.0524, 0.3339},
		{9, 10, 3, 10, 0.1705, 0.8090},
		{6, 7, 2, 7, 0.0582, 0.8062},
		{5, 56, 0, 29, -0.0381, 0.1926},
		{0, 10, 0, 20, -0.1611, 0.2775},
		{0, 10, 0, 10, -0.2775, 0.2775},
		{10, 10, 0, 20, 0.6791, 1.0000},
	} {
		_, iv, ok := Newcombe(c.x1, c.n1, c.x2, c.n2, Z95)
		if !ok {
			t.Fatal("not ok")
		}
		near(t, "low", iv.Low, c.low, 5e-5)
		near(t, "high", iv.High, c.high, 5e-5)
	}
	if _, _, ok := Newcombe(1, 0, 1, 2, Z95); ok {
		t.Error("Newcombe with n1 = 0 ok")
	}
}

func TestFisherExact(t *testing.T) {
	for _, c := range []struct {
		name       string
		a, b, c, d int
		p, tol     float64
	}{
		// Fisher's lady tasting tea: 3 of 4 cups right.
		{"tea", 3, 1, 1, 3, 0.4857, 5e-5},
		// Dieting example (Wikipedia, "Fisher's exact test"): two-sided 0.002759.
		{"dieting", 1, 9, 11, 3, 0.002759, 5e-7},
		// Agresti (2002) tea tasting again, all right: 1/70 two-sided 2/70.
		{"tea all right", 4, 0, 0, 4, 2.0 / 70, 1e-9},
		// R: fisher.test(matrix(c(10,0,0,10),2)) p = 1.083e-05 (2/184756).
		{"separated", 10, 0, 0, 10, 2.0 / 184756, 1e-12},
		{"no difference", 5, 5, 5, 5, 1, 1e-12},
	} {
		near(t, c.name, FisherExact(c.a, c.b, c.c, c.d), c.p, c.tol)
	}
}

// Quantiles of Student's t from any printed table (e.g. NIST/SEMATECH
// e-Handbook, 1.3.6.7.2).
func TestTQuantile(t *testing.T) {
	for _, c := range []struct {
		p, df, want float64
	}{
		{0.975, 1, 12.706},
		{0.975, 2, 4.303},
		{0.975, 5, 2.571},
		{0.975, 10, 2.228},
		{0.975, 30, 2.042},
		{0.975, 100, 1.984},
		{0.95, 10, 1.812},
		{0.995, 20, 2.845},
		{0.9, 3, 1.638},
	} {
		near(t, "t", TQuantile(c.p, c.df), c.want, 5e-4)
	}
	near(t, "t(0.975, 1e7)", TQuantile(0.975, 1e7), Z95, 1e-5)
	near(t, "t(0.025, 10)", TQuantile(0.025, 10), -2.228, 5e-4)
	if !math.IsNaN(TQuantile(1, 3)) {
		t.Error("TQuantile(1, 3) is a number")
	}
}

func TestMeanInterval(t *testing.T) {
	// mean 5, s = sqrt(10/3·…) worked by hand: xs = 2,4,6,8 → mean 5,
	// s² = 20/3, se = sqrt(20/3)/2, t(0.975, 3) = 3.182446.
	m, iv, has, ok := MeanInterval([]float64{2, 4, 6, 8})
	if !ok || !has {
		t.Fatal("not ok")
	}
	half := 3.182446305 * math.Sqrt(20.0/3) / 2
	near(t, "mean", m, 5, 1e-12)
	near(t, "low", iv.Low, 5-half, 1e-6)
	near(t, "high", iv.High, 5+half, 1e-6)
	if _, _, has, ok := MeanInterval([]float64{7}); !ok || has {
		t.Error("one value: want a mean without interval")
	}
	if _, iv, _, _ := MeanInterval([]float64{3, 3, 3}); iv.Low != 3 || iv.High != 3 {
		t.Errorf("constant values: interval %v, want [3, 3]", iv)
	}
}

func TestOrderStatistics(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}
	if m, _ := Median(xs); m != 10.5 {
		t.Errorf("median %v, want 10.5", m)
	}
	if p, _ := Percentile(xs, 95); p != 19 {
		t.Errorf("p95 %v, want 19", p)
	}
	if m, _ := Median([]float64{3, 1, 2}); m != 2 {
		t.Errorf("median %v, want 2", m)
	}
	if _, ok := Percentile(nil, 95); ok {
		t.Error("p95 of nothing ok")
	}
}

// TestPassHatK: C(c,k)/C(n,k) against values worked by hand.
func TestPassHatK(t *testing.T) {
	for _, tc := range []struct {
		c, n, k int
		want    float64
		ok      bool
	}{
		{8, 10, 1, 0.8, true},
		{8, 10, 2, 28.0 / 45, true},               // C(8,2)/C(10,2)
		{8, 10, 4, 70.0 / 210, true},              // C(8,4)/C(10,4)
		{8, 10, 8, 1.0 / 45, true},                // C(8,8)/C(10,8)
		{10, 10, 8, 1, true},                      // all PASS
		{3, 10, 4, 0, true},                       // fewer PASS than k
		{0, 10, 1, 0, true},                       // none PASS
		{19, 20, 8, 12.0 / 20, true},              // C(19,8)/C(20,8) = (20−8)/20
		{5, 4, 1, 0, false},                       // c > n
		{2, 4, 8, 0, false},                       // k > n
		{2, 4, 0, 0, false},                       // k < 1
		{50, 100, 8, 0.0028850810098075253, true}, // C(50,8)/C(100,8)
	} {
		got, ok := PassHatK(tc.c, tc.n, tc.k)
		if ok != tc.ok || math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("PassHatK(%d, %d, %d) = %v, %v; want %v, %v", tc.c, tc.n, tc.k, got, ok, tc.want, tc.ok)
		}
	}
}
