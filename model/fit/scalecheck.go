package fit

import (
	"fmt"

	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/validate"
)

// Workloads of the published scaling points (the workload column of the
// project's published-scaling.csv).
const (
	WorkloadBERTSST2 = "bert-sst2"
	WorkloadGPT      = "gpt"
)

// bertSST2 is the roofline study's BERT-base SST-2 fine-tune: 3 epochs of
// SST-2's 67,349 training sentences at their mean 40.8 tokens, per-process
// batch 32 padded to 66 tokens, fp16 (Zoubeirou a Mayaki 2026, released
// setup; MeasuredWorkload).
var bertSST2 = model.Request{
	Model:    model.ModelSpec{Layers: 12, Hidden: 768, Heads: 12, FFN: 3072, Vocab: 30522, Head: "classifier"},
	Training: model.TrainingSpec{Tokens: 67349 * 40.8 * 3, SeqLen: 66, BatchPerGPU: 32, Precision: model.FP16},
	Site:     model.SiteSpec{PUE: 1, CarbonGPerKWh: model.DefaultCarbonGPerKWh, USDPerKWh: model.DefaultUSDPerKWh},
}

// ScalingRequest is the request a published scaling point measured, on n
// GPUs of its kind under its strategy (one GPU: single): BERT-base SST-2
// for the RTX 2080 Ti points, and for the GPT points on A100, whose model
// and batch are not published, scalingWorkload (ScalingWorkloadNote).
func ScalingRequest(p ScalingPoint, n float64) (model.Request, error) {
	var req model.Request
	switch p.Workload {
	case WorkloadBERTSST2:
		req = bertSST2
	case WorkloadGPT:
		req = scalingWorkload
	default:
		return req, fmt.Errorf("fit: scaling point %s %s N=%g: workload %q is not %s or %s", p.GPU, p.Strategy, p.N, p.Workload, WorkloadBERTSST2, WorkloadGPT)
	}
	req.Hardware = model.HardwareSpec{GPU: p.GPU, Count: n}
	req.Strategy = model.Strategy{Name: p.Strategy}
	if n == 1 {
		req.Strategy.Name = model.Single
	}
	return req, nil
}

// ScalingCheck is a published matched-scaling point beside the estimate
// of its workload on one GPU and on the point's N (CheckScaling).
type ScalingCheck struct {
	Point   ScalingPoint
	Speedup float64 // the estimate's S(N) = T₁/T_N
	// GPURatio is the estimate's energy per token on N GPUs against one:
	// the accelerators' energy (the answer's energy_kwh).
	GPURatio float64
	// NodeRatio is the same with the host drawing validate.HostFactor − 1
	// of the GPUs' busy power over the whole GPU-time, as the validation
	// table counts a node (validate.CompareHost): the study's meter counted
	// the CPU and memory too, so its figure lies between the two scopes.
	NodeRatio float64
}

// CheckScaling estimates the published point p with cat's default
// calibration on one GPU and on p.N.
func CheckScaling(cat *model.Catalog, p ScalingPoint) (ScalingCheck, error) {
	c := ScalingCheck{Point: p}
	var gpu, node [2]float64
	for i, n := range []float64{1, p.N} {
		req, err := ScalingRequest(p, n)
		if err != nil {
			return c, err
		}
		r, err := cat.Estimate(req)
		if err != nil {
			return c, fmt.Errorf("fit: scaling point %s %s N=%g on %g GPUs: %w", p.GPU, p.Strategy, p.N, n, err)
		}
		gpu[i] = r.EnergyKWh
		node[i] = validate.CompareHost(validate.Run{Host: "yes", PUE: 1}, r.EnergyKWh, r.GPUHours, r.Parallel.BusyPowerW, validate.HostFactor)
		if i == 1 {
			c.Speedup = r.Parallel.Speedup
		}
	}
	c.GPURatio, c.NodeRatio = gpu[1]/gpu[0], node[1]/node[0]
	return c, nil
}
