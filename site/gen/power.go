package gen

import (
	"fmt"
	"html/template"
	"math"
	"strings"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/fit"
)

// PowerReport is the report's power-limit section: the shipped response,
// its cross-validation and (with the Zeus trace) the measured points
// against the fitted curves.
type PowerReport struct {
	Name, Citation string
	Provenance     model.Provenance
	Coefs          []CoefRow
	CV             []PowerCVRow
	Charts         []template.HTML
	ChartNote      string
	Interval       string
}

// PowerCVRow is one cross-validation scheme, formatted.
type PowerCVRow struct {
	Scheme, Folds, N, Energy, Time, BaseEnergy, BaseTime string
}

// powerReport builds the section from the embedded calibration and, when
// the trace is available, its capped runs.
func powerReport(zeus []model.Measurement, zeusSt ZeusStatus) (PowerReport, error) {
	pc, err := content.PowerCalibration()
	if err != nil {
		return PowerReport{}, err
	}
	p := pc.Params
	r := PowerReport{Name: pc.Name, Citation: pc.Citation, Provenance: pc.Provenance,
		Coefs: []CoefRow{
			coefRow("s", p.Static), coefRow("γ", p.Exponent), coefRow("β", p.ClockBound), coefRow("ρ", p.Tracking),
		},
		Interval: fmt.Sprintf("σ = %s in ln energy and %s in ln time on held-out workloads; %s more (in quadrature) for a GPU other than %s; %s per e-fold below a limit of %s × the uncapped draw.",
			sig(pc.SigmaLnEnergy, 2), sig(pc.SigmaLnTime, 2), sig(pc.WidenHardware, 2), strings.Join(pc.Hardware, ", "), sig(pc.WidenPerEFold, 2), sig(pc.MinU, 2)),
	}
	r.Coefs[0].Meaning = "share of the uncapped draw that does not fall with the clock"
	r.Coefs[1].Meaning = "dynamic power ∝ clock^γ"
	r.Coefs[2].Meaning = "share of the run's time that scales with the clock"
	r.Coefs[3].Meaning = "average draw ÷ a binding limit"
	for _, cv := range pc.CV {
		r.CV = append(r.CV, PowerCVRow{Scheme: cv.Scheme, Folds: fmt.Sprint(cv.Folds), N: fmt.Sprint(cv.N),
			Energy: fixed(cv.MedianFoldEnergy, 3), Time: fixed(cv.MedianFoldTime, 3), BaseEnergy: fixed(cv.BaselineFoldEnergy, 3), BaseTime: fixed(cv.BaselineFoldTime, 3)})
	}
	if zeus == nil {
		r.ChartNote = "The charts of measured against fitted need the Zeus trace (" + zeusSt.Path + "), which this build did not find: " + zeusSt.Note + "."
		return r, nil
	}
	pts, err := fit.PowerPoints(zeus, model.NewHardware(model.DefaultGPUs()))
	if err != nil {
		return r, fmt.Errorf("report: power-capped runs: %w", err)
	}
	r.Charts = powerCharts(pc, pts)
	return r, nil
}

// powerCharts draws the measured time and energy ratios of the capped runs
// against limit ÷ uncapped draw, by GPU, with the fitted curve.
func powerCharts(pc *model.PowerCalibration, pts []fit.PowerPoint) []template.HTML {
	byGPU := map[string][]fit.PowerPoint{}
	for _, p := range pts {
		byGPU[p.GPU] = append(byGPU[p.GPU], p)
	}
	const lo, hi = 0.3, 1.2
	var tc, ec []Point
	for u := lo; u <= hi+1e-9; u += 0.005 {
		t, q := pc.Params.Factors(u)
		if t <= 6 {
			tc = append(tc, Point{X: u, Y: t, NoMarker: true})
		}
		if t*q <= 1.8 {
			ec = append(ec, Point{X: u, Y: t * q, NoMarker: true})
		}
	}
	tch := Chart{ID: "power-time", Title: "Time at a power limit ÷ time at the default limit",
		Desc: fmt.Sprintf("Each marker is one power-capped Zeus BERT-base run (%d in all) against its limit ÷ the same configuration's draw at the default limit; the line is the fitted response %s.", len(pts), pc.Name),
		X:    Axis{Label: "power limit ÷ uncapped draw", Min: lo, Max: hi},
		Y:    Axis{Label: "time ratio", Log: true, Min: 0.8, Max: 6},
	}
	ech := Chart{ID: "power-energy", Title: "Energy at a power limit ÷ energy at the default limit",
		Desc: "The same runs' energy ratios; below 1 the limit saves energy. The line is the fitted response; its minimum lies below the default limit.",
		X:    Axis{Label: "power limit ÷ uncapped draw", Min: lo, Max: hi},
		Y:    Axis{Label: "energy ratio", Min: 0.5, Max: 1.8},
	}
	for _, g := range sortedKeys(byGPU) {
		st := styleOf(g)
		var a, b []Point
		for _, p := range byGPU[g] {
			label := fmt.Sprintf("%s %s batch %d at %.0f W (draw %.0f W uncapped): time ×%s, energy ×%s", g, p.Workload, p.Batch, p.LimitW, p.UncappedW, sig(p.TimeRatio, 3), sig(p.EnergyRatio, 3))
			a = append(a, Point{X: p.U, Y: math.Min(6, p.TimeRatio), Label: label})
			b = append(b, Point{X: p.U, Y: math.Max(0.5, math.Min(1.8, p.EnergyRatio)), Label: label})
		}
		tch.Series = append(tch.Series, Series{Name: g, Class: st[0], Marker: st[1], Points: a})
		ech.Series = append(ech.Series, Series{Name: g, Class: st[0], Marker: st[1], Points: b})
	}
	tch.Series = append(tch.Series, Series{Name: "fitted response", Class: "ref", Line: true, Points: tc})
	ech.Series = append(ech.Series, Series{Name: "fitted response", Class: "ref", Line: true, Points: ec},
		Series{Name: "no change", Class: "ref", Line: true, Dash: true, Points: []Point{{X: lo, Y: 1, NoMarker: true}, {X: hi, Y: 1, NoMarker: true}}})
	return []template.HTML{tch.SVG(), ech.SVG()}
}
