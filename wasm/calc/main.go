//go:build js && wasm

// Command calc is the browser calculator's WebAssembly entry point (the
// calculator page and the embedded calculator). It registers one global
// object, wattscale, whose functions take and return plain values (no
// JSON codec is linked) and call package view and calcapi (tested
// natively); view.CalcFuncs lists them:
//
//	wattscale.render(call)           call: {form, link, typed, changed, value, action, values, widths, embed, parts}
//	                                 -> {html | parts, form, show, query, address, state, post}: the
//	                                    calculator's markup for what the visitor did to the form, or
//	                                    at the start for the page's link (view.CalcCall), which
//	                                    calc.js puts in place
//	wattscale.advise(query, width)   the "cheaper ways to run this" panel's markup (view.Advice)
//	wattscale.addCalibration(json)   {"calibrations": [...]} the user fitted -> {} or {"error"}
//
// query is the form state as a query string (calcapi.ParseFormQuery).
//
// It leaves out the distillation planner (model/distill), which the
// calculator page does not use: the planner page loads wasm/planner.
//
// The calibrations are the module's (content.Catalog, generated Go
// values), or those the page hands over in window.wattscaleCalibrations
// before the program starts (content.ShippedCatalog; jsexport.Catalog).
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
	jsexport.RunValues(func(cat *model.Catalog) map[string]jsexport.ValueFunc { return view.CalcFuncs(calcapi.New(cat)) })
}
