package gen

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/fit"
	"github.com/wattscale/wattscale/model/validate"
)

// Report is the coefficient report: every calibration with its
// coefficients, fit statistics, envelope, provenance and (for the
// project's fits, when the data are available) predicted-against-measured
// charts; the law's coefficients side by side across calibrations; the
// fitted speedup curves over the published points.
type Report struct {
	Cals    []CalReport
	Compare CompareTable
	Speedup []template.HTML // one chart per interconnect class
	Energy  template.HTML   // energy per token against η, with the fitted α_η
	Points  []ScalingRow    // the published scaling points
	// ScalingNote says what the points' model columns are.
	ScalingNote string
	Laws        []SpeedupRow // the speedup curves' parameters
	Zeus        ZeusStatus
	Power       PowerReport // the power-limit response (power.go)
}

// ZeusStatus says whether the Zeus trace was read for the charts.
type ZeusStatus struct {
	Available bool
	Path      string // where it was looked for
	Rows      int    // runs in the file
	Note      string // why the charts are missing, when they are
}

// CalReport is one calibration's section.
type CalReport struct {
	Name, Title, Kind, Version, Description, Citation string
	Published                                         bool // transcribed from a paper, not fitted by the project
	Provenance                                        model.Provenance
	Coefs                                             []CoefRow
	Stats                                             []StatRow
	HasWithout                                        bool // the fit was also run without the efficiency term
	CVMethod                                          string
	Interval                                          string
	Plain                                             string // the held-out statistics in one plain sentence for users
	Envelope                                          []KV
	Notes                                             []string
	Charts                                            []template.HTML
	ChartNote                                         string // why there are no charts
	Refit                                             string // how the shipped file compares with a refit of the data
}

// CoefRow is a coefficient with its uncertainty, formatted.
type CoefRow struct {
	Term    template.HTML // display name, with sub- and superscripts
	Meaning string
	Value   string
	SE      string // "—" when fixed or not published
	CI      string // 95 % interval
}

// StatRow is one fit statistic, with and without the efficiency term.
type StatRow struct {
	Label, With, Without string
}

// KV is a labelled value.
type KV struct {
	Key, Value string
}

// CompareTable sets the law's coefficients of several calibrations side by side.
type CompareTable struct {
	Heads []CompareHead
	Rows  []CompareRow
}

// CompareHead is one column: a calibration.
type CompareHead struct {
	Name, Label string
	Published   bool
}

// CompareRow is one law term across the calibrations.
type CompareRow struct {
	Term  template.HTML
	Cells []string
}

// ScalingRow is one published scaling point, formatted.
type ScalingRow struct {
	GPU, Interconnect, Strategy, N, Speedup, CI, Eta, EnergyRatio, Source string
	// The default calibration's estimate of the point's workload
	// (fit.CheckScaling): its speedup and its energy per token against one
	// GPU, the GPUs alone and with the host over the wall time.
	ModelSpeedup, ModelGPU, ModelNode string
}

// SpeedupRow is one fitted speedup curve, formatted.
type SpeedupRow struct {
	Interconnect, Strategy, Form, Params, Source string
}

// reportInputs is what the report is computed from.
type reportInputs struct {
	cals    []model.Calibration
	cat     *model.Catalog // the calibrations as the calculator has them, for the scaling points' estimates
	scaling []fit.ScalingPoint
	ci      map[string][2]float64 // published speedup intervals by "interconnect/strategy/n"
	zeus    []model.Measurement   // nil when the trace is not available
	zeusSt  ZeusStatus
	runs    []byte // validation/runs.csv, for the roofline refit's table stage
}

// computeReport builds the report. The project's fits are re-run on the
// Zeus trace (when available) for their per-row predictions; the shipped
// calibration files are what the tables show, and the report says whether
// a refit reproduces them.
func computeReport(in reportInputs) (Report, error) {
	r := Report{Zeus: in.zeusSt}
	var roof *model.Calibration
	for i := range in.cals {
		if in.cals[i].Kind == model.KindRoofline && (roof == nil || in.cals[i].Name == content.DefaultCalibration) {
			roof = &in.cals[i]
		}
	}
	var lawPred, roofPred []fit.Prediction
	var refitLaw, refitRoof model.Calibration
	if in.zeus != nil {
		// One run of the calibration pipeline gives the refitted
		// calibrations (compared with the shipped files, table stage
		// included, as make fit builds them) and the per-row predictions
		// for the charts.
		res, err := fit.Calibrate(fit.Job{Rows: in.zeus, ZeusRows: true, Kinds: []string{fit.KindLaw, fit.KindRoofline}, ScalingPoints: in.scaling,
			Runs: in.runs, Hardware: model.NewHardware(model.DefaultGPUs()), Presets: model.DefaultPresets(), Version: "refit", Predictions: true})
		if err != nil {
			return r, fmt.Errorf("report: refitting the Zeus trace: %w", err)
		}
		refitLaw, refitRoof = res.Calibrations[0], res.Calibrations[1]
		lawPred, roofPred = res.Predictions[0], res.Predictions[1]
	}
	for _, c := range in.cals {
		cr := calReport(c)
		switch {
		case cr.Published:
			cr.ChartNote = "The study's dataset is review-only and is not used here, so there are no per-run charts for its published coefficients; its own validation figures are quoted in the statistics."
		case in.zeus == nil:
			cr.ChartNote = "The predicted-against-measured and residual charts need the Zeus trace (" + in.zeusSt.Path + "), which this build did not find: " + in.zeusSt.Note + ". Set DATA_DIR to the folder that holds zeus-bert-power.csv and rebuild."
		case c.Kind == model.KindLogLinear:
			cr.Charts = predictionCharts(c, lawPred)
			cr.Refit = refitNote(c, refitLaw)
		case c.Kind == model.KindRoofline:
			cr.Charts = predictionCharts(c, roofPred)
			cr.Refit = refitNote(c, refitRoof)
		}
		r.Cals = append(r.Cals, cr)
	}
	r.Compare = compareLaws(in.cals)
	var err error
	if r.Power, err = powerReport(in.zeus, in.zeusSt); err != nil {
		return r, err
	}
	if roof != nil {
		r.Speedup = speedupCharts(*roof, in.scaling, in.ci)
		r.Energy = energyChart(*roof, in.cals, in.scaling)
		r.Laws = speedupRows(*roof)
	}
	for _, p := range in.scaling {
		row := ScalingRow{GPU: p.GPU, Interconnect: string(p.Interconnect), Strategy: strings.ToUpper(p.Strategy), N: fixed(p.N, 0),
			Speedup: fixed(p.Speedup, 3), CI: dash, Eta: fixed(math.Min(1, p.Speedup/p.N), 3), EnergyRatio: dash, Source: p.Source}
		if ci, ok := in.ci[scalingKey(p)]; ok {
			row.CI = fixed(ci[0], 3) + " – " + fixed(ci[1], 3)
		}
		if p.EnergyRatio > 0 {
			row.EnergyRatio = fixed(p.EnergyRatio, 2)
		}
		c, err := fit.CheckScaling(in.cat, p)
		if err != nil {
			return r, fmt.Errorf("report: %w", err)
		}
		row.ModelSpeedup, row.ModelGPU, row.ModelNode = fixed(c.Speedup, 3), fixed(c.GPURatio, 2), fixed(c.NodeRatio, 2)
		r.Points = append(r.Points, row)
	}
	r.ScalingNote = "The three model columns are the default calibration's estimate of each point's workload on one GPU and on N: BERT-base on SST-2 at batch 32 × 66 tokens in fp16 for the RTX 2080 Ti points; " + fit.ScalingWorkloadNote +
		". Energy per token is given for the GPUs alone and with the host drawing " + fixed(validate.HostFactor-1, 1) + " of their busy power over the whole wall time, as the validation counts a server. The study's meter (CodeCarbon) counted the GPUs with its process's CPU and memory, so its figure lies between the two. On A100 the waiting GPUs are charged " + fixed(model.WaitPowerShare, 2) +
		" of their busy power, and FSDP's sharded optimizer update (each rank updates 1/N of the weights, ZeRO) takes its traffic off each GPU: together they bring both scopes within 15 % of the published figure, which a test holds."
	return r, nil
}

func scalingKey(p fit.ScalingPoint) string {
	return fmt.Sprintf("%s/%s/%s/%g", p.GPU, p.Interconnect, p.Strategy, p.N)
}

// scalingIntervals maps each scaling point with a published 95 % interval
// of its speedup to that interval.
func scalingIntervals(points []fit.ScalingPoint) map[string][2]float64 {
	out := map[string][2]float64{}
	for _, p := range points {
		if p.SpeedupCI != ([2]float64{}) {
			out[scalingKey(p)] = p.SpeedupCI
		}
	}
	return out
}

// calReport formats one calibration.
func calReport(c model.Calibration) CalReport {
	cr := CalReport{Name: c.Name, Title: c.Title, Kind: c.Kind, Version: c.Version, Description: c.Description,
		Citation: c.Citation, Provenance: c.Provenance, Published: strings.HasPrefix(c.Provenance.Generated, "hand-transcribed")}
	if c.Fit != nil && len(c.Fit.Coefficients) > 0 {
		for _, k := range c.Fit.Coefficients {
			cr.Coefs = append(cr.Coefs, coefRow(k.Name, k.Coefficient))
		}
	} else if c.Law != nil {
		for _, t := range lawTerms(c.Law) {
			cr.Coefs = append(cr.Coefs, coefRow(t.name, t.c))
		}
	}
	if f := c.Fit; f != nil {
		w := f.WithoutEta
		cr.HasWithout = w != nil
		stat := func(label string, with float64, without func(*model.FitSummary) float64, format func(float64) string) {
			row := StatRow{Label: label, With: dash, Without: dash}
			if with != 0 {
				row.With = format(with)
			}
			if w != nil {
				if v := without(w); v != 0 {
					row.Without = format(v)
				}
			}
			cr.Stats = append(cr.Stats, row)
		}
		d4 := func(x float64) string { return fixed(x, 4) }
		d3 := func(x float64) string { return fixed(x, 3) }
		stat("runs fitted (n)", float64(f.N), func(s *model.FitSummary) float64 { return float64(s.N) }, func(x float64) string { return fixed(x, 0) })
		stat("workload groups", float64(f.Groups), func(s *model.FitSummary) float64 { return float64(s.Groups) }, func(x float64) string { return fixed(x, 0) })
		stat("R² (in sample, ln energy)", f.R2, func(s *model.FitSummary) float64 { return s.R2 }, d4)
		stat("adjusted R²", f.AdjR2, func(s *model.FitSummary) float64 { return s.AdjR2 }, d4)
		stat("RMSE (in sample, ln energy)", f.RMSELn, func(s *model.FitSummary) float64 { return s.RMSELn }, d4)
		if f.ResidualSDLn != 0 {
			stat("residual SD (in sample, ln energy)", f.ResidualSDLn, func(s *model.FitSummary) float64 { return s.ResidualSDLn }, d4)
		}
		stat("held-out R²", f.CVR2, func(s *model.FitSummary) float64 { return s.CVR2 }, d4)
		stat("held-out RMSE (ln energy)", f.CVRMSELn, func(s *model.FitSummary) float64 { return s.CVRMSELn }, d4)
		stat("held-out median fold error (×)", f.CVMedianFold, func(s *model.FitSummary) float64 { return s.CVMedianFold }, d3)
		stat(fmt.Sprintf("held-out coverage of the %s interval", pct(c.Interval.Level)), f.CVCoverage, func(s *model.FitSummary) float64 { return s.CVCoverage }, d3)
		cr.CVMethod = f.CVMethod
		cr.Notes = append(cr.Notes, f.Notes...)
		cr.Plain = plainFit(f.CVR2, f.CVCoverage, c.Interval.Level)
	}
	if c.Law != nil {
		cr.Notes = append([]string{fmt.Sprintf("Token reference: %s tokens (%s). The law is applied per token at this reference, so an estimate's energy is proportional to its tokens.", grouped(c.Law.RefTokens), c.Law.RefNote)}, cr.Notes...)
	}
	if c.Provenance.Notes != "" {
		cr.Notes = append(cr.Notes, c.Provenance.Notes)
	}
	z := model.NormalQuantile(0.5 + c.Interval.Level/2)
	cr.Interval = fmt.Sprintf("Estimates carry a %s interval of ×/÷ %s inside the envelope, from a standard deviation of %s in ln energy. Where that comes from: %s.",
		pct(c.Interval.Level), fixed(math.Exp(z*c.Interval.SigmaLn), 2), fixed(c.Interval.SigmaLn, 3), c.Interval.Method)
	if len(c.Interval.Classes) > 0 {
		var parts []string
		for _, q := range c.Interval.Classes {
			parts = append(parts, fmt.Sprintf("%s (%s): ×%s to ×%s over %d runs from %d sources", q.Class, model.IntervalClassText[q.Class], fixed(math.Exp(q.Low), 2), fixed(math.Exp(q.High), 2), q.Runs, q.Sources))
		}
		cr.Interval = fmt.Sprintf("Estimates carry a %s interval set by the class of the request, as multiples of the estimate: %s. Where that comes from: %s. A class with fewer than %d runs takes the pooled row, except outside the envelope, where it takes the core class's; outside the envelope the interval is never narrower than the core class's, and it widens by %s (in quadrature) per e-fold beyond a range.",
			pct(c.Interval.Level), strings.Join(parts, "; "), c.Interval.ClassMethod, model.MinClassRuns, fixed(c.Envelope.WidenPerEFold, 2))
	}
	e := c.Envelope
	rng := func(r [2]float64, f func(float64) string) string {
		if r[0] == 0 && r[1] == 0 {
			return dash
		}
		if r[0] == r[1] {
			return f(r[0])
		}
		return f(r[0]) + " – " + f(r[1])
	}
	whole := func(x float64) string { return grouped(x) }
	cr.Envelope = []KV{
		{"layers", rng(e.Layers, whole)}, {"hidden size", rng(e.Hidden, whole)}, {"sequence length", rng(e.SeqLen, whole)},
		{"batch per GPU", rng(e.Batch, whole)}, {"GPUs", rng(e.GPUs, whole)}, {"parameters", rng(e.Params, fmtCount)},
		{"hardware", strings.Join(e.Hardware, ", ")},
		{"widening outside", fmt.Sprintf("+%s (in quadrature) to the ln SD per e-fold outside a range; +%s for other hardware", fixed(e.WidenPerEFold, 2), fixed(e.WidenHardware, 2))},
	}
	return cr
}

type lawTerm struct {
	name string
	c    model.Coefficient
}

// lawTerms lists a law's coefficients in display order.
func lawTerms(l *model.LawParams) []lawTerm {
	out := []lawTerm{{"ln_kappa", l.LnKappa}, {"alpha_c", l.AlphaC}, {"alpha_m", l.AlphaM}, {"alpha_eta", l.AlphaEta}}
	for _, k := range sortedKeys(l.LnPsi) {
		out = append(out, lawTerm{"psi:" + k, l.LnPsi[k]})
	}
	for _, k := range sortedKeys(l.LnHardware) {
		out = append(out, lawTerm{"gpu:" + k, l.LnHardware[k]})
	}
	return out
}

// termName gives the display name and meaning of a coefficient name.
func termName(name string) (template.HTML, string) {
	switch name {
	case "ln_kappa":
		return "ln κ", "scale of the law (E in kWh)"
	case "intercept (centred)":
		return "intercept (centred)", "ln E at the sample means of ln C, ln M and ln η"
	case "alpha_c":
		return "α<sub>C</sub>", "elasticity of energy to the compute proxy C"
	case "alpha_m":
		return "α<sub>M</sub>", "elasticity of energy to the memory proxy M"
	case "alpha_eta":
		return "α<sub>η</sub>", "elasticity of energy to parallel efficiency η"
	case "fsdp", "tp", "ddp":
		return template.HTML("ln Ψ<sub>" + strings.ToUpper(name) + "</sub>"), "strategy offset against one GPU"
	case "u_compute":
		return "u<sub>compute</sub>", "achieved fraction of peak FLOP/s"
	case "u_memory":
		return "u<sub>memory</sub>", "achieved fraction of peak memory bandwidth"
	case "activity":
		return "a", "busy power between idle (0) and board power (1)"
	case "overhead_s":
		return "t<sub>0</sub>", "start-up seconds per run at idle power (a stated prior, not fitted)"
	case "step_s":
		return "t<sub>step</sub>", "latency per optimizer step, seconds"
	case "alpha_eta (pcie)":
		return "α<sub>η</sub> (PCIe)", "energy elasticity to η on PCIe links"
	case "alpha_eta (nvlink)":
		return "α<sub>η</sub> (NVLink)", "energy elasticity to η on NVLink-class links where the speedup curves give η; where the communication model does, estimates charge the waiting power instead"
	}
	if s, ok := strings.CutPrefix(name, "psi:"); ok {
		return template.HTML("ln Ψ<sub>" + html.EscapeString(strings.ToUpper(s)) + "</sub>"), "strategy offset against one GPU"
	}
	if g, ok := strings.CutPrefix(name, "gpu:"); ok {
		return template.HTML("ln H<sub>" + html.EscapeString(g) + "</sub>"), "hardware offset against the reference GPU"
	}
	return template.HTML(html.EscapeString(name)), ""
}

func coefRow(name string, c model.Coefficient) CoefRow {
	term, meaning := termName(name)
	row := CoefRow{Term: term, Meaning: meaning, Value: sig(c.Value, 4), SE: dash, CI: dash}
	if c.SE != 0 {
		row.SE = sig(c.SE, 3)
	}
	if c.CILow != 0 || c.CIHigh != 0 {
		row.CI = sig(c.CILow, 3) + " … " + sig(c.CIHigh, 3)
	}
	return row
}

// compareLaws sets the loglinear calibrations' terms side by side, the
// published ones first.
func compareLaws(cals []model.Calibration) CompareTable {
	var t CompareTable
	var laws []model.Calibration
	for _, c := range cals {
		if c.Law != nil {
			laws = append(laws, c)
		}
	}
	sort.SliceStable(laws, func(i, j int) bool {
		pi, pj := strings.HasPrefix(laws[i].Provenance.Generated, "hand"), strings.HasPrefix(laws[j].Provenance.Generated, "hand")
		return pi && !pj
	})
	seen := map[string]bool{}
	var names []string
	for _, c := range laws {
		pub := strings.HasPrefix(c.Provenance.Generated, "hand")
		label := "wattscale fit"
		if pub {
			label = "published"
		}
		t.Heads = append(t.Heads, CompareHead{Name: c.Name, Label: label, Published: pub})
		for _, term := range lawTerms(c.Law) {
			if !seen[term.name] {
				seen[term.name] = true
				names = append(names, term.name)
			}
		}
	}
	for _, n := range names {
		term, _ := termName(n)
		row := CompareRow{Term: term}
		for _, c := range laws {
			cell := dash
			for _, lt := range lawTerms(c.Law) {
				if lt.name == n {
					cell = sig(lt.c.Value, 4)
					if lt.c.SE != 0 {
						cell += " ± " + sig(lt.c.SE, 2)
					}
				}
			}
			if n == "alpha_eta" && c.Law.AlphaEta.Value == 0 && c.Law.AlphaEta.SE == 0 {
				cell = "not identifiable"
			}
			row.Cells = append(row.Cells, cell)
		}
		t.Rows = append(t.Rows, row)
	}
	extra := []struct {
		label string
		f     func(model.Calibration) string
	}{
		{"reference tokens", func(c model.Calibration) string { return fmtCount(c.Law.RefTokens) }},
		{"runs", func(c model.Calibration) string {
			if c.Fit == nil {
				return dash
			}
			return strconv.Itoa(c.Fit.N)
		}},
		{"held-out RMSE (ln)", func(c model.Calibration) string {
			if c.Fit == nil || c.Fit.CVRMSELn == 0 {
				return dash
			}
			return fixed(c.Fit.CVRMSELn, 3)
		}},
		{"hardware", func(c model.Calibration) string { return strings.Join(c.Envelope.Hardware, ", ") }},
	}
	for _, e := range extra {
		row := CompareRow{Term: template.HTML(html.EscapeString(e.label))}
		for _, c := range laws {
			row.Cells = append(row.Cells, e.f(c))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// refitNote compares a shipped calibration with a refit of the data.
func refitNote(shipped, refit model.Calibration) string {
	a, b := shipped.Fit, refit.Fit
	if a == nil || b == nil || len(a.Coefficients) != len(b.Coefficients) {
		return "The shipped calibration's coefficient list differs from a refit of the data in DATA_DIR: run make fit."
	}
	worst := 0.0
	for i := range a.Coefficients {
		x, y := a.Coefficients[i].Value, b.Coefficients[i].Value
		worst = math.Max(worst, math.Abs(x-y)/math.Max(1e-12, math.Max(math.Abs(x), math.Abs(y))))
	}
	if worst > 1e-9 {
		return fmt.Sprintf("The shipped coefficients differ from a refit of the data in DATA_DIR (largest relative difference %s): run make fit.", sig(worst, 2))
	}
	return "A refit of the Zeus trace during this build reproduces the shipped coefficients (largest relative difference " + sig(worst, 2) + ")."
}

// gpuStyle gives each accelerator of the Zeus trace a colour and marker.
var gpuStyle = map[string][2]string{"a40": {"s0", "circle"}, "v100-pcie-16gb": {"s1", "square"}, "p100-pcie-16gb": {"s2", "triangle"}}

// styleOf is a GPU's chart class and marker, a diamond for any other GPU.
func styleOf(gpu string) [2]string {
	if st, ok := gpuStyle[gpu]; ok {
		return st
	}
	return [2]string{"s3", "diamond"}
}

// predictionCharts draws held-out predictions against measurements (log
// axes, with the calibration's interval around the diagonal) and the
// held-out residuals.
func predictionCharts(c model.Calibration, ps []fit.Prediction) []template.HTML {
	byGPU := map[string][]fit.Prediction{}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range ps {
		if math.IsNaN(p.HeldOutKWh) {
			continue // no cross-validation split held this run out
		}
		byGPU[p.GPU] = append(byGPU[p.GPU], p)
		for _, v := range []float64{p.MeasuredKWh, p.HeldOutKWh} {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	z := model.NormalQuantile(0.5 + c.Interval.Level/2)
	band := math.Exp(z * c.Interval.SigmaLn)
	lo, hi = niceLogFloor(lo/band), niceLogCeil(hi*band)
	pv := Chart{ID: c.Name + "-pred", Title: "Held-out prediction against measurement, " + c.Name,
		Desc: fmt.Sprintf("Each marker is one Zeus BERT-base run (%d in all), predicted by the fits that held its workload group out (averaged over the cross-validation splits). The solid line is perfect agreement; the dashed lines are the calibration's %s interval.", len(ps), pct(c.Interval.Level)),
		X:    Axis{Label: "measured energy (kWh)", Log: true, Min: lo, Max: hi},
		Y:    Axis{Label: "predicted energy (kWh)", Log: true, Min: lo, Max: hi},
	}
	pv.Series = append(pv.Series,
		Series{Name: "perfect agreement", Class: "ref", Line: true, Points: []Point{{X: lo, Y: lo}, {X: hi, Y: hi}}},
		Series{Name: pct(c.Interval.Level) + " interval", Class: "ref", Line: true, Dash: true, Points: []Point{{X: lo, Y: lo * band}, {X: hi, Y: hi * band}}},
		Series{Class: "ref", Line: true, Dash: true, Points: []Point{{X: lo, Y: lo / band}, {X: hi, Y: hi / band}}},
	)
	res := Chart{ID: c.Name + "-resid", Title: "Held-out residuals, " + c.Name,
		Desc: "ln(predicted / measured) for each run against its measured energy; zero is perfect, the dashed lines are the interval.",
		X:    Axis{Label: "measured energy (kWh)", Log: true, Min: lo, Max: hi},
		Y:    Axis{Label: "ln(predicted / measured)", Min: -1.5, Max: 1.5},
	}
	zl := z * c.Interval.SigmaLn
	res.Series = append(res.Series,
		Series{Class: "ref", Line: true, Points: []Point{{X: lo, Y: 0}, {X: hi, Y: 0}}},
		Series{Class: "ref", Line: true, Dash: true, Points: []Point{{X: lo, Y: zl}, {X: hi, Y: zl}}},
		Series{Class: "ref", Line: true, Dash: true, Points: []Point{{X: lo, Y: -zl}, {X: hi, Y: -zl}}},
	)
	for _, g := range sortedKeys(byGPU) {
		st := styleOf(g)
		var a, b []Point
		for _, p := range byGPU[g] {
			label := fmt.Sprintf("%s: measured %s, predicted %s", p.Group, fmtKWh(p.MeasuredKWh), fmtKWh(p.HeldOutKWh))
			a = append(a, Point{X: p.MeasuredKWh, Y: p.HeldOutKWh, Label: label})
			r := math.Max(-1.5, math.Min(1.5, math.Log(p.HeldOutKWh/p.MeasuredKWh)))
			b = append(b, Point{X: p.MeasuredKWh, Y: r, Label: label})
		}
		pv.Series = append(pv.Series, Series{Name: g, Class: st[0], Marker: st[1], Points: a})
		res.Series = append(res.Series, Series{Name: g, Class: st[0], Marker: st[1], Points: b})
	}
	return []template.HTML{pv.SVG(), res.SVG()}
}

// speedupCharts draws each interconnect's fitted speedup curves over the
// published points (with their 95 % intervals) and the ideal S = N.
func speedupCharts(c model.Calibration, pts []fit.ScalingPoint, ci map[string][2]float64) []template.HTML {
	var out []template.HTML
	for _, ic := range []model.Interconnect{model.PCIe, model.NVLink} {
		set, ok := c.Speedup[ic]
		if !ok {
			continue
		}
		gpus := map[string]bool{}
		for _, p := range pts {
			if p.Interconnect == ic {
				gpus[p.GPU] = true
			}
		}
		title := map[model.Interconnect]string{model.PCIe: "PCIe", model.NVLink: "NVLink"}[ic]
		ch := Chart{ID: "speedup-" + string(ic), Title: "Speedup against GPU count, " + title + " (" + strings.Join(sortedKeys(gpus), ", ") + ")",
			Desc: "Lines: the speedup curves of " + c.Name + " for tensor parallelism, FSDP and DDP; markers: the published medians with their 95 % intervals; dashed grey: ideal scaling S = N.",
			X:    Axis{Label: "GPUs (N)", Min: 1, Max: 8},
			Y:    Axis{Label: "speedup S(N) = T₁/Tₙ", Min: 0, Max: 8},
		}
		ch.Series = append(ch.Series, Series{Name: "ideal S = N", Class: "ref", Line: true, Dash: true, Points: []Point{{X: 1, Y: 1}, {X: 8, Y: 8}}})
		for i, l := range []struct {
			name string
			law  model.SpeedupLaw
			st   string
		}{{"TP", set.TP, model.TP}, {"FSDP", set.FSDP, model.FSDP}, {"DDP", set.DDP, model.DDP}} {
			var curve []Point
			for n := 1.0; n <= 8.0001; n += 0.125 {
				curve = append(curve, Point{X: n, Y: l.law.Speedup(n)})
			}
			name := l.name + " curve"
			derived := strings.HasPrefix(l.law.Source, "derived") || strings.HasPrefix(l.law.Source, "assumed")
			if derived {
				name += " (" + strings.SplitN(l.law.Source, ":", 2)[0] + ")"
			}
			cls := "s" + strconv.Itoa(i)
			ch.Series = append(ch.Series, Series{Name: name, Class: cls, Line: true, Dash: derived, Points: curve})
			var marks []Point
			for _, p := range pts {
				if p.Interconnect != ic || p.Strategy != l.st {
					continue
				}
				mp := Point{X: p.N, Y: p.Speedup, Label: fmt.Sprintf("%s %s N=%g: S=%s (published)", p.GPU, l.name, p.N, fixed(p.Speedup, 3))}
				if b, ok := ci[scalingKey(p)]; ok {
					mp.YLow, mp.YHigh = b[0], b[1]
				}
				marks = append(marks, mp)
			}
			if len(marks) > 0 {
				ch.Series = append(ch.Series, Series{Name: l.name + " published", Class: cls, Marker: []string{"circle", "square", "triangle"}[i], Points: marks})
			}
		}
		out = append(out, ch.SVG())
	}
	return out
}

// energyChart draws the published energy-per-token ratios against η with
// the fitted η^α_η lines and, for comparison, the published law's α_η.
func energyChart(roof model.Calibration, cals []model.Calibration, pts []fit.ScalingPoint) template.HTML {
	ch := Chart{ID: "eta-energy", Title: "Energy per token against parallel efficiency",
		Desc: "Markers: published energy per token relative to one GPU against η = S/N; lines: the fitted E_N/E₁ = η^α_η per interconnect, the published pooled law's α_η for comparison, and the waiting power that estimates charge where η comes from the communication model (E_N/E₁ = 1 + 0.49·(1/η − 1); arXiv 2604.04745).",
		X:    Axis{Label: "parallel efficiency η = S/N", Log: true, Min: 0.1, Max: 1},
		Y:    Axis{Label: "energy per token ÷ one GPU", Log: true, Min: 1, Max: 20},
	}
	line := func(alpha float64) []Point {
		var out []Point
		for k := 0; k <= 40; k++ {
			eta := math.Pow(10, -1+float64(k)/40)
			out = append(out, Point{X: eta, Y: math.Pow(eta, alpha)})
		}
		return out
	}
	for i, ic := range []model.Interconnect{model.PCIe, model.NVLink} {
		a, ok := roof.AlphaEta[ic]
		if !ok {
			continue
		}
		cls := "s" + strconv.Itoa(i)
		ch.Series = append(ch.Series, Series{Name: fmt.Sprintf("%s fit, α_η = %s", ic, fixed(a.Value, 2)), Class: cls, Line: true, Points: line(a.Value)})
		var marks []Point
		for _, p := range pts {
			if p.Interconnect == ic && p.EnergyRatio > 0 {
				eta := math.Min(1, p.Speedup/p.N)
				marks = append(marks, Point{X: eta, Y: p.EnergyRatio, Label: fmt.Sprintf("%s %s N=%g: η=%s, energy ×%s", p.GPU, strings.ToUpper(p.Strategy), p.N, fixed(eta, 3), fixed(p.EnergyRatio, 2))})
			}
		}
		ch.Series = append(ch.Series, Series{Name: string(ic) + " published", Class: cls, Marker: []string{"circle", "square"}[i], Points: marks})
	}
	if roof.Comm != nil {
		var pts []Point
		for k := 0; k <= 40; k++ {
			eta := math.Pow(10, -1+float64(k)/40)
			pts = append(pts, Point{X: eta, Y: 1 + model.WaitPowerShare*(1/eta-1)})
		}
		ch.Series = append(ch.Series, Series{Name: fmt.Sprintf("waiting power %s × busy (communication model, used by estimates)", fixed(model.WaitPowerShare, 2)), Class: "s2", Line: true, Dash: true, Points: pts})
	}
	for _, c := range cals {
		if c.Name == "zoubeirou2026-bert-pooled" && c.Law != nil {
			ch.Series = append(ch.Series, Series{Name: fmt.Sprintf("published pooled law, α_η = %s", fixed(c.Law.AlphaEta.Value, 2)), Class: "s3", Line: true, Dash: true, Points: line(c.Law.AlphaEta.Value)})
		}
	}
	return ch.SVG()
}

// speedupRows formats the speedup curves' parameters.
func speedupRows(c model.Calibration) []SpeedupRow {
	var out []SpeedupRow
	for _, ic := range []model.Interconnect{model.PCIe, model.NVLink} {
		set, ok := c.Speedup[ic]
		if !ok {
			continue
		}
		for _, l := range []struct {
			name string
			law  model.SpeedupLaw
		}{{"TP", set.TP}, {"FSDP", set.FSDP}, {"DDP", set.DDP}} {
			row := SpeedupRow{Interconnect: string(ic), Strategy: l.name, Form: l.law.Form, Source: l.law.Source}
			param := func(sym, key string, v float64) string {
				s := sym + " = " + sig(v, 3)
				if se, ok := l.law.SE[key]; ok {
					s += " ± " + sig(se, 2)
				}
				return s
			}
			switch l.law.Form {
			case model.Saturating:
				row.Params = param("S∞", "s_inf", l.law.SInf) + "; " + param("k", "k", l.law.K)
			case model.Amdahl:
				row.Params = param("p", "p", l.law.P) + "; " + param("σ", "sigma", l.law.Sigma) + "; " + param("γ", "gamma", l.law.Gamma)
			}
			out = append(out, row)
		}
	}
	return out
}

func pct(x float64) string {
	return trimZeros(fixed(100*x, 1)) + " %"
}

// plainFit says what a calibration's held-out R² and interval coverage mean
// for someone reading an estimate ("" when neither was measured).
func plainFit(cvR2, coverage, level float64) string {
	var parts []string
	switch {
	case cvR2 == 0:
	case cvR2 < 0:
		parts = append(parts, fmt.Sprintf("on workloads it was not fitted on, this calibration predicted energy less well than the plain average of those runs would have (held-out R² %s, below 0), so read its central figure there as a rough order of magnitude", fixed(cvR2, 2)))
	case cvR2 < 0.5:
		parts = append(parts, fmt.Sprintf("on workloads it was not fitted on, this calibration explained only part of the differences between runs (held-out R² %s)", fixed(cvR2, 2)))
	default:
		parts = append(parts, fmt.Sprintf("on workloads it was not fitted on, this calibration explained most of the differences between runs (held-out R² %s)", fixed(cvR2, 2)))
	}
	switch {
	case coverage == 0:
	case coverage < level-0.05:
		parts = append(parts, fmt.Sprintf("its %s interval held only %s %% of those runs instead of %s, so the real uncertainty is wider than the interval shown and a run outside it would not be unusual", pct(level), fixed(coverage*100, 1), pct(level)))
	default:
		parts = append(parts, fmt.Sprintf("its %s interval held %s %% of those runs, about as many as it promises", pct(level), fixed(coverage*100, 1)))
	}
	if len(parts) == 0 {
		return ""
	}
	s := strings.Join(parts, "; ") + "."
	return strings.ToUpper(s[:1]) + s[1:]
}
