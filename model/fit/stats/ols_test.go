package stats

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// longley is the NIST StRD Longley data set (16 rows): y, then x1 … x6.
// Source: https://www.itl.nist.gov/div898/strd/lls/data/Longley.shtml
var longley = [][7]float64{
	{60323, 83.0, 234289, 2356, 1590, 107608, 1947},
	{61122, 88.5, 259426, 2325, 1456, 108632, 1948},
	{60171, 88.2, 258054, 3682, 1616, 109773, 1949},
	{61187, 89.5, 284599, 3351, 1650, 110929, 1950},
	{63221, 96.2, 328975, 2099, 3099, 112075, 1951},
	{63639, 98.1, 346999, 1932, 3594, 113270, 1952},
	{64989, 99.0, 365385, 1870, 3547, 115094, 1953},
	{63761, 100.0, 363112, 3578, 3350, 116219, 1954},
	{66019, 101.2, 397469, 2904, 3048, 117388, 1955},
	{67857, 104.6, 419180, 2822, 2857, 118734, 1956},
	{68169, 108.4, 442769, 2936, 2798, 120445, 1957},
	{66513, 110.8, 444546, 4681, 2637, 121950, 1958},
	{68655, 112.6, 482704, 3813, 2552, 123366, 1959},
	{69564, 114.2, 502601, 3931, 2514, 125368, 1960},
	{69331, 115.7, 518173, 4806, 2572, 127852, 1961},
	{70551, 116.9, 554894, 4007, 2827, 130081, 1962},
}

// Certified values for Longley, from the NIST StRD page above
// (certified to 15 significant digits).
var (
	longleyCoef = []float64{
		-3482258.63459582, 15.0618722713733, -0.358191792925910e-01,
		-2.02022980381683, -1.03322686717359, -0.511041056535807e-01,
		1829.15146461355,
	}
	longleySE = []float64{
		890420.383607373, 84.9149257747669, 0.334910077722432e-01,
		0.488399681651699, 0.214274163161675, 0.226073200069370,
		455.478499142212,
	}
	longleySigma = 304.854073561965  // "Residual Standard Deviation"
	longleyR2    = 0.995479004577296 // "R-Squared"
)

func longleyDesign() (X [][]float64, y []float64, names []string) {
	for _, row := range longley {
		y = append(y, row[0])
		X = append(X, []float64{1, row[1], row[2], row[3], row[4], row[5], row[6]})
	}
	return X, y, []string{"const", "x1", "x2", "x3", "x4", "x5", "x6"}
}

func relErr(got, want float64) float64 {
	if want == 0 {
		return math.Abs(got)
	}
	return math.Abs(got-want) / math.Abs(want)
}

func TestOLSLongley(t *testing.T) {
	X, y, names := longleyDesign()
	r, err := OLS(X, y, names, nil)
	if err != nil {
		t.Fatalf("OLS(Longley) error: %v", err)
	}
	const tol = 1e-7 // relative; the certified values carry 15 digits
	for j, name := range names {
		if e := relErr(r.Coef[j], longleyCoef[j]); e > tol {
			t.Errorf("Longley coef %s = %.15g, want %.15g (rel err %.2g)", name, r.Coef[j], longleyCoef[j], e)
		}
		if e := relErr(r.SE[j], longleySE[j]); e > tol {
			t.Errorf("Longley SE %s = %.15g, want %.15g (rel err %.2g)", name, r.SE[j], longleySE[j], e)
		}
	}
	if e := relErr(r.Sigma, longleySigma); e > tol {
		t.Errorf("Longley Sigma = %.15g, want %.15g", r.Sigma, longleySigma)
	}
	if e := relErr(r.R2, longleyR2); e > tol {
		t.Errorf("Longley R2 = %.15g, want %.15g", r.R2, longleyR2)
	}
	if r.N != 16 || r.K != 7 || r.DOF != 9 {
		t.Errorf("Longley N, K, DOF = %d, %d, %d, want 16, 7, 9", r.N, r.K, r.DOF)
	}
	// RMSE = Sigma·sqrt(DOF/N) by definition.
	if want := longleySigma * math.Sqrt(9.0/16); relErr(r.RMSE, want) > tol {
		t.Errorf("Longley RMSE = %.10g, want %.10g", r.RMSE, want)
	}
	// AdjR2 from the certified R2: 1 − (1−R2)·15/9.
	if want := 1 - (1-longleyR2)*15/9; relErr(r.AdjR2, want) > tol {
		t.Errorf("Longley AdjR2 = %.10g, want %.10g", r.AdjR2, want)
	}
	// Longley is the classic collinear design: VIFs in the hundreds or
	// thousands and a large scaled condition number, but below maxCond.
	if !math.IsNaN(r.VIF[0]) {
		t.Errorf("Longley VIF[const] = %v, want NaN", r.VIF[0])
	}
	if r.VIF[2] < 100 {
		t.Errorf("Longley VIF[x2] = %.4g, want > 100", r.VIF[2])
	}
	if !(r.Cond > 1e3 && r.Cond < maxCond) {
		t.Errorf("Longley Cond = %.4g, want in (1e3, %g)", r.Cond, maxCond)
	}
	for i := range y {
		if e := math.Abs(r.Fitted[i] + r.Resid[i] - y[i]); e > 1e-8*y[i] {
			t.Errorf("Fitted[%d]+Resid[%d] = %.10g, want y = %.10g", i, i, r.Fitted[i]+r.Resid[i], y[i])
		}
	}
}

// synthetic draws n rows of y = 2 + 0.5·x1 − 1.5·x2 + 3·x3 + ε, ε ~ N(0, 0.7²).
var synthBeta = []float64{2, 0.5, -1.5, 3}

const synthSigma = 0.7

func synthetic(r *rand.Rand, n int) (X [][]float64, y []float64) {
	for range n {
		row := []float64{1, 10 * r.Float64(), r.NormFloat64(), r.NormFloat64() + 1}
		var m float64
		for j, v := range row {
			m += synthBeta[j] * v
		}
		X = append(X, row)
		y = append(y, m+synthSigma*r.NormFloat64())
	}
	return X, y
}

func TestOLSRecoversSyntheticCoefficients(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	X, y := synthetic(rng, 400)
	groups := make([]string, len(y))
	for i := range groups {
		groups[i] = string(rune('a' + i%20))
	}
	r, err := OLS(X, y, []string{"const", "x1", "x2", "x3"}, groups)
	if err != nil {
		t.Fatalf("OLS error: %v", err)
	}
	for j, want := range synthBeta {
		if d := math.Abs(r.Coef[j] - want); d > 2*r.SE[j] {
			t.Errorf("Coef[%s] = %.4f, want %.4f within 2 SE (%.4f)", r.Names[j], r.Coef[j], want, 2*r.SE[j])
		}
		if !(r.CILow[j] < want && want < r.CIHigh[j]) {
			t.Errorf("95%% CI[%s] = [%.4f, %.4f], want it to hold %.4f", r.Names[j], r.CILow[j], r.CIHigh[j], want)
		}
		for _, se := range []struct {
			name string
			v    float64
		}{{"SEHC3", r.SEHC3[j]}, {"SECluster", r.SECluster[j]}} {
			if !(se.v > 0) || math.IsInf(se.v, 0) {
				t.Errorf("%s[%s] = %v, want finite and positive", se.name, r.Names[j], se.v)
			}
			// Under homoskedastic independent errors the robust SEs estimate
			// the same quantity as the classical one.
			if ratio := se.v / r.SE[j]; ratio < 0.5 || ratio > 2 {
				t.Errorf("%s[%s]/SE = %.3f, want within [0.5, 2]", se.name, r.Names[j], ratio)
			}
		}
	}
	if math.Abs(r.Sigma-synthSigma) > 0.1*synthSigma {
		t.Errorf("Sigma = %.4f, want %.4f within 10 %%", r.Sigma, synthSigma)
	}
	// Significance: all true slopes are far from 0.
	for j := 1; j < len(synthBeta); j++ {
		if r.P[j] > 1e-6 {
			t.Errorf("P[%s] = %.3g, want < 1e-6", r.Names[j], r.P[j])
		}
		if want := r.Coef[j] / r.SE[j]; relErr(r.T[j], want) > 1e-12 {
			t.Errorf("T[%s] = %v, want Coef/SE = %v", r.Names[j], r.T[j], want)
		}
	}
}

// naiveCov returns (XᵀX)⁻¹ and the HC0 meat Xᵀdiag(w)X computed directly
// with gonum's mat, an independent check on the QR-based sandwiches.
func naiveCov(t *testing.T, X [][]float64, w []float64) (inv, meat *mat.Dense) {
	n, p := len(X), len(X[0])
	xm := mat.NewDense(n, p, nil)
	for i := range n {
		xm.SetRow(i, X[i])
	}
	var xtx mat.Dense
	xtx.Mul(xm.T(), xm)
	inv = new(mat.Dense)
	if err := inv.Inverse(&xtx); err != nil {
		t.Fatalf("naive inverse: %v", err)
	}
	meat = mat.NewDense(p, p, nil)
	for i := range n {
		for a := range p {
			for b := range p {
				meat.Set(a, b, meat.At(a, b)+w[i]*X[i][a]*X[i][b])
			}
		}
	}
	return inv, meat
}

func TestOLSRobustSEAgainstNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	X, y := synthetic(rng, 60)
	// One cluster per row: CR1 reduces to HC1 = HC0·N/(N−K).
	single := make([]string, len(y))
	for i := range single {
		single[i] = string(rune(0x4e00 + i))
	}
	r, err := OLS(X, y, nil, single)
	if err != nil {
		t.Fatalf("OLS error: %v", err)
	}
	n, p := len(X), len(X[0])
	inv, _ := naiveCov(t, X, make([]float64, n))
	w3 := make([]float64, n)
	w0 := make([]float64, n)
	for i := range n {
		xi := mat.NewVecDense(p, X[i])
		h := mat.Inner(xi, inv, xi)
		e := r.Resid[i]
		w0[i] = e * e
		w3[i] = e * e / ((1 - h) * (1 - h))
	}
	for _, tc := range []struct {
		name   string
		w      []float64
		factor float64
		got    []float64
	}{
		{"HC3", w3, 1, r.SEHC3},
		{"CR1 with singleton clusters (HC1)", w0, float64(n) / float64(n-p), r.SECluster},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, meat := naiveCov(t, X, tc.w)
			var v, tmp mat.Dense
			tmp.Mul(inv, meat)
			v.Mul(&tmp, inv)
			for j := range p {
				want := math.Sqrt(tc.factor * v.At(j, j))
				if relErr(tc.got[j], want) > 1e-9 {
					t.Errorf("%s SE[%d] = %.12g, want %.12g", tc.name, j, tc.got[j], want)
				}
			}
		})
	}
	for j := range p {
		want := r.Sigma * math.Sqrt(inv.At(j, j))
		if relErr(r.SE[j], want) > 1e-9 {
			t.Errorf("SE[%d] = %.12g, want σ̂·sqrt((XᵀX)⁻¹) = %.12g", j, r.SE[j], want)
		}
	}
}

func TestOLSClusterSEWidensForClusteredErrors(t *testing.T) {
	// A regressor constant within each of 30 clusters and errors with a
	// shared cluster component (SD 1 against 0.3 within): the classical SE
	// of its slope ignores the correlation and is far too small.
	rng := rand.New(rand.NewPCG(1, 2))
	var X [][]float64
	var y []float64
	var groups []string
	for g := range 30 {
		xg := rng.NormFloat64()
		ug := rng.NormFloat64()
		for range 20 {
			X = append(X, []float64{1, xg})
			y = append(y, 1+2*xg+ug+0.3*rng.NormFloat64())
			groups = append(groups, string(rune('A'+g)))
		}
	}
	r, err := OLS(X, y, []string{"const", "xg"}, groups)
	if err != nil {
		t.Fatalf("OLS error: %v", err)
	}
	if ratio := r.SECluster[1] / r.SE[1]; ratio < 2 {
		t.Errorf("SECluster/SE for a cluster-level regressor = %.3f, want > 2", ratio)
	}
	r, err = OLS(X, y, nil, make([]string, len(y)))
	if err != nil {
		t.Fatalf("OLS error: %v", err)
	}
	if r.SECluster != nil {
		t.Errorf("SECluster with one cluster = %v, want nil", r.SECluster)
	}
}

func TestPredictIntervalCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	X, y := synthetic(rng, 200)
	r, err := OLS(X, y, nil, nil)
	if err != nil {
		t.Fatalf("OLS error: %v", err)
	}
	// At a training row, Predict gives the fitted value and the textbook
	// σ̂·sqrt(1 + hᵢᵢ).
	inv, _ := naiveCov(t, X, make([]float64, len(y)))
	xi := mat.NewVecDense(len(X[0]), X[0])
	mean, se := r.Predict(X[0])
	if relErr(mean, r.Fitted[0]) > 1e-12 {
		t.Errorf("Predict(X[0]) mean = %.12g, want Fitted[0] = %.12g", mean, r.Fitted[0])
	}
	if want := r.Sigma * math.Sqrt(1+mat.Inner(xi, inv, xi)); relErr(se, want) > 1e-9 {
		t.Errorf("Predict(X[0]) sePred = %.12g, want %.12g", se, want)
	}

	const draws = 4000
	for _, level := range []float64{0.8, 0.95} {
		Xn, yn := synthetic(rng, draws)
		covered := 0
		for i := range Xn {
			lo, hi := r.PredictInterval(Xn[i], level)
			if lo <= yn[i] && yn[i] <= hi {
				covered++
			}
		}
		// Binomial SD at 4000 draws is at most 0.0063, so ±0.02 is over 3 SD.
		if got := float64(covered) / draws; math.Abs(got-level) > 0.02 {
			t.Errorf("PredictInterval(level %.2f) covers %.4f of %d fresh draws, want %.2f ± 0.02", level, got, draws, level)
		}
	}
	if lo, hi := r.PredictInterval(X[0], 1.5); !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("PredictInterval(level 1.5) = [%v, %v], want NaN bounds", lo, hi)
	}
}

func TestOLSErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	X, y := synthetic(rng, 12)
	withCol := func(f func(row []float64, i int) []float64) [][]float64 {
		var out [][]float64
		for i, row := range X {
			out = append(out, f(append([]float64(nil), row...), i))
		}
		return out
	}
	yNaN := append([]float64(nil), y...)
	yNaN[3] = math.NaN()
	xInf := withCol(func(r []float64, i int) []float64 {
		if i == 5 {
			r[2] = math.Inf(1)
		}
		return r
	})
	dup := withCol(func(r []float64, _ int) []float64 { return append(r, r[2]) })
	combo := withCol(func(r []float64, _ int) []float64 { return append(r, 2*r[1]-r[3]+5) })
	zero := withCol(func(r []float64, _ int) []float64 { return append(r, 0) })
	names4 := []string{"const", "x1", "x2", "x3"}
	names5 := []string{"const", "x1", "x2", "x3", "extra"}

	tests := []struct {
		name  string
		X     [][]float64
		y     []float64
		names []string
		want  string // substring of the error
	}{
		{"too few rows", X[:4], y[:4], names4, "need at least 5 rows for 4 columns, got 4"},
		{"no rows", nil, nil, names4, "need at least 5 rows for 4 columns, got 0"},
		{"NaN in y", X, yNaN, names4, "y[3] is NaN"},
		{"Inf in X", xInf, y, names4, `X[5][2] (column "x2") is +Inf`},
		{"duplicate column", dup, y, names5, `column "extra" is (near-)collinear`},
		{"linear combination", combo, y, names5, `column "extra" is (near-)collinear`},
		{"zero column", zero, y, names5, `column "extra" is all zeros`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := OLS(tc.X, tc.y, tc.names, nil)
			if err == nil {
				t.Fatalf("OLS = %+v, nil error; want error containing %q", r, tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "fit: ") {
				t.Errorf("OLS error = %q, want it to start with \"fit: \" and contain %q", err, tc.want)
			}
		})
	}
}

func TestOLSDegenerateButValid(t *testing.T) {
	// A dummy column that is 1 on a single row gives that row leverage 1:
	// HC3 is undefined there and reported as NaN, not as a panic or error.
	X := [][]float64{{1, 0, 0}, {1, 1, 0}, {1, 2, 0}, {1, 3, 1}, {1, 4, 0}}
	y := []float64{0.1, 1.2, 1.9, 7, 4.1}
	r, err := OLS(X, y, nil, nil)
	if err != nil {
		t.Fatalf("OLS error: %v", err)
	}
	for j, se := range r.SEHC3 {
		if !math.IsNaN(se) {
			t.Errorf("SEHC3[%d] with a leverage-1 row = %v, want NaN", j, se)
		}
	}
	if math.Abs(r.Resid[3]) > 1e-12 {
		t.Errorf("Resid[3] of the leverage-1 row = %v, want 0", r.Resid[3])
	}
	// A constant y: R2 is undefined.
	r, err = OLS(X, []float64{2, 2, 2, 2, 2}, nil, nil)
	if err != nil {
		t.Fatalf("OLS error: %v", err)
	}
	if !math.IsNaN(r.R2) || !math.IsNaN(r.AdjR2) {
		t.Errorf("R2, AdjR2 for constant y = %v, %v, want NaN", r.R2, r.AdjR2)
	}
	if math.Abs(r.Coef[0]-2) > 1e-12 {
		t.Errorf("Coef[0] for constant y = %v, want 2", r.Coef[0])
	}
}

func TestOLSPanicsOnMismatchedLengths(t *testing.T) {
	X := [][]float64{{1, 0}, {1, 1}, {1, 2}}
	for _, tc := range []struct {
		name string
		call func()
	}{
		{"y", func() { _, _ = OLS(X, []float64{1, 2}, nil, nil) }},
		{"names", func() { _, _ = OLS(X, []float64{1, 2, 3}, []string{"a"}, nil) }},
		{"groups", func() { _, _ = OLS(X, []float64{1, 2, 3}, nil, []string{"a"}) }},
		{"ragged", func() { _, _ = OLS([][]float64{{1, 0}, {1}, {1, 2}}, []float64{1, 2, 3}, nil, nil) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("OLS with mismatched %s did not panic", tc.name)
				}
			}()
			tc.call()
		})
	}
}

func TestOLSOrthogonalDiagnostics(t *testing.T) {
	// The 2³ factorial design: intercept plus three ±1 columns, all mutually
	// orthogonal with equal norms, so the scaled design is orthonormal.
	var X [][]float64
	var y []float64
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 8 {
		a, b, c := float64(2*(i&1)-1), float64(2*(i>>1&1)-1), float64(2*(i>>2&1)-1)
		X = append(X, []float64{1, a, b, c})
		y = append(y, 1+a-b+rng.NormFloat64())
	}
	r, err := OLS(X, y, []string{"const", "a", "b", "c"}, nil)
	if err != nil {
		t.Fatalf("OLS error: %v", err)
	}
	if math.Abs(r.Cond-1) > 1e-12 {
		t.Errorf("Cond of an orthonormal design = %.15g, want 1", r.Cond)
	}
	if !math.IsNaN(r.VIF[0]) {
		t.Errorf("VIF[const] = %v, want NaN", r.VIF[0])
	}
	for j := 1; j < 4; j++ {
		if math.Abs(r.VIF[j]-1) > 1e-12 {
			t.Errorf("VIF[%s] of orthogonal columns = %.15g, want 1", r.Names[j], r.VIF[j])
		}
	}

	// Two regressors with sample correlation ρ: VIF = 1/(1−ρ²) for both.
	X, y = synthetic(rng, 50)
	for i := range X {
		X[i] = []float64{1, X[i][1], X[i][1] + 3*X[i][2]}
	}
	r, err = OLS(X, y, nil, nil)
	if err != nil {
		t.Fatalf("OLS error: %v", err)
	}
	rho := correlation(X, 1, 2)
	want := 1 / (1 - rho*rho)
	for j := 1; j < 3; j++ {
		if relErr(r.VIF[j], want) > 1e-10 {
			t.Errorf("VIF[%d] at sample correlation %.4f = %.12g, want 1/(1−ρ²) = %.12g", j, rho, r.VIF[j], want)
		}
	}
}

// correlation returns the sample correlation of columns a and b of X.
func correlation(X [][]float64, a, b int) float64 {
	var ma, mb float64
	for _, row := range X {
		ma += row[a]
		mb += row[b]
	}
	n := float64(len(X))
	ma /= n
	mb /= n
	var sab, saa, sbb float64
	for _, row := range X {
		da, db := row[a]-ma, row[b]-mb
		sab += da * db
		saa += da * da
		sbb += db * db
	}
	return sab / math.Sqrt(saa*sbb)
}

func BenchmarkOLS1000(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	X := make([][]float64, 1000)
	y := make([]float64, 1000)
	for i := range X {
		X[i] = []float64{1, rng.NormFloat64(), rng.NormFloat64(), 10 * rng.Float64(), rng.ExpFloat64(), rng.NormFloat64()}
		y[i] = X[i][1] - 2*X[i][2] + 0.3*X[i][3] + rng.NormFloat64()
	}
	groups := make([]string, len(y))
	for i := range groups {
		groups[i] = string(rune('a' + i%25))
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := OLS(X, y, nil, groups); err != nil {
			b.Fatal(err)
		}
	}
}
