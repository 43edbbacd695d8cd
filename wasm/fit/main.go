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
	"syscall/js"

	"github.com/wattscale/wattscale/wasm/fitapi"
)

func main() {
	obj := js.Global().Get("Object").New()
	obj.Set("fit", js.FuncOf(func(_ js.Value, args []js.Value) any {
		var in []byte
		if len(args) > 0 && args[0].Type() == js.TypeString {
			in = []byte(args[0].String())
		}
		return string(fitapi.Fit(in))
	}))
	js.Global().Set("wattscale_fit", obj)
	if ready := js.Global().Get("wattscaleFitReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {}
}
