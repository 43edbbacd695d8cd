//go:build js && wasm

// Command calc is the browser calculator's WebAssembly entry point (the
// calculator page and the embedded calculator). It registers one global
// object, wattscale, whose functions take and return JSON strings and call
// package calcapi (tested natively):
//
//	wattscale.render(json)       {"form", "changed", "widths", "embed"} -> {"html", "form", "query", "state", "post"}:
//	                             the calculator's markup for a form state (package view), which calc.js puts in place
//	wattscale.meta()             presets, GPUs, calibrations, grid presets, default form
//	wattscale.recommend(json)    {"form"} -> {"request","result","error"}: cheaper ways to run this
//	wattscale.addCalibration(json) {"calibrations": [...]} the user fitted -> {"calibrations"|"error"}
//	wattscale.sampleCSV()        a synthetic measurement CSV for trying the refit
//
// It leaves out the distillation planner (model/distill), which the
// calculator page does not use: the planner page loads wasm/planner, this
// set plus the planner's functions. The linker drops every calcapi
// method not called here, so calc.wasm is about 70 KB brotli lighter.
//
// The calibrations are the module's (content.Catalog), or those the page
// hands over in window.wattscaleCalibrations before the program starts
// (content.ShippedCatalog; jsexport.Catalog).
//
// Build: GOOS=js GOARCH=wasm go build -trimpath -ldflags="-s -w" -o calc.wasm ./wasm/calc
package main

import (
	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/wasm/calcapi"
	"github.com/wattscale/wattscale/wasm/calcapi/view"
	"github.com/wattscale/wattscale/wasm/jsexport"
)

func main() {
	jsexport.Run(func(cat *model.Catalog) map[string]jsexport.Func { return view.CalcFuncs(calcapi.New(cat)) })
}
