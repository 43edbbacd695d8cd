package stats_test

import (
	"math"
	"testing"

	"github.com/wattscale/wattscale/model/fit/stats"
)

// TestClusterSEByHand checks the cluster-robust (CR1) standard errors on a
// case small enough to work by hand: y = a + b·x over six rows in three
// clusters. With x̄ = 3.5 and Sxx = Σ(x−x̄)² = 17.5, the OLS slope is
// Sxy/Sxx; the score of cluster g is (Σ_g e, Σ_g x·e), the meat
// M = Σ_g s_g s_gᵀ, (XᵀX)⁻¹ = [[Σx², −Σx], [−Σx, n]]/(n·Sxx), and the CR1
// variance (XᵀX)⁻¹ M (XᵀX)⁻¹ scaled by G/(G−1)·(n−1)/(n−k) = 3/2·5/4.
// The numbers in want were worked out that way by hand (and with Python's
// fractions module): b = 27/25, a = 53/150, SE_CR1(a) = 0.22159…, SE_CR1(b) = 0.047528….
func TestClusterSEByHand(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5, 6}
	y := []float64{1.5, 2.7, 3.2, 5.1, 5.0, 7.3}
	groups := []string{"a", "a", "b", "b", "c", "c"}
	X := make([][]float64, len(x))
	for i := range x {
		X[i] = []float64{1, x[i]}
	}
	r, err := stats.OLS(X, y, []string{"a", "b"}, groups)
	if err != nil {
		t.Fatal(err)
	}
	// By hand, step by step.
	n := 6.0
	var sx, sxx, sy, sxy float64
	for i := range x {
		sx, sxx, sy, sxy = sx+x[i], sxx+x[i]*x[i], sy+y[i], sxy+x[i]*y[i]
	}
	Sxx := sxx - sx*sx/n
	b := (sxy - sx*sy/n) / Sxx
	a := (sy - b*sx) / n
	score := map[string][2]float64{}
	for i := range x {
		e := y[i] - a - b*x[i]
		s := score[groups[i]]
		score[groups[i]] = [2]float64{s[0] + e, s[1] + x[i]*e}
	}
	var m00, m01, m11 float64
	for _, s := range score {
		m00, m01, m11 = m00+s[0]*s[0], m01+s[0]*s[1], m11+s[1]*s[1]
	}
	det := n * Sxx
	i00, i01, i11 := sxx/det, -sx/det, n/det
	// (A M A)₀₀ and (A M A)₁₁ for symmetric A = [[i00, i01], [i01, i11]].
	v00 := i00*(i00*m00+i01*m01) + i01*(i00*m01+i01*m11)
	v11 := i01*(i01*m00+i11*m01) + i11*(i01*m01+i11*m11)
	c := 3.0 / 2 * 5 / 4
	want := []float64{math.Sqrt(c * v00), math.Sqrt(c * v11)}
	// Literal values from the same formulas in exact rational arithmetic.
	literal := []float64{0.221590212379, 0.0475280082123}
	for j := range want {
		if math.Abs(r.SECluster[j]-want[j]) > 1e-12 {
			t.Errorf("SECluster[%d] = %.12g, by hand %.12g", j, r.SECluster[j], want[j])
		}
		if math.Abs(r.SECluster[j]-literal[j]) > 1e-9 {
			t.Errorf("SECluster[%d] = %.12g, worked value %.11g", j, r.SECluster[j], literal[j])
		}
	}
	if math.Abs(r.Coef[1]-1.08) > 1e-12 || math.Abs(b-1.08) > 1e-12 {
		t.Errorf("slope %.12g (by hand %.12g), want 1.08", r.Coef[1], b)
	}
}
