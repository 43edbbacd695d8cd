package e2e

import (
	"bytes"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestScreenshots takes full-page screenshots of the calculator, the
// planner and the embed page at desktop (1280 px) and phone (390 px)
// widths in light and dark schemes, and saves them into $WATTSCALE_SHOTS
// for people to look at (a temporary folder when that is not set). Every
// page must reach its ready state, and every screenshot must be a PNG as
// wide as its viewport, painted in more than a handful of colours (not a
// blank or half-drawn page) and with no horizontal scroll.
func TestScreenshots(t *testing.T) {
	dir := os.Getenv("WATTSCALE_SHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	srv := serve(t, builtSite(t))
	const ready = `document.getElementById('calc-root').dataset.ready === '1'`
	pages := []struct{ name, path, ready, setup string }{
		{"calculator", "/index.html", ready, ""},
		{"calculator-error", "/index.html", ready, `(function(){var e=document.getElementById('f-tokens'); e.value='-2e8'; e.dispatchEvent(new Event('input',{bubbles:true})); var g=document.getElementById('f-gpu'); g.scrollIntoView(); return true})()`},
		{"calculator-moe", "/index.html?model=custom&layers=16&hidden=2048&heads=16&ffn=1024&vocab=50304&glu=1&experts=64&experts_per_token=8&tokens=1e10&seq=4096&batch=4&precision=bf16&gpu=h100-sxm5&count=8&strategy=fsdp", ready, `(function(){document.getElementById('f-experts').scrollIntoView(); return true})()`},
		{"planner", "/planner/index.html", ready, ""},
		{"planner-student", "/planner/index.html?set=custom&n=1&rows=1&o1.name=mine&o1.regime=sft&o1.pre=0.4&o1.eval=0.3&o1.smode=estimate&o1.s.model=olmo-2-1b&o1.s.tokens=1e8&o1.s.seq=1024&o1.s.batch=8&o1.s.precision=bf16&o1.s.method=qlora&o1.s.gpu=h100-sxm5&o1.s.count=2&o1.s.strategy=hybrid&o1.s.tensor=2", ready, ""},
		{"methodology-moe", "/methodology/index.html#mixture-of-experts", `document.readyState === 'complete'`, `(function(){var e=document.getElementById('mixture-of-experts'); if (e) e.scrollIntoView(); return true})()`},
		{"methodology-speedup", "/methodology/index.html#parallel-speedup-and-efficiency", `document.readyState === 'complete'`, `(function(){var e=document.getElementById('parallel-speedup-and-efficiency'); if (e) e.scrollIntoView(); return true})()`},
		{"validation-findings", "/validation/index.html#findings", `document.readyState === 'complete'`, `(function(){var e=document.getElementById('findings'); if (e) e.scrollIntoView(); return true})()`},
		{"embed", "/embed.html?model=llama-3-8b", ready, ""},
	}
	if only := os.Getenv("WATTSCALE_SHOTS_ONLY"); only != "" {
		var keep = pages[:0]
		for _, p := range pages {
			if strings.Contains(only, p.name) {
				keep = append(keep, p)
			}
		}
		pages = keep
	}
	for _, p := range pages {
		// One tab per page, closed after it: each has its own time limit
		// (browser), so a slow machine does not run the whole set out of one.
		t.Run(p.name, func(t *testing.T) {
			ctx := browser(t)
			for _, w := range []struct {
				name  string
				width int64
			}{{"desktop", 1280}, {"phone", 390}} {
				for _, scheme := range []string{"light", "dark"} {
					opts := []chromedp.EmulateViewportOption{}
					if w.width < 600 {
						opts = append(opts, chromedp.EmulateMobile)
					}
					do(t, ctx, "viewport", chromedp.EmulateViewport(w.width, 900, opts...))
					colorScheme(t, ctx, scheme)
					do(t, ctx, "open "+p.path, chromedp.Navigate(srv.URL+p.path))
					waitFor(t, ctx, p.name+" ready", p.ready)
					if p.setup != "" {
						eval[bool](t, ctx, p.setup)
					}
					if over := eval[int](t, ctx, `document.documentElement.scrollWidth - document.documentElement.clientWidth`); over > 0 {
						t.Errorf("%s %s %s: the page scrolls sideways by %d px", p.name, w.name, scheme, over)
					}
					png, err := fullShot(t, ctx)
					if err != nil {
						t.Fatal(err)
					}
					name := filepath.Join(dir, p.name+"-"+w.name+"-"+scheme+".png")
					checkShot(t, name, png, int(w.width))
					if err := os.WriteFile(name, png, 0o644); err != nil {
						t.Fatal(err)
					}
					t.Logf("wrote %s", name)
				}
			}
		})
	}
}

// checkShot fails unless b is a PNG width pixels wide painted in at least
// 8 colours (sampled on a grid).
func checkShot(t testing.TB, name string, b []byte, width int) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Errorf("%s: not a PNG: %v", name, err)
		return
	}
	r := img.Bounds()
	if r.Dx() != width {
		t.Errorf("%s: %d px wide, want %d", name, r.Dx(), width)
	}
	colours := map[color.RGBA]bool{}
	for y := r.Min.Y; y < r.Max.Y; y += 7 {
		for x := r.Min.X; x < r.Max.X; x += 7 {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			colours[c] = true
		}
	}
	if len(colours) < 8 {
		t.Errorf("%s: painted in %d colours; a drawn page has many more", name, len(colours))
	}
}
