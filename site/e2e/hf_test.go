package e2e

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestHubIDInTheModelField checks that the model field takes the
// Hugging Face hub id of a preset (whose config.json the site ships as the
// preset's shape): the prerendered page and the started calculator offer
// the same choices, the hub id gives the command line's estimate, and the
// share link keeps it.
func TestHubIDInTheModelField(t *testing.T) {
	srv := serve(t, builtSite(t))
	const options = `JSON.stringify(Array.from(document.querySelectorAll('datalist[id$="-presets"] option')).map(function(o){return o.value+' | '+o.textContent}))`
	static := browser(t)
	noScript(t, static)
	do(t, static, "open without JavaScript", chromedp.Navigate(srv.URL+"/index.html"))
	before := eval[string](t, static, options)

	ctx := browser(t)
	openCalc(t, ctx, srv.URL+"/index.html")
	if after := eval[string](t, ctx, options); after != before {
		t.Errorf("the model field's choices differ:\nprerendered %s\nstarted     %s", before, after)
	}
	for _, kv := range [][2]string{{"model", "meta-llama/Meta-Llama-3-8B"}, {"tokens", "1e9"}, {"seq", "2048"}, {"batch", "4"}, {"gpu", "h100"}, {"count", "8"}} {
		typeInto(t, ctx, kv[0], kv[1])
	}
	if st := eval[string](t, ctx, `document.getElementById('calc-root').dataset.state`); st != "ok" {
		t.Fatalf("page state %q: %s", st, eval[string](t, ctx, `document.querySelector('.results .status').textContent`))
	}
	got := pageEnergy(t, ctx)
	want := estimateCLI(t, `{"model":{"preset":"meta-llama/Meta-Llama-3-8B"},"training":{"tokens":1e9,"seq_len":2048,"batch_per_gpu":4,"precision":"fp16"},"hardware":{"gpu":"h100-sxm5","count":8},"strategy":"fsdp","site":{"carbon_g_per_kwh":475,"usd_per_kwh":0.15,"region":"World average"}}`)
	if d := relDiff(got, want); !(d < 1e-9) {
		t.Errorf("page energy %.17g kWh for the hub id, site estimate %.17g kWh", got, want)
	}
	link := eval[string](t, ctx, `document.getElementById('share-url').value`)
	u, err := url.Parse(link)
	if err != nil || u.Query().Get("model") != "meta-llama/Meta-Llama-3-8B" {
		t.Fatalf("share link %s does not keep the hub id", link)
	}
	ctx2 := browser(t)
	openCalc(t, ctx2, link)
	if got2 := pageEnergy(t, ctx2); got2 != got {
		t.Errorf("energy from the link %.17g kWh, before %.17g kWh", got2, got)
	}
}

// TestPasteFromHuggingFace pastes the three files of content/examples'
// Llama-3-8B QLoRA run into the calculator's "Paste from Hugging Face"
// box, sets what run.json says (the GPU, one of them, single, one epoch's
// tokens) and requires the command line's answer for the same files
// (go run ./site estimate -hf-config … -hf-args … -peft … < run.json), the
// keys listed, and the share link to give the same estimate.
func TestPasteFromHuggingFace(t *testing.T) {
	dir := filepath.Join(repoRoot(t), "content", "examples", "hf-llama-3-8b-qlora")
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	srv := serve(t, builtSite(t))
	ctx := browser(t)
	openCalc(t, ctx, srv.URL+"/index.html")
	waitFor(t, ctx, "the paste box", `!!document.getElementById('hf-text')`)
	files, _ := json.Marshal(read("config.json") + "\n" + read("training_args.json") + "\n" + read("adapter_config.json"))
	eval[bool](t, ctx, `(function(){document.getElementById('hf-text').value = `+string(files)+`; document.getElementById('hf-go').click(); return true})()`)
	waitFor(t, ctx, "the files read", `/^Filled/.test(document.querySelector('.hf-status').textContent)`)
	if n := eval[int](t, ctx, `document.querySelectorAll('.hf-took tbody tr').length`); n < 30 {
		t.Errorf("the box lists %d keys, want every key of the three files", n)
	}
	choose(t, ctx, "strategy", "single")
	for _, kv := range [][2]string{{"gpu", "a100-sxm4-80gb"}, {"count", "1"}, {"dataset_tokens", "5e7"}} {
		typeInto(t, ctx, kv[0], kv[1])
	}
	if st := eval[string](t, ctx, `document.getElementById('calc-root').dataset.state`); st != "ok" {
		t.Fatalf("page state %q: %s", st, eval[string](t, ctx, `document.querySelector('.results .status').textContent`))
	}
	got := pageEnergy(t, ctx)
	out := runCLI(t, []byte(read("run.json")), "estimate", "-hf-config", filepath.Join(dir, "config.json"), "-hf-args", filepath.Join(dir, "training_args.json"), "-peft", filepath.Join(dir, "adapter_config.json"))
	var cli struct {
		EnergyKWh float64 `json:"energy_kwh"`
	}
	if err := json.Unmarshal(out, &cli); err != nil {
		t.Fatal(err)
	}
	if d := relDiff(got, cli.EnergyKWh); !(d < 1e-9) {
		t.Errorf("page energy after the paste %.17g kWh, go run ./site estimate on the files %.17g kWh", got, cli.EnergyKWh)
	}
	link := eval[string](t, ctx, `document.getElementById('share-url').value`)
	ctx2 := browser(t)
	openCalc(t, ctx2, link)
	if got2 := pageEnergy(t, ctx2); got2 != got {
		t.Errorf("the share link %s gives %.17g kWh, the pasted form %.17g kWh", link, got2, got)
	}
}
