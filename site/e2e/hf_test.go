package e2e

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
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

// TestPlannerPasteFromHuggingFace drops the same three files on the
// planner's "Paste from Hugging Face" box for option 1 (the paper's
// sft-1b), which makes that option's student stage an estimate of the
// files' run; with run.json's GPU, layout and tokens per epoch typed into
// the row, the stage costs what the command line's planner gives for a
// student described by the three objects (go run ./site distill), the
// link carries the imported model as its shape, and a fresh tab opened on
// it gives the same stage.
func TestPlannerPasteFromHuggingFace(t *testing.T) {
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
	openCalc(t, ctx, srv.URL+"/planner/index.html")
	waitFor(t, ctx, "the paste box", `!!document.getElementById('hf-text') && document.getElementById('hf-row').options.length === 3`)
	// The three files dropped on the box at once, as from a file manager.
	files, _ := json.Marshal(map[string]string{"config.json": read("config.json"), "training_args.json": read("training_args.json"), "adapter_config.json": read("adapter_config.json")})
	eval[bool](t, ctx, `(function(){document.getElementById('hf-row').value = '1'; var dt = new DataTransfer(), f = `+string(files)+`;
		for (var name in f) dt.items.add(new File([f[name]], name, {type: 'application/json'}));
		document.getElementById('hf-text').dispatchEvent(new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true})); return true})()`)
	waitFor(t, ctx, "the files read", `/^Filled/.test(document.querySelector('.hf-status').textContent)`)
	if s := eval[string](t, ctx, `document.querySelector('.hf-status').textContent`); strings.Contains(s, "Not taken") {
		t.Errorf("the box says %q: the estimated student stage should take every value the files give", s)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('.hf-took tbody tr').length`); n < 30 {
		t.Errorf("the box lists %d keys, want every key of the three files", n)
	}
	for k, want := range map[string]string{"o1.smode": "estimate", "o1.s.model": "custom", "o1.s.layers": "32", "o1.s.hidden": "4096", "o1.s.kv_heads": "8", "o1.s.ffn": "14336", "o1.s.vocab": "128256", "o1.s.glu": "on",
		"o1.s.method": "qlora", "o1.s.rank": "64", "o1.s.length": "epochs", "o1.s.epochs": "1", "o1.s.state_bytes": "16", "o1.s.seq": "2048", "o1.s.precision": "bf16", "o1.s.ckpt": "on"} {
		if got := eval[string](t, ctx, `document.getElementById('f-`+k+`').value`); got != want {
			t.Errorf("after the paste %s = %q, want %q", k, got, want)
		}
	}
	choose(t, ctx, "o1.s.strategy", "single")
	for _, kv := range [][2]string{{"o1.s.gpu", "a100-sxm4-80gb"}, {"o1.s.count", "1"}, {"o1.s.dataset_tokens", "5e7"}} {
		if kv[0] == "o1.s.gpu" {
			choose(t, ctx, kv[0], kv[1])
			continue
		}
		typeInto(t, ctx, kv[0], kv[1])
	}
	if st := eval[string](t, ctx, `document.getElementById('calc-root').dataset.state`); st != "ok" {
		t.Fatalf("page state %q: %s", st, eval[string](t, ctx, `document.querySelector('.results .status').textContent`))
	}
	student := func(ctx context.Context) float64 {
		return eval[float64](t, ctx, `parseFloat(document.querySelector('[data-option="sft-1b (mine)"]').dataset.student)`)
	}
	got := student(ctx)

	var run map[string]any
	if err := json.Unmarshal([]byte(read("run.json")), &run); err != nil {
		t.Fatal(err)
	}
	var cfg, args, peft any
	for _, f := range []struct {
		name string
		dst  *any
	}{{"config.json", &cfg}, {"training_args.json", &args}, {"adapter_config.json", &peft}} {
		if err := json.Unmarshal([]byte(read(f.name)), f.dst); err != nil {
			t.Fatal(err)
		}
	}
	run["model"] = map[string]any{"hf_config": cfg}
	run["training"].(map[string]any)["hf_args"] = args
	run["training"].(map[string]any)["peft"] = peft
	plan, _ := json.Marshal(map[string]any{"options": []any{map[string]any{"name": "llama", "regime": "sft", "stages_kwh": map[string]any{"preprocess": 0, "eval": 0}, "student": run}}})
	var cli struct {
		Options []struct {
			StudentKWh float64 `json:"student_kwh"`
		} `json:"options"`
	}
	if err := json.Unmarshal(runCLI(t, plan, "distill"), &cli); err != nil || len(cli.Options) != 1 {
		t.Fatalf("distill: %v %+v", err, cli)
	}
	if d := relDiff(got, cli.Options[0].StudentKWh); !(d < 1e-9) || !(got > 0) {
		t.Errorf("the planner's student stage after the paste %.17g kWh, go run ./site distill on the three objects %.17g kWh", got, cli.Options[0].StudentKWh)
	}
	shot(t, ctx, "planner-hf-paste")
	// On a phone the list of keys wraps: the page does not scroll sideways.
	do(t, ctx, "phone width", chromedp.EmulateViewport(390, 844))
	waitFor(t, ctx, "the phone layout", `document.documentElement.clientWidth === 390`)
	if w := eval[int](t, ctx, `document.documentElement.scrollWidth`); w > 390 {
		t.Errorf("at 390 px after the paste the page is %d px wide", w)
	}
	shot(t, ctx, "planner-hf-paste-390")

	link := address(t, ctx)
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"o1.s.model": "custom", "o1.s.layers": "32", "o1.s.kv_heads": "8", "o1.s.glu": "on", "o1.s.method": "qlora", "o1.s.length": "epochs", "o1.s.dataset_tokens": "5e7"} {
		if g := u.Query().Get(k); g != want {
			t.Errorf("link %s: %s = %q, want %q", link, k, g, want)
		}
	}
	ctx2 := browser(t)
	openCalc(t, ctx2, link)
	if got2 := student(ctx2); got2 != got {
		t.Errorf("the link %s gives a student stage of %.17g kWh, the pasted form %.17g kWh", link, got2, got)
	}
}
