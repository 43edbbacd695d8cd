//go:build js && wasm

// Command planner is the distillation planner page's WebAssembly entry
// point: the calculator's functions (wasm/calc) and the planner's, on the
// same global object, wattscale, calling package calcapi (tested
// natively):
//
//	wattscale.meta()             presets, GPUs, calibrations, grid presets, default form
//	wattscale.estimate(json)     as in wasm/calc
//	wattscale.recommend(json)    as in wasm/calc
//	wattscale.addCalibration(json) as in wasm/calc
//	wattscale.sampleCSV()        as in wasm/calc
//	wattscale.distill(json)      {"form"|"plan"} -> {"plan","result","error"}
//	wattscale.distillRecommend(json) {"form"} -> {"request","result","error"}: cheaper hardware per stage
//	wattscale.plannerMeta()      the paper's presets and ready-made plans
//
// The calibrations are the module's (content.Catalog), or those the page
// hands over in window.wattscaleCalibrations before the program starts
// (content.ShippedCatalog; jsexport.Catalog).
//
// Build: GOOS=js GOARCH=wasm go build -trimpath -ldflags="-s -w" -o planner.wasm ./wasm/planner
package main

import (
	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/wasm/calcapi"
	"github.com/wattscale/wattscale/wasm/jsexport"
)

func main() {
	jsexport.Run(func(cat *model.Catalog) map[string]jsexport.Func { return calcapi.New(cat).PlannerFuncs() })
}
