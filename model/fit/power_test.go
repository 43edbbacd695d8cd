package fit_test

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/fit"
)

// zeusRows reads the Zeus trace from DATA_DIR (never copied into the
// repository); skipped when absent unless WATTSCALE_REQUIRE_E2E=1.
func zeusRows(t *testing.T) []model.Measurement {
	t.Helper()
	dir := os.Getenv("DATA_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "data")
	}
	b, err := os.ReadFile(filepath.Join(dir, "zeus-bert-power.csv"))
	if err != nil {
		if os.Getenv("WATTSCALE_REQUIRE_E2E") == "1" {
			t.Fatalf("zeus data missing: %v", err)
		}
		t.Skipf("zeus data not found (%v); set DATA_DIR", err)
	}
	rows, err := fit.ReadMeasurements(bytes.NewReader(b), model.DefaultPresets())
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestPowerFitRecovers fits synthetic ratios generated from known
// constants (with 2 % noise) and recovers them.
func TestPowerFitRecovers(t *testing.T) {
	want := model.PowerParams{Static: model.Coefficient{Value: 0.35}, Exponent: model.Coefficient{Value: 2.2},
		ClockBound: model.Coefficient{Value: 0.9}, Tracking: model.Coefficient{Value: 0.96}}
	rng := rand.New(rand.NewPCG(1, 2))
	var pts []fit.PowerPoint
	for i := range 120 {
		u := 0.4 + 0.6*float64(i)/120
		tf, q := want.Factors(u)
		pts = append(pts, fit.PowerPoint{U: u, TimeRatio: tf * math.Exp(0.02*rng.NormFloat64()), EnergyRatio: tf * q * math.Exp(0.02*rng.NormFloat64())})
	}
	got, err := fit.FitPower(pts)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"static", got.Static.Value, 0.35}, {"exponent", got.Exponent.Value, 2.2},
		{"clock_bound", got.ClockBound.Value, 0.9}, {"tracking", got.Tracking.Value, 0.96},
	} {
		if math.Abs(c.got-c.want) > 0.1*c.want {
			t.Errorf("FitPower %s = %.4g, want %.4g ± 10%%", c.name, c.got, c.want)
		}
	}
}

// TestPowerCalibrationFile fits the Zeus power-capped rows through the
// calibration pipeline (fit.Calibrate with Power, what `make fit` runs),
// checks the held-out errors beat a model that ignores the limit (by
// workload and by GPU), and checks the committed calibration is byte for
// byte what the pipeline writes.
func TestPowerCalibrationFile(t *testing.T) {
	rows := zeusRows(t)
	hw := model.NewHardware(model.DefaultGPUs())
	res, err := fit.Calibrate(fit.Job{Rows: rows, ZeusRows: true, Power: true, Hardware: hw, Presets: model.DefaultPresets()})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Power
	if c == nil {
		t.Fatal("fit.Calibrate with Power on the Zeus trace returned no power-limit calibration")
	}
	if len(res.Calibrations) != 0 {
		t.Errorf("asked for the power-limit response alone, got %d other calibrations", len(res.Calibrations))
	}
	pts, err := fit.PowerPoints(rows, hw)
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 205 || c.CV[0].N != 205 {
		t.Errorf("%d capped rows paired, %d in the fit's cross-validation; want 205 (the trace's rows below board power)", len(pts), c.CV[0].N)
	}
	for _, cv := range c.CV {
		t.Logf("%s (%d folds, %d rows): median fold error energy %.4f (ignoring the limit %.4f), time %.4f (ignoring the limit %.4f); RMSE ln energy %.4f, time %.4f",
			cv.Scheme, cv.Folds, cv.N, cv.MedianFoldEnergy, cv.BaselineFoldEnergy, cv.MedianFoldTime, cv.BaselineFoldTime, cv.RMSELnEnergy, cv.RMSELnTime)
		if cv.MedianFoldEnergy >= cv.BaselineFoldEnergy {
			t.Errorf("%s: held-out median fold error on energy %.4f, want below the %.4f of ignoring the limit", cv.Scheme, cv.MedianFoldEnergy, cv.BaselineFoldEnergy)
		}
		if cv.MedianFoldTime >= cv.BaselineFoldTime {
			t.Errorf("%s: held-out median fold error on time %.4f, want below the %.4f of ignoring the limit", cv.Scheme, cv.MedianFoldTime, cv.BaselineFoldTime)
		}
	}
	// The committed file, to the fit's precision: floating point differs in
	// the last bits between amd64 and js/wasm (fused multiply-adds), so the
	// byte-for-byte check is site's TestMakeFitReproducesTheShippedCalibrations
	// (native only).
	raw, err := os.ReadFile(filepath.Join("..", "..", "content", "calibrations", "power", "wattscale-power-limit.json"))
	if err != nil {
		t.Fatal(err)
	}
	shipped, err := model.ParsePowerCalibration(raw)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct {
		name      string
		got, want float64
	}{
		{"static_share", c.Params.Static.Value, shipped.Params.Static.Value},
		{"exponent", c.Params.Exponent.Value, shipped.Params.Exponent.Value},
		{"clock_bound_share", c.Params.ClockBound.Value, shipped.Params.ClockBound.Value},
		{"tracking", c.Params.Tracking.Value, shipped.Params.Tracking.Value},
		{"sigma_ln_energy", c.SigmaLnEnergy, shipped.SigmaLnEnergy},
		{"sigma_ln_time", c.SigmaLnTime, shipped.SigmaLnTime},
		{"widen_hardware", c.WidenHardware, shipped.WidenHardware},
	} {
		if math.Abs(p.got-p.want) > 1e-6*math.Abs(p.want)+1e-9 {
			t.Errorf("refit %s = %.8g, committed %.8g: run make fit if the change is intended", p.name, p.got, p.want)
		}
	}
}
