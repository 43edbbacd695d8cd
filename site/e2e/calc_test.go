package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/wattscale/wattscale/model"
)

// TestEstimateMatchesCLI types configurations into the calculator and
// compares the energy on screen (at full precision) with `go run ./site
// estimate` for the same request, written here by hand.
func TestEstimateMatchesCLI(t *testing.T) {
	srv := serve(t, builtSite(t))
	ctx := browser(t)
	openCalc(t, ctx, srv.URL+"/index.html")
	cases := []struct {
		name    string
		typed   [][2]string // text fields, typed
		chosen  [][2]string // selects and radios
		request string
	}{
		{"default page",
			nil, nil,
			`{"model":{"preset":"bert-base"},"training":{"tokens":2e8,"seq_len":512,"batch_per_gpu":32,"precision":"fp16"},"hardware":{"gpu":"a100-sxm4-80gb","count":4},"strategy":"fsdp","site":{"carbon_g_per_kwh":475,"usd_per_kwh":0.15,"region":"World average"}}`},
		{"llama on 8 H100 with tensor parallelism",
			[][2]string{{"model", "llama-3-8b"}, {"tokens", "1.5B"}, {"seq", "4096"}, {"batch", "2"}, {"gpu", "h100"}, {"count", "8"}, {"pue", "1.1"}, {"price", "0.2"}},
			[][2]string{{"precision", "bf16"}, {"strategy", "tp"}},
			`{"model":{"preset":"llama-3-8b"},"training":{"tokens":1.5e9,"seq_len":4096,"batch_per_gpu":2,"precision":"bf16"},"hardware":{"gpu":"h100-sxm5","count":8},"strategy":"tp","site":{"pue":1.1,"carbon_g_per_kwh":475,"usd_per_kwh":0.2}}`},
		{"custom shape, dataset by epochs, hybrid layout, French grid",
			[][2]string{{"layers", "24"}, {"hidden", "2048"}, {"heads", "16"}, {"kv_heads", "4"}, {"ffn", "5632"}, {"vocab", "32000"}, {"dataset_tokens", "5e7"}, {"epochs", "3"}, {"gpu", "a100-sxm4-80gb"}, {"count", "8"}, {"tensor", "2"}},
			[][2]string{{"model", "custom"}, {"glu", "1"}, {"length", "epochs"}, {"strategy", "hybrid"}, {"data_mode", "ddp"}, {"region", "fr"}, {"cal", "zoubeirou2026-bert-pooled"}},
			`{"model":{"layers":24,"hidden":2048,"heads":16,"kv_heads":4,"ffn":5632,"vocab":32000,"glu":true},"training":{"dataset_tokens":5e7,"epochs":3,"seq_len":4096,"batch_per_gpu":2,"precision":"bf16"},"hardware":{"gpu":"a100-sxm4-80gb","count":8},"strategy":{"tensor":2,"data":4,"data_mode":"ddp"},"site":{"pue":1.1,"carbon_g_per_kwh":56,"usd_per_kwh":0.2},"calibration":"zoubeirou2026-bert-pooled"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, kv := range c.chosen {
				if kv[0] == "model" {
					typeInto(t, ctx, kv[0], kv[1])
					continue
				}
				choose(t, ctx, kv[0], kv[1])
			}
			for _, kv := range c.typed {
				typeInto(t, ctx, kv[0], kv[1])
			}
			if st := eval[string](t, ctx, `document.getElementById('calc-root').dataset.state`); st != "ok" {
				t.Fatalf("page state %q, status %q", st, eval[string](t, ctx, `document.querySelector('.results .status').textContent`))
			}
			got := pageEnergy(t, ctx)
			want := estimateCLI(t, c.request)
			if d := relDiff(got, want); !(d < 1e-9) {
				t.Errorf("page energy %.17g kWh, site estimate %.17g kWh (relative difference %.3g)", got, want, d)
			}
			shown := eval[string](t, ctx, `document.getElementById('energy').textContent`)
			if strings.Contains(shown, "NaN") || strings.TrimSpace(shown) == "" {
				t.Errorf("energy shown as %q", shown)
			}
		})
	}
}

// TestSharedURLRestoresEveryField changes every field, opens the page's
// share link in a fresh tab and requires the same fields and result.
func TestSharedURLRestoresEveryField(t *testing.T) {
	srv := serve(t, builtSite(t))
	ctx := browser(t)
	openCalc(t, ctx, srv.URL+"/index.html")
	typeInto(t, ctx, "model", "custom")
	for _, kv := range [][2]string{{"glu", "1"}, {"head", "classifier"}, {"length", "epochs"}, {"precision", "bf16"}, {"strategy", "hybrid"}, {"data_mode", "ddp"}, {"region", "custom"}, {"cal", "wattscale-zeus-law"}, {"stack", "optimised"}} {
		choose(t, ctx, kv[0], kv[1])
	}
	for _, kv := range [][2]string{{"layers", "20"}, {"hidden", "1536"}, {"heads", "12"}, {"kv_heads", "4"}, {"ffn", "6144"}, {"vocab", "50000"},
		{"dataset_tokens", "3e7"}, {"epochs", "2.5"}, {"seq", "512"}, {"batch", "16"}, {"gpu", "a40"}, {"count", "6"}, {"tensor", "3"},
		{"carbon", "123"}, {"pue", "1.3"}, {"price", "0.21"}, {"state_bytes", "8"}, {"accum", "4"}, {"experts", "16"}, {"experts_per_token", "2"}} {
		typeInto(t, ctx, kv[0], kv[1])
	}
	const fields = `(function(){var o={};document.querySelectorAll('#calc-root .calc-form input, #calc-root .calc-form select').forEach(function(e){
  if (e.closest('[hidden]')) return;
  o[e.id] = e.type==='checkbox'||e.type==='radio' ? String(e.checked) : e.value;});return JSON.stringify(o)})()`
	before := eval[string](t, ctx, fields)
	energy := pageEnergy(t, ctx)
	if st := eval[string](t, ctx, `document.getElementById('calc-root').dataset.state`); st != "ok" {
		t.Fatalf("configuration gave state %q: %s", st, eval[string](t, ctx, `document.querySelector('.results .status').textContent`))
	}
	link := eval[string](t, ctx, `document.getElementById('share-url').value`)
	if loc := address(t, ctx); loc != link {
		t.Errorf("address bar %q differs from the share link %q", loc, link)
	}
	ctx2 := browser(t)
	openCalc(t, ctx2, link)
	after := eval[string](t, ctx2, fields)
	if after != before {
		t.Errorf("fields after opening the link differ:\nbefore %s\nafter  %s", before, after)
	}
	if got := pageEnergy(t, ctx2); got != energy {
		t.Errorf("energy from the link %.17g kWh, before %.17g kWh", got, energy)
	}
	u, _ := url.Parse(link)
	// Every row of the field table that applies to this form is an input
	// of the page and a key of the link, with nothing listed by hand.
	q := u.Query()
	for _, f := range model.RequestFields {
		if f.Key == "" || !f.When.Holds(q.Get) {
			continue
		}
		if !q.Has(f.Key) {
			t.Errorf("share link %s lacks %s", link, f.Key)
		}
		if n := eval[int](t, ctx2, `document.querySelectorAll('#calc-root .calc-form [name="`+f.Key+`"]').length`); n == 0 {
			t.Errorf("the form has no input named %s", f.Key)
		}
	}
	if q.Get("state_bytes") != "8" {
		t.Errorf("share link %s: state_bytes %q, want 8", link, q.Get("state_bytes"))
	}
	if q.Get("accum") != "4" {
		t.Errorf("share link %s: accum %q, want 4", link, q.Get("accum"))
	}
	if q.Get("stack") != "optimised" {
		t.Errorf("share link %s: stack %q, want optimised", link, q.Get("stack"))
	}
	if q.Get("experts") != "16" || q.Get("experts_per_token") != "2" {
		t.Errorf("share link %s: experts %q, experts_per_token %q, want 16 and 2", link, q.Get("experts"), q.Get("experts_per_token"))
	}
}

// TestInvalidInputIsShownBesideTheField checks the inline messages: the
// message sits beside the field, the field keeps what was typed, and the
// results never show NaN or go blank.
func TestInvalidInputIsShownBesideTheField(t *testing.T) {
	srv := serve(t, builtSite(t))
	ctx := browser(t)
	openCalc(t, ctx, srv.URL+"/index.html")
	good := pageEnergy(t, ctx)
	// Every prefix of each typed value is invalid too, so the estimate kept
	// on screen is the page's first.
	cases := []struct{ key, typed, want string }{
		{"tokens", "-2e8", "greater than 0"},
		{"tokens", "12abc", "must be a number"},
		{"gpu", "h900", "not a known"},
		{"batch", "0", "whole number"},
	}
	for _, c := range cases {
		t.Run(c.key+"="+c.typed, func(t *testing.T) {
			typeInto(t, ctx, c.key, c.typed)
			id := "f-" + c.key
			if v := eval[string](t, ctx, fmt.Sprintf(`document.getElementById(%q).value`, id)); v != c.typed {
				t.Errorf("field %s holds %q after typing %q", id, v, c.typed)
			}
			msg := eval[string](t, ctx, fmt.Sprintf(`document.getElementById(%q).textContent`, id+"-err"))
			if !strings.Contains(strings.ToLower(msg), c.want) {
				t.Errorf("message beside %s = %q, want one containing %q", id, msg, c.want)
			}
			if inv := eval[string](t, ctx, fmt.Sprintf(`document.getElementById(%q).getAttribute('aria-invalid')`, id)); inv != "true" {
				t.Errorf("%s aria-invalid = %q, want true", id, inv)
			}
			if d := eval[string](t, ctx, fmt.Sprintf(`document.getElementById(%q).getAttribute('aria-describedby')`, id)); !strings.Contains(d, id+"-err") {
				t.Errorf("%s aria-describedby = %q, want it to name %s-err", id, d, id)
			}
			text := eval[string](t, ctx, `document.querySelector('#calc-root .results').innerText`)
			if strings.Contains(text, "NaN") || strings.Contains(text, "undefined") || strings.Contains(text, "Infinity") {
				t.Errorf("results show NaN/undefined/Infinity:\n%s", text)
			}
			if got := pageEnergy(t, ctx); got != good {
				t.Errorf("energy while the input is bad = %v, want the last good %v kept", got, good)
			}
			if s := eval[string](t, ctx, `document.querySelector('.results .status').textContent`); !strings.Contains(s, "previous estimate") || !strings.HasPrefix(s, "Fix “") {
				t.Errorf("status %q does not name the field to fix and say the figures are the previous estimate", s)
			}
			// Putting the good value back clears the message.
			orig := map[string]string{"tokens": "2e8", "gpu": "a100-sxm4-80gb", "batch": "32"}[c.key]
			typeInto(t, ctx, c.key, orig)
			if msg := eval[string](t, ctx, fmt.Sprintf(`document.getElementById(%q).textContent`, id+"-err")); msg != "" {
				t.Errorf("message %q stays after fixing %s", msg, id)
			}
			if got := pageEnergy(t, ctx); got != good {
				t.Errorf("energy after fixing = %v, want %v", got, good)
			}
		})
	}
	t.Run("bad link with no estimate yet", func(t *testing.T) {
		openCalc(t, ctx, srv.URL+"/index.html?tokens=12abc&gpu=a100")
		if v := eval[string](t, ctx, `document.getElementById('f-tokens').value`); v != "12abc" {
			t.Errorf("tokens field holds %q, want the link's 12abc", v)
		}
		s := eval[string](t, ctx, `document.querySelector('.results .status').textContent`)
		if !strings.Contains(s, "must be a number") {
			t.Errorf("status %q, want the message", s)
		}
		if e := eval[string](t, ctx, `document.getElementById('energy').textContent`); e != "" {
			t.Errorf("energy shows %q with no valid estimate, want nothing (the message instead)", e)
		}
	})
}

// TestWorksFromFile opens the built index.html from disk, where fetch of
// the wasm is blocked and the loader must fall back to the embedded copy.
func TestWorksFromFile(t *testing.T) {
	dir := builtSite(t)
	srv := serve(t, dir)
	ctx := browser(t)
	openCalc(t, ctx, srv.URL+"/index.html?model=gpt2&count=2&strategy=ddp")
	if how := eval[string](t, ctx, `document.getElementById('calc-root').dataset.wasmSource`); how != "streaming" {
		t.Errorf("over HTTP the wasm loaded by %q, want streaming", how)
	}
	want := pageEnergy(t, ctx)
	abs, err := filepath.Abs(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	openCalc(t, ctx, "file://"+abs+"?model=gpt2&count=2&strategy=ddp")
	if how := eval[string](t, ctx, `document.getElementById('calc-root').dataset.wasmSource`); how != "embedded" {
		t.Errorf("from file:// the wasm loaded by %q, want embedded", how)
	}
	if got := pageEnergy(t, ctx); got != want {
		t.Errorf("file:// energy %v, over HTTP %v", got, want)
	}
	typeInto(t, ctx, "count", "4")
	if got := pageEnergy(t, ctx); got == want {
		t.Error("changing the GPU count from file:// did not change the estimate")
	}
}

// TestForeignPageEmbedding writes a plain HTML page that is not part of
// the site, serves it from another origin, embeds the calculator with the
// documented one line, and reads the estimate the frame reports.
func TestForeignPageEmbedding(t *testing.T) {
	site := serve(t, builtSite(t))
	foreign := t.TempDir()
	page := `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A lab blog</title></head><body>
<h1>Our fine-tuning budget</h1><p>Estimate below.</p>
<script src="` + site.URL + `/assets/embed.js" data-preset="llama-3-8b" data-query="gpu=h100&count=8&strategy=fsdp&seq=2048&batch=4&precision=bf16"></script>
<p id="got"></p>
<script>document.addEventListener('wattscale:estimate', function (e) { var g = document.getElementById('got'); g.dataset.kwh = e.detail.energy_kwh; g.dataset.model = e.detail.model; g.textContent = e.detail.energy_kwh + ' kWh'; });</script>
</body></html>`
	if err := os.WriteFile(filepath.Join(foreign, "index.html"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	host := serve(t, foreign)
	if host.URL == site.URL {
		t.Fatal("the foreign page must come from another origin")
	}
	ctx := browser(t)
	do(t, ctx, "open the foreign page", chromedp.Navigate(host.URL+"/index.html"))
	waitFor(t, ctx, "the embedded calculator's estimate", `document.getElementById('got').dataset.kwh`)
	if m := eval[string](t, ctx, `document.getElementById('got').dataset.model`); m != "llama-3-8b" {
		t.Errorf("embedded calculator estimated %q, want the preset llama-3-8b", m)
	}
	got := eval[float64](t, ctx, `parseFloat(document.getElementById('got').dataset.kwh)`)
	want := estimateCLI(t, `{"model":{"preset":"llama-3-8b"},"training":{"tokens":2e8,"seq_len":2048,"batch_per_gpu":4,"precision":"bf16"},"hardware":{"gpu":"h100","count":8},"strategy":"fsdp","site":{"carbon_g_per_kwh":475,"usd_per_kwh":0.15}}`)
	if d := relDiff(got, want); !(d < 1e-9) {
		t.Errorf("embedded energy %.17g kWh, site estimate %.17g kWh", got, want)
	}
	if h := eval[float64](t, ctx, `document.querySelector('iframe.wattscale-embed').getBoundingClientRect().height`); h < 400 {
		t.Errorf("embedded frame is %v px tall", h)
	}
}

// TestEmbedLinkFollowsEdits edits the embedded calculator and checks that
// its link to the full calculator carries the edit (it kept the link the
// page opened with).
func TestEmbedLinkFollowsEdits(t *testing.T) {
	srv := serve(t, builtSite(t))
	ctx := browser(t)
	openCalc(t, ctx, srv.URL+"/embed.html?model=llama-3-8b")
	if href := eval[string](t, ctx, `document.querySelector('.embed-foot a').getAttribute('href')`); !strings.Contains(href, "model=llama-3-8b") {
		t.Errorf("the embed's link %q lacks the model it opened with", href)
	}
	typeInto(t, ctx, "count", "24")
	waitFor(t, ctx, "the link to follow the edit", `/[?&]count=24(&|$)/.test(document.querySelector('.embed-foot a').getAttribute('href')) && document.querySelector('.embed-foot a').getAttribute('href').indexOf('model=llama-3-8b') > 0`)
}

// TestOfflineSingleFile writes the one-file calculator (`make offline`),
// moves it away from the site and opens it from disk.
func TestOfflineSingleFile(t *testing.T) {
	dir := builtSite(t)
	file := filepath.Join(t.TempDir(), "wattscale-offline.html")
	cmd := exec.Command("go", "run", "./scripts/offline", "-site", dir, "-o", file)
	cmd.Dir = repoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run ./scripts/offline: %v\n%s", err, out)
	}
	srv := serve(t, dir)
	ctx := browser(t)
	openCalc(t, ctx, srv.URL+"/index.html?model=roberta-large&gpu=v100-sxm2-32gb&count=2&strategy=ddp")
	want := pageEnergy(t, ctx)
	openCalc(t, ctx, "file://"+file+"?model=roberta-large&gpu=v100-sxm2-32gb&count=2&strategy=ddp")
	if how := eval[string](t, ctx, `document.getElementById('calc-root').dataset.wasmSource`); how != "embedded" {
		t.Errorf("the offline file loaded its wasm by %q, want embedded", how)
	}
	if got := pageEnergy(t, ctx); got != want {
		t.Errorf("offline energy %v, site %v", got, want)
	}
	if n := eval[int](t, ctx, `performance.getEntriesByType('resource').length`); n != 0 {
		t.Errorf("the offline file fetched %d resources, want none", n)
	}
}

// TestWrongMIMETypeAndSubPath serves the site under a sub-path from a host
// that sends .wasm as application/octet-stream: WebAssembly.compileStreaming
// refuses such a response, so calc.js hands the body on with the right
// type (asWasm) and the wasm still compiles while it downloads.
func TestWrongMIMETypeAndSubPath(t *testing.T) {
	dir := builtSite(t)
	files := http.FileServer(http.Dir(dir))
	mux := http.NewServeMux()
	mux.Handle("/docs/wattscale/", http.StripPrefix("/docs/wattscale", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ".wasm") {
			w.Header().Set("Content-Type", "application/octet-stream")
		}
		files.ServeHTTP(w, r)
	})))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	ctx := browser(t)
	openCalc(t, ctx, srv.URL+"/docs/wattscale/index.html?model=gpt2-large&count=8&strategy=fsdp&gpu=h100")
	if how := eval[string](t, ctx, `document.getElementById('calc-root').dataset.wasmSource`); how != "streaming" {
		t.Errorf("with a wrong MIME type the wasm loaded by %q, want streaming (calc.js compiles the response as application/wasm)", how)
	}
	want := estimateCLI(t, `{"model":{"preset":"gpt2-large"},"training":{"tokens":2e8,"seq_len":512,"batch_per_gpu":32,"precision":"fp16"},"hardware":{"gpu":"h100","count":8},"strategy":"fsdp","site":{"carbon_g_per_kwh":475,"usd_per_kwh":0.15}}`)
	if got := pageEnergy(t, ctx); relDiff(got, want) > 1e-9 {
		t.Errorf("energy under a sub-path %.17g kWh, site estimate %.17g kWh", got, want)
	}
}
