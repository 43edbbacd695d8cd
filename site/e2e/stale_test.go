package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestStaleEstimateIsDimmed: while fields are in error (tokens and batch
// that are not numbers), at 1280 and 390 px the figures kept
// from the previous estimate are dimmed (grey, at most 60 % opaque) and the
// big number is labelled "previous estimate" (on a phone the summary bar
// too); the banner names every field to fix by its label and says the
// figures are not the answer; fixing the fields brings the full figures
// back.
func TestStaleEstimateIsDimmed(t *testing.T) {
	srv := serve(t, builtSite(t))
	for _, width := range []int64{1280, 390} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			ctx := browser(t)
			do(t, ctx, "viewport", chromedp.EmulateViewport(width, 900))
			openCalc(t, ctx, srv.URL+"/index.html")
			type look struct {
				Opacity          float64
				Filter, After    string
				Status, SumAfter string
			}
			const probe = `(function(){
  var big = document.querySelector('.results .headline .big'), o = 1;
  for (var e = big; e; e = e.parentElement) o *= +getComputedStyle(e).opacity;
  var se = document.querySelector('.summary .s-e');
  return {Opacity: o, Filter: getComputedStyle(document.querySelector('.results .headline')).filter,
    After: getComputedStyle(big, '::after').content, Status: document.querySelector('.results .status').textContent,
    SumAfter: se ? getComputedStyle(se, '::after').content : ''};
})()`
			fresh := eval[look](t, ctx, probe)
			if fresh.Opacity < 0.99 || strings.Contains(fresh.After, "previous") {
				t.Fatalf("a current estimate looks stale: %+v", fresh)
			}
			typeInto(t, ctx, "tokens", "12abc")
			typeInto(t, ctx, "batch", "abc")
			waitFor(t, ctx, "the stale state", `document.querySelector('.results').classList.contains('stale')`)
			st := eval[look](t, ctx, probe)
			if st.Opacity > 0.85 || !strings.Contains(st.Filter, "grayscale") {
				t.Errorf("stale figures at opacity %.2f, filter %q: want dimmed and grey", st.Opacity, st.Filter)
			}
			if !strings.Contains(st.After, "previous estimate") {
				t.Errorf("the big number's label is %s, want \"(previous estimate)\"", st.After)
			}
			if width < 700 && !strings.Contains(st.SumAfter, "previous") {
				t.Errorf("the phone's summary bar is labelled %s, want \"(previous)\"", st.SumAfter)
			}
			for _, l := range []string{"“Batch", "“Tokens", "previous estimate", "not an answer"} {
				if !strings.Contains(st.Status, l) {
					t.Errorf("banner %q lacks %q", st.Status, l)
				}
			}
			if n := strings.Count(st.Status, "“"); n < 2 {
				t.Errorf("banner %q names %d fields, want both in error", st.Status, n)
			}
			shot(t, ctx, fmt.Sprintf("stale-%d", width))
			typeInto(t, ctx, "batch", "32")
			typeInto(t, ctx, "tokens", "2e8")
			waitFor(t, ctx, "the fresh state", `!document.querySelector('.results').classList.contains('stale')`)
			if back := eval[look](t, ctx, probe); back.Opacity < 0.99 || back.Status != "" {
				t.Errorf("after fixing the fields: %+v", back)
			}
		})
	}
}
