//go:build js && wasm

package main

import (
	"encoding/json"
	"strings"
	"syscall/js"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/wasm/calcapi"
	"github.com/wattscale/wattscale/wasm/calcapi/view"
	"github.com/wattscale/wattscale/wasm/fitapi"
	"github.com/wattscale/wattscale/wasm/hfapi"
)

// A box is one of the page's boxes and what it keeps between events.
type box interface{ on(ev js.Value) }

var boxes []struct {
	sec js.Value
	b   box
}

// onBox is wattscale_fit.box: the event goes to its box, made on the
// box's first.
func onBox(_ js.Value, a []js.Value) any {
	sec, ev, hooks, how := a[0], a[1], a[2], a[3]
	for _, x := range boxes {
		if x.sec.Equal(sec) {
			x.b.on(ev)
			return nil
		}
	}
	var b box
	if sec.Get("classList").Call("contains", "refit").Bool() {
		b = &refitBox{sec: sec, hooks: hooks, how: how.String()}
	} else {
		b = &hfBox{sec: sec, hooks: hooks}
	}
	boxes = append(boxes, struct {
		sec js.Value
		b   box
	}{sec, b})
	b.on(ev)
	return nil
}

// hfBox is the "Paste from Hugging Face" box: the files pasted, dropped or
// typed (then Fill) fill the form (package hfapi).
type hfBox struct{ sec, hooks js.Value }

func (b *hfBox) on(ev js.Value) {
	switch ev.Get("type").String() {
	case "click":
		if is(ev, "#hf-go") {
			b.read()
		}
	case "paste":
		later(0, b.read) // once the browser has put the text in
	case "drop":
		if files := ev.Get("files"); files.Length() > 0 {
			go func() {
				ts, err := texts(files)
				if err != nil {
					tell(b.hooks, q(b.sec, ".hf-status"), view.HFFailed(err.Error()))
					return
				}
				q(b.sec, "#hf-text").Set("value", strings.Join(ts, "\n"))
				b.read()
			}()
		}
	}
}

// read reads the box's files against the page's form and fills it.
func (b *hfBox) read() {
	text, st, out := q(b.sec, "#hf-text").Get("value").String(), q(b.sec, ".hf-status"), q(b.sec, ".hf-out")
	if strings.TrimSpace(text) == "" {
		return
	}
	tell(b.hooks, st, view.HFReading())
	in := hfapi.Input{Files: []string{text}}
	o := hfapi.Output{Error: &calcapi.Error{Text: "the form is not a set of values"}}
	if json.Unmarshal([]byte(js.Global().Get("JSON").Call("stringify", b.hooks.Call("form")).String()), &in.Form) == nil {
		o = hfapi.Read(in)
	}
	if o.Error != nil {
		tell(b.hooks, st, view.HFFailed(o.Error.Text))
		out.Set("innerHTML", "")
		return
	}
	left := b.hooks.Call("take", toJS(o.Form))
	var keys []string
	for i := range left.Length() {
		keys = append(keys, left.Index(i).String())
	}
	tell(b.hooks, st, view.HFFilled(len(o.Form)-len(keys), len(o.Took), keys))
	out.Set("innerHTML", o.HTML)
}

// refitBox is the refit: a measurement CSV (chosen, dropped, pasted or the
// sample) fitted (package fitapi) in a Web Worker where the page can start
// one, else on the page's thread; the result offered to the calculator.
type refitBox struct {
	sec, hooks js.Value
	how        string // how the page loaded fit.wasm
	name       string // the CSV's file name: the file's, or the sample's
	sampleSet  bool   // the sample's download link is made

	run       int      // counts fits begun and stopped: an answer for an earlier one is dropped
	worker    js.Value // the Web Worker fitting, if any
	listeners []js.Func
	step      string  // what the fit is doing (view.RefitLoading, view.RefitFitting)
	t0        float64 // when it began (performance.now(), ms)
	timer     js.Value
	res       fitapi.Output // the last fit made
}

// sampleName is the name the sample CSV is cited and downloaded by.
const sampleName = "wattscale-sample-synthetic.csv"

func (b *refitBox) on(ev js.Value) {
	switch ev.Get("type").String() {
	case "change":
		if is(ev, "#refit-file") {
			if f := ev.Get("target").Get("files").Index(0); f.Truthy() {
				go func() {
					if t, err := await(f.Call("text")); err == nil {
						q(b.sec, "#refit-text").Set("value", t)
						b.name = f.Get("name").String()
					}
				}()
			}
		} else if is(ev, ".use-anyway") {
			q(b.sec, ".use-cal").Set("disabled", !ev.Get("target").Get("checked").Bool())
		}
	case "click":
		switch {
		case is(ev, ".sample-dl"):
			// calc.js held back the clicks before the link was made.
			if !b.sampleSet {
				if csv, ok := b.sample(); ok {
					a := q(b.sec, ".sample-dl")
					a.Set("href", blobURL(csv, "text/csv"))
					b.sampleSet = true
					a.Call("click")
				}
			}
		case is(ev, "#refit-sample"):
			if csv, ok := b.sample(); ok {
				q(b.sec, "#refit-text").Set("value", csv)
				b.name = sampleName
				q(b.sec, "#refit-file").Set("value", "")
			}
		case is(ev, "#refit-go"):
			go b.start()
		case is(ev, "#refit-cancel"):
			b.stop()
			tell(b.hooks, q(b.sec, ".refit-status"), view.RefitCancelled())
			b.state("cancelled")
		case is(ev, ".use-cal"):
			b.use()
		}
	case "drop":
		if files := ev.Get("files"); files.Length() > 0 {
			go func() {
				ts, err := texts(files)
				if err != nil {
					return
				}
				ta := ev.Get("target").Call("closest", "textarea")
				if ta.IsNull() || ta.Get("id").String() == "refit-text" {
					ta = q(b.sec, "#refit-text")
					b.name = files.Index(0).Get("name").String()
				}
				ta.Set("value", strings.Join(ts, "\n"))
			}()
		}
	}
}

// sample is the sample CSV (fitapi.SampleCSV) from the page's catalog, or
// false with the error said.
func (b *refitBox) sample() (string, bool) {
	cat, err := content.Catalog()
	var csv []byte
	if err == nil {
		csv, err = fitapi.SampleCSV(cat, fitapi.SampleSeed)
	}
	if err != nil {
		tell(b.hooks, q(b.sec, ".refit-status"), view.RefitBroken(err.Error()))
		return "", false
	}
	return string(csv), true
}

func (b *refitBox) state(s string) { b.sec.Get("dataset").Set("state", s) }

// start fits the box's CSV (in a goroutine: it may wait for the chosen
// file's text).
func (b *refitBox) start() {
	st, file := q(b.sec, ".refit-status"), q(b.sec, "#refit-file").Get("files").Index(0)
	ask := fitapi.Ask{CSV: q(b.sec, "#refit-text").Get("value").String(), Name: b.name, Kind: q(b.sec, "#refit-kind").Get("value").String(),
		CodeCarbon: q(b.sec, "#refit-cc").Get("value").String(), Scope: q(b.sec, "#refit-scope").Get("value").String(),
		StartedMs: js.Global().Get("Date").Call("now").Float()}
	if file.Truthy() {
		if strings.TrimSpace(ask.CSV) == "" {
			if t, err := await(file.Call("text")); err == nil {
				ask.CSV = t.String()
			}
		}
		if ask.Name == "" {
			ask.Name = file.Get("name").String()
		}
	}
	arg, step, bad := fitapi.Prepare(ask)
	if bad != nil {
		tell(b.hooks, st, *bad)
		if bad.Kind == "error" {
			b.state("error")
		}
		return
	}
	b.stop()
	run := b.run
	q(b.sec, ".refit-progress").Set("hidden", false)
	q(b.sec, "#refit-cancel").Set("hidden", false)
	q(b.sec, "#refit-go").Set("disabled", true)
	b.state("loading")
	b.t0 = msNow()
	b.at(view.RefitLoading)
	tick := js.FuncOf(func(js.Value, []js.Value) any { b.tick(); return nil })
	b.listeners = append(b.listeners, tick)
	b.timer = js.Global().Call("setInterval", tick, 500)
	fitting := func(how string) {
		b.sec.Get("dataset").Set("wasmSource", how)
		b.state("fitting")
		b.at(step)
	}
	if b.hooks.Get("worker").Type() != js.TypeFunction {
		fitting(b.how)
		later(30, func() { // the step painted first
			if run == b.run {
				b.done(string(fitapi.Fit(arg)))
			}
		})
		return
	}
	b.worker = b.hooks.Call("worker")
	msg := js.FuncOf(func(_ js.Value, a []js.Value) any {
		switch d := a[0].Get("data"); {
		case run != b.run:
		case d.Get("ready").Truthy():
			fitting("worker")
			b.worker.Call("postMessage", string(arg))
		case d.Get("error").Truthy():
			b.broken(d.Get("error").String())
		default:
			b.done(d.Get("out").String())
		}
		return nil
	})
	fail := js.FuncOf(func(_ js.Value, a []js.Value) any {
		if run == b.run {
			b.broken(errText(a[0], "the fitting worker failed"))
		}
		return nil
	})
	b.listeners = append(b.listeners, msg, fail)
	b.worker.Set("onmessage", msg)
	b.worker.Set("onerror", fail)
}

// at shows the step the fit is at.
func (b *refitBox) at(step string) {
	b.step = step
	tell(b.hooks, q(b.sec, ".refit-status"), view.RefitStep(step))
	b.tick()
}

func (b *refitBox) tick() {
	q(b.sec, ".refit-elapsed").Set("textContent", view.RefitElapsed(b.step, (msNow()-b.t0)/1000))
}

// stop ends the fit running, if any (its answer will be dropped), and
// puts the box's buttons back.
func (b *refitBox) stop() {
	b.run++
	if b.worker.Truthy() {
		b.worker.Call("terminate")
		b.worker = js.Undefined()
	}
	if b.timer.Truthy() {
		js.Global().Call("clearInterval", b.timer)
		b.timer = js.Undefined()
	}
	for _, f := range b.listeners {
		f.Release()
	}
	b.listeners = nil
	q(b.sec, ".refit-progress").Set("hidden", true)
	q(b.sec, "#refit-cancel").Set("hidden", true)
	q(b.sec, "#refit-go").Set("disabled", false)
}

// broken says the fitting module failed (err).
func (b *refitBox) broken(err string) {
	b.stop()
	tell(b.hooks, q(b.sec, ".refit-status"), view.RefitBroken(err))
	b.state("error")
}

// done shows Fit's answer: the report and its status, or why it failed.
func (b *refitBox) done(answer string) {
	b.stop()
	o, st, cal := fitapi.Outcome([]byte(answer))
	tell(b.hooks, q(b.sec, ".refit-status"), st)
	out := q(b.sec, ".refit-out")
	if cal == "" {
		out.Set("innerHTML", "")
		b.state("error")
		return
	}
	b.res = o
	out.Set("innerHTML", o.HTML)
	b.state("done")
	checks := "passed"
	if len(o.Checks) > 0 {
		checks = "failed"
	}
	b.sec.Get("dataset").Set("checks", checks)
	q(out, ".dl").Set("href", blobURL(cal, "application/json"))
}

// use makes the calculator use the last fit (under the name plus
// "-yours" when it is one wattscale ships) and says so under it.
func (b *refitBox) use() {
	if b.res.Calibration == nil {
		return
	}
	c, failed := *b.res.Calibration, len(b.res.Checks) > 0
	res := b.hooks.Call("use", toJS(c), failed)
	if e := res.Get("error"); e.Truthy() && e.Get("code").String() == calcapi.CodeShippedName {
		c.Name += "-yours"
		res = b.hooks.Call("use", toJS(c), failed)
	}
	note := view.RefitUsed(c.Name, failed)
	if e := res.Get("error"); e.Truthy() {
		note = view.RefitNotUsed(errText(e.Get("say"), e.Get("message").String()))
	}
	q(b.sec, ".use-note").Set("textContent", note)
}

// msNow is the page's clock (performance.now(), ms).
func msNow() float64 { return js.Global().Get("performance").Call("now").Float() }

// q is el's first element that matches sel.
func q(el js.Value, sel string) js.Value { return el.Call("querySelector", sel) }

// is says whether the event's target is in an element that matches sel.
func is(ev js.Value, sel string) bool {
	t := ev.Get("target")
	return t.Get("closest").Type() == js.TypeFunction && !t.Call("closest", sel).IsNull()
}

// tell puts the status st in the element el (the page's hook).
func tell(hooks, el js.Value, st view.Status) { hooks.Call("tell", el, st.Kind, st.Text) }

// toJS is v as a JavaScript value, through JSON.
func toJS(v any) js.Value {
	b, err := json.Marshal(v)
	if err != nil {
		return js.Null()
	}
	return js.Global().Get("JSON").Call("parse", string(b))
}

// blobURL is an object URL for the text s of MIME type typ.
func blobURL(s, typ string) string {
	blob := js.Global().Get("Blob").New([]any{s}, map[string]any{"type": typ})
	return js.Global().Get("URL").Call("createObjectURL", blob).String()
}

// later calls f after ms milliseconds.
func later(ms int, f func()) {
	var fn js.Func
	fn = js.FuncOf(func(js.Value, []js.Value) any {
		fn.Release()
		f()
		return nil
	})
	js.Global().Call("setTimeout", fn, ms)
}

// await waits for the promise p (from a goroutine, never a callback).
func await(p js.Value) (js.Value, error) {
	type result struct {
		v   js.Value
		err error
	}
	ch := make(chan result, 1)
	ok := js.FuncOf(func(_ js.Value, a []js.Value) any { ch <- result{v: a[0]}; return nil })
	fail := js.FuncOf(func(_ js.Value, a []js.Value) any { ch <- result{err: js.Error{Value: a[0]}}; return nil })
	defer ok.Release()
	defer fail.Release()
	p.Call("then", ok, fail)
	r := <-ch
	if r.err != nil {
		return js.Value{}, jsError(errText(r.err.(js.Error).Value, "failed"))
	}
	return r.v, nil
}

type jsError string

func (e jsError) Error() string { return string(e) }

// texts are the texts of the files (a FileList or an array of Files).
func texts(files js.Value) ([]string, error) {
	var out []string
	for i := range files.Length() {
		t, err := await(files.Index(i).Call("text"))
		if err != nil {
			return nil, err
		}
		out = append(out, t.String())
	}
	return out, nil
}

// errText is a JavaScript error's message (or the value as a string, or
// def when it is empty).
func errText(v js.Value, def string) string {
	s := ""
	switch {
	case v.Type() == js.TypeObject && v.Get("message").Type() == js.TypeString:
		s = v.Get("message").String()
	case v.Type() == js.TypeString:
		s = v.String()
	case v.Truthy():
		s = js.Global().Call("String", v).String()
	}
	if s == "" {
		return def
	}
	return s
}
