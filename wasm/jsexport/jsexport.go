//go:build js && wasm

// Package jsexport is the syscall/js glue the WebAssembly entry points
// (calculator, planner, refit) share: it builds the catalog (Catalog) and
// registers Go functions on one global object, then tells the page: the
// planner's and the refit's take and return JSON strings (Func, Run), the
// calculator's plain values (ValueFunc, RunValues: no JSON codec). The
// functions themselves are package calcapi's, view's and fitapi's, tested
// natively.
package jsexport

import (
	"syscall/js"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
)

// Catalog is the catalog of the calibrations compiled in (content's), or,
// when the page hands over its content tree's own (calc.js sets
// window.wattscaleCalibrations from the page's data-calibrations, which
// the site build writes when the tree's calibrations differ from the
// module's), of those.
func Catalog() (*model.Catalog, error) {
	if v := js.Global().Get("wattscaleCalibrations"); v.Type() == js.TypeString {
		return content.ShippedCatalog([]byte(v.String()))
	}
	return content.Catalog()
}

// Func is an exported function: the first argument's string as bytes (nil
// when it is missing or not a string; calcapi then answers with a JSON
// error) to the JSON answer.
type Func = func(arg []byte) []byte

// Export sets the global object name to one JavaScript function per entry
// of fns, calls the global function readyHook if the page defined one, and
// blocks forever so the functions stay callable.
func Export(name, readyHook string, fns map[string]Func) {
	obj := js.Global().Get("Object").New()
	for k, f := range fns {
		obj.Set(k, js.FuncOf(func(_ js.Value, args []js.Value) any { return string(f(arg(args))) }))
	}
	publish(name, readyHook, obj)
}

// ExportJS is Export for functions over JavaScript values (fit.wasm's
// box, which handles a page's events).
func ExportJS(name, readyHook string, fns map[string]func(this js.Value, args []js.Value) any) {
	obj := js.Global().Get("Object").New()
	for k, f := range fns {
		obj.Set(k, js.FuncOf(f))
	}
	publish(name, readyHook, obj)
}

// ValueFunc is an exported function over plain values, without a JSON
// codec: the call's arguments as Go values (goValue: a string, a number
// as float64, a boolean, []any for an array, map[string]any for another
// object; nil for anything else) to its answer, which js.ValueOf turns
// into a JavaScript value (nil, bool, numbers, string, []any,
// map[string]any). The calculator's functions (view.CalcFuncs) are such;
// their logic is plain Go, tested natively.
type ValueFunc = func(args []any) any

// ExportValues is Export for ValueFuncs.
func ExportValues(name, readyHook string, fns map[string]ValueFunc) {
	isArray, objectKeys = js.Global().Get("Array").Get("isArray"), js.Global().Get("Object").Get("keys")
	obj := js.Global().Get("Object").New()
	for k, f := range fns {
		obj.Set(k, js.FuncOf(func(_ js.Value, args []js.Value) any {
			in := make([]any, len(args))
			for i, a := range args {
				in[i] = goValue(a)
			}
			return js.ValueOf(f(in))
		}))
	}
	publish(name, readyHook, obj)
}

// isArray and objectKeys are Array.isArray and Object.keys, looked up
// once (ExportValues) for goValue.
var isArray, objectKeys js.Value

// goValue is v as a plain Go value (ValueFunc), an object's own
// enumerable keys (Object.keys) and an array's elements converted in turn.
func goValue(v js.Value) any {
	switch v.Type() {
	case js.TypeString:
		return v.String()
	case js.TypeNumber:
		return v.Float()
	case js.TypeBoolean:
		return v.Bool()
	case js.TypeObject:
		if isArray.Invoke(v).Bool() {
			a := make([]any, v.Length())
			for i := range a {
				a[i] = goValue(v.Index(i))
			}
			return a
		}
		keys := objectKeys.Invoke(v)
		m := make(map[string]any, keys.Length())
		for i := 0; i < keys.Length(); i++ {
			k := keys.Index(i).String()
			m[k] = goValue(v.Get(k))
		}
		return m
	}
	return nil
}

// RunValues is Run for ValueFuncs: the calculator's main.
func RunValues(fns func(*model.Catalog) map[string]ValueFunc) {
	mark("goMainMs")
	cat, err := Catalog()
	if err != nil {
		Fail(err)
		return
	}
	mark("goCatalogMs")
	ExportValues("wattscale", "wattscaleReady", fns(cat))
}

// publish sets the global object name to obj, calls the global function
// readyHook if the page defined one, and blocks forever so the functions
// stay callable.
func publish(name, readyHook string, obj js.Value) {
	js.Global().Set(name, obj)
	if ready := js.Global().Get(readyHook); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {}
}

// Run builds the catalog and exports the functions fns makes from it on
// the global object wattscale (then calls wattscaleReady), or records why
// the catalog could not be built (Fail): the calculator's and the
// planner's main.
//
// It notes when its main began (after the Go runtime started and every
// package was initialised) and when the catalog was built, in
// window.wattscalePerf's goMainMs and goCatalogMs (performance.now(), ms
// from the navigation), beside calc.js's own steps: the evidence for
// where the WebAssembly's start-up goes in the browser (the issue 17
// traces and the first-paint report print them).
func Run(fns func(*model.Catalog) map[string]Func) {
	mark("goMainMs")
	cat, err := Catalog()
	if err != nil {
		Fail(err)
		return
	}
	mark("goCatalogMs")
	Export("wattscale", "wattscaleReady", fns(cat))
}

// mark sets window.wattscalePerf[name] to performance.now() where the page
// has both (two calls into JavaScript, a few microseconds).
func mark(name string) {
	perf, now := js.Global().Get("wattscalePerf"), js.Global().Get("performance")
	if perf.Type() == js.TypeObject && now.Type() == js.TypeObject {
		perf.Set(name, now.Call("now"))
	}
}

// Fail records why the program could not start in the global
// wattscaleError, which the page shows, and returns.
func Fail(err error) {
	js.Global().Set("wattscaleError", err.Error())
}

// arg returns the first argument as bytes, or nil when it is not a string.
func arg(args []js.Value) []byte {
	if len(args) == 0 || args[0].Type() != js.TypeString {
		return nil
	}
	return []byte(args[0].String())
}
