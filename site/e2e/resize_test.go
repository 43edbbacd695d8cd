package e2e

import (
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestChartsFollowTheWindow: after the window is resized, the calculator
// and the planner redraw their charts at their boxes' new widths (the
// boxes the view marks data-width; calc.js hands their widths to Go).
func TestChartsFollowTheWindow(t *testing.T) {
	srv := serve(t, builtSite(t))
	for _, page := range []struct{ path, box, svg string }{
		{"/index.html", ".calc-layout .chart-e", "#chart-energy"},
		{"/planner/index.html", ".plan-layout .stages", ".plan-layout svg[id^=curve]"},
	} {
		ctx := browser(t)
		do(t, ctx, "desktop viewport", chromedp.EmulateViewport(1280, 900))
		openCalc(t, ctx, srv.URL+page.path)
		// The width Go drew for: the box's, clamped to 280-760 px (view.clampChart).
		drawnForBox := `(function(){var b=document.querySelector('` + page.box + `'), s=document.querySelector('` + page.svg + `');
  return !!b && !!s && +s.getAttribute('width') === Math.round(Math.max(280, Math.min(760, b.clientWidth)))})()`
		waitFor(t, ctx, page.path+": charts drawn at the box's width", drawnForBox)
		wide := eval[float64](t, ctx, `+document.querySelector('`+page.svg+`').getAttribute('width')`)
		do(t, ctx, "phone viewport", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
		waitFor(t, ctx, page.path+": charts redrawn at the narrower box's width", `+document.querySelector('`+page.svg+`').getAttribute('width') < `+strconv.FormatFloat(wide, 'f', -1, 64)+` && `+drawnForBox)
	}
}
