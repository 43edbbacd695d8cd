package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestPhoneDetailsShowsHeadline: on a 390 px phone, tapping the sticky
// summary ("Details ↓") brings the results' headline into view below the
// summary bar, not under it.
func TestPhoneDetailsShowsHeadline(t *testing.T) {
	srv := serve(t, builtSite(t))
	ctx := browser(t)
	do(t, ctx, "viewport", chromedp.EmulateViewport(390, 844))
	openCalc(t, ctx, srv.URL+"/index.html")
	do(t, ctx, "tap Details", chromedp.Click(chromedp.CSS(".summary")))
	// The jump has landed when the results' top has reached the top of
	// the screen; then the headline must be below the sticky bar.
	waitFor(t, ctx, "the jump to the results", `(function(){ var r = document.querySelector('.results').getBoundingClientRect(); return r.top < 200 && window.scrollY > 0; })()`)
	type box struct{ Bar, Head, Bottom float64 }
	b := eval[box](t, ctx, `(function(){ return {Bar: document.querySelector('.summary').getBoundingClientRect().bottom, Head: document.querySelector('.results .headline').getBoundingClientRect().top, Bottom: window.innerHeight}; })()`)
	if b.Head < b.Bar || b.Head > b.Bottom-100 {
		t.Errorf("after Details the headline's top is at %.0f px, the sticky bar ends at %.0f px (screen %0.f px): want it in view below the bar", b.Head, b.Bar, b.Bottom)
	}
	if dir := os.Getenv("WATTSCALE_SHOTS"); dir != "" {
		// the screen as the person sees it after the jump
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "phone-details-390.png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
