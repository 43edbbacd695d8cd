//go:build js && wasm

// Command planner is the distillation planner page's WebAssembly entry
// point: one function on the global object wattscale, calling package
// view (tested natively):
//
//	wattscale.render(json)   the planner's markup for a change to its form (view.Plan.Render)
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
	"github.com/wattscale/wattscale/wasm/calcapi/view"
	"github.com/wattscale/wattscale/wasm/jsexport"
)

func main() {
	jsexport.Run(func(cat *model.Catalog) map[string]jsexport.Func { return view.PlanFuncs(calcapi.New(cat)) })
}
