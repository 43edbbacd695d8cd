package e2e

import (
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestLoRAFormAndURLState: the method options are hidden for full
// fine-tuning and shown for LoRA and QLoRA; the page's LoRA estimate is
// the command line's; "compare with full fine-tuning" shows both; the
// share link carries the method's fields and a fresh tab restores them.
func TestLoRAFormAndURLState(t *testing.T) {
	srv := serve(t, builtSite(t))
	ctx := browser(t)
	openCalc(t, ctx, srv.URL+"/index.html")
	hidden := func(key string) bool {
		return eval[bool](t, ctx, `document.getElementById('f-`+key+`').getClientRects().length === 0`)
	}
	if !hidden("rank") || !hidden("base_format") || hidden("method") {
		t.Fatalf("full fine-tuning: rank hidden %v, base_format hidden %v, method hidden %v; want the LoRA options hidden, the method shown", hidden("rank"), hidden("base_format"), hidden("method"))
	}
	typeInto(t, ctx, "model", "llama-2-7b")
	typeInto(t, ctx, "gpu", "a100-sxm4-80gb")
	typeInto(t, ctx, "count", "8")
	typeInto(t, ctx, "seq", "1024")
	typeInto(t, ctx, "batch", "4")
	choose(t, ctx, "precision", "bf16")
	choose(t, ctx, "method", "lora")
	if hidden("rank") || hidden("targets") || !hidden("base_format") {
		t.Errorf("lora: rank hidden %v, targets hidden %v, base_format hidden %v; want rank and targets shown, base_format hidden", hidden("rank"), hidden("targets"), hidden("base_format"))
	}
	typeInto(t, ctx, "rank", "16")
	choose(t, ctx, "targets", "attention_mlp")
	choose(t, ctx, "ckpt", "on")
	choose(t, ctx, "compare", "1")
	if st := eval[string](t, ctx, `document.getElementById('calc-root').dataset.state`); st != "ok" {
		t.Fatalf("page state %q, status %q", st, eval[string](t, ctx, `document.querySelector('.results .status').textContent`))
	}
	want := estimateCLI(t, `{"model":{"preset":"llama-2-7b"},"training":{"tokens":2e8,"seq_len":1024,"batch_per_gpu":4,"precision":"bf16","method":"lora","lora":{"rank":16,"targets":"attention_mlp"},"gradient_checkpointing":true},"hardware":{"gpu":"a100-sxm4-80gb","count":8},"strategy":"fsdp","site":{"carbon_g_per_kwh":475,"usd_per_kwh":0.15,"region":"World average"}}`)
	if got := pageEnergy(t, ctx); relDiff(got, want) > 1e-9 {
		t.Errorf("page LoRA energy %.17g kWh, site estimate %.17g kWh", got, want)
	}
	method := eval[string](t, ctx, `(document.querySelector('[data-card=method]')||{}).textContent||''`)
	full := eval[string](t, ctx, `(document.querySelector('[data-card=full]')||{}).textContent||''`)
	if !strings.Contains(method, "LoRA") || !strings.Contains(method, "trainable parameters") || !strings.Contains(method, "rank 16") {
		t.Errorf("method card %q lacks LoRA, trainable parameters or rank 16", method)
	}
	if !strings.Contains(full, "Full fine-tuning") || !strings.Contains(full, "× the energy") {
		t.Errorf("compare card %q lacks full fine-tuning's energy ratio", full)
	}
	saveShot(t, ctx, "calculator-lora-compare")

	link := address(t, ctx)
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	for k, v := range map[string]string{"method": "lora", "rank": "16", "targets": "attention_mlp", "ckpt": "on", "compare": "1"} {
		if q.Get(k) != v {
			t.Errorf("URL %s: %s = %q, want %q", link, k, q.Get(k), v)
		}
	}
	if q.Has("base_format") {
		t.Errorf("URL %s carries base_format for a lora estimate", link)
	}
	ctx2, cancel := chromedp.NewContext(ctx)
	defer cancel()
	openCalc(t, ctx2, link)
	for k, v := range map[string]string{"method": "lora", "rank": "16", "targets": "attention_mlp", "ckpt": "on"} {
		if got := eval[string](t, ctx2, `document.getElementById('f-`+k+`').value`); got != v {
			t.Errorf("restored %s = %q, want %q", k, got, v)
		}
	}
	if got := pageEnergy(t, ctx2); relDiff(got, want) > 1e-9 {
		t.Errorf("restored page energy %.17g kWh, want %.17g", got, want)
	}

	// QLoRA shows its base format; a bad rank is shown beside its field.
	choose(t, ctx2, "method", "qlora")
	if hidden2 := eval[bool](t, ctx2, `document.getElementById('f-base_format').getClientRects().length === 0`); hidden2 {
		t.Errorf("qlora: base_format hidden")
	}
	typeInto(t, ctx2, "rank", "0")
	if msg := eval[string](t, ctx2, `document.getElementById('f-rank-err').textContent`); !strings.Contains(msg, "hidden size") {
		t.Errorf("rank 0: message beside the field %q, want one naming the hidden size", msg)
	}
	typeInto(t, ctx2, "rank", "64")
	choose(t, ctx2, "method", "full")
	if l := search(t, ctx2); strings.Contains(l, "rank=") || !strings.Contains(l, "method=full") {
		t.Errorf("full fine-tuning link %q still carries the LoRA rank or lacks method=full", l)
	}
}
