package model_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
)

var update = flag.Bool("update", false, "rewrite golden files")

func catalog(t testing.TB) *model.Catalog {
	t.Helper()
	c, err := content.Catalog()
	if err != nil {
		t.Fatalf("content.Catalog() error: %v", err)
	}
	c.ReadHFFiles()
	return c
}

func baseRequest() model.Request {
	return model.Request{
		Model:    model.ModelSpec{Preset: "bert-base"},
		Training: model.TrainingSpec{Tokens: 2e8, SeqLen: 128, BatchPerGPU: 32, Precision: model.FP16},
		Hardware: model.HardwareSpec{GPU: "a100-sxm4-80gb", Count: 4},
		Strategy: model.Strategy{Name: model.FSDP},
		Site:     model.SiteSpec{PUE: 1.2, CarbonGPerKWh: 400, USDPerKWh: 0.15},
	}
}

func estimate(t testing.TB, c *model.Catalog, req model.Request) model.Response {
	t.Helper()
	r, err := c.Estimate(req)
	if err != nil {
		t.Fatalf("Estimate(%+v) error: %v", req, err)
	}
	return r
}

// randomRequest draws a valid request over presets, GPUs, strategies and
// precisions the GPU supports.
func randomRequest(rng *rand.Rand, c *model.Catalog) model.Request {
	for {
		p := c.Presets[rng.IntN(len(c.Presets))]
		g := c.Hardware.GPUs[rng.IntN(len(c.Hardware.GPUs))]
		sup := g.Supported()
		req := model.Request{
			Model: model.ModelSpec{Preset: p.Name},
			Training: model.TrainingSpec{Tokens: math.Exp(rng.Float64()*12 + 14), SeqLen: float64([]int{64, 128, 512, 2048}[rng.IntN(4)]),
				BatchPerGPU: float64(1 + rng.IntN(64)), Precision: sup[rng.IntN(len(sup))]},
			Hardware:    model.HardwareSpec{GPU: g.ID, Count: float64([]int{1, 2, 4, 8, 16, 64}[rng.IntN(6)])},
			Strategy:    model.Strategy{Name: []string{model.DDP, model.FSDP, model.TP}[rng.IntN(3)]},
			Calibration: []string{"", "", "zoubeirou2026-bert-pooled", "wattscale-zeus-law"}[rng.IntN(4)],
		}
		if req.Hardware.Count == 1 {
			req.Strategy = model.Strategy{Name: model.Single}
		}
		if _, err := c.Estimate(req); err == nil {
			return req
		}
	}
}

func TestEstimateInvariants(t *testing.T) {
	c := catalog(t)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 400; i++ {
		req := randomRequest(rng, c)
		r := estimate(t, c, req)
		// Never below the roofline bound.
		if r.EnergyKWh < r.Roofline.EnergyLowerBoundKWh*(1-1e-12) {
			t.Errorf("case %d: energy %.6g kWh below roofline bound %.6g kWh (%+v)", i, r.EnergyKWh, r.Roofline.EnergyLowerBoundKWh, req)
		}
		if r.TimeS < r.Roofline.TimeLowerBoundS*(1-1e-12) {
			t.Errorf("case %d: time %.6g s below roofline bound %.6g s", i, r.TimeS, r.Roofline.TimeLowerBoundS)
		}
		// Breakdown sums to the total.
		b := r.Breakdown
		if sum := b.ComputeKWh + b.MemoryKWh + b.HostWaitKWh + b.ParallelKWh + b.WarmupKWh + b.FixedKWh; math.Abs(sum-r.EnergyKWh) > 1e-9*r.EnergyKWh {
			t.Errorf("case %d: breakdown sums to %.9g, energy %.9g", i, sum, r.EnergyKWh)
		}
		// Interval brackets the estimate.
		if !(r.EnergyIntervalKWh[0] < r.EnergyKWh && r.EnergyKWh < r.EnergyIntervalKWh[1]) {
			t.Errorf("case %d: interval %v does not bracket %g", i, r.EnergyIntervalKWh, r.EnergyKWh)
		}
		// η = 1 on one GPU, in (0, 1] otherwise.
		if req.Hardware.Count == 1 && r.Parallel.Efficiency != 1 {
			t.Errorf("case %d: η = %g on one GPU, want 1", i, r.Parallel.Efficiency)
		}
		if !(r.Parallel.Efficiency > 0 && r.Parallel.Efficiency <= 1) {
			t.Errorf("case %d: η = %g outside (0, 1]", i, r.Parallel.Efficiency)
		}
		// Linear in tokens apart from E₀ and the first steps' warm-up;
		// monotone.
		req2 := req
		req2.Training.Tokens *= 2
		r2 := estimate(t, c, req2)
		var e0 float64
		if req.Calibration == "" {
			e0 = b.FixedKWh + b.WarmupKWh
		}
		if got, want := r2.EnergyKWh-e0, 2*(r.EnergyKWh-e0); math.Abs(got-want) > 1e-9*want {
			t.Errorf("case %d: doubling tokens gives %.9g kWh above E₀, want %.9g (%+v)", i, got, want, req)
		}
		if r2.EnergyKWh <= r.EnergyKWh {
			t.Errorf("case %d: energy not increasing in tokens: %g then %g", i, r.EnergyKWh, r2.EnergyKWh)
		}
	}
}

// TestPublishedLawByHand checks the published calibration against the
// closed form of shared/reference/energy-scaling.md section 6:
// E[kWh] = exp(−12.6971)·C^0.04544·M^0.41980·η^−1.12276·Ψ.
func TestPublishedLawByHand(t *testing.T) {
	c := catalog(t)
	cal, err := c.Calibration("zoubeirou2026-bert-pooled")
	if err != nil {
		t.Fatal(err)
	}
	// A BERT-base-like configuration at the sample means: ln C = 32.0859472112,
	// ln M = 15.4909256747, ln η = −0.7964958946 give ln E = −3.8417 (the
	// published centred intercept).
	lnE := math.Log(cal.Law.LawEnergyKWh(math.Exp(32.0859472112), math.Exp(15.4909256747), math.Exp(-0.7964958946), model.Single, "rtx-2080-ti"))
	if math.Abs(lnE-(-3.8417)) > 2e-4 {
		t.Errorf("ln E at the sample means = %.5f, want −3.8417 (published centred intercept)", lnE)
	}
	for _, tc := range []struct {
		strategy string
		psi      float64
	}{{model.Single, 1}, {model.FSDP, 0.7463}, {model.TP, 0.5649}} {
		C, M, eta := 2.5e13, 4.2e6, 0.4
		byHand := math.Log(math.Exp(-12.6971)*math.Pow(C, 0.04544)*math.Pow(M, 0.41980)*math.Pow(eta, -1.12276)) + math.Log(tc.psi)
		got := math.Log(cal.Law.LawEnergyKWh(C, M, eta, tc.strategy, "rtx-2080-ti"))
		if math.Abs(got-byHand) > 2e-4 {
			t.Errorf("%s: ln E = %.6f, by hand %.6f", tc.strategy, got, byHand)
		}
	}
	// Through Estimate: the law applied per token at the reference tokens.
	req := model.Request{Model: model.ModelSpec{Layers: 12, Hidden: 768, Heads: 12, FFN: 3072, Vocab: 30522, Head: "classifier"},
		Training: model.TrainingSpec{Tokens: cal.Law.RefTokens, SeqLen: 66, BatchPerGPU: 32, Precision: model.FP16},
		Hardware: model.HardwareSpec{GPU: "rtx-2080-ti", Count: 1}, Strategy: model.Strategy{Name: model.Single}, Calibration: cal.Name}
	r := estimate(t, c, req)
	C := model.ComputeProxy(12, 768, cal.Law.RefTokens)
	M := model.MemoryProxy(32, 66, 768, 12)
	want := math.Exp(-12.6971100122) * math.Pow(C, 0.04544) * math.Pow(M, 0.41980)
	if math.Abs(math.Log(r.EnergyKWh/want)) > 1e-9 {
		t.Errorf("Estimate with %s = %.6g kWh, law by hand %.6g kWh", cal.Name, r.EnergyKWh, want)
	}
}

func TestBadRequests(t *testing.T) {
	c := catalog(t)
	tests := []struct {
		name  string
		edit  func(*model.Request)
		field string
	}{
		{"zero batch", func(r *model.Request) { r.Training.BatchPerGPU = 0 }, "training.batch_per_gpu"},
		{"fractional batch", func(r *model.Request) { r.Training.BatchPerGPU = 2.5 }, "training.batch_per_gpu"},
		{"negative tokens", func(r *model.Request) { r.Training.Tokens = -5 }, "training.tokens"},
		{"NaN tokens", func(r *model.Request) { r.Training.Tokens = math.NaN() }, "training.tokens"},
		{"absurd tokens", func(r *model.Request) { r.Training.Tokens = 1e30 }, "training.tokens"},
		{"tokens and epochs", func(r *model.Request) { r.Training.Epochs = 3 }, "training.tokens"},
		{"unknown preset", func(r *model.Request) { r.Model.Preset = "bert-huge" }, "model.preset"},
		{"unknown gpu", func(r *model.Request) { r.Hardware.GPU = "z9000" }, "hardware.gpu"},
		{"bf16 on v100", func(r *model.Request) { r.Hardware.GPU = "v100-sxm2-32gb"; r.Training.Precision = model.BF16 }, "training.precision"},
		{"heads not dividing hidden", func(r *model.Request) {
			r.Model = model.ModelSpec{Layers: 12, Hidden: 770, Heads: 12, FFN: 3072, Vocab: 30522}
		}, "model.heads"},
		{"more tp ranks than heads", func(r *model.Request) { r.Hardware.Count = 16; r.Strategy = model.Strategy{Name: model.TP} }, "hardware.count"},
		{"hybrid product", func(r *model.Request) { r.Strategy = model.Strategy{Name: model.Hybrid, Tensor: 2, Data: 4} }, "strategy"},
		{"single with 4 gpus", func(r *model.Request) { r.Strategy = model.Strategy{Name: model.Single} }, "strategy"},
		{"state exceeds memory", func(r *model.Request) {
			r.Model = model.ModelSpec{Preset: "llama-2-70b"}
			r.Strategy = model.Strategy{Name: model.DDP}
		}, "hardware.count"},
		{"pue below 1", func(r *model.Request) { r.Site.PUE = 0.5 }, "site.pue"},
		{"state bytes too small", func(r *model.Request) { r.Training.StateBytesPerParam = 1 }, "training.state_bytes_per_param"},
		{"NaN state bytes", func(r *model.Request) { r.Training.StateBytesPerParam = math.NaN() }, "training.state_bytes_per_param"},
		{"unknown calibration", func(r *model.Request) { r.Calibration = "nope" }, "calibration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := baseRequest()
			tt.edit(&req)
			_, err := c.Estimate(req)
			fe := model.AsFieldError(err)
			if fe == nil {
				t.Fatalf("Estimate error = %v, want a *FieldError for %s", err, tt.field)
			}
			if fe.Field != tt.field {
				t.Errorf("error field = %q (%v), want %q", fe.Field, err, tt.field)
			}
			if strings.Contains(err.Error(), "NaN") && !strings.HasPrefix(tt.name, "NaN") {
				t.Errorf("error mentions NaN: %v", err)
			}
		})
	}
}

func TestActivationOverflowIsWarning(t *testing.T) {
	c := catalog(t)
	req := baseRequest()
	req.Model = model.ModelSpec{Preset: "llama-2-7b"}
	req.Training = model.TrainingSpec{Tokens: 1e9, SeqLen: 4096, BatchPerGPU: 64, Precision: model.BF16}
	req.Hardware = model.HardwareSpec{GPU: "h100-sxm5", Count: 8}
	r := estimate(t, c, req)
	found := false
	for _, w := range r.Warnings {
		found = found || strings.Contains(w, "activations")
	}
	if !found {
		t.Errorf("warnings %q lack the activation-memory warning", r.Warnings)
	}
}

func TestEnvelopeWidens(t *testing.T) {
	c := catalog(t)
	in := baseRequest()
	in.Hardware = model.HardwareSpec{GPU: "a40", Count: 1}
	in.Strategy = model.Strategy{Name: model.Single}
	in.Training.SeqLen = 128
	// One envelope for every precision (issue 35): BERT-base at the Zeus
	// trace's own shape and GPU is inside in fp32 and in fp16 alike.
	for _, p := range []model.Precision{model.FP32, model.FP16} {
		in.Training.Precision = p
		if a := estimate(t, c, in); !a.Calibration.InEnvelope {
			t.Errorf("bert-base on a40 at 128 tokens in %s outside the envelope: %v", p, a.Calibration.Outside)
		}
	}
	inside := baseRequest()
	inside.Model = model.ModelSpec{Preset: "qwen2.5-1.5b"}
	inside.Hardware.GPU = "h100-sxm5"
	inside.Training.Precision = model.BF16
	a := estimate(t, c, inside)
	if !a.Calibration.InEnvelope {
		t.Fatalf("qwen2.5-1.5b on h100 outside the envelope: %v", a.Calibration.Outside)
	}
	far := inside
	far.Training.SeqLen = 65536
	far.Training.BatchPerGPU = 1
	b := estimate(t, c, far)
	near := inside
	near.Training.BatchPerGPU = 1
	near.Training.SeqLen = 8192
	n := estimate(t, c, near)
	if b.Calibration.InEnvelope || b.Calibration.Interval.Class != model.ClassOutside {
		t.Fatalf("qwen2.5-1.5b at 65,536 tokens: in_envelope %v, class %q; want outside", b.Calibration.InEnvelope, b.Calibration.Interval.Class)
	}
	width := func(r model.Response) float64 { return r.EnergyIntervalKWh[1] / r.EnergyIntervalKWh[0] }
	if width(b) <= width(n) {
		t.Errorf("outside the envelope the interval is ×%.3g wide, inside ×%.3g; want wider outside", width(b), width(n))
	}
}

func TestGolden(t *testing.T) {
	c := catalog(t)
	reqs := map[string]model.Request{"bert-fsdp-a100": baseRequest()}
	h := baseRequest()
	h.Model = model.ModelSpec{Preset: "llama-3-70b"}
	h.Training = model.TrainingSpec{DatasetTokens: 5e8, Epochs: 2, SeqLen: 4096, BatchPerGPU: 1, Precision: model.BF16}
	h.Hardware = model.HardwareSpec{GPU: "H100-SXM5-80GB", Count: 32}
	h.Strategy = model.Strategy{Name: model.Hybrid, Tensor: 8, Data: 4, DataMode: model.FSDP}
	reqs["llama70b-hybrid-h100"] = h
	for name, req := range reqs {
		t.Run(name, func(t *testing.T) {
			r := estimate(t, c, req)
			got := goldenText(r)
			path := filepath.Join("testdata", name+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./model -update)", err)
			}
			if got != string(want) {
				t.Errorf("estimate differs from %s (run with -update if intended):\n%s\nwant:\n%s", path, got, want)
			}
		})
	}
}

// goldenText prints the response with numbers at 6 significant digits so the
// golden does not depend on the CPU's fused multiply-add.
func goldenText(r model.Response) string {
	b, _ := json.Marshal(r)
	var v any
	_ = json.Unmarshal(b, &v)
	var out bytes.Buffer
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sortStrings(keys)
			for _, k := range keys {
				walk(prefix+"."+k, x[k])
			}
		case []any:
			for i, e := range x {
				walk(prefix+"["+itoa(i)+"]", e)
			}
		case float64:
			out.WriteString(prefix + " = " + fmtSig(x) + "\n")
		default:
			b, _ := json.Marshal(x)
			out.WriteString(prefix + " = " + string(b) + "\n")
		}
	}
	walk("", v)
	return out.String()
}

// TestLawPowerConsistency: a loglinear calibration gives energy and the
// roofline model time; when their ratio is below idle power the estimate
// says the two disagree (a short run, where the law has no start-up term).
func TestLawPowerConsistency(t *testing.T) {
	c := catalog(t)
	req := baseRequest()
	req.Training.Tokens = 3.5e5
	req.Hardware.Count = 1
	req.Strategy = model.Strategy{Name: model.Single}
	req.Calibration = "wattscale-zeus-law"
	r := estimate(t, c, req)
	found := false
	for _, w := range r.Warnings {
		found = found || strings.Contains(w, "below the") && strings.Contains(w, "idle")
	}
	if r.AvgPowerW >= 46 || !found {
		t.Errorf("avg power %.1f W with warnings %q; want below the 46 W idle draw and a warning saying so", r.AvgPowerW, r.Warnings)
	}
}

// TestStateBytesPerParam: a leaner optimizer (Adafactor on bf16 weights,
// 4 bytes per parameter) lets a 13B model train on one 80 GB GPU that AdamW
// in mixed precision (16 bytes) cannot, with less optimizer traffic and the
// same FLOPs; 16 given explicitly equals the default.
func TestStateBytesPerParam(t *testing.T) {
	c := catalog(t)
	req := model.Request{Model: model.ModelSpec{Preset: "olmo-2-13b"},
		Training: model.TrainingSpec{Tokens: 3e7, SeqLen: 1024, BatchPerGPU: 4, Precision: model.BF16},
		Hardware: model.HardwareSpec{GPU: "h100-sxm5", Count: 1}, Strategy: model.Strategy{Name: model.Single}}
	if _, err := c.Estimate(req); model.AsFieldError(err) == nil || model.AsFieldError(err).Field != "hardware.count" {
		t.Fatalf("13B with AdamW on one H100: error %v, want hardware.count too small", err)
	}
	lean := req
	lean.Training.StateBytesPerParam = 4
	r := estimate(t, c, lean)
	if got, want := r.Memory.StateGBPerGPU, 4*r.Proxies.Params/1e9; math.Abs(got-want) > 1e-9*want {
		t.Errorf("state %.3f GB per GPU, want %.3f", got, want)
	}
	small := baseRequest()
	a := estimate(t, c, small)
	small.Training.StateBytesPerParam = 16
	b := estimate(t, c, small)
	if a.EnergyKWh != b.EnergyKWh {
		t.Errorf("explicit 16 bytes gives %g kWh, default %g", b.EnergyKWh, a.EnergyKWh)
	}
	small.Training.StateBytesPerParam = 4
	d := estimate(t, c, small)
	if !(d.Roofline.Bytes < a.Roofline.Bytes) || d.Roofline.FLOPs != a.Roofline.FLOPs || !(d.EnergyKWh < a.EnergyKWh) {
		t.Errorf("4 bytes: %g bytes, %g FLOPs, %g kWh; 16 bytes: %g, %g, %g; want less traffic and energy, same FLOPs",
			d.Roofline.Bytes, d.Roofline.FLOPs, d.EnergyKWh, a.Roofline.Bytes, a.Roofline.FLOPs, a.EnergyKWh)
	}
}

// TestTooManyGPUs: a GPU count that leaves the run less than one optimizer
// step (1,048,576 GPUs on 2e8 tokens) is refused on hardware.count with the
// largest count that works; a count leaving fewer than 100 steps is
// estimated with a warning.
func TestTooManyGPUs(t *testing.T) {
	cat := catalog(t)
	req := baseRequest()
	req.Training.Tokens = 2e8
	req.Training.SeqLen = 128
	req.Training.BatchPerGPU = 32
	req.Strategy = model.Strategy{Name: model.DDP}
	steps := func(n int) float64 { return 2e8 / float64(128*32*n) }
	for _, n := range []float64{1 << 20, 65536, 48829} {
		req.Hardware.Count = n
		_, err := cat.Estimate(req)
		fe := model.AsFieldError(err)
		if fe == nil || fe.Field != "hardware.count" || !strings.Contains(fe.Message, "at most 48828 GPUs") {
			t.Errorf("%g GPUs (%.3g steps): error %v, want a hardware.count error naming 48828", n, steps(int(n)), err)
		}
	}
	req.Hardware.Count = 8192
	resp, err := cat.Estimate(req)
	if err != nil {
		t.Fatalf("8192 GPUs (%.3g steps): %v", steps(8192), err)
	}
	if !strings.Contains(strings.Join(resp.Warnings, "\n"), "only 5.96 optimizer steps") {
		t.Errorf("8192 GPUs: warnings %q lack the few-steps warning", resp.Warnings)
	}
	req.Hardware.Count = 4
	if resp, err = cat.Estimate(req); err != nil || strings.Contains(strings.Join(resp.Warnings, "\n"), "optimizer steps") {
		t.Errorf("4 GPUs: %v, warnings %q; want no few-steps warning", err, resp.Warnings)
	}
}

// TestDefaultPrecision leaves training.precision out: the estimate uses the
// accelerator's usual mixed-precision format, says so in its assumptions,
// and equals the estimate that names that format.
func TestDefaultPrecision(t *testing.T) {
	cat := catalog(t)
	for _, c := range []struct {
		gpu  string
		want model.Precision
	}{
		{"h100-sxm5", model.BF16},      // bf16 in hardware
		{"a100-sxm4-80gb", model.BF16}, // Ampere
		{"v100-sxm2-32gb", model.FP16}, // Volta: fp16 tensor cores, no bf16
		{"t4", model.FP16},             // Turing
		{"p100-pcie-16gb", model.FP32}, // Pascal: fp16 only at twice fp32, no tensor cores
	} {
		t.Run(c.gpu, func(t *testing.T) {
			req := model.Request{Model: model.ModelSpec{Preset: "bert-base"},
				Training: model.TrainingSpec{Tokens: 1e8, SeqLen: 128, BatchPerGPU: 8},
				Hardware: model.HardwareSpec{GPU: c.gpu, Count: 1}, Strategy: model.Strategy{Name: model.Single}}
			got, err := cat.Estimate(req)
			if err != nil {
				t.Fatal(err)
			}
			if got.Inputs.Precision != c.want {
				t.Errorf("precision left out on %s = %s, want %s", c.gpu, got.Inputs.Precision, c.want)
			}
			said := false
			for _, a := range got.Assumptions {
				said = said || strings.Contains(a, "training.precision not given: "+string(c.want))
			}
			if !said {
				t.Errorf("assumptions %q do not state the precision used", got.Assumptions)
			}
			req.Training.Precision = c.want
			named, err := cat.Estimate(req)
			if err != nil {
				t.Fatal(err)
			}
			if named.EnergyKWh != got.EnergyKWh {
				t.Errorf("energy with precision left out %.6g kWh, named %s %.6g kWh", got.EnergyKWh, c.want, named.EnergyKWh)
			}
		})
	}
}
