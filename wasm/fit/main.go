//go:build js && wasm

// Command fit is the browser refit's WebAssembly entry point, a separate
// module from the calculator because it carries gonum (through model/fit).
// The calculator page loads it only when a user asks for a refit. It
// registers:
//
//	wattscale_fit.fit(json)   {"csv", "name", "kind"} -> {"calibration", "rows", "error"}
//
// Build: GOOS=js GOARCH=wasm go build -trimpath -ldflags="-s -w" -o fit.wasm ./wasm/fit
package main

import (
	"github.com/wattscale/wattscale/wasm/fitapi"
	"github.com/wattscale/wattscale/wasm/jsexport"
)

func main() {
	jsexport.Export("wattscale_fit", "wattscaleFitReady", map[string]jsexport.Func{"fit": fitapi.Fit})
}
