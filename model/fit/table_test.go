package fit_test

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/fit"
	"github.com/wattscale/wattscale/model/validate"
)

func tableInputs(t *testing.T) (*model.Catalog, model.Calibration, []validate.Run, []fit.ScalingPoint) {
	t.Helper()
	cat, err := content.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	base, err := cat.Calibration("")
	if err != nil {
		t.Fatal(err)
	}
	runs, err := validate.ReadRuns(bytes.NewReader(content.ValidationRuns))
	if err != nil {
		t.Fatal(err)
	}
	sc, err := fit.ReadScaling(bytes.NewReader(content.PublishedScaling))
	if err != nil {
		t.Fatal(err)
	}
	return cat, *base, runs, sc
}

// TestFitTableRecovers replaces every run's energy by what a calibration
// with known tensor constants predicts, and checks that the table stage
// finds those constants again.
func TestFitTableRecovers(t *testing.T) {
	cat, base, runs, _ := tableInputs(t)
	truth := base
	rp := *base.Roofline
	tp := *rp.Tensor
	tp.UCompute = model.Coefficient{Value: 0.42}
	tp.Activity = model.Coefficient{Value: 0.77}
	rp.Tensor = &tp
	truth.Roofline = &rp
	cm := *base.Comm
	cm.Exposed = model.Coefficient{Value: 0.25}
	cm.LatencyS = model.Coefficient{Value: 3e-4}
	truth.Comm = &cm
	tcat, err := cat.WithDefault(truth)
	if err != nil {
		t.Fatal(err)
	}
	synth := make([]validate.Run, len(runs))
	copy(synth, runs)
	for i, r := range synth {
		p := validate.Predict(r, r.Inputs(cat.Presets, cat.Hardware), tcat, "", validate.HostFactor)
		if p.Available {
			synth[i].EnergyKWh = p.KWh
		}
	}
	res, err := fit.FitTable(cat, base, synth, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := res.Calibration.Roofline.Tensor
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"u_compute", got.UCompute.Value, 0.42}, {"activity", got.Activity.Value, 0.77}} {
		if math.Abs(c.got-c.want) > 0.02*c.want {
			t.Errorf("FitTable on synthetic energies: %s = %.4f, want %.4f within 2%%", c.name, c.got, c.want)
		}
	}
	for id, r := range res.Residuals {
		if math.Abs(r) > 0.05 {
			t.Errorf("synthetic run %s: residual %.3f in ln, want near 0", id, r)
		}
	}
	if len(got.Rows) < 20 || len(res.Envelope.Hardware) == 0 {
		t.Errorf("FitTable: %d rows, envelope %v", len(got.Rows), res.Envelope)
	}
}

// TestTableCatalogHoldsOut: a leave-one-source-out catalog was fitted
// without any run of the held-out source.
func TestTableCatalogHoldsOut(t *testing.T) {
	cat, base, runs, sc := tableInputs(t)
	const held = "Meta Llama 2 model card"
	k, err := fit.TableCatalog(cat, base, runs, sc, held)
	if err != nil {
		t.Fatal(err)
	}
	c, err := k.Calibration("")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Roofline.Tensor.Rows) == 0 {
		t.Fatal("no rows recorded")
	}
	for _, id := range c.Roofline.Tensor.Rows {
		if strings.HasPrefix(id, "llama-2-") {
			t.Errorf("the catalog holding out %q was fitted on %s", held, id)
		}
	}
	full, err := cat.Calibration("")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Roofline.Tensor.Rows) >= len(full.Roofline.Tensor.Rows) {
		t.Errorf("held-out fit used %d rows, the shipped one %d", len(c.Roofline.Tensor.Rows), len(full.Roofline.Tensor.Rows))
	}
}

// TestShippedTableStage: the shipped calibration's table stage is what
// FitTable gives on the shipped table (make fit was run after the last
// change to the table or the model).
func TestShippedTableStage(t *testing.T) {
	cat, base, runs, sc := tableInputs(t)
	res, err := fit.FitTable(cat, base, runs, sc)
	if err != nil {
		t.Fatal(err)
	}
	got, want := base.Roofline.Tensor, res.Calibration.Roofline.Tensor
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"u_compute", got.UCompute.Value, want.UCompute.Value}, {"activity", got.Activity.Value, want.Activity.Value},
		{"exposed", base.Comm.Exposed.Value, res.Calibration.Comm.Exposed.Value}, {"latency_s", base.Comm.LatencyS.Value, res.Calibration.Comm.LatencyS.Value}} {
		if math.Abs(c.got-c.want) > 1e-3*math.Max(math.Abs(c.want), 1e-6) {
			t.Errorf("shipped %s = %.6g, a refit gives %.6g: run make fit", c.name, c.got, c.want)
		}
	}
}
