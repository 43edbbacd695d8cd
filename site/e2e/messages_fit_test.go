package e2e

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// TestEveryFieldMessageFits: for a wrong value in each kind of field (out
// of range, not a number, a layout the model refuses, memory refusals for
// full, LoRA and QLoRA, an unknown GPU, power limits), every field's
// message beside it is at most four lines at 390 and 1280 px; a longer one
// shows its gist there, the whole text behind a disclosure (issue 30).
func TestEveryFieldMessageFits(t *testing.T) {
	srv := serve(t, builtSite(t))
	ctx := browser(t)
	cases := []string{
		"model=llama-2-70b&count=1&strategy=single",
		"count=0", "count=1e9", "batch=abc", "batch=0", "batch=1e9", "seq=99999999", "tokens=-5",
		"tokens=1000&count=64", "power=5", "power=99999", "carbon=-1", "price=-1", "pue=0.5",
		"model=custom&layers=0&hidden=7&heads=3", "model=llama-2-70b&method=qlora&gpu=rtx-4090&count=1&strategy=single",
		"gpu=nonexistent-gpu", "method=lora&rank=99999", "strategy=tp&count=7", "state_bytes=0.1", "accum=0", "deadline=abc",
		"model=llama-2-70b&method=lora&gpu=rtx-4090&count=1&strategy=single", "model=custom&heads=5&kv_heads=3",
		"length=epochs&dataset_tokens=-1&epochs=abc", "method=qlora&gpu=mi300x&count=1&strategy=single",
	}
	for _, w := range []int64{390, 1280} {
		do(t, ctx, "viewport", chromedp.EmulateViewport(w, 844))
		for _, q := range cases {
			do(t, ctx, "nav", chromedp.Navigate(srv.URL+"/index.html?"+q))
			waitFor(t, ctx, "the calculator on ?"+q, `document.querySelector('#calc-root') && document.querySelector('#calc-root').dataset.ready === '1'`)
			long := eval[[]string](t, ctx, `(function(){ var out = [];
  document.querySelectorAll('.calc-form .field .err').forEach(function(p){
    if (!p.textContent) return;
    var n = p.getBoundingClientRect().height / parseFloat(getComputedStyle(p).lineHeight);
    if (n > 4.05) out.push(p.id + ' runs to ' + n.toFixed(1) + ' lines: ' + p.textContent);
  });
  return out; })()`)
			for _, l := range long {
				t.Errorf("at %d px, ?%s: %s", w, q, l)
			}
		}
	}
}
