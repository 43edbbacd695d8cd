package model

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// Power limits (DVFS). A board power limit below what a run would draw
// makes the GPU lower its clock (and voltage) until the draw fits under the
// limit. Dynamic power falls faster than the clock (P ≈ P_static +
// P_dyn·f^γ), so a modest cap costs little time and saves energy; near the
// bottom of the range the static share dominates, the clock collapses and
// time (and with it energy) rises steeply.
//
// The response is expressed in u = limit / uncapped draw, the draw the run
// would have at the board's default limit. That makes it carry across
// GPUs: what matters is how hard the limit binds, not its value in watts.
// With q = min(1, ρ·u) the fraction of the uncapped draw the GPU then
// averages (ρ: how close the average draw sits to a binding cap), the clock
// falls to φ = ((q − s)/(1 − s))^(1/γ) of its uncapped value (s: the static
// share of the uncapped draw), and time stretches by (1 − β) + β/φ (β: the
// share of the run's time that scales with the clock). Energy scales by
// q·time factor.

// PowerParams are the constants of the power-limit response.
type PowerParams struct {
	Static     Coefficient `json:"static_share"`      // s: share of the uncapped draw that does not fall with the clock, [0, 1)
	Exponent   Coefficient `json:"exponent"`          // γ: dynamic power ∝ clock^γ, ≥ 1
	ClockBound Coefficient `json:"clock_bound_share"` // β: share of run time that scales with the clock, (0, 1]
	Tracking   Coefficient `json:"tracking"`          // ρ: average draw under a binding cap ÷ cap, (0, 1.2]
}

// minClock bounds φ away from zero so a limit at the bottom of a GPU's
// range gives a large but finite time factor.
const minClock = 0.05

// Factors returns the time and average-power factors of a run whose power
// limit is u times its uncapped draw (u ≥ 1 or +Inf: no effect). Energy
// scales by their product.
func (p *PowerParams) Factors(u float64) (timeF, powerF float64) {
	q := p.Tracking.Value * u
	if !(q < 1) {
		return 1, 1
	}
	s, g, b := p.Static.Value, p.Exponent.Value, p.ClockBound.Value
	phi := minClock
	if q > s {
		x := (q - s) / (1 - s)
		if g != 1 {
			x = math.Pow(x, 1/g)
		}
		phi = math.Max(minClock, x)
	}
	return (1 - b) + b/phi, q
}

// PowerCalibration is the fitted power-limit response with its provenance,
// cross-validation and how it is carried to GPUs outside its data. It lives
// in the calibrations' power folder (ParsePowerCalibration reads it).
type PowerCalibration struct {
	Name        string      `json:"name"`
	Version     string      `json:"version"`
	Title       string      `json:"title"`
	Description string      `json:"description"`
	Citation    string      `json:"citation"`
	Provenance  Provenance  `json:"provenance"`
	Params      PowerParams `json:"params"`
	// Hardware lists the GPUs (hardware-table ids) the fit saw; others
	// widen the interval by WidenHardware (ln SD, in quadrature).
	Hardware []string `json:"hardware"`
	// MinU is the lowest limit ÷ uncapped draw in the data; a limit further
	// below widens the interval by WidenPerEFold per e-fold.
	MinU float64 `json:"min_u"`
	// SigmaLnTime and SigmaLnEnergy are the ln SDs of the time and energy
	// factors on held-out workloads (inside the data's GPUs).
	SigmaLnTime   float64 `json:"sigma_ln_time"`
	SigmaLnEnergy float64 `json:"sigma_ln_energy"`
	WidenHardware float64 `json:"widen_ln_hardware"`
	WidenPerEFold float64 `json:"widen_ln_per_efold"`
	// CV is the cross-validation of the fit, by workload and by GPU.
	CV []PowerCV `json:"cv"`
	// Points are the measured factors the fit used, for the report's chart
	// (computed from the trace, one per capped row: no raw rows).
	N int `json:"n"`
}

// PowerCV is one cross-validation scheme's result: median fold errors
// (exp|ln(predicted/measured)|) of the held-out time and energy, and of a
// model that ignores the limit.
type PowerCV struct {
	Scheme             string  `json:"scheme"` // "by workload" or "by GPU"
	Folds              int     `json:"folds"`
	N                  int     `json:"n"`
	MedianFoldEnergy   float64 `json:"median_fold_error_energy"`
	MedianFoldTime     float64 `json:"median_fold_error_time"`
	BaselineFoldEnergy float64 `json:"baseline_median_fold_error_energy"`
	BaselineFoldTime   float64 `json:"baseline_median_fold_error_time"`
	RMSELnEnergy       float64 `json:"rmse_ln_energy"`
	RMSELnTime         float64 `json:"rmse_ln_time"`
}

// ParsePowerCalibration reads and checks a power calibration.
func ParsePowerCalibration(b []byte) (PowerCalibration, error) {
	var c PowerCalibration
	if err := DecodeExact(b, &c); err != nil {
		return c, fmt.Errorf("power calibration: %w", err)
	}
	return c, c.Validate()
}

// bad is the error for the constant what at x, outside its range (in
// interval notation).
func (c *PowerCalibration) bad(what string, x float64, rng string) error {
	return msgErr(CodePowerCalRange, Args{{Name: "name", Str: c.Name}, {Name: "what", Str: what}, {Name: "x", Num: x}, {Name: "range", Str: rng}})
}

// Validate checks the constants are in their physical ranges.
func (c *PowerCalibration) Validate() error {
	p := c.Params
	switch {
	case c.Name == "":
		return msgErr(CodePowerCalName, nil)
	case !(p.Static.Value >= 0 && p.Static.Value < 1):
		return c.bad("static_share", p.Static.Value, "[0, 1)")
	case !(p.Exponent.Value >= 1 && p.Exponent.Value <= 10):
		return c.bad("exponent", p.Exponent.Value, "[1, 10]")
	case !(p.ClockBound.Value > 0 && p.ClockBound.Value <= 1):
		return c.bad("clock_bound_share", p.ClockBound.Value, "(0, 1]")
	case !(p.Tracking.Value > 0 && p.Tracking.Value <= 1.2):
		return c.bad("tracking", p.Tracking.Value, "(0, 1.2]")
	case !finite(c.MinU, c.SigmaLnTime, c.SigmaLnEnergy, c.WidenHardware, c.WidenPerEFold) || c.SigmaLnTime < 0 || c.SigmaLnEnergy < 0:
		return msgErr(CodePowerCalInterval, Args{{Name: "name", Str: c.Name}})
	}
	return nil
}

// MarshalIndent is the calibration as the committed file holds it.
func (c *PowerCalibration) MarshalIndent() ([]byte, error) {
	b, err := json.MarshalIndent(c, "", "  ")
	return append(b, '\n'), err
}

// PowerRange is the power limits a board accepts (nvidia-smi -pl): from
// MinW to the default limit DefaultW (the board power of the hardware
// table; raising it above is not modelled).
type PowerRange struct {
	MinW     float64 `json:"min_w"`
	DefaultW float64 `json:"default_w"`
	Source   string  `json:"source"`
	// Estimated is true when MinW is an estimate (no published or
	// measured minimum): a limit below it is answered with a warning and
	// a wider interval, down to the board's idle power.
	Estimated bool `json:"min_estimated,omitempty"`
}

// powerMins are the lowest limits of boards whose range is published or
// measured; others use minLimitShare of board power.
var powerMins = map[string]struct {
	w   float64
	src string
}{
	"a40":            {100, "lowest limit in the Zeus power trace (You et al., NSDI 2023), which sweeps the board's full range"},
	"v100-pcie-16gb": {100, "lowest limit in the Zeus power trace (You et al., NSDI 2023), which sweeps the board's full range"},
	"p100-pcie-16gb": {125, "lowest limit in the Zeus power trace (You et al., NSDI 2023), which sweeps the board's full range"},
	"rtx-6000":       {100, "lowest limit in the Zeus power trace (You et al., NSDI 2023; ml-energy/zeus summary_power_rtx6000.csv, 100 to 260 W), which ran the board at 100 W"},
}

// minLimitShare is the lowest limit as a share of board power where the
// range is not in the table: 0.4, the middle of the Zeus GPUs' shares
// (A40 0.33, V100 0.40, P100 0.50).
const minLimitShare = 0.4

// PowerRange.Estimated marks a range whose MinW is estimated
// (minLimitShare), not published or measured: a limit below it is answered
// with a warning and a wider interval instead of refused, down to the
// board's idle power, which no limit can go under.

// PowerLimits returns the range of power limits g accepts. Google TPUs
// expose no power limit: their range is the board power alone.
func PowerLimits(g *GPU) PowerRange {
	if g.Vendor == "Google" {
		return PowerRange{MinW: g.BoardPowerW, DefaultW: g.BoardPowerW, Source: noPowerLimitSource}
	}
	if m, ok := powerMins[g.ID]; ok {
		return PowerRange{MinW: m.w, DefaultW: g.BoardPowerW, Source: m.src}
	}
	return PowerRange{MinW: math.Round(g.BoardPowerW * minLimitShare), DefaultW: g.BoardPowerW, Source: estimatedMinSource, Estimated: true}
}

// noPowerLimitSource is the source of the range of a board without a
// user-settable power limit.
const noPowerLimitSource = "no user-settable power limit"

// estimatedMinSource says where the lowest limit of a board with no
// published minimum comes from (formatted once: every estimate asks).
var estimatedMinSource = "estimate: " + strconv.FormatFloat(minLimitShare*100, 'f', 0, 64) + "% of board power (no published minimum; the Zeus GPUs range from 33% to 50%)"

// rangeSources is "range: " + each source PowerLimits gives, formatted
// once rather than per estimate (powerInfo).
var rangeSources = func() map[string]string {
	m := map[string]string{}
	for _, src := range []string{noPowerLimitSource, estimatedMinSource} {
		m[src] = "range: " + src
	}
	for _, p := range powerMins {
		m[p.src] = "range: " + p.src
	}
	return m
}()

// PowerLimitInfo reports how a power limit changed an estimate.
type PowerLimitInfo struct {
	LimitW        float64 `json:"limit_w"`         // per GPU
	DefaultW      float64 `json:"default_w"`       // the board's default limit
	MinW          float64 `json:"min_w"`           // the lowest limit the board accepts
	UncappedDrawW float64 `json:"uncapped_draw_w"` // modelled average draw per GPU at the default limit
	RelativeLimit float64 `json:"relative_limit"`  // limit ÷ uncapped draw (u)
	TimeFactor    float64 `json:"time_factor"`
	EnergyFactor  float64 `json:"energy_factor"`
	Calibration   string  `json:"calibration,omitempty"`
	SigmaLn       float64 `json:"sigma_ln,omitempty"` // ln SD the limit adds to the interval
	Source        string  `json:"source"`
}

// checkPowerLimit validates a requested limit against g's range; 0 means
// the default limit. below is true for a limit under an estimated minimum
// (PowerRange.Estimated), which is answered, with belowMinWarning and a
// wider interval, as long as it is above the board's idle power.
func checkPowerLimit(field string, w float64, g *GPU) (limit float64, below bool, err error) {
	pr := PowerLimits(g)
	if w == 0 {
		return pr.DefaultW, false, nil
	}
	if pr.Estimated && finite(w) && w < pr.MinW && w > g.IdlePowerW {
		return w, true, nil
	}
	if !finite(w) || w < pr.MinW || w > pr.DefaultW {
		if pr.MinW == pr.DefaultW {
			return 0, false, codeErr(CodePowerFixed, field, w, Args{{Name: "default_w", Num: pr.DefaultW}, {Name: "gpu", Str: g.ID}})
		}
		if pr.Estimated && finite(w) && w < pr.MinW {
			return 0, false, codeErr(CodePowerBelowIdle, field, w, Args{{Name: "idle_w", Num: g.IdlePowerW}, {Name: "gpu", Str: g.ID}, {Name: "min_w", Num: pr.MinW}, {Name: "default_w", Num: pr.DefaultW}})
		}
		return 0, false, codeErr(CodePowerRange, field, w, Args{{Name: "min_w", Num: pr.MinW}, {Name: "default_w", Num: pr.DefaultW}, {Name: "gpu", Str: g.ID}})
	}
	return w, false, nil
}

// belowMinWarning is the warning of a limit under an estimated minimum.
func belowMinWarning(g *GPU, w float64) Message {
	pr := PowerLimits(g)
	return Message{Code: CodePowerBelowMin, Field: "hardware.power_limit_w", Args: Args{{Name: "w", Num: w}, {Name: "min_w", Num: pr.MinW}, {Name: "gpu", Str: g.ID}, {Name: "source", Str: pr.Source}}}
}

// belowMinSigma is the ln SD a limit w under an estimated minimum adds to
// the interval: how far the true minimum may sit from the estimate (the
// Zeus GPUs' minima range from 33 % to 50 % of board power around the
// 40 % used, about 0.2 in ln), plus the power calibration's widening per
// e-fold (WidenPerEFold) for each e-fold of w under the estimate.
func belowMinSigma(pc *PowerCalibration, g *GPU, w float64) float64 {
	pr := PowerLimits(g)
	k := 0.0
	if pc != nil {
		k = pc.WidenPerEFold
	}
	return math.Hypot(belowMinBaseSigma, k*math.Log(pr.MinW/w))
}

// belowMinBaseSigma is ln(0.5/0.4) ≈ 0.22 rounded: the spread of the
// measured minima about minLimitShare.
const belowMinBaseSigma = 0.2

// powerFactors returns the time and power factors of limit w on a run that
// draws p0 W per GPU uncapped, with the ln SD the limit adds, from the
// catalog's power calibration. No calibration: factors 1 when the limit
// does not bind, an error otherwise.
func (c *Catalog) powerFactors(g *GPU, w, p0 float64) (timeF, powerF, sigma float64, err error) {
	if w >= g.BoardPowerW {
		return 1, 1, 0, nil
	}
	pc := c.Power
	if pc == nil {
		return 0, 0, 0, codeErr(CodePowerUncalibrated, "hardware.power_limit_w", w, nil)
	}
	u := w / p0
	timeF, powerF = pc.Params.Factors(u)
	if timeF == 1 && powerF == 1 {
		return 1, 1, 0, nil
	}
	s0 := math.Max(pc.SigmaLnEnergy, pc.SigmaLnTime)
	v := s0 * s0
	known := false
	for _, h := range pc.Hardware {
		known = known || h == g.ID
	}
	if !known {
		v += pc.WidenHardware * pc.WidenHardware
	}
	if u < pc.MinU && u > 0 {
		k := pc.WidenPerEFold * math.Log(pc.MinU/u)
		v += k * k
	}
	return timeF, powerF, math.Sqrt(v), nil
}

// powerInfo reports the limit of r and what it did.
func (r *resolved) powerInfo(pc *PowerCalibration, p0, timeF, powerF, sigma float64) PowerLimitInfo {
	pr := PowerLimits(r.gpu)
	src, ok := rangeSources[pr.Source]
	if !ok {
		src = "range: " + pr.Source
	}
	info := PowerLimitInfo{LimitW: r.limitW, DefaultW: pr.DefaultW, MinW: pr.MinW, UncappedDrawW: p0, RelativeLimit: r.limitW / p0,
		TimeFactor: timeF, EnergyFactor: timeF * powerF, SigmaLn: sigma, Source: src}
	if pc != nil && (timeF != 1 || powerF != 1) {
		info.Calibration = pc.Name
		info.Source += "; response: " + pc.Citation
	}
	return info
}
