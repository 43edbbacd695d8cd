package gen

import (
	"fmt"
	"html/template"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/fit"
	"github.com/wattscale/wattscale/model/validate"
)

// The validation page's scores come from the functions "site validate"
// calls (validate.Score in-sample, fit.ScoreHoldout with -holdout) on the
// loaded validation table, calibrations and published scaling points, so
// that the page and the command print the same numbers
// (TestValidationPageMatchesCommand).

// ValidationScores is the scoring of the validation table for the page.
type ValidationScores struct {
	Calibration, Version string // the default calibration that predicts the runs
	Level                string // its interval level, "90 %"
	HostFactor, MFU      string // validate.HostFactor and validate.BaselineMFU
	HoldoutLabel         string // the held-out report's label ("leave-one-source-out")
	Rows, Sources        int    // rows of the table, sources (hold-out folds)
	FedRuns, FedSources  int    // runs and sources the table stage was fitted on
	HeadlineRuns         int    // runs in the headline summaries
	Headline             ScoreTable
	PairedRuns           int // headline runs that report a time
	Paired               ScoreTable
	Breakdowns           []Breakdown
	Summary              string        // one sentence of headline figures
	PredChart            template.HTML // predicted against reported, log–log
	ErrorChart           template.HTML // cumulative distribution of the fold errors
	rows                 map[string]*RunResult
}

// ScoreTable is the summaries of the estimators over one set of runs.
type ScoreTable struct {
	ID             string // the table's id: "score-headline", "score-paired"
	Label, Caption string
	Level          string // the interval level, "90 %"
	Rows           []ScoreRow
}

// ScoreRow is one estimator's summary over a set of runs, formatted.
type ScoreRow struct {
	Key                                            template.HTML // the estimator's marker in the charts
	ID                                             string        // held-out, in-sample, 6nd or gpu-hours (the row's data-estimator)
	Name, Given                                    string
	Answered                                       string // "11 of 27"
	Median, P90, W15, W2, W2All, GeoMean, Coverage string
}

// Breakdown is the summaries over the subsets of one grouping of the runs.
type Breakdown struct {
	ID, Title, By string
	Rows          []BreakdownRow
}

// BreakdownRow is one subset: wattscale held-out and in-sample and the two
// baselines, formatted.
type BreakdownRow struct {
	Key, Meaning                                    string
	Runs                                            int
	HeldMedian, HeldW2, HeldCoverage, InMedian      string
	SixMedian, SixW2, GPUAnswered, GPUMedian, GPUW2 string
}

// estimator is one column of the scores: a report's estimator with its
// id, name, what it is given and its style in the charts.
type estimator struct {
	id, name, given string
	series          Series // style only (Class, Marker, Open, Line, Dash)
}

var (
	estHeld = estimator{"held-out", "wattscale, held-out source", "the run's configuration, with a calibration refitted without the run's source",
		Series{Class: "s2", Marker: "circle"}}
	estIn = estimator{"in-sample", "wattscale, in-sample", "the run's configuration, with the shipped calibration (fitted on these runs)",
		Series{Class: "s2", Line: true, Dash: true}}
	estSix = estimator{"6nd", "6·N·D ÷ (peak × 0.4) × board power", "parameters, tokens and the accelerator: 6·N·D FLOPs at 40 % of peak, at board power",
		Series{Class: "s4", Marker: "triangle", Open: true}}
	estGPU = estimator{"gpu-hours", "GPU-hours × board power, fed the reported time", "the run's measured wall time and GPU count, which exist only after the run",
		Series{Class: "s1", Marker: "square", Open: true}}
)

// scoreValidation scores the runs as "site validate" and "site validate
// -holdout" do, with the site's calibrations and scaling points. The two
// scorings are independent; the held-out one (a refit per source, about
// 1.5 s) is the slow one.
func scoreValidation(runs []validate.Run, cals []model.Calibration, scaling []fit.ScalingPoint) (in, held validate.Report, err error) {
	cat, err := content.NewCatalog(cals)
	if err != nil {
		return in, held, fmt.Errorf("validation scores: %w", err)
	}
	base, err := cat.Calibration("")
	if err != nil {
		return in, held, fmt.Errorf("validation scores: %w", err)
	}
	if in, err = validate.Score(runs, validate.Options{Catalog: cat}); err != nil {
		return in, held, fmt.Errorf("validation scores, in-sample: %w", err)
	}
	if held, err = fit.ScoreHoldout(cat, *base, runs, scaling); err != nil {
		return in, held, fmt.Errorf("validation scores, held-out: %w", err)
	}
	return in, held, nil
}

// validationScores formats the two reports for the page and draws the
// charts. base is the default calibration that predicted the runs.
func validationScores(runs []validate.Run, base model.Calibration, in, held validate.Report) *ValidationScores {
	sc := &ValidationScores{Calibration: base.Name, Version: base.Version, Level: pct(held.IntervalLevel),
		HostFactor: fixed(held.HostFactor, 1), MFU: fixed(held.BaselineMFU, 1), HoldoutLabel: held.Label,
		Rows: len(runs), HeadlineRuns: held.Headline.Rows, PairedRuns: held.Paired.Rows, rows: map[string]*RunResult{}}
	sources := map[string]bool{}
	for _, r := range runs {
		sources[r.Source] = true
	}
	sc.Sources = len(sources)
	var fed []string
	if base.Roofline != nil && base.Roofline.Tensor != nil {
		fed = base.Roofline.Tensor.Rows
	}
	fedSources := map[string]bool{}
	for _, r := range runs {
		if slices.Contains(fed, r.ID) {
			sc.FedRuns++
			fedSources[r.Source] = true
		}
	}
	sc.FedSources = len(fedSources)

	sc.Headline = ScoreTable{ID: "score-headline", Label: "Headline scores", Level: sc.Level, Rows: scoreRows(held.Headline, in.Headline),
		Caption: fmt.Sprintf("Headline: %d runs. wattscale held-out and the baselines from the %s scoring, in-sample from the shipped calibration.", held.Headline.Rows, held.Label)}
	h, six, gpu := held.Headline.Summaries[validate.Wattscale], held.Headline.Summaries[validate.SixND], held.Headline.Summaries[validate.GPUHours]
	sc.Summary = fmt.Sprintf("On the %d headline runs, wattscale with each source held out has a median fold error of %s, with %s within ×2 and %s inside its %s interval; the 6·N·D baseline %s and %s. The GPU-hours baseline, given the measured time, answers %d of the %d runs (median %s on those).",
		held.Headline.Rows, foldText(h), shareText(h, h.Within2), coverageText(h), sc.Level, foldText(six), shareText(six, six.Within2), gpu.N, gpu.Runs, foldText(gpu))
	sc.Paired = ScoreTable{ID: "score-paired", Label: "Scores on the runs that report a time", Level: sc.Level, Rows: scoreRows(held.Paired, in.Paired),
		Caption: fmt.Sprintf("The %d headline runs whose source reports a wall time and a GPU count.", held.Paired.Rows)}
	for _, b := range []struct{ by, title string }{
		{"source_kind", "By how the energy was obtained"},
		{"phase", "By phase"},
		{"method", "By fine-tuning method"},
		{"stack", "By software stack"},
		{"scale", "By scale"},
		{"gpu", "By accelerator"},
		{"interval_class", "By interval class"},
	} {
		bd := Breakdown{ID: "by-" + strings.ReplaceAll(b.by, "_", "-"), Title: b.title, By: b.by}
		for _, g := range held.Groups {
			if g.By != b.by {
				continue
			}
			var ig validate.Group
			for _, x := range in.Groups {
				if x.By == g.By && x.Key == g.Key {
					ig = x
				}
			}
			h, i, six, gpu := g.Summaries[validate.Wattscale], ig.Summaries[validate.Wattscale], g.Summaries[validate.SixND], g.Summaries[validate.GPUHours]
			row := BreakdownRow{Key: g.Key, Runs: g.Rows,
				HeldMedian: foldText(h), HeldW2: shareText(h, h.Within2), HeldCoverage: coverageText(h), InMedian: foldText(i),
				SixMedian: foldText(six), SixW2: shareText(six, six.Within2),
				GPUAnswered: fmt.Sprintf("%d of %d", gpu.N, gpu.Runs), GPUMedian: foldText(gpu), GPUW2: shareText(gpu, gpu.Within2)}
			switch b.by {
			case "source_kind":
				row.Meaning = runSources[g.Key]
			case "phase":
				row.Meaning = runPhases[g.Key]
			case "stack":
				row.Meaning = runStacks[g.Key]
			case "interval_class":
				row.Meaning = model.IntervalClassText[g.Key]
				if h.MedianWidth != nil {
					row.Meaning += fmt.Sprintf("; median interval ×%s wide (high ÷ low)", fixed(*h.MedianWidth, 2))
				}
			case "method":
				row.Meaning = runMethods[g.Key]
				if f := held.PEFT.Summaries[validate.AsFull]; g.Key != model.MethodFull && f.N > 0 {
					row.Meaning += fmt.Sprintf("; estimated as full fine-tuning instead: median %s, %s within ×2", foldText(f), shareText(f, f.Within2))
				}
			}
			bd.Rows = append(bd.Rows, row)
		}
		sc.Breakdowns = append(sc.Breakdowns, bd)
	}

	inRows := map[string]validate.RowResult{}
	for _, r := range in.Rows {
		inRows[r.ID] = r
	}
	for _, h := range held.Rows {
		i := inRows[h.ID]
		res := &RunResult{Scored: h.Headline, Fed: slices.Contains(fed, h.ID), Assumed: h.Inputs.Assumed}
		res.Excluded, res.Why, _ = strings.Cut(h.Excluded, ": ")
		if h.Compared != "energy" {
			res.Compared = h.Compared
		}
		res.Preds = []PredCell{
			predCell("wattscale, held-out", h.Predict[validate.Wattscale]),
			predCell("wattscale, in-sample", i.Predict[validate.Wattscale]),
			predCell("GPU-hours × board power", h.Predict[validate.GPUHours]),
			predCell("6·N·D", h.Predict[validate.SixND]),
		}
		sc.rows[h.ID] = res
	}
	sc.PredChart = predictedChart(held, base.Name)
	sc.ErrorChart = foldChart(held, in)
	return sc
}

// scoreRows formats the headline-style table: wattscale held-out and
// in-sample, then the baselines (from the held-out report; they do not
// depend on the calibration).
func scoreRows(held, in validate.Group) []ScoreRow {
	row := func(e estimator, s validate.Summary) ScoreRow {
		r := ScoreRow{Key: e.series.Key(), ID: e.id, Name: e.name, Given: e.given, Answered: fmt.Sprintf("%d of %d", s.N, s.Runs),
			Median: foldText(s), P90: dash, W15: shareText(s, s.Within15), W2: shareText(s, s.Within2), W2All: dash,
			GeoMean: dash, Coverage: coverageText(s)}
		if s.N > 0 {
			r.P90 = fixed(s.P90Fold, 2)
			r.W2All = pctWhole(s.Within2AllRuns)
			r.GeoMean = fixed(s.GeoMeanRatio, 2)
		}
		return r
	}
	return []ScoreRow{
		row(estHeld, held.Summaries[validate.Wattscale]),
		row(estIn, in.Summaries[validate.Wattscale]),
		row(estSix, held.Summaries[validate.SixND]),
		row(estGPU, held.Summaries[validate.GPUHours]),
	}
}

func foldText(s validate.Summary) string {
	if s.N == 0 {
		return dash
	}
	return fixed(s.MedianFold, 2)
}

func shareText(s validate.Summary, share float64) string {
	if s.N == 0 {
		return dash
	}
	return pctWhole(share)
}

func coverageText(s validate.Summary) string {
	if s.Coverage == nil {
		return dash
	}
	return pctWhole(*s.Coverage)
}

// pctWhole formats a share as a whole percentage, "81 %".
func pctWhole(x float64) string {
	return strconv.FormatFloat(math.Round(100*x), 'f', 0, 64) + " %"
}

// predCell formats one prediction. Without one, the baselines say why;
// wattscale's reason is the run's exclusion, shown once beside its id.
func predCell(name string, p validate.Prediction) PredCell {
	c := PredCell{Estimator: name}
	if !p.Available {
		c.Reason = p.Reason
		if strings.HasPrefix(name, "wattscale") {
			c.Reason = "not estimated"
		}
		return c
	}
	c.Value = fmtKWh(p.KWh)
	if p.Interval != nil {
		c.Interval = fmtKWhRange(p.Interval[0], p.Interval[1])
	}
	if p.Covered != nil {
		c.Covered = "outside"
		if *p.Covered {
			c.Covered = "inside"
		}
	}
	dir := "high"
	if p.Ratio < 1 {
		dir = "low"
	}
	c.Fold = "×" + fixed(p.Fold, 2) + " " + dir
	c.Bad = p.Fold > 2
	return c
}

// fmtKWhRange formats an interval to two significant digits in one unit:
// "1,200–5,400 kWh".
func fmtKWhRange(lo, hi float64) string {
	f := func(x float64) string {
		if x >= 100 {
			p := math.Pow(10, math.Floor(math.Log10(x))-1)
			return grouped(math.Round(x/p) * p)
		}
		return trimZeros(sig(x, 2))
	}
	return f(lo) + "–" + f(hi) + " kWh"
}

// predictedChart draws each headline run's predictions against its
// reported energy on log–log axes: wattscale held-out with its interval,
// the two baselines, the line of perfect agreement and the ×2 band.
func predictedChart(held validate.Report, cal string) template.HTML {
	lo, hi := math.Inf(1), math.Inf(-1)
	widen := func(v float64) {
		if v > 0 && !math.IsInf(v, 0) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	var ws, six, gpu []Point
	for _, r := range held.Rows {
		if !r.Headline {
			continue
		}
		widen(r.Reported)
		if p := r.Predict[validate.Wattscale]; p.Available {
			pt := Point{X: r.Reported, Y: p.KWh, Label: fmt.Sprintf("%s: reported %s; wattscale (held-out) %s, %s interval %s, ×%s", r.ID, fmtKWh(r.Reported), fmtKWh(p.KWh), pct(held.IntervalLevel), fmtKWhRange(p.Interval[0], p.Interval[1]), fixed(p.Fold, 2))}
			pt.YLow, pt.YHigh = p.Interval[0], p.Interval[1]
			widen(p.KWh)
			widen(p.Interval[0])
			widen(p.Interval[1])
			ws = append(ws, pt)
		}
		for _, x := range []struct {
			key, name string
			dst       *[]Point
		}{{validate.SixND, "6·N·D", &six}, {validate.GPUHours, "GPU-hours", &gpu}} {
			if p := r.Predict[x.key]; p.Available {
				widen(p.KWh)
				*x.dst = append(*x.dst, Point{X: r.Reported, Y: p.KWh, Label: fmt.Sprintf("%s: reported %s; %s %s, ×%s", r.ID, fmtKWh(r.Reported), x.name, fmtKWh(p.KWh), fixed(p.Fold, 2))})
			}
		}
	}
	lo, hi = niceLogFloor(lo), niceLogCeil(hi)
	lo, hi = math.Pow(10, math.Floor(math.Log10(lo)+1e-9)), math.Pow(10, math.Ceil(math.Log10(hi)-1e-9))
	ch := Chart{ID: "val-pred", Title: "Predicted against reported energy, " + strconv.Itoa(held.Headline.Rows) + " headline runs",
		Desc:   fmt.Sprintf("Log–log axes, kWh in each run's own scope. Circles: wattscale with a calibration refitted without the run's source (%s), with its %s interval as a bar; open triangles: the 6·N·D baseline; open squares: the GPU-hours baseline, given the measured time, on the %d runs that report one. The solid line is perfect agreement; the shaded band is within a factor of 2. Every value is in the table of runs below.", cal, pct(held.IntervalLevel), held.Headline.Summaries[validate.GPUHours].N),
		X:      Axis{Label: "reported energy (kWh)", Log: true, Powers: true, Min: lo, Max: hi},
		Y:      Axis{Label: "predicted energy (kWh)", Log: true, Powers: true, Min: lo, Max: hi},
		Height: 560,
	}
	ch.Series = []Series{
		{Name: "within ×2", Class: "ref", Area: true, Points: []Point{{X: lo, Y: lo / 2}, {X: hi, Y: hi / 2}, {X: hi, Y: hi * 2}, {X: lo, Y: lo * 2}}},
		{Name: "perfect agreement", Class: "ref", Line: true, Points: []Point{{X: lo, Y: lo}, {X: hi, Y: hi}}},
		styled(estHeld, "wattscale, held-out source, with "+pct(held.IntervalLevel)+" interval", ws),
		styled(estSix, "6·N·D baseline", six),
		styled(estGPU, "GPU-hours baseline (fed the time)", gpu),
	}
	return ch.SVG()
}

// styled is an estimator's series with a name and points.
func styled(e estimator, name string, pts []Point) Series {
	s := e.series
	s.Name, s.Points = name, pts
	return s
}

// foldChart draws the empirical cumulative distribution of the fold error
// over the headline runs: the share of all of them each estimator predicts
// within a given factor (an unanswered run never counts), with the ×1.5
// and ×2 lines.
func foldChart(held, in validate.Report) template.HTML {
	n := held.Headline.Rows
	folds := func(rep validate.Report, e string) []float64 {
		var out []float64
		for _, r := range rep.Rows {
			if p := r.Predict[e]; r.Headline && p.Available {
				out = append(out, p.Fold)
			}
		}
		sort.Float64s(out)
		return out
	}
	sets := []struct {
		e     estimator
		name  string
		folds []float64
	}{
		{estHeld, "wattscale, held-out source", folds(held, validate.Wattscale)},
		{estIn, "wattscale, in-sample", folds(in, validate.Wattscale)},
		{estSix, "6·N·D baseline", folds(held, validate.SixND)},
		{estGPU, "GPU-hours baseline (answers " + strconv.Itoa(held.Headline.Summaries[validate.GPUHours].N) + " of " + strconv.Itoa(n) + ")", folds(held, validate.GPUHours)},
	}
	worst := 2.0
	for _, s := range sets {
		if len(s.folds) > 0 {
			worst = math.Max(worst, s.folds[len(s.folds)-1])
		}
	}
	xmax := niceLogCeil(worst * 1.05)
	ch := Chart{ID: "val-cdf", Title: "Share of the " + strconv.Itoa(n) + " headline runs within a fold error",
		Desc: fmt.Sprintf("Empirical cumulative distribution of the fold error max(predicted/reported, reported/predicted) on a log axis, as a share of all %d headline runs: a run an estimator cannot answer never counts, so the GPU-hours baseline, which needs the measured time, levels off at the share of runs that report one. The dashed vertical lines are ×1.5 and ×2. Every fold error is in the table of runs below.", n),
		X:    Axis{Label: "fold error (×)", Log: true, Min: 1, Max: xmax},
		Y:    Axis{Label: "share of headline runs (%)", Min: 0, Max: 100},
	}
	ch.Series = append(ch.Series,
		Series{Name: "×1.5 and ×2", Class: "ref", Line: true, Dash: true, Points: []Point{{X: 1.5, Y: 0}, {X: 1.5, Y: 100}}},
		Series{Class: "ref", Line: true, Dash: true, Points: []Point{{X: 2, Y: 0}, {X: 2, Y: 100}}},
	)
	for _, s := range sets {
		st := s.e.series
		st.Line = true
		pts := []Point{{X: 1, Y: 0, NoMarker: true}}
		for i, f := range s.folds {
			y0, y1 := 100*float64(i)/float64(n), 100*float64(i+1)/float64(n)
			// A marker at the last step only: it names the curve by its
			// shape without burying the steps.
			pts = append(pts, Point{X: f, Y: y0, NoMarker: true}, Point{X: f, Y: y1, NoMarker: i < len(s.folds)-1,
				Label: fmt.Sprintf("%s: all %d answered runs within ×%s", s.name, i+1, fixed(f, 2))})
		}
		pts = append(pts, Point{X: xmax, Y: 100 * float64(len(s.folds)) / float64(n), NoMarker: true})
		st.Name, st.Points = s.name, pts
		ch.Series = append(ch.Series, st)
	}
	return ch.SVG()
}

// defaultCalibration is the calibration the catalog's estimates use when a
// request names none (content.DefaultCalibration).
func defaultCalibration(cals []model.Calibration) (model.Calibration, error) {
	for _, c := range cals {
		if c.Name == content.DefaultCalibration {
			return c, nil
		}
	}
	return model.Calibration{}, fmt.Errorf("content: no calibrations/%s.json (the default calibration)", content.DefaultCalibration)
}
