package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
)

// TestPlannerReproducesPaperNStar opens the planner, loads the paper's 1B
// and 13B pipelines and reads N* from the page: it must equal `site
// distill` on the same presets and the break-even counts of Lambert &
// Luccioni (ICML 2026) recomputed from their stage table (10.0, 11.2, 3.55,
// 2.36; shared/reference/distillation.md §5).
func TestPlannerReproducesPaperNStar(t *testing.T) {
	srv := serve(t, builtSite(t))
	ctx := browser(t)
	do(t, ctx, "open the planner", chromedp.Navigate(srv.URL+"/planner/index.html"))
	waitFor(t, ctx, "the planner", `document.getElementById('calc-root').dataset.ready === '1'`)
	paper := map[string]float64{
		"kd-1b":         11.00 / (6.30 - 5.20),
		"synthetic-1b":  10.60 / (6.30 - 5.35),
		"kd-13b":        11.00 / (33.15 - 30.05),
		"synthetic-13b": 10.60 / (33.15 - 28.65),
	}
	var cli struct {
		Options []struct {
			Name  string   `json:"name"`
			NStar *float64 `json:"n_star"`
		} `json:"options"`
	}
	out := runCLI(t, []byte(`{"options":[{"preset":"sft-1b"},{"preset":"sft-13b"},{"preset":"kd-1b","baseline":"sft-1b"},{"preset":"synthetic-1b","baseline":"sft-1b"},{"preset":"kd-13b","baseline":"sft-13b"},{"preset":"synthetic-13b","baseline":"sft-13b"}]}`), "distill")
	if err := json.Unmarshal(out, &cli); err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{}
	for _, o := range cli.Options {
		if o.NStar != nil {
			want[o.Name] = *o.NStar
		}
	}
	for _, set := range []struct {
		name    string
		options []string
	}{{"1b", []string{"kd-1b", "synthetic-1b"}}, {"13b", []string{"kd-13b", "synthetic-13b"}}} {
		choose(t, ctx, "set", set.name)
		waitFor(t, ctx, "the "+set.name+" plan", fmt.Sprintf(`document.querySelector('[data-option=%q]')`, set.options[0]))
		for _, name := range set.options {
			got := eval[float64](t, ctx, fmt.Sprintf(`parseFloat(document.querySelector('[data-option=%q]').dataset.nstar)`, name))
			if d := relDiff(got, want[name]); !(d < 1e-9) {
				t.Errorf("page N*(%s) = %.6f, site distill %.6f", name, got, want[name])
			}
			if math.Abs(got-paper[name]) > 1e-9*paper[name] {
				t.Errorf("page N*(%s) = %.6f, paper's stage table gives %.6f", name, got, paper[name])
			}
			if txt := eval[string](t, ctx, fmt.Sprintf(`document.querySelector('[data-option=%q] .nstar').textContent`, name)); !strings.HasPrefix(txt, "N* = ") {
				t.Errorf("option %s shows %q, want N* = …", name, txt)
			}
		}
		if n := eval[int](t, ctx, `document.querySelectorAll('.planner svg.chart').length`); n < 3 {
			t.Errorf("planner draws %d charts, want the stage bars, the N curve and the plane", n)
		}
	}
	// Editing a number of a preset row makes it the user's own and moves N*.
	typeInto(t, ctx, "o2.teacher", "5.5")
	got := eval[float64](t, ctx, `parseFloat(document.querySelector('[data-option="kd-13b (mine)"]').dataset.nstar)`)
	if w := 5.5 / (33.15 - 30.05); math.Abs(got-w) > 1e-9*w {
		t.Errorf("N* with a 5.5 kWh teacher = %v, want %v", got, w)
	}
}

// syntheticMeasurements writes a measurement CSV: the default
// calibration's estimates for a grid of workloads times seeded log-normal
// noise, so that a refit has something to find.
func syntheticMeasurements(t testing.TB, path string) {
	t.Helper()
	cat, err := content.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var rows []model.Measurement
	for _, preset := range []string{"bert-base", "gpt2", "gpt2-medium", "distilbert", "roberta-large"} {
		for _, gpu := range []string{"a100-sxm4-80gb", "a40"} {
			for _, st := range []struct {
				s string
				n int
			}{{"single", 1}, {"ddp", 2}, {"fsdp", 4}, {"tp", 2}} {
				tokens := math.Round(1e7 * (1 + 9*rng.Float64()))
				seq := []float64{128, 256, 512}[rng.IntN(3)]
				batch := []float64{8, 16, 32}[rng.IntN(3)]
				resp, err := cat.Estimate(model.Request{Model: model.ModelSpec{Preset: preset},
					Training: model.TrainingSpec{Tokens: tokens, SeqLen: seq, BatchPerGPU: batch, Precision: "fp16"},
					Hardware: model.HardwareSpec{GPU: gpu, Count: float64(st.n)}, Strategy: model.Strategy{Name: st.s}})
				if err != nil {
					t.Fatal(err)
				}
				noise := math.Exp(0.12 * rng.NormFloat64())
				m := model.Measurement{Model: preset, Arch: resp.Inputs.Arch, GPU: gpu, Count: st.n, Strategy: st.s,
					SeqLen: int(seq), BatchPerGPU: int(batch), Tokens: tokens, Precision: "fp16",
					EnergyKWh: resp.EnergyKWh * noise, DurationS: resp.TimeS * noise, Group: preset, Source: "synthetic e2e"}
				if st.n > 1 {
					// A "measured" efficiency: the modelled one with its own noise.
					m.Eta = math.Min(2, resp.Parallel.Efficiency*math.Exp(0.05*rng.NormFloat64()))
				}
				rows = append(rows, m)
			}
		}
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := model.WriteMeasurements(f, rows); err != nil {
		t.Fatal(err)
	}
}

// TestRefitMatchesCLI uploads a measurement CSV into the calculator's
// refit, which loads fit.wasm on demand, and for each kind the refit
// offers that fits it (law, and the paper's specification) compares every
// coefficient on screen with `go run ./site fit -data FILE -kind KIND`.
func TestRefitMatchesCLI(t *testing.T) {
	srv := serve(t, builtSite(t))
	file := filepath.Join(t.TempDir(), "my-runs.csv")
	syntheticMeasurements(t, file)
	ctx := browser(t)
	openCalc(t, ctx, srv.URL+"/index.html")
	if loaded := eval[bool](t, ctx, `performance.getEntriesByType('resource').some(function(e){return /\/fit\.[0-9a-f]{10}\.wasm$/.test(e.name)})`); loaded {
		t.Error("fit.wasm was fetched before a refit was asked for")
	}
	do(t, ctx, "upload the CSV", chromedp.SetUploadFiles(chromedp.ID("refit-file"), []string{file}))
	waitFor(t, ctx, "the file read", `document.getElementById('refit-text').value.length > 100`)
	for _, kind := range []string{"law", "paper"} {
		var cal model.Calibration
		if err := json.Unmarshal(runCLI(t, nil, "fit", "-data", file, "-kind", kind), &cal); err != nil {
			t.Fatal(err)
		}
		do(t, ctx, "choose "+kind, chromedp.SetValue(chromedp.ID("refit-kind"), kind))
		do(t, ctx, "click Fit", chromedp.Click(chromedp.ID("refit-go")))
		waitFor(t, ctx, "the fit", `['done','error'].indexOf(document.querySelector('.refit').dataset.state) >= 0`)
		if st := eval[string](t, ctx, `document.querySelector('.refit').dataset.state`); st != "done" {
			t.Fatalf("%s: refit state %q: %s", kind, st, eval[string](t, ctx, `document.querySelector('.refit-status').textContent`))
		}
		if cal.Fit == nil || len(cal.Fit.Coefficients) == 0 {
			t.Fatalf("%s: site fit printed no coefficients", kind)
		}
		for _, c := range cal.Fit.Coefficients {
			got := eval[float64](t, ctx, fmt.Sprintf(`parseFloat(document.querySelector('tr[data-coef=%q] td[data-value]').dataset.value)`, c.Name))
			if d := relDiff(got, c.Value); !(d < 1e-9) {
				t.Errorf("%s: coefficient %s: page %.17g, site fit %.17g", kind, c.Name, got, c.Value)
			}
		}
		if name := eval[string](t, ctx, `document.querySelector('table.coef caption code').textContent`); name != cal.Name {
			t.Errorf("%s: page calibration %q, site fit %q", kind, name, cal.Name)
		}
		if dir := os.Getenv("WATTSCALE_SHOTS"); dir != "" {
			// The refit's result, for people to look at.
			eval[bool](t, ctx, `(function(){ document.querySelector('.refit').scrollIntoView(); return true })()`)
			png, err := fullShot(t, ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "refit-"+kind+".png"), png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestPlannerNStarRange: estimating the KD student of the 1B set (an
// input-bound stage) makes the planner show N* as a range, not a point
// (issue 35); the measured options keep their point.
func TestPlannerNStarRange(t *testing.T) {
	srv := serve(t, builtSite(t))
	ctx := browser(t)
	openCalc(t, ctx, srv.URL+"/planner/index.html")
	name := eval[string](t, ctx, `document.getElementById('f-o2.preset').value`)
	if name != "kd-1b" {
		t.Fatalf("the 1B set's second row is %q, want kd-1b", name)
	}
	choose(t, ctx, "o2.smode", "estimate")
	waitFor(t, ctx, "the estimated KD student", `document.querySelector('[data-option="kd-1b (mine)"] .nstar') !== null`)
	txt := eval[string](t, ctx, `document.querySelector('[data-option="kd-1b (mine)"] .nstar').textContent`)
	if !strings.HasPrefix(txt, "Breaks even at N* of ") || !strings.Contains(txt, "central") {
		t.Errorf("estimated KD student: N* reads %q, want a range (Breaks even at N* of …, central …)", txt)
	}
	for _, w := range []int64{1280, 390} {
		do(t, ctx, "viewport", chromedp.EmulateViewport(w, 900))
		shot(t, ctx, fmt.Sprintf("planner-nstar-range-%d", w))
	}
	if txt := eval[string](t, ctx, `document.querySelector('[data-option="synthetic-1b"] .nstar').textContent`); !strings.HasPrefix(txt, "N* = ") {
		t.Errorf("measured synthetic-1b: N* reads %q, want a point", txt)
	}
}

// TestRefitCodeCarbon gives the refit a real CodeCarbon log (the example in
// content/examples/codecarbon: five rows of github.com/Ambroise012/BERT-Pruning's
// emissions.csv at commit 10ce3b5, one Tesla V100-PCIE-32GB) with the
// requests describing its rows: a request on another GPU fails naming both
// GPUs; the matching request reaches the fit, which says, as the command
// line does, that rows of one configuration leave it nothing to separate.
func TestRefitCodeCarbon(t *testing.T) {
	srv := serve(t, builtSite(t))
	log := filepath.Join("..", "..", "content", "examples", "codecarbon", "emissions.csv")
	runs, err := os.ReadFile(filepath.Join("..", "..", "content", "examples", "codecarbon", "runs.json"))
	if err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(log)
	if err != nil {
		t.Fatal(err)
	}
	ctx := browser(t)
	openCalc(t, ctx, srv.URL+"/index.html")
	do(t, ctx, "upload the log", chromedp.SetUploadFiles(chromedp.ID("refit-file"), []string{abs}))
	waitFor(t, ctx, "the file read", `document.getElementById('refit-text').value.length > 100`)
	for _, c := range []struct{ runs, want string }{
		{strings.Replace(string(runs), "v100-pcie-32gb", "a100-sxm4-80gb", 1), "the log's GPU \"Tesla V100-PCIE-32GB\" is not the request's A100 SXM4 80 GB"},
		{string(runs), "rank deficient"},
	} {
		do(t, ctx, "paste the requests", chromedp.SetValue(chromedp.ID("refit-cc"), c.runs))
		do(t, ctx, "choose roofline", chromedp.SetValue(chromedp.ID("refit-kind"), "roofline"))
		do(t, ctx, "click Fit", chromedp.Click(chromedp.ID("refit-go")))
		waitFor(t, ctx, "the fit", `['done','error'].indexOf(document.querySelector('.refit').dataset.state) >= 0`)
		st := eval[string](t, ctx, `document.querySelector('.refit-status').textContent`)
		if !strings.HasPrefix(st, "The fit failed: ") || !strings.Contains(st, c.want) {
			t.Errorf("refit status %q, want a failed fit saying %q", st, c.want)
		}
	}
}
