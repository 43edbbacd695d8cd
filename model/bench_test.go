package model_test

import (
	"testing"

	"github.com/wattscale/wattscale/model"
)

// The estimate benchmarks report cpu-ns/op beside ns/op: the process's CPU
// time per operation (garbage collection included), which a loaded shared
// machine inflates far less than wall time.

// BenchmarkEstimate times one estimate (issue goal: under 2 µs natively).
func BenchmarkEstimate(b *testing.B) {
	c := catalog(b)
	req := baseRequest()
	b.ReportAllocs()
	c0, n := cpuNanos(), 0
	for b.Loop() {
		if _, err := c.Estimate(req); err != nil {
			b.Fatal(err)
		}
		n++
	}
	reportCPU(b, c0, n)
}

// BenchmarkSweep10000 times a sweep of 10,000 configurations: 4 strategies ×
// 50 GPU counts × 50 batch sizes (issue goal: under 20 ms natively).
func BenchmarkSweep10000(b *testing.B) {
	c := catalog(b)
	s := model.SweepRequest{Base: baseRequest(), Strategies: []string{model.DDP, model.FSDP, model.TP, model.Single}}
	for n := 1; n <= 50; n++ {
		s.Counts = append(s.Counts, n)
		s.Batches = append(s.Batches, n)
	}
	b.ReportAllocs()
	c0, n := cpuNanos(), 0
	for b.Loop() {
		pts, err := c.Sweep(s)
		if err != nil {
			b.Fatal(err)
		}
		if len(pts) < 7500 {
			b.Fatalf("sweep gave %d points", len(pts))
		}
		n++
	}
	reportCPU(b, c0, n)
}

// BenchmarkEstimateLoRA times one LoRA estimate (issue 12 goal: under 2 µs
// natively): Llama-2-70B, rank 16 on every linear layer, checkpointing,
// fsdp over 8 H100s.
func BenchmarkEstimateLoRA(b *testing.B) {
	c := catalog(b)
	req := peftRequest("llama-2-70b", model.MethodLoRA, "h100", 8, model.FSDP)
	req.Training.LoRA = &model.LoRASpec{Rank: 16, Targets: model.TargetsAttentionMLP}
	req.Training.GradientCheckpointing = boolp(true)
	b.ReportAllocs()
	c0, n := cpuNanos(), 0
	for b.Loop() {
		if _, err := c.Estimate(req); err != nil {
			b.Fatal(err)
		}
		n++
	}
	reportCPU(b, c0, n)
}

// reportCPU reports the CPU time per operation since c0 (cpuNanos) over n
// operations, where the platform can measure it.
func reportCPU(b *testing.B, c0 int64, n int) {
	if c1 := cpuNanos(); c0 >= 0 && c1 >= 0 && n > 0 {
		b.ReportMetric(float64(c1-c0)/float64(n), "cpu-ns/op")
	}
}
