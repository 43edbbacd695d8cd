package model_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
)

// The catalog answers the usual spellings of GPUs and presets, and the
// per-calibration constants, from tables built once (precomputed.go). These
// tests check that the fast paths give what the general ones give.

// TestLookupSpellingsAgree: every id, name and alias of a GPU, as written
// (the exact table) and in a spelling only the normalised table knows,
// finds the same part; likewise every preset name.
func TestLookupSpellingsAgree(t *testing.T) {
	c := catalog(t)
	for _, g := range c.Hardware.GPUs {
		for _, k := range append([]string{g.ID, g.Name}, g.Aliases...) {
			a, errA := c.Hardware.Lookup(k)
			b, errB := c.Hardware.Lookup(" " + strings.ToUpper(k) + " ")
			if errA != nil || errB != nil || a != b {
				t.Errorf("Lookup(%q) = %v, %v; Lookup of its upper-case spelling = %v, %v; want the same part", k, a, errA, b, errB)
			}
		}
	}
	for _, p := range c.Presets {
		na, aa, _, errA := c.ResolveModel(model.ModelSpec{Preset: p.Name}, "")
		nb, ab, _, errB := c.ResolveModel(model.ModelSpec{Preset: " " + strings.ToUpper(p.Name) + " "}, "")
		if errA != nil || errB != nil || na != nb || aa != ab {
			t.Errorf("ResolveModel(%q) = %s %+v, %v; upper-case spelling = %s %+v, %v; want the same preset", p.Name, na, aa, errA, nb, ab, errB)
		}
	}
}

// TestCatalogChangedAfterBuild: a catalog whose calibration is changed
// after it was built (the interval's level, the name) gives the estimate a
// catalog built with the changed calibration gives.
func TestCatalogChangedAfterBuild(t *testing.T) {
	cals, err := content.LoadCalibrations(content.Calibrations)
	if err != nil {
		t.Fatal(err)
	}
	changed, err := content.NewCatalog(slices.Clone(cals))
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(changed.Calibrations, func(c model.Calibration) bool { return c.Name == changed.Default })
	changed.Calibrations[i].Interval.Level = 0.5
	// The catalog's name index still finds it under its old name, the
	// default.
	changed.Calibrations[i].Name = "renamed"
	want := slices.Clone(cals)
	want[i].Interval.Level = 0.5
	want[i].Name = "renamed"
	fresh, err := model.NewCatalog(changed.Hardware, changed.Presets, want, "renamed")
	if err != nil {
		t.Fatal(err)
	}
	fresh.Power = changed.Power
	req := baseRequest()
	got, err := changed.Estimate(req)
	if err != nil {
		t.Fatalf("Estimate on the changed catalog: %v", err)
	}
	w, err := fresh.Estimate(req)
	if err != nil {
		t.Fatalf("Estimate on the fresh catalog: %v", err)
	}
	gj, _ := json.Marshal(got)
	wj, _ := json.Marshal(w)
	if string(gj) != string(wj) {
		t.Errorf("changed catalog gives\n%s\nwant (fresh catalog)\n%s", gj, wj)
	}
	if !strings.Contains(got.Parallel.Law, "renamed") || got.IntervalLevel != 0.5 {
		t.Errorf("Parallel.Law = %q, IntervalLevel = %g; want the renamed calibration at level 0.5", got.Parallel.Law, got.IntervalLevel)
	}
}

// TestWithDefaultIsNewCatalog: the catalog WithDefault derives (what the
// table-stage fit tries each constant in) estimates exactly as a catalog
// built afresh with that calibration, across strategies that use the
// parallel-law names and the envelope texts, and refuses what NewCatalog
// refuses.
func TestWithDefaultIsNewCatalog(t *testing.T) {
	c := catalog(t)
	def, err := c.Calibration("")
	if err != nil {
		t.Fatal(err)
	}
	cal := *def
	cal.Name = "any name: WithDefault renames it"
	cal.Interval.Level = 0.8
	cal.Envelope.Batch = [2]float64{3, 7}
	derived, err := c.WithDefault(cal)
	if err != nil {
		t.Fatal(err)
	}
	cals := slices.Clone(c.Calibrations)
	cal.Name = c.Default
	cals[slices.IndexFunc(cals, func(x model.Calibration) bool { return x.Name == c.Default })] = cal
	fresh, err := model.NewCatalog(c.Hardware, c.Presets, cals, c.Default)
	if err != nil {
		t.Fatal(err)
	}
	for _, strategy := range []model.Strategy{{Name: model.FSDP}, {Name: model.TP}, {Name: model.DDP}, {Name: model.Hybrid, Tensor: 2, Data: 2}} {
		for _, name := range append([]string{""}, calibrationNames(c)...) {
			req := baseRequest()
			req.Strategy = strategy
			req.Calibration = name
			got, errG := derived.Estimate(req)
			want, errW := fresh.Estimate(req)
			gj, _ := json.Marshal(got)
			wj, _ := json.Marshal(want)
			if fmt.Sprint(errG) != fmt.Sprint(errW) || string(gj) != string(wj) {
				t.Errorf("%+v, calibration %q: WithDefault gives %v\n%s\nNewCatalog gives %v\n%s", strategy, name, errG, gj, errW, wj)
			}
		}
	}
	bad := *def
	bad.Kind = model.KindLogLinear
	if _, err := c.WithDefault(bad); err == nil {
		t.Errorf("WithDefault accepted a default of kind %s", bad.Kind)
	}
}

func calibrationNames(c *model.Catalog) []string {
	var names []string
	for _, x := range c.Calibrations {
		names = append(names, x.Name)
	}
	return names
}
