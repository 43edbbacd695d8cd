//go:build js && wasm

// Command calc is the browser calculator's WebAssembly entry point. It
// registers one global object, wattscale, whose functions take and return
// JSON strings and call package calcapi (tested natively):
//
//	wattscale.meta()             presets, GPUs, calibrations, grid presets, default form
//	wattscale.estimate(json)     {"form"|"request", "sweep"} -> {"request","response","sweep","snippets","error"}
//	wattscale.recommend(json)    {"form"} -> {"request","result","error"}: cheaper ways to run this
//	wattscale.distill(json)      {"form"|"plan"} -> {"plan","result","error"}
//	wattscale.distillRecommend(json) {"form"} -> {"request","result","error"}: cheaper hardware per stage
//	wattscale.plannerMeta()      the paper's presets and ready-made plans
//	wattscale.addCalibration(json) {"calibrations": [...]} the user fitted -> {"calibrations"|"error"}
//	wattscale.sampleCSV()        a synthetic measurement CSV for trying the refit
//
// The calibrations are the module's (content.Catalog), or those the page
// hands over in window.wattscaleCalibrations before the program starts
// (content.ShippedCatalog).
//
// Build: GOOS=js GOARCH=wasm go build -trimpath -ldflags="-s -w" -o calc.wasm ./wasm/calc
package main

import (
	"syscall/js"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/wasm/calcapi"
)

func main() {
	cat, err := catalog()
	if err != nil {
		js.Global().Set("wattscaleError", err.Error())
		return
	}
	api := calcapi.New(cat)
	obj := js.Global().Get("Object").New()
	obj.Set("meta", js.FuncOf(func(js.Value, []js.Value) any { return string(api.Meta()) }))
	obj.Set("estimate", js.FuncOf(func(_ js.Value, args []js.Value) any { return string(api.Estimate(arg(args))) }))
	obj.Set("recommend", js.FuncOf(func(_ js.Value, args []js.Value) any { return string(api.Recommend(arg(args))) }))
	obj.Set("distill", js.FuncOf(func(_ js.Value, args []js.Value) any { return string(api.Distill(arg(args))) }))
	obj.Set("distillRecommend", js.FuncOf(func(_ js.Value, args []js.Value) any { return string(api.DistillRecommend(arg(args))) }))
	obj.Set("plannerMeta", js.FuncOf(func(js.Value, []js.Value) any { return string(api.PlannerMeta()) }))
	obj.Set("addCalibration", js.FuncOf(func(_ js.Value, args []js.Value) any { return string(api.AddCalibration(arg(args))) }))
	obj.Set("sampleCSV", js.FuncOf(func(js.Value, []js.Value) any { return string(api.SampleCSV()) }))
	js.Global().Set("wattscale", obj)
	if ready := js.Global().Get("wattscaleReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {}
}

// catalog is the catalog of the calibrations compiled in (content's), or,
// when the page hands over its content tree's own (calc.js sets
// window.wattscaleCalibrations from the page's data-calibrations, which
// the site build writes when the tree's calibrations differ from the
// module's), of those.
func catalog() (*model.Catalog, error) {
	if v := js.Global().Get("wattscaleCalibrations"); v.Type() == js.TypeString {
		return content.ShippedCatalog([]byte(v.String()))
	}
	return content.Catalog()
}

// arg returns the first argument as bytes, or nil when it is not a string
// (calcapi then answers with a JSON error).
func arg(args []js.Value) []byte {
	if len(args) == 0 || args[0].Type() != js.TypeString {
		return nil
	}
	return []byte(args[0].String())
}
