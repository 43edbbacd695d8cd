package fitapi

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/wattscale/wattscale/model"
)

// SampleLaw is the calibration the sample CSV is drawn from: the paper's
// published law, pooled over its BERT runs.
const SampleLaw = "zoubeirou2026-bert-pooled"

// SampleSeed is the seed of the page's sample's noise.
const SampleSeed = 14

// SampleCSV returns a small measurement CSV for trying the refit (the
// refit box's "Download a sample CSV" and "put it in the box"): synthetic
// runs, not measurements. Each row is cat's estimate with calibration
// SampleLaw (Zoubeirou a Mayaki 2026, arXiv 2606.23546) for BERT-base and
// BERT-large over GPU counts, strategies, sequence lengths and batches
// inside that calibration's envelope, times log-normal noise of 10 %
// drawn with seed (the page's is SampleSeed, so the file is the same
// every time; tests use others for how often the refit's standard errors
// cover the law); the source column says so on every row.
func SampleCSV(cat *model.Catalog, seed uint64) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("model,gpu,count,strategy,seq_len,batch_per_gpu,tokens,precision,energy_kwh,duration_s,eta,source\n")
	rng := rand.New(rand.NewPCG(seed, 2026))
	const src = "synthetic sample: the published law " + SampleLaw + " (arXiv 2606.23546) with 10 % noise; not a measurement"
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	g6 := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	for _, m := range []string{"bert-base", "bert-large"} {
		for _, n := range []float64{1, 2, 4} {
			for _, st := range []string{model.DDP, model.FSDP, model.TP} {
				if n == 1 && st != model.DDP {
					continue
				}
				for _, seq := range []float64{64, 128, 256} {
					for _, bat := range []float64{8, 16, 32} {
						req := model.Request{Calibration: SampleLaw}
						req.Model.Preset = m
						req.Training = model.TrainingSpec{Tokens: 5e7, SeqLen: seq, BatchPerGPU: bat, Precision: model.FP16}
						req.Hardware = model.HardwareSpec{GPU: "v100-sxm2-32gb", Count: n}
						name := st
						if n == 1 {
							name = model.Single
						}
						req.Strategy = model.Strategy{Name: name}
						r, err := cat.Estimate(req)
						if err != nil {
							return nil, err
						}
						noise := math.Exp(0.1 * rng.NormFloat64())
						for _, cell := range []string{m, req.Hardware.GPU, g(n), name, g(seq), g(bat), g(req.Training.Tokens), string(req.Training.Precision),
							g6(r.EnergyKWh * noise), g6(r.TimeS * math.Sqrt(noise)), g6(r.Parallel.Efficiency)} {
							b.WriteString(cell)
							b.WriteByte(',')
						}
						b.WriteString(strings.ReplaceAll(src, ",", ";"))
						b.WriteByte('\n')
					}
				}
			}
		}
	}
	return b.Bytes(), nil
}
