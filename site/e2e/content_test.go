package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/wasm/calcapi"
)

// TestCalcUsesContentCalibrations builds the calculator page from a copy
// of content/ whose default calibration has a ten times longer start-up
// overhead (`go run ./site build -content DIR`) and requires the calculator's
// WebAssembly, in the browser, to estimate with that tree's calibrations:
// the energy it shows for a typed change is what the tree's catalog gives,
// not what the module's compiled-in calibrations give.
func TestCalcUsesContentCalibrations(t *testing.T) {
	ctx := browser(t) // skips without Chromium before the build
	root := repoRoot(t)
	tree := filepath.Join(t.TempDir(), "content")
	if err := os.CopyFS(tree, os.DirFS(filepath.Join(root, "content"))); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(tree, "calibrations", "wattscale-roofline.json")
	raw, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	// The start-up time, ten times over (whatever the fit gave it).
	overhead := regexp.MustCompile(`"overhead_s": \{\n      "value": ([0-9.]+)\n    \}`)
	m := overhead.FindSubmatch(raw)
	if m == nil {
		t.Fatal("content/calibrations/wattscale-roofline.json: no overhead_s to change")
	}
	s, _ := strconv.ParseFloat(string(m[1]), 64)
	changed := overhead.ReplaceAll(raw, []byte(`"overhead_s": {
      "value": `+strconv.FormatFloat(10*s, 'f', -1, 64)+`
    }`))
	if err := os.WriteFile(name, changed, 0o644); err != nil {
		t.Fatal(err)
	}
	// The calculator page alone, and no Zeus trace: the tree's other pages
	// (the validation page's held-out refits, the report's Zeus refits)
	// took a full build's 14 s of the test and are not what it checks.
	pages := filepath.Join(tree, "pages")
	if err := os.RemoveAll(pages); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(pages, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pages, "index.md"), []byte("---\ntitle: Energy calculator\nnav: 1\ntemplate: calculator\n---\n\nThe calculator with this tree's calibrations.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	cmd := exec.Command(siteCLI(t), "build", "-content", tree, "-data", t.TempDir(), "-compress", "none", "-o", out)
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("site build -content %s: %v\n%s", tree, err, b)
	}

	// The estimate of the form with 3e8 tokens, by the tree's catalog and
	// by the module's.
	form := calcapi.DefaultForm()
	form["tokens"] = "3e8"
	want := formEnergy(t, func() (*calcapi.API, error) {
		files, err := content.ReadCalibrations(os.DirFS(tree), "calibrations")
		if err != nil {
			return nil, err
		}
		cat, err := content.NewCatalog(content.Values(files))
		return calcapi.New(cat), err
	}, form)
	module := formEnergy(t, func() (*calcapi.API, error) {
		cat, err := content.Catalog()
		return calcapi.New(cat), err
	}, form)
	if !(want > module*1.01) {
		t.Fatalf("the changed tree estimates %.6g kWh, the module %.6g kWh: the change should raise it", want, module)
	}

	srv := serve(t, out)
	openCalc(t, ctx, srv.URL+"/index.html")
	typeInto(t, ctx, "tokens", "3e8")
	waitFor(t, ctx, "the estimate for 3e8 tokens", `document.getElementById('calc-root').dataset.state === 'ok' && new URLSearchParams(location.search).get('tokens') === '3e8'`)
	got := pageEnergy(t, ctx)
	if d := relDiff(got, want); !(d < 1e-9) {
		t.Errorf("page energy %.17g kWh, the content tree's catalog %.17g kWh, the module's %.17g kWh", got, want, module)
	}
}

// formEnergy is the energy calcapi gives for a form.
func formEnergy(t *testing.T, api func() (*calcapi.API, error), form calcapi.Form) float64 {
	t.Helper()
	a, err := api()
	if err != nil {
		t.Fatal(err)
	}
	in, _ := json.Marshal(calcapi.EstimateInput{Form: form})
	var o calcapi.EstimateOutput
	if err := json.Unmarshal(a.Estimate(in), &o); err != nil || o.Response == nil {
		t.Fatalf("estimate of %v: %v %+v", form, err, o.Error)
	}
	return o.Response.EnergyKWh
}
