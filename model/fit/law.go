package fit

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/fit/stats"
)

// LawFit is the paper's log-linear law fitted to measurements, with the
// comparison against the law without the efficiency term.
type LawFit struct {
	Full       *stats.OLSResult
	WithoutEta *stats.OLSResult // nil when η does not vary in the data
	Columns    []string         // design columns of Full
	Dropped    []string         // columns dropped because they do not vary
	CV         stats.CVResult
	CVNoEta    *stats.CVResult
	RefTokens  float64
	X          [][]float64
	Y          []float64
	Groups     []string // workload group of each row
	GPUs       []string // canonical accelerator id of each row
}

// lawRow holds one row's regressors.
type lawRow struct {
	lnC, lnM, lnEta, lnE float64
	strategy, gpu, group string
	measuredEta          bool // η from the eta column (or 1 on one GPU) rather than modelled
}

// spec names a specification of the log-linear law.
type spec string

const (
	// specLaw is the project's law fit: the paper's regressors plus hardware
	// dummies, η measured where the eta column gives it and modelled from
	// the speedup curves elsewhere.
	specLaw spec = "law"
	// specPaper is the roofline paper's specification exactly: OLS of ln E
	// on ln C, ln M, ln η (measured, T₁/(N·T_N)) and strategy indicators
	// with single GPU the reference, no hardware terms, cluster-robust
	// standard errors by workload group.
	specPaper spec = "paper"
)

// lawRows computes each row's regressors. specLaw resolves rows without a
// measured η through cat (the estimate's modelled η, so the estimate-time
// rules apply to them); specPaper needs only the shape, tokens, batch,
// sequence length, strategy, energy and the measured η of multi-GPU rows.
func lawRows(in Inputs, cat *model.Catalog, sp spec) ([]lawRow, []string, error) {
	var out []lawRow
	var notes []string
	skipped, measured, modelled := 0, 0, 0
	for i, m := range in.Rows {
		g, err := cat.Hardware.Lookup(m.GPU)
		gpu := m.GPU
		switch {
		case err == nil:
			gpu = g.ID
			if m.PowerLimitW > 0 && m.PowerLimitW < g.BoardPowerW {
				skipped++
				continue
			}
		case sp == specLaw:
			// The law's hardware dummies need a known accelerator.
			return nil, nil, fmt.Errorf("row %d: %w", i+1, err)
		}
		eta := 1.0
		fromColumn := true
		switch {
		case m.Count == 1:
		case m.Eta > 0:
			eta = m.Eta
		case sp == specPaper:
			return nil, nil, fmt.Errorf("row %d: %d GPUs and no eta: the paper's specification needs the measured parallel efficiency T₁/(N·T_N) of every multi-GPU run (column eta)", i+1, m.Count)
		default:
			resp, err := cat.Estimate(m.Request())
			if err != nil {
				return nil, nil, fmt.Errorf("row %d: %w", i+1, err)
			}
			eta, fromColumn = resp.Parallel.Efficiency, false
		}
		if m.Count > 1 {
			if fromColumn {
				measured++
			} else {
				modelled++
			}
		}
		a := m.Arch
		c := model.ComputeProxy(float64(a.Layers), float64(a.Hidden), m.Tokens)
		mm := model.MemoryProxy(float64(m.BatchPerGPU), float64(m.SeqLen), float64(a.Hidden), float64(a.Layers))
		st := m.Strategy
		if m.Count == 1 {
			st = model.Single
		}
		out = append(out, lawRow{lnC: math.Log(c), lnM: math.Log(mm), lnEta: math.Log(eta), lnE: math.Log(m.EnergyKWh), strategy: st, gpu: gpu, group: m.WorkloadGroup(), measuredEta: fromColumn})
	}
	if skipped > 0 {
		notes = append(notes, fmt.Sprintf("%d rows with a power limit below board power left out (the law has no power-limit term)", skipped))
	}
	switch {
	case measured+modelled == 0:
	case modelled == 0:
		notes = append(notes, fmt.Sprintf("η: measured (column eta, T₁/(N·T_N)) for all %d multi-GPU rows; 1 on one GPU", measured))
	case measured == 0:
		notes = append(notes, fmt.Sprintf("η: modelled from the fitted speedup curves for all %d multi-GPU rows (no eta column); 1 on one GPU", modelled))
	default:
		notes = append(notes, fmt.Sprintf("η: measured (column eta) for %d multi-GPU rows, modelled from the fitted speedup curves for %d without it; 1 on one GPU", measured, modelled))
	}
	return out, notes, nil
}

// design builds the law's design matrix: intercept, ln C, ln M, ln η (when
// withEta), strategy dummies against single GPU, and (when hardware)
// hardware dummies against the most frequent GPU. Columns that do not vary
// are dropped and named.
func design(rows []lawRow, withEta, hardware bool) (X [][]float64, names, dropped []string, refGPU string) {
	count := map[string]int{}
	strats := map[string]bool{}
	for _, r := range rows {
		count[r.gpu]++
		if r.strategy != model.Single {
			strats[r.strategy] = true
		}
	}
	gpus := make([]string, 0, len(count))
	for g := range count {
		gpus = append(gpus, g)
	}
	sort.Strings(gpus)
	for _, g := range gpus {
		if refGPU == "" || count[g] > count[refGPU] {
			refGPU = g
		}
	}
	var ss []string
	for s := range strats {
		ss = append(ss, s)
	}
	sort.Strings(ss)
	type col struct {
		name string
		f    func(lawRow) float64
	}
	cols := []col{{"ln_kappa", func(lawRow) float64 { return 1 }}, {"alpha_c", func(r lawRow) float64 { return r.lnC }}, {"alpha_m", func(r lawRow) float64 { return r.lnM }}}
	if withEta {
		cols = append(cols, col{"alpha_eta", func(r lawRow) float64 { return r.lnEta }})
	}
	for _, s := range ss {
		s := s
		cols = append(cols, col{"psi:" + s, func(r lawRow) float64 { return b2f(r.strategy == s) }})
	}
	if hardware {
		for _, g := range gpus {
			if g == refGPU {
				continue
			}
			g := g
			cols = append(cols, col{"gpu:" + g, func(r lawRow) float64 { return b2f(r.gpu == g) }})
		}
	} else {
		refGPU = ""
	}
	var keep []col
	for i, c := range cols {
		if i == 0 {
			keep = append(keep, c)
			continue
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, r := range rows {
			v := c.f(r)
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		if hi-lo < 1e-12 {
			dropped = append(dropped, c.name)
			continue
		}
		keep = append(keep, c)
	}
	for _, r := range rows {
		x := make([]float64, len(keep))
		for j, c := range keep {
			x[j] = c.f(r)
		}
		X = append(X, x)
	}
	for _, c := range keep {
		names = append(names, c.name)
	}
	return
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// logLinear fits the law of specification sp by OLS (cluster-robust SEs by
// workload group), the same law without η, and grouped cross-validation of
// both, and returns the loglinear calibration it implies. η is the
// measured one (column eta) where a row gives it, else (specLaw) the one
// the speedup curves model.
func logLinear(in Inputs, name, version string, sp spec) (model.Calibration, *LawFit, error) {
	cat, err := unitCatalog(&in)
	if err != nil {
		return model.Calibration{}, nil, err
	}
	rows, notes, err := lawRows(in, cat, sp)
	if err != nil {
		return model.Calibration{}, nil, err
	}
	if err := checkResponse(rows); err != nil {
		return model.Calibration{}, nil, err
	}
	hardware := sp == specLaw
	X, cols, dropped, refGPU := design(rows, true, hardware)
	if len(cols) == 1 {
		return model.Calibration{}, nil, fmt.Errorf("fit: degenerate data: none of ln C, ln M, ln η, the strategy or the hardware varies across the %d rows, so the law has nothing to fit (vary the model shape, tokens, batch or sequence length)", len(rows))
	}
	y := make([]float64, len(rows))
	groups := make([]string, len(rows))
	gpus := make([]string, len(rows))
	var lnT float64
	for i, r := range rows {
		y[i], groups[i], gpus[i] = r.lnE, r.group, r.gpu
	}
	for _, m := range in.Rows {
		lnT += math.Log(m.Tokens)
	}
	lf := &LawFit{Columns: cols, Dropped: dropped, X: X, Y: y, Groups: groups, GPUs: gpus, RefTokens: math.Exp(lnT / float64(len(in.Rows)))}
	if lf.Full, err = stats.OLS(X, y, cols, groups); err != nil {
		return model.Calibration{}, nil, err
	}
	cvOf := func(X [][]float64, cols []string) (stats.CVResult, error) {
		return stats.GroupCV(groups, in.level(), func(train, test []int) ([]float64, float64, error) {
			r, keep, err := splitOLS(X, y, cols, train)
			if err != nil {
				return nil, 0, err
			}
			var p []float64
			for _, j := range test {
				m, _ := r.Predict(subCols([][]float64{X[j]}, keep)[0])
				p = append(p, m)
			}
			return p, r.Sigma, nil
		}, y)
	}
	if lf.CV, err = cvOf(X, cols); err != nil {
		return model.Calibration{}, nil, err
	}
	hasEta := false
	for _, c := range cols {
		hasEta = hasEta || c == "alpha_eta"
	}
	if hasEta {
		X0, cols0, _, _ := design(rows, false, hardware)
		if lf.WithoutEta, err = stats.OLS(X0, y, cols0, groups); err != nil {
			return model.Calibration{}, nil, err
		}
		cv0, err := cvOf(X0, cols0)
		if err != nil {
			return model.Calibration{}, nil, err
		}
		lf.CVNoEta = &cv0
	} else {
		notes = append(notes, "η does not vary in these data (all single GPU): α_η is not identifiable and is fixed at 0; multi-GPU estimates from this calibration carry no efficiency penalty")
	}
	for _, d := range dropped {
		notes = append(notes, fmt.Sprintf("column %s dropped: it does not vary in the data", d))
	}

	coef := func(n string) model.Coefficient {
		for j, c := range cols {
			if c == n {
				return coefOf(lf.Full, j)
			}
		}
		return model.Coefficient{}
	}
	law := &model.LawParams{LnKappa: coef("ln_kappa"), AlphaC: coef("alpha_c"), AlphaM: coef("alpha_m"), AlphaEta: coef("alpha_eta"),
		LnPsi: map[string]model.Coefficient{}, RefTokens: lf.RefTokens,
		RefNote: "geometric mean of the fitted runs' tokens"}
	if hardware {
		law.LnHardware = map[string]model.Coefficient{}
	}
	for j, c := range cols {
		switch {
		case strings.HasPrefix(c, "psi:"):
			law.LnPsi[c[4:]] = coefOf(lf.Full, j)
		case strings.HasPrefix(c, "gpu:"):
			law.LnHardware[c[4:]] = coefOf(lf.Full, j)
		}
	}
	summary := summaryOf(lf.Full, lf.CV, len(distinctStrings(groups)))
	if hardware {
		notes = append(notes, "reference hardware (dummy 0): "+refGPU)
	}
	summary.Notes = append(notes, "standard errors: cluster-robust by workload group where there are at least 2 groups")
	if lf.WithoutEta != nil {
		summary.WithoutEta = summaryOf(lf.WithoutEta, *lf.CVNoEta, summary.Groups)
	}
	title := "The paper's law refitted on " + in.DataName
	desc := "ln E = ln κ + α_C ln C + α_M ln M + α_η ln η + strategy and hardware dummies, by OLS on the measured runs (η measured where the data give it, else modelled from the speedup curves); applied per token at the reference token count."
	method := "OLS on logs, cluster-robust SEs by workload group; "
	generated := "make fit in the source repository (go run ./site fit on the Zeus trace)"
	if sp == specPaper {
		title = "The paper's specification fitted on " + in.DataName
		desc = "ln E = ln κ + α_C ln C + α_M ln M + α_η ln η + strategy dummies (single GPU the reference, no hardware terms), by OLS on the measured runs with η the measured T₁/(N·T_N); the roofline paper's specification exactly; applied per token at the reference token count."
		method = "the paper's specification: OLS on logs, cluster-robust (CR1) SEs by the group column; "
		generated = "go run ./site fit -kind paper -data " + in.DataName
		if c, err := centredIntercept(X, y, cols, groups); err == nil {
			summary.Coefficients = append([]model.NamedCoef{c}, summary.Coefficients...)
		}
	}
	rr := make([]rooflineRow, 0, len(in.Rows))
	for _, m := range in.Rows {
		rr = append(rr, rooflineRow{m: m})
	}
	cal := model.Calibration{
		Name: name, Version: version, Kind: model.KindLogLinear,
		Title:       title,
		Description: desc,
		Citation:    "law: Zoubeirou a Mayaki 2026 (arXiv 2606.23546); data: " + in.DataName,
		Provenance:  model.Provenance{Data: in.DataName, Method: method + lf.CV.Method, Generated: generated},
		Law:         law,
		Interval:    model.Interval{SigmaLn: math.Max(lf.CV.RMSELn, 0.1), Level: in.level(), Method: "cross-validated RMSE of ln energy (" + lf.CV.Method + ")"},
		Envelope:    envelopeOf(in, rr, false),
		Fit:         summary,
	}
	sanitize(cal.Fit)
	return cal, lf, cal.Validate()
}

// checkResponse refuses a constant response: with every ln E equal there
// is no variation to explain, R² is undefined and every standard error 0.
func checkResponse(rows []lawRow) error {
	if len(rows) == 0 {
		return fmt.Errorf("fit: no rows left to fit")
	}
	for _, r := range rows[1:] {
		if r.lnE != rows[0].lnE {
			return nil
		}
	}
	return fmt.Errorf("fit: degenerate data: all %d rows have the same energy (%.6g kWh), so there is no variation for the law to explain (R² undefined, standard errors 0); give runs whose energy differs", len(rows), math.Exp(rows[0].lnE))
}

// centredIntercept is the intercept of the same fit with ln C, ln M and
// ln η centred on their sample means (the strategy dummies are not), as the
// paper tabulates it: the single-GPU prediction at the sample means, with
// its standard error.
func centredIntercept(X [][]float64, y []float64, cols []string, groups []string) (model.NamedCoef, error) {
	p := len(cols)
	mean := make([]float64, p)
	for _, x := range X {
		for j := 1; j < p; j++ {
			if strings.HasPrefix(cols[j], "alpha_") {
				mean[j] += x[j] / float64(len(X))
			}
		}
	}
	Xc := make([][]float64, len(X))
	for i, x := range X {
		Xc[i] = make([]float64, p)
		Xc[i][0] = 1
		for j := 1; j < p; j++ {
			Xc[i][j] = x[j] - mean[j]
		}
	}
	r, err := stats.OLS(Xc, y, cols, groups)
	if err != nil {
		return model.NamedCoef{}, err
	}
	return model.NamedCoef{Name: "intercept (centred)", Coefficient: coefOf(r, 0), T: r.T[0], P: r.P[0]}, nil
}

func coefOf(r *stats.OLSResult, j int) model.Coefficient {
	c := model.Coefficient{Value: r.Coef[j], SE: r.SE[j], CILow: r.CILow[j], CIHigh: r.CIHigh[j]}
	if r.SECluster != nil && !math.IsNaN(r.SECluster[j]) {
		c.SE = r.SECluster[j]
		c.CILow, c.CIHigh = c.Value-1.96*c.SE, c.Value+1.96*c.SE
	}
	return c
}

func summaryOf(r *stats.OLSResult, cv stats.CVResult, groups int) *model.FitSummary {
	s := &model.FitSummary{N: r.N, Groups: groups, R2: r.R2, AdjR2: r.AdjR2, RMSELn: r.RMSE, ResidualSDLn: r.Sigma,
		CVR2: cv.R2, CVRMSELn: cv.RMSELn, CVPooledRMSELn: cv.PooledRMSELn, CVCoverage: cv.Coverage, CVMedianFold: cv.MedianFold, CVMethod: cv.Method}
	for j, n := range r.Names {
		c := coefOf(r, j)
		s.Coefficients = append(s.Coefficients, model.NamedCoef{Name: n, Coefficient: c, T: r.T[j], P: r.P[j]})
	}
	return s
}

func pick(X [][]float64, y []float64, idx []int) ([][]float64, []float64) {
	Xs := make([][]float64, len(idx))
	ys := make([]float64, len(idx))
	for i, j := range idx {
		Xs[i], ys[i] = X[j], y[j]
	}
	return Xs, ys
}

func distinctStrings(xs []string) []string {
	m := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !m[x] {
			m[x] = true
			out = append(out, x)
		}
	}
	return out
}

// splitOLS fits the law's OLS on the train rows of one cross-validation
// split and returns the columns it kept. A split may leave a dummy (a GPU
// or strategy) absent from the training side: that column is dropped, and
// held-out rows then get the reference level, as a new GPU would. If the
// remaining design is still singular on this split (a dummy confounded
// with a regressor), dummies are dropped from the end until it is not.
// Predict a row j with r.Predict(subCols([][]float64{X[j]}, keep)[0]).
func splitOLS(X [][]float64, y []float64, cols []string, train []int) (*stats.OLSResult, []int, error) {
	Xt, yt := pick(X, y, train)
	keep := varyingColumns(Xt)
	r, err := stats.OLS(subCols(Xt, keep), yt, subNames(cols, keep), nil)
	for err != nil && len(keep) > 1 && strings.Contains(cols[keep[len(keep)-1]], ":") {
		keep = keep[:len(keep)-1]
		r, err = stats.OLS(subCols(Xt, keep), yt, subNames(cols, keep), nil)
	}
	return r, keep, err
}

// varyingColumns returns the indices of column 0 (the intercept) and of the
// columns that are not constant.
func varyingColumns(X [][]float64) []int {
	keep := []int{0}
	for j := 1; j < len(X[0]); j++ {
		for i := 1; i < len(X); i++ {
			if X[i][j] != X[0][j] {
				keep = append(keep, j)
				break
			}
		}
	}
	return keep
}

func subCols(X [][]float64, keep []int) [][]float64 {
	out := make([][]float64, len(X))
	for i, row := range X {
		r := make([]float64, len(keep))
		for k, j := range keep {
			r[k] = row[j]
		}
		out[i] = r
	}
	return out
}

func subNames(names []string, keep []int) []string {
	out := make([]string, len(keep))
	for k, j := range keep {
		out[k] = names[j]
	}
	return out
}
