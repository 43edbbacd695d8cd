package fit_test

import (
	"bytes"
	"fmt"
	"math"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/fit"
)

// Fit the roofline paper's specification to runs in the measurement
// schema: here, runs whose energies follow the published law exactly, so
// the fit gives its coefficients back.
func ExampleCalibrate() {
	var rows []model.Measurement
	for i, shape := range [][2]int{{2, 128}, {4, 256}, {6, 256}, {12, 768}, {24, 1024}, {8, 512}} {
		l, d := shape[0], shape[1]
		for _, v := range []struct {
			strategy string
			n        int
			eta      float64
		}{{"single", 1, 0}, {"fsdp", 2, 0.40 + 0.05*float64(i)}, {"tp", 4, 0.10 + 0.03*float64(i)}} {
			m := model.Measurement{Arch: model.Arch{Layers: l, Hidden: d, Heads: d / 64, FFN: 4 * d, Vocab: 30522}, GPU: "rtx-2080-ti",
				Count: v.n, Strategy: v.strategy, SeqLen: 66, BatchPerGPU: 16 << (i % 2), Tokens: 8.24e6 * float64(1+i%3), Precision: model.FP16,
				DurationS: 600, Eta: v.eta, Group: fmt.Sprintf("bert-L%d-d%d", l, d)}
			eta := v.eta
			if v.n == 1 {
				eta = 1
			}
			c := model.ComputeProxy(float64(l), float64(d), m.Tokens)
			mem := model.MemoryProxy(float64(m.BatchPerGPU), 66, float64(d), float64(l))
			psi := map[string]float64{"single": 0, "fsdp": -0.2927, "tp": -0.5711}[v.strategy]
			m.EnergyKWh = math.Exp(-12.6971 + 0.04544*math.Log(c) + 0.4198*math.Log(mem) - 1.12276*math.Log(eta) + psi)
			rows = append(rows, m)
		}
	}
	var csv bytes.Buffer
	if err := model.WriteMeasurements(&csv, rows); err != nil {
		fmt.Println(err)
		return
	}
	res, err := fit.Calibrate(fit.Job{CSV: csv.Bytes(), FileName: "runs.csv", Kinds: []string{fit.KindPaper},
		Scaling: content.PublishedScaling, Hardware: model.NewHardware(model.DefaultGPUs()), Presets: model.DefaultPresets()})
	if err != nil {
		fmt.Println(err)
		return
	}
	c := res.Calibrations[0]
	l := c.Law
	fmt.Printf("%s from %d rows\n", c.Name, res.Rows)
	fmt.Printf("ln κ %.4f, α_C %.4f, α_M %.4f, α_η %.4f\n", l.LnKappa.Value, l.AlphaC.Value, l.AlphaM.Value, l.AlphaEta.Value)
	fmt.Printf("ln Ψ_FSDP %.4f, ln Ψ_TP %.4f, R² %.4f\n", l.LnPsi["fsdp"].Value, l.LnPsi["tp"].Value, c.Fit.R2)
	// Output:
	// user-paper from 18 rows
	// ln κ -12.6971, α_C 0.0454, α_M 0.4198, α_η -1.1228
	// ln Ψ_FSDP -0.2927, ln Ψ_TP -0.5711, R² 1.0000
}
