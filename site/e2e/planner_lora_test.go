package e2e

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestPlannerLoRAStudent: a planner row's student stage can be estimated
// from its training setup and trained with LoRA (issue 12 item 3). The
// LoRA options are hidden for full fine-tuning; switching the method to
// LoRA lowers the student stage's energy to the command line's estimate of
// the same request; the link carries the method's fields and a fresh tab
// restores them; a bad rank is shown beside its field.
func TestPlannerLoRAStudent(t *testing.T) {
	srv := serve(t, builtSite(t))
	ctx := browser(t)
	openCalc(t, ctx, srv.URL+"/planner/index.html")
	hidden := func(ctx2 context.Context, key string) bool {
		return eval[bool](t, ctx2, `document.getElementById('f-`+key+`').getClientRects().length === 0`)
	}
	if !hidden(ctx, "o1.s.method") || hidden(ctx, "o1.smode") {
		t.Fatalf("a measured student: the estimate's inputs shown, or the student stage choice hidden")
	}
	choose(t, ctx, "o1.smode", "estimate")
	waitFor(t, ctx, "the estimated student", `document.querySelector('[data-option="sft-1b (mine)"]') !== null`)
	if hidden(ctx, "o1.s.method") || !hidden(ctx, "o1.s.rank") || !hidden(ctx, "o1.student") {
		t.Errorf("estimated full student: method hidden %v, rank hidden %v, student kWh hidden %v; want the method shown, the rank and kWh hidden",
			hidden(ctx, "o1.s.method"), hidden(ctx, "o1.s.rank"), hidden(ctx, "o1.student"))
	}
	student := func(ctx2 context.Context) float64 {
		return eval[float64](t, ctx2, `parseFloat(document.querySelector('[data-option="sft-1b (mine)"]').dataset.student)`)
	}
	const req = `{"model":{"preset":"olmo-2-1b"},"training":{"tokens":6.62e8,"seq_len":1024,"batch_per_gpu":8,"precision":"bf16"%s},"hardware":{"gpu":"h100-sxm5","count":1},"strategy":"single"}`
	full := student(ctx)
	if want := estimateCLI(t, strings.Replace(req, "%s", "", 1)); relDiff(full, want) > 1e-9 {
		t.Errorf("page's full student %.17g kWh, site estimate %.17g kWh", full, want)
	}
	choose(t, ctx, "o1.s.method", "lora")
	if hidden(ctx, "o1.s.rank") || hidden(ctx, "o1.s.targets") || !hidden(ctx, "o1.s.base_format") {
		t.Errorf("lora: rank hidden %v, targets hidden %v, base_format hidden %v; want rank and targets shown, base_format hidden",
			hidden(ctx, "o1.s.rank"), hidden(ctx, "o1.s.targets"), hidden(ctx, "o1.s.base_format"))
	}
	typeInto(t, ctx, "o1.s.rank", "16")
	if st := eval[string](t, ctx, `document.getElementById('calc-root').dataset.state`); st != "ok" {
		t.Fatalf("page state %q, status %q", st, eval[string](t, ctx, `document.querySelector('.results .status').textContent`))
	}
	lora := student(ctx)
	want := estimateCLI(t, strings.Replace(req, "%s", `,"method":"lora","lora":{"rank":16}`, 1))
	if relDiff(lora, want) > 1e-9 {
		t.Errorf("page's lora student %.17g kWh, site estimate %.17g kWh", lora, want)
	}
	if !(lora < full) {
		t.Errorf("student stage with lora %.6g kWh, not below full fine-tuning's %.6g kWh", lora, full)
	}
	saveShot(t, ctx, "planner-lora-student")

	link := eval[string](t, ctx, `location.href`)
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	for k, v := range map[string]string{"o1.smode": "estimate", "o1.s.method": "lora", "o1.s.rank": "16", "o1.s.model": "olmo-2-1b"} {
		if q.Get(k) != v {
			t.Errorf("URL %s: %s = %q, want %q", link, k, q.Get(k), v)
		}
	}
	if q.Has("o1.s.base_format") || q.Has("o1.student") {
		t.Errorf("URL %s carries base_format or a measured student kWh for an estimated lora student", link)
	}
	ctx2, cancel := chromedp.NewContext(ctx)
	defer cancel()
	openCalc(t, ctx2, link)
	for k, v := range map[string]string{"o1.smode": "estimate", "o1.s.method": "lora", "o1.s.rank": "16"} {
		if got := eval[string](t, ctx2, `document.getElementById('f-`+k+`').value`); got != v {
			t.Errorf("restored %s = %q, want %q", k, got, v)
		}
	}
	if got := student(ctx2); relDiff(got, lora) > 1e-9 {
		t.Errorf("restored student %.17g kWh, want %.17g", got, lora)
	}
	typeInto(t, ctx2, "o1.s.rank", "0")
	if msg := eval[string](t, ctx2, `document.getElementById('f-o1.s.rank-err').textContent`); !strings.Contains(msg, "hidden size") {
		t.Errorf("rank 0: message beside the field %q, want one naming the hidden size", msg)
	}
}
