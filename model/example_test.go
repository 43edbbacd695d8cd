package model_test

import (
	"fmt"
	"strings"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
)

// ExampleCatalog_Estimate estimates fine-tuning BERT-base on 200 M tokens
// on four A100s with FSDP.
func ExampleCatalog_Estimate() {
	cat, err := content.Catalog()
	if err != nil {
		panic(err)
	}
	req, err := model.ParseRequest(strings.NewReader(`{"model": {"preset": "bert-base"},
	 "training": {"tokens": 2.0e8, "seq_len": 128, "batch_per_gpu": 32, "precision": "fp16"},
	 "hardware": {"gpu": "a100-sxm4-80gb", "count": 4}, "strategy": "fsdp"}`))
	if err != nil {
		panic(err)
	}
	r, err := cat.Estimate(req)
	if err != nil {
		panic(err)
	}
	fmt.Printf("calibration %s, η = %.2f, below roofline bound: %v\n", r.Calibration.Name, r.Parallel.Efficiency, r.EnergyKWh < r.Roofline.EnergyLowerBoundKWh)
	// Output: calibration wattscale-roofline, η = 0.63, below roofline bound: false
}

// ExampleCatalog_Estimate_error shows the one-line error for a bad field.
func ExampleCatalog_Estimate_error() {
	cat, _ := content.Catalog()
	req, _ := model.ParseRequest(strings.NewReader(`{"model": {"preset": "bert-base"},
	 "training": {"tokens": 2.0e8, "seq_len": 128, "batch_per_gpu": 0, "precision": "fp16"},
	 "hardware": {"gpu": "a100", "count": 1}, "strategy": "single"}`))
	_, err := cat.Estimate(req)
	fmt.Println(err)
	// Output: training.batch_per_gpu: must be a whole number from 1 to 65536, got 0
}

// ExampleSpeedupLaw shows the tensor-parallel curve fitted on RTX 2080 Ti
// over PCIe: slower than one GPU.
func ExampleSpeedupLaw() {
	cat, _ := content.Catalog()
	cal, _ := cat.Calibration("")
	tp := cal.Speedup[model.PCIe].TP
	fmt.Printf("S(1) = %.3f, S(2) = %.3f, S(4) = %.3f\n", tp.Speedup(1), tp.Speedup(2), tp.Speedup(4))
	// Output: S(1) = 1.000, S(2) = 0.429, S(4) = 0.428
}
