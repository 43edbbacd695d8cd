package model_test

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/model"
)

// TestPowerFactorsShape checks the shipped response: no effect at or above
// the uncapped draw, time never shorter as the limit falls, and an energy
// minimum below the default limit (Zeus: You et al. NSDI 2023 found the
// least-energy limit below the default on every GPU they measured).
func TestPowerFactorsShape(t *testing.T) {
	c := catalog(t)
	if c.Power == nil {
		t.Fatal("content.Catalog() has no power calibration")
	}
	p := c.Power.Params
	if tf, pf := p.Factors(1.2); tf != 1 || pf != 1 {
		t.Errorf("Factors(1.2) = %.4g, %.4g, want 1, 1", tf, pf)
	}
	prevT := 1.0
	minE, minU := math.Inf(1), 0.0
	for u := 1.0; u >= 0.3; u -= 0.01 {
		tf, pf := p.Factors(u)
		if tf < prevT-1e-12 {
			t.Errorf("Factors(%.2f) time factor %.4g, below %.4g at a higher limit", u, tf, prevT)
		}
		prevT = tf
		if e := tf * pf; e < minE {
			minE, minU = e, u
		}
	}
	if !(minE < 0.95 && minU < 0.95 && minU > 0.35) {
		t.Errorf("energy minimum %.3g at u = %.2f, want below 0.95 at a limit between 0.35 and 0.95 of the draw", minE, minU)
	}
	if tf, _ := p.Factors(0.3); tf < 2 {
		t.Errorf("Factors(0.3) time factor %.3g, want at least 2 (throughput falls fast near the bottom)", tf)
	}
}

// TestEstimatePowerLimit: leaving the limit out equals giving the default;
// a binding limit lengthens the run, lowers the average power and widens
// the interval; a modest one saves energy.
func TestEstimatePowerLimit(t *testing.T) {
	c := catalog(t)
	req := baseRequest()
	def := estimate(t, c, req)
	req.Hardware.PowerLimitW = 400
	same := estimate(t, c, req)
	if same.EnergyKWh != def.EnergyKWh || same.TimeS != def.TimeS {
		t.Errorf("limit 400 W = %.6g kWh %.6g s, default %.6g kWh %.6g s: want identical", same.EnergyKWh, same.TimeS, def.EnergyKWh, def.TimeS)
	}
	if def.PowerLimit.LimitW != 400 || def.Inputs.PowerLimitW != 400 {
		t.Errorf("default limit reported %.4g W (inputs %.4g), want 400", def.PowerLimit.LimitW, def.Inputs.PowerLimitW)
	}
	req.Hardware.PowerLimitW = 280
	capped := estimate(t, c, req)
	if capped.TimeS <= def.TimeS || capped.AvgPowerW >= def.AvgPowerW {
		t.Errorf("limit 280 W: %.4g s at %.4g W, default %.4g s at %.4g W: want longer and lower", capped.TimeS, capped.AvgPowerW, def.TimeS, def.AvgPowerW)
	}
	if capped.EnergyKWh >= def.EnergyKWh {
		t.Errorf("limit 280 W: %.4g kWh, default %.4g kWh: want a saving", capped.EnergyKWh, def.EnergyKWh)
	}
	if w := capped.EnergyIntervalKWh[1] / capped.EnergyIntervalKWh[0]; w <= def.EnergyIntervalKWh[1]/def.EnergyIntervalKWh[0] {
		t.Errorf("limit 280 W interval ratio %.4g, want wider than the default's", w)
	}
	// The limit's energy factor applies to the busy GPU-time (compute and
	// memory); GPUs that wait below the limit draw the same waiting power.
	busy := func(r model.Response) float64 { return r.Breakdown.ComputeKWh + r.Breakdown.MemoryKWh }
	if got := busy(capped) / busy(def); math.Abs(got-capped.PowerLimit.EnergyFactor) > 1e-9 {
		t.Errorf("busy energy ratio %.6g, reported energy factor %.6g", got, capped.PowerLimit.EnergyFactor)
	}
	if def.Parallel.WaitingPowerW == 0 || capped.Parallel.WaitingPowerW != def.Parallel.WaitingPowerW {
		t.Errorf("waiting power %.4g W capped at 280 W, %.4g W at the default limit: want the same positive power (it is below both limits)", capped.Parallel.WaitingPowerW, def.Parallel.WaitingPowerW)
	}
}

func TestPowerLimitErrors(t *testing.T) {
	c := catalog(t)
	for _, tc := range []struct {
		name string
		gpu  string
		w    float64
	}{
		{"below idle", "a100-sxm4-80gb", 40},
		{"below a measured minimum", "a40", 90},
		{"above default", "a100-sxm4-80gb", 500},
		{"negative", "h100-sxm5", -10},
		{"nan", "h100-sxm5", math.NaN()},
		{"tpu has none", "tpu-v4", 150},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := baseRequest()
			req.Model = model.ModelSpec{Preset: "bert-base"}
			req.Training.Precision = model.BF16
			req.Hardware.GPU, req.Hardware.PowerLimitW = tc.gpu, tc.w
			_, err := c.Estimate(req)
			var fe *model.FieldError
			if !errors.As(err, &fe) || fe.Field != "hardware.power_limit_w" {
				t.Fatalf("Estimate(%s at %v W) error = %v, want a field error on hardware.power_limit_w", tc.gpu, tc.w, err)
			}
		})
	}
}

// TestPowerLimitFloors: the Zeus trace ran a Quadro RTX 6000 at 100 W
// (ml-energy/zeus summary_power_rtx6000.csv, You et al., NSDI 2023), so
// 100 W is answered without a warning; boards with a measured minimum say
// where it comes from; under an estimated minimum a limit is answered with
// a warning naming the estimate and a wider interval than at the estimate.
func TestPowerLimitFloors(t *testing.T) {
	c := catalog(t)
	req := baseRequest()
	req.Model = model.ModelSpec{Preset: "bert-base"}
	req.Training.Precision = model.FP16
	req.Hardware.GPU, req.Hardware.PowerLimitW = "rtx-6000", 100
	r := estimate(t, c, req)
	if r.Inputs.PowerLimitW != 100 || r.PowerLimit.MinW > 100 {
		t.Errorf("rtx-6000 at 100 W: limit %g W, floor %g W; want 100 W answered with a floor at most 100 W", r.Inputs.PowerLimitW, r.PowerLimit.MinW)
	}
	if slices.ContainsFunc(r.Warnings, func(s string) bool { return strings.Contains(s, "estimated as") }) {
		t.Errorf("rtx-6000 at 100 W warns of an estimated minimum: %q", r.Warnings)
	}
	for _, id := range []string{"rtx-6000", "a40", "v100-pcie-16gb", "p100-pcie-16gb"} {
		g, err := c.Hardware.Lookup(id)
		if err != nil {
			t.Fatal(err)
		}
		if pr := model.PowerLimits(g); pr.Estimated || !strings.Contains(pr.Source, "Zeus") {
			t.Errorf("%s: range %+v, want a measured minimum citing the Zeus trace", id, pr)
		}
	}

	req = baseRequest()
	g, err := c.Hardware.Lookup(req.Hardware.GPU)
	if err != nil {
		t.Fatal(err)
	}
	pr := model.PowerLimits(g)
	if !pr.Estimated {
		t.Fatalf("%s: range %+v, want an estimated minimum for this test", g.ID, pr)
	}
	req.Hardware.PowerLimitW = pr.MinW
	at := estimate(t, c, req)
	req.Hardware.PowerLimitW = pr.MinW - 20
	below := estimate(t, c, req)
	if !slices.ContainsFunc(below.Warnings, func(s string) bool {
		return strings.Contains(s, "estimated as") && strings.Contains(s, model.ShortNum(pr.MinW)+" W")
	}) {
		t.Errorf("%s at %g W (estimated minimum %g W): warnings %q, want one naming the estimate", g.ID, pr.MinW-20, pr.MinW, below.Warnings)
	}
	width := func(r model.Response) float64 { return r.EnergyIntervalKWh[1] / r.EnergyIntervalKWh[0] }
	if width(below) <= width(at)*1.05 {
		t.Errorf("interval ratio %.4g below the estimated minimum, %.4g at it: want clearly wider", width(below), width(at))
	}
}

// TestEmbodiedBLOOM reproduces the published embodied emissions of BLOOM's
// final training: 11.2 tCO2e for 1,082,990 A100-hours (Luccioni, Viguier &
// Ligozat, JMLR 2023, table 2), from the stated per-GPU, server, life and
// utilisation figures.
func TestEmbodiedBLOOM(t *testing.T) {
	got := model.EmbodiedKgPerGPUHour() * 1082990 / 1000
	if math.Abs(got-11.2)/11.2 > 0.01 {
		t.Errorf("embodied carbon of 1,082,990 GPU-hours = %.3g t, want 11.2 t ± 1%%", got)
	}
	c := catalog(t)
	r := estimate(t, c, baseRequest())
	if want := r.GPUHours * model.EmbodiedKgPerGPUHour(); math.Abs(r.EmbodiedCO2eKg-want) > 1e-12*want {
		t.Errorf("embodied_co2e_kg = %.6g, want gpu_hours × %.6g = %.6g", r.EmbodiedCO2eKg, model.EmbodiedKgPerGPUHour(), want)
	}
	if op := r.EnergyKWh * r.Inputs.PUE * r.Inputs.CarbonGPerKWh / 1000; math.Abs(r.CO2eKg-op) > 1e-12*op {
		t.Errorf("co2e_kg = %.6g, want the operational %.6g alone (embodied is reported beside it)", r.CO2eKg, op)
	}
}

// TestTPUPowerConvention: the TPU entries state their power by one
// convention, the measured average system power per chip in training
// (host, memory, network and fans included), since that is the figure
// Google publishes: 288 W per TPU v3 chip (Patterson et al. 2021, Table
// 4) and 378.5 W per TPU v4 chip (Chowdhery et al. 2022, PaLM, App. B).
// The chip alone draws much less (TPU v4: about 170 W mean, 192 W max,
// Jouppi et al., ISCA 2023), so a chip figure beside a system figure would
// make the two generations incomparable by about 2×.
func TestTPUPowerConvention(t *testing.T) {
	c := catalog(t)
	for _, tc := range []struct {
		id string
		w  float64
	}{{"tpu-v3", 288}, {"tpu-v4", 378.5}} {
		g, err := c.Hardware.Lookup(tc.id)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(g.BoardPowerW-tc.w) > 0.5 {
			t.Errorf("%s power %g W, want the published system power per chip %g W", tc.id, g.BoardPowerW, tc.w)
		}
	}
	scopes := map[string][]string{}
	for _, g := range c.Hardware.GPUs {
		if g.Vendor == "Google" {
			scopes[g.PowerScope] = append(scopes[g.PowerScope], g.ID)
			if !strings.Contains(g.Source, "system power") {
				t.Errorf("%s: source %q does not say its power is system power", g.ID, g.Source)
			}
		}
	}
	if len(scopes) != 1 || scopes[model.SystemPower] == nil {
		t.Errorf("Google accelerators by power scope %v, want all %q", scopes, model.SystemPower)
	}
	// The estimate says that its energy includes the host's share.
	req := baseRequest()
	req.Hardware.GPU = "tpu-v4"
	req.Training.Precision = model.BF16
	resp, err := c.Estimate(req)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(resp.Assumptions, func(s string) bool { return strings.Contains(s, "system power per chip") }) {
		t.Errorf("tpu-v4 estimate: no assumption on system power in %q", resp.Assumptions)
	}
}
