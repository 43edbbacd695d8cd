//go:build js && wasm

// Command fit is the WebAssembly of the calculator's on-demand functions,
// a separate module from the calculator because they are large: the
// refit, which carries gonum (through model/fit), and the import of
// Hugging Face files (about 22 KB of brotli). The calculator page loads it
// only when a user asks for a refit or pastes a file. It registers:
//
//	wattscale_fit.fit(json)   {"csv", "name", "kind", "codecarbon", "scope", "started_ms"}
//	                          -> {"calibration", "rows", "checks", "html", "said", "error"} (wasm/fitapi)
//	wattscale_fit.hf(json)    {"files", "form"} -> {"form", "took", "notes", "html", "error"} (wasm/hfapi)
//
// The markup they answer with (html, said) is package view's.
//
// Build: GOOS=js GOARCH=wasm go build -trimpath -ldflags="-s -w" -o fit.wasm ./wasm/fit
package main

import (
	"github.com/wattscale/wattscale/wasm/fitapi"
	"github.com/wattscale/wattscale/wasm/hfapi"
	"github.com/wattscale/wattscale/wasm/jsexport"
)

func main() {
	jsexport.Export("wattscale_fit", "wattscaleFitReady", map[string]jsexport.Func{"fit": fitapi.Fit, "hf": hfapi.Import})
}
