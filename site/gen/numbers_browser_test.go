package gen

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/wattscale/wattscale/wasm/calcapi/view"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/wattscale/wattscale/model"
)

// TestNumberFormatsMatchGo runs the calculator's number formatting
// (assets/calc.js, WattscaleInternals.fmt) in headless Chromium on a table
// of values and compares every string with Go's: sig, fixed, grouped,
// trimZeros, fmtKWh, fmtCount and fmtDuration of format.go,
// model.ShortNum, and the units the calculator and the prerendered pages
// print (energy, mass, dollars, power, parameters:
// view/format.go's js* against calc.js's energyText, massText, usd,
// powerText and paramsText). The table holds rounding ties (0.125, 2.5, 2,500,000),
// the thresholds (1e-4, 1e6, 100 kWh, 120 s, a thousand), negative numbers,
// zero and non-finite values.
func TestNumberFormatsMatchGo(t *testing.T) {
	bin := chromium(t)
	src, err := os.ReadFile(filepath.Join("..", "assets", "calc.js"))
	if err != nil {
		t.Fatal(err)
	}
	xs := []float64{0, 1, -1, 0.5, 2.5, 3.5, 0.125, 0.375, 1.005, 0.0001, 0.00009999, 1e-5, 1.5e-7, 0.1, 0.15, 0.2, 0.3,
		9.995, 99.95, 99.96, 100, 999.5, 999.96, 1000, 1234.5, 12345.678, 99999.5, 999999, 999999.5, 1e6, 1.0e6 + 1,
		2.5e6, 2500000, 2.45e8, 1.5e9, 3e12, 1e21, 1.7976931348623157e308, 5e-324, -0.0015, -12.3456, -2.5e7, 0.174160469,
		475, 6.3, 7.0, 19.5, 42.5, 1.41e6, 5155038, 123.456789, 0.015, 0.0185, 1e-4 * 3, math.Pi, math.E * 1e5,
		59.99, 119.96, 7199, 7201, 259199, 259201, 86400 * 10.5}
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1)}

	type row struct {
		X      float64 `json:"x"`
		Digits int     `json:"n"`
	}
	var rows []row
	for _, x := range xs {
		for _, n := range []int{1, 2, 3, 4} {
			rows = append(rows, row{x, n})
		}
	}
	in, _ := json.Marshal(rows)

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox,
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-background-networking", true),
		chromedp.UserDataDir(t.TempDir()))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](string(src)+"\n;true")); err != nil {
		t.Fatalf("loading calc.js: %v", err)
	}
	type got struct {
		Sig, Fixed, Grouped, KWh, Count, Duration, Short, Trim string
		Energy, Mass, USD, Power, Params                       string // the calculator's units (view/format.go)
	}
	js := `(function(rows){var W = window.WattscaleInternals, f = W.fmt; return rows.map(function(r){ return {
  Sig: f.sig(r.x, r.n), Fixed: f.fixed(r.x, r.n), Grouped: f.grouped(r.x), KWh: f.fmtKWh(r.x), Count: f.fmtCount(r.x),
  Duration: f.fmtDuration(r.x), Short: f.shortNum(r.x), Trim: f.trimZeros(f.fixed(r.x, r.n)),
  Energy: W.energyText(r.x), Mass: W.massText(r.x), USD: W.usd(r.x), Power: W.powerText(r.x), Params: W.paramsText(r.x) }})})(` + string(in) + `)`
	res, err := chromedp.Run(ctx, chromedp.Evaluate[[]got](js))
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != len(rows) {
		t.Fatalf("got %d results for %d rows", len(res), len(rows))
	}
	for i, r := range rows {
		want := got{sig(r.X, r.Digits), fixed(r.X, r.Digits), grouped(r.X), fmtKWh(r.X), fmtCount(r.X), fmtDuration(r.X), model.ShortNum(r.X), trimZeros(fixed(r.X, r.Digits)),
			view.EnergyText(r.X), view.MassText(r.X), view.USD(r.X), view.PowerText(r.X), view.ParamsText(r.X)}
		if res[i] != want {
			t.Errorf("%g with %d digits: calc.js %+v, Go %+v", r.X, r.Digits, res[i], want)
		}
	}
	// Non-finite values cannot travel as JSON numbers: pass them by name.
	for _, x := range special {
		expr := map[bool]string{true: "NaN", false: fmt.Sprintf("%sInfinity", map[bool]string{true: "", false: "-"}[x > 0])}[math.IsNaN(x)]
		g, err := chromedp.Run(ctx, chromedp.Evaluate[got](`(function(x){var f = window.WattscaleInternals.fmt; return {Sig: f.sig(x, 3), Fixed: f.fixed(x, 2),
  KWh: f.fmtKWh(x), Count: f.fmtCount(x), Duration: f.fmtDuration(x), Short: f.shortNum(x)}})(`+expr+`)`))
		if err != nil {
			t.Fatal(err)
		}
		want := got{Sig: sig(x, 3), Fixed: fixed(x, 2), KWh: fmtKWh(x), Count: fmtCount(x), Duration: fmtDuration(x), Short: model.ShortNum(x)}
		if g != want {
			t.Errorf("%v: calc.js %+v, Go %+v", x, g, want)
		}
	}
}
