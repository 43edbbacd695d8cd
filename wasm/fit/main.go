//go:build js && wasm

// Command fit is the WebAssembly of the calculator's and the planner's
// on-demand boxes, a separate module from the calculator because they are
// large: the refit, which carries gonum (through model/fit), and the
// import of Hugging Face files. The page loads it only when a user first
// touches one of the boxes (view.HFBox, view.RefitBox).
//
// On a page it registers one function, which calc.js calls with each event
// of a box:
//
//	wattscale_fit.box(section, event, hooks, how)
//
// event is {type, target, files} (the files of a drop, read while the
// event lasted); hooks are the page's: tell(element, kind, text) puts a
// status line in place, form() and take(values) read and fill the form the
// Hugging Face files fill (take answers the keys it could not take),
// use(calibration, anyway) makes the calculator use a refit (answering
// its addCalibration's {} or {"error"}), and worker(), where the page can
// start one, a Web Worker running this program; how is the way the page
// loaded it. The box does the rest (box.go): it reads files, runs
// package hfapi and fitapi (tested natively) and says each step in the
// words of package view.
//
// In a Web Worker it answers each message the page posts, fitapi.Input as
// JSON, with {out: fitapi.Fit's answer}, having first posted {ready: true}:
// a fit takes seconds, which the page's thread does not wait for.
//
// Build: GOOS=js GOARCH=wasm go build -trimpath -ldflags="-s -w" -o fit.wasm ./wasm/fit
package main

import (
	"syscall/js"

	"github.com/wattscale/wattscale/wasm/fitapi"
	"github.com/wattscale/wattscale/wasm/jsexport"
)

func main() {
	self := js.Global()
	if self.Get("document").IsUndefined() {
		self.Set("onmessage", js.FuncOf(func(_ js.Value, a []js.Value) any {
			self.Call("postMessage", map[string]any{"out": string(fitapi.Fit([]byte(a[0].Get("data").String())))})
			return nil
		}))
		self.Call("postMessage", map[string]any{"ready": true})
		select {}
	}
	jsexport.ExportJS("wattscale_fit", "wattscaleFitReady", map[string]func(js.Value, []js.Value) any{"box": onBox})
}
