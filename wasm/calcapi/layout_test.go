package calcapi

import (
	"slices"
	"testing"
)

// TestLayout: the form's layout places form keys only, each once, in
// fieldsets named after the field table's groups, with controls the
// page knows how to draw; and every form key with a group lands in the
// form, placed or at the end of its group's fieldset.
func TestLayout(t *testing.T) {
	layout := Layout()
	seen := map[string]int{}
	groups := map[string]bool{}
	controls := []string{"", ControlPresets, ControlGPUs, ControlRegions, ControlCalibrations, ControlRadios}
	var walk func(it Item)
	walk = func(it Item) {
		if (it.Key == "") == (len(it.Items) == 0) {
			t.Errorf("item %+v: want a key or items, not both or neither", it)
		}
		if !slices.Contains(controls, it.Control) || it.Control != "" && it.Key == "" {
			t.Errorf("item %+v: control %q", it, it.Control)
		}
		if it.Key != "" {
			seen[it.Key]++
			if formFields[it.Key] == nil {
				t.Errorf("the layout places %q, which is not a form key", it.Key)
			}
		}
		for _, c := range it.Items {
			walk(c)
		}
	}
	for _, s := range layout {
		if groups[s.Group] {
			t.Errorf("two fieldsets for group %q", s.Group)
		}
		groups[s.Group] = true
		for _, it := range s.Items {
			walk(it)
		}
	}
	for k, n := range seen {
		if n > 1 {
			t.Errorf("the layout places %q %d times", k, n)
		}
	}
	placed := placedKeys(layout)
	for _, k := range FormKeys {
		f := formFields[k]
		if !placed[k] && f.Group != "recommend" && !groups[f.Group] {
			t.Errorf("form key %q (group %q) has no place in the form", k, f.Group)
		}
	}
	for _, k := range []string{"layers", "experts_per_token"} {
		if !placed[k] {
			t.Errorf("the custom shape's block lacks %q", k)
		}
	}
}

// TestPlannerLayout: the planner's layout places rows of its field table,
// each once, with one place for the option rows.
func TestPlannerLayout(t *testing.T) {
	known := map[string]bool{}
	for _, f := range PlanFormFields() {
		known[f.Key] = true
	}
	rows := 0
	for _, s := range PlannerLayout() {
		if s.Rows {
			rows++
			if len(s.Items) > 0 || s.Legend != "" {
				t.Errorf("the rows' place %+v has its own items or legend", s)
			}
		}
	}
	if rows != 1 {
		t.Errorf("%d places for the option rows, want 1", rows)
	}
	for k := range placedKeys(PlannerLayout()) {
		if !known[k] {
			t.Errorf("the planner's layout places %q, which is not in its field table", k)
		}
	}
	for _, k := range []string{"set", "region", "jref", "deadline"} {
		if !placedKeys(PlannerLayout())[k] {
			t.Errorf("the planner's layout lacks %q", k)
		}
	}
}

// placed calls f with every key the layout places.
func (it Item) placed(f func(string)) {
	if it.Key != "" {
		f(it.Key)
	}
	for _, c := range it.Items {
		c.placed(f)
	}
}

// placedKeys returns the form keys the layout places.
func placedKeys(layout []Section) map[string]bool {
	out := map[string]bool{}
	for _, s := range layout {
		for _, it := range s.Items {
			it.placed(func(k string) { out[k] = true })
		}
	}
	return out
}
