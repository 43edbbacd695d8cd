package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// maxCond is the largest 2-norm condition number of the column-scaled design
// that OLS accepts. Beyond it about 12 of the 16 significant digits of the
// coefficients are lost to rounding and the design is reported as rank
// deficient.
const maxCond = 1e12

// OLSResult holds an ordinary least-squares fit y = X·β and its diagnostics.
// Every per-coefficient slice has one entry per column of X, in column order.
// Coefficients and standard errors are in units of y per unit of the column.
type OLSResult struct {
	// Names labels the columns of X.
	Names []string

	// Coef is the least-squares estimate β̂.
	Coef []float64
	// SE is the classical standard error sqrt(σ̂²·[(XᵀX)⁻¹]ⱼⱼ) with
	// σ̂² = SSE/DOF.
	SE []float64
	// SEHC3 is the heteroskedasticity-consistent HC3 standard error from
	// (XᵀX)⁻¹ Xᵀ diag(eᵢ²/(1−hᵢᵢ)²) X (XᵀX)⁻¹. Entries are NaN when some row
	// has leverage hᵢᵢ = 1 (the row is fitted exactly whatever its value).
	SEHC3 []float64
	// SECluster is the cluster-robust CR1 standard error: the sandwich
	// (XᵀX)⁻¹ (Σ_g X_gᵀe_g e_gᵀX_g) (XᵀX)⁻¹ scaled by G/(G−1)·(N−1)/(N−K) for
	// G clusters. It is nil when no groups were given or they form fewer
	// than 2 clusters.
	SECluster []float64

	// T is Coef/SE, the t statistic from the classical standard error.
	T []float64
	// P is the two-sided p-value of T under Student's t with DOF degrees
	// of freedom.
	P []float64
	// CILow and CIHigh bound the 95 % confidence interval
	// Coef ∓ t₀.₉₇₅(DOF)·SE.
	CILow, CIHigh []float64

	// N is the number of rows and K the number of columns of X.
	N, K int
	// DOF is the residual degrees of freedom N−K (at least 1).
	DOF int

	// R2 is the coefficient of determination 1 − SSE/TSS with TSS the
	// centered total sum of squares Σ(yᵢ−ȳ)², the convention for a design
	// that includes an intercept. It is NaN when y is constant.
	R2 float64
	// AdjR2 is 1 − (1−R2)·(N−1)/DOF, NaN when R2 is.
	AdjR2 float64
	// RMSE is sqrt(SSE/N), in the units of y.
	RMSE float64
	// Sigma is the residual standard deviation sqrt(SSE/DOF), in the units
	// of y.
	Sigma float64

	// VIF is the variance inflation factor of each column, 1/(1−R²ⱼ) where
	// R²ⱼ comes from regressing column j on the other columns (centered when
	// the design has a constant column, uncentered otherwise). It is NaN for
	// a constant (intercept) column. 1 means column j is orthogonal to the
	// others; values above about 10 are usually read as strong collinearity.
	VIF []float64
	// Cond is the 2-norm condition number of X after scaling each column to
	// unit Euclidean length (1 for orthogonal columns, dimensionless).
	Cond float64

	// Fitted is X·β̂ and Resid is y − X·β̂, one entry per row, in units of y.
	Fitted, Resid []float64

	// xtxInv is (XᵀX)⁻¹, K×K, row-major.
	xtxInv [][]float64
}

// OLS fits y = X·β by ordinary least squares.
//
// X is row-major n×p: each row is a []float64 of length p, and the caller
// includes the intercept column (a column of ones) when one is wanted. y has
// n entries. names labels the p columns; nil names them "x0", "x1", ….
// groups, which may be nil, gives a cluster label per row for the
// cluster-robust standard errors in SECluster.
//
// The coefficients come from a Householder QR factorization of X with its
// columns scaled to unit length, so that badly scaled designs such as the
// NIST Longley data are solved to about 1e-9 relative accuracy.
//
// OLS returns an error when there are not more rows than columns, when X or
// y holds a NaN or an infinity, when a column is all zeros, or when the
// design is singular or nearly so (scaled condition number above 1e12); the
// error names the column that is (near-)collinear with the earlier ones.
// Rows of different lengths, or names or groups whose length does not match
// X, are programmer errors and panic.
func OLS(X [][]float64, y []float64, names []string, groups []string) (*OLSResult, error) {
	n := len(X)
	if len(y) != n {
		panic(fmt.Sprintf("fit: OLS got %d rows in X but %d values in y", n, len(y)))
	}
	if groups != nil && len(groups) != n {
		panic(fmt.Sprintf("fit: OLS got %d rows in X but %d group labels", n, len(groups)))
	}
	p := len(names)
	if n > 0 {
		p = len(X[0])
	}
	for i, row := range X {
		if len(row) != p {
			panic(fmt.Sprintf("fit: OLS row %d has %d columns, row 0 has %d", i, len(row), p))
		}
	}
	if names == nil {
		names = make([]string, p)
		for j := range names {
			names[j] = fmt.Sprintf("x%d", j)
		}
	}
	if len(names) != p {
		panic(fmt.Sprintf("fit: OLS got %d names for %d columns", len(names), p))
	}
	if p == 0 {
		return nil, fmt.Errorf("fit: design has no columns")
	}
	if n <= p {
		return nil, fmt.Errorf("fit: need at least %d rows for %d columns, got %d", p+1, p, n)
	}
	for i, row := range X {
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("fit: X[%d][%d] (column %q) is %v", i, j, names[j], v)
			}
		}
		if math.IsNaN(y[i]) || math.IsInf(y[i], 0) {
			return nil, fmt.Errorf("fit: y[%d] is %v", i, y[i])
		}
	}

	// Scale the columns to unit length: the QR, the condition number and the
	// rank test then do not depend on the units of each column.
	scale := make([]float64, p)
	for j := range p {
		var ss float64
		for i := range n {
			ss += X[i][j] * X[i][j]
		}
		if ss == 0 {
			return nil, fmt.Errorf("fit: column %q is all zeros", names[j])
		}
		scale[j] = math.Sqrt(ss)
	}
	xs := mat.NewDense(n, p, nil)
	for i := range n {
		for j := range p {
			xs.Set(i, j, X[i][j]/scale[j])
		}
	}

	var svd mat.SVD
	if !svd.Factorize(xs, mat.SVDNone) {
		return nil, fmt.Errorf("fit: singular value decomposition of the design failed")
	}
	sv := svd.Values(nil)
	cond := sv[0] / sv[p-1]

	var qr mat.QR
	qr.Factorize(xs)
	var rFull mat.Dense
	qr.RTo(&rFull)
	r := mat.NewTriDense(p, mat.Upper, nil)
	for i := range p {
		for j := i; j < p; j++ {
			r.SetTri(i, j, rFull.At(i, j))
		}
	}
	if !(cond <= maxCond) {
		return nil, collinearError(r, names, cond)
	}
	var rInv mat.TriDense
	if err := rInv.InverseTri(r); err != nil {
		return nil, collinearError(r, names, cond)
	}

	var bs mat.Dense
	if err := qr.SolveTo(&bs, false, mat.NewVecDense(n, y)); err != nil {
		return nil, collinearError(r, names, cond)
	}
	coef := make([]float64, p)
	for j := range p {
		coef[j] = bs.At(j, 0) / scale[j]
	}

	fitted := make([]float64, n)
	resid := make([]float64, n)
	var sse, ybar float64
	for i := range n {
		var f float64
		for j, v := range X[i] {
			f += v * coef[j]
		}
		fitted[i] = f
		resid[i] = y[i] - f
		sse += resid[i] * resid[i]
		ybar += y[i]
	}
	ybar /= float64(n)
	var tss float64
	for _, v := range y {
		tss += (v - ybar) * (v - ybar)
	}
	dof := n - p

	// a = D⁻¹R⁻¹, so that (XᵀX)⁻¹ = a·aᵀ, and q = Xs·R⁻¹ holds the rows qᵢ of
	// the thin Q factor: every sandwich below is a·(Σ wᵢ qᵢqᵢᵀ)·aᵀ.
	a := make([][]float64, p)
	for i := range p {
		a[i] = make([]float64, p)
		for j := i; j < p; j++ {
			a[i][j] = rInv.At(i, j) / scale[i]
		}
	}
	q := make([][]float64, n)
	qData := make([]float64, n*p)
	lev := make([]float64, n)
	for i := range n {
		q[i] = qData[i*p : (i+1)*p : (i+1)*p]
		for j := range p {
			var s float64
			for k := 0; k <= j; k++ {
				s += xs.At(i, k) * rInv.At(k, j)
			}
			q[i][j] = s
			lev[i] += s * s
		}
	}
	ident := make([][]float64, p)
	for j := range p {
		ident[j] = make([]float64, p)
		ident[j][j] = 1
	}
	xtxInv := sandwich(a, ident)

	res := &OLSResult{
		Names:  append([]string(nil), names...),
		Coef:   coef,
		N:      n,
		K:      p,
		DOF:    dof,
		R2:     1 - sse/tss,
		RMSE:   math.Sqrt(sse / float64(n)),
		Sigma:  math.Sqrt(sse / float64(dof)),
		Cond:   cond,
		Fitted: fitted,
		Resid:  resid,
		xtxInv: xtxInv,
	}
	res.AdjR2 = 1 - (1-res.R2)*float64(n-1)/float64(dof)
	if tss == 0 {
		res.R2, res.AdjR2 = math.NaN(), math.NaN()
	}

	sigma2 := sse / float64(dof)
	res.SE = make([]float64, p)
	for j := range p {
		res.SE[j] = math.Sqrt(sigma2 * xtxInv[j][j])
	}

	// HC3.
	meat := make([][]float64, p)
	for j := range meat {
		meat[j] = make([]float64, p)
	}
	hc3OK := true
	for i := range n {
		if lev[i] >= 1-1e-12 {
			hc3OK = false
			break
		}
		d := 1 - lev[i]
		addOuter(meat, q[i], resid[i]*resid[i]/(d*d))
	}
	res.SEHC3 = diagSqrt(sandwich(a, meat), 1)
	if !hc3OK {
		for j := range res.SEHC3 {
			res.SEHC3[j] = math.NaN()
		}
	}

	// CR1 cluster-robust.
	if groups != nil {
		score := map[string][]float64{}
		var order []string
		for i, g := range groups {
			s, ok := score[g]
			if !ok {
				s = make([]float64, p)
				score[g] = s
				order = append(order, g)
			}
			for j := range p {
				s[j] += resid[i] * q[i][j]
			}
		}
		if g := len(order); g >= 2 {
			for j := range meat {
				clear(meat[j])
			}
			for _, label := range order {
				addOuter(meat, score[label], 1)
			}
			c := float64(g) / float64(g-1) * float64(n-1) / float64(dof)
			res.SECluster = diagSqrt(sandwich(a, meat), c)
		}
	}

	tdist := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(dof)}
	tq := tdist.Quantile(0.975)
	res.T = make([]float64, p)
	res.P = make([]float64, p)
	res.CILow = make([]float64, p)
	res.CIHigh = make([]float64, p)
	for j := range p {
		res.T[j] = coef[j] / res.SE[j]
		res.P[j] = 2 * tdist.Survival(math.Abs(res.T[j]))
		res.CILow[j] = coef[j] - tq*res.SE[j]
		res.CIHigh[j] = coef[j] + tq*res.SE[j]
	}

	res.VIF = vif(X, xtxInv)
	return res, nil
}

// Predict returns the fitted mean x·β̂ at a new design row x (length K, same
// column order as the fit, intercept included) and the standard error of a
// new observation there, σ̂·sqrt(1 + xᵀ(XᵀX)⁻¹x), both in units of y.
// It panics if len(x) != K.
func (r *OLSResult) Predict(x []float64) (mean, sePred float64) {
	if len(x) != r.K {
		panic(fmt.Sprintf("fit: Predict got %d values for %d columns", len(x), r.K))
	}
	var quad float64
	for i, xi := range x {
		mean += xi * r.Coef[i]
		for j, xj := range x {
			quad += xi * r.xtxInv[i][j] * xj
		}
	}
	return mean, r.Sigma * math.Sqrt(1+math.Max(quad, 0))
}

// PredictInterval returns the two-sided prediction interval for a new
// observation at x with coverage level in (0, 1), for example 0.95:
// mean ∓ t_{(1+level)/2}(DOF)·sePred, in units of y. A level outside (0, 1)
// gives NaN bounds. It panics if len(x) != K.
func (r *OLSResult) PredictInterval(x []float64, level float64) (lo, hi float64) {
	mean, se := r.Predict(x)
	if !(level > 0 && level < 1) {
		return math.NaN(), math.NaN()
	}
	tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(r.DOF)}.Quantile((1 + level) / 2)
	return mean - tq*se, mean + tq*se
}

// collinearError reports a rank-deficient design. With the columns scaled to
// unit length, |Rⱼⱼ| of the unpivoted QR is the distance of column j from
// the span of the columns before it, so the smallest one names the column
// that is most nearly a combination of the earlier ones.
func collinearError(r *mat.TriDense, names []string, cond float64) error {
	p, _ := r.Dims()
	worst := 0
	for j := 1; j < p; j++ {
		if math.Abs(r.At(j, j)) < math.Abs(r.At(worst, worst)) {
			worst = j
		}
	}
	return fmt.Errorf("fit: design is rank deficient (scaled condition number %.3g > %.0g): column %q is (near-)collinear with the columns before it",
		cond, maxCond, names[worst])
}

// sandwich returns a·m·aᵀ for square a and symmetric m.
func sandwich(a, m [][]float64) [][]float64 {
	p := len(a)
	am := make([][]float64, p)
	for i := range p {
		am[i] = make([]float64, p)
		for k := range p {
			if a[i][k] == 0 {
				continue
			}
			for j := range p {
				am[i][j] += a[i][k] * m[k][j]
			}
		}
	}
	out := make([][]float64, p)
	for i := range p {
		out[i] = make([]float64, p)
		for j := range p {
			var s float64
			for k := range p {
				s += am[i][k] * a[j][k]
			}
			out[i][j] = s
		}
	}
	return out
}

// addOuter adds w·v·vᵀ to m.
func addOuter(m [][]float64, v []float64, w float64) {
	for i, vi := range v {
		for j, vj := range v {
			m[i][j] += w * vi * vj
		}
	}
}

// diagSqrt returns sqrt(c·vᵢᵢ) for each diagonal entry of v.
func diagSqrt(v [][]float64, c float64) []float64 {
	out := make([]float64, len(v))
	for j := range v {
		out[j] = math.Sqrt(c * v[j][j])
	}
	return out
}

// vif computes the variance inflation factors from (XᵀX)⁻¹: the residual sum
// of squares of column j regressed on the others is 1/[(XᵀX)⁻¹]ⱼⱼ, so
// VIFⱼ = TSSⱼ·[(XᵀX)⁻¹]ⱼⱼ with TSSⱼ centered when a constant column is present.
func vif(X [][]float64, xtxInv [][]float64) []float64 {
	n, p := len(X), len(xtxInv)
	constant := make([]bool, p)
	hasConst := false
	for j := range p {
		constant[j] = true
		for i := 1; i < n; i++ {
			if X[i][j] != X[0][j] {
				constant[j] = false
				break
			}
		}
		hasConst = hasConst || constant[j]
	}
	out := make([]float64, p)
	for j := range p {
		if constant[j] {
			out[j] = math.NaN()
			continue
		}
		var mean float64
		if hasConst {
			for i := range n {
				mean += X[i][j]
			}
			mean /= float64(n)
		}
		var tss float64
		for i := range n {
			d := X[i][j] - mean
			tss += d * d
		}
		out[j] = tss * xtxInv[j][j]
	}
	return out
}
