package calcapi

// The calculator form's layout: its fieldsets, which form keys each
// places where, and which are drawn in a grid row or hidden together.
// The view (wasm/calcapi/view) draws the form from it (Meta.Layout), at
// build time and in the WebAssembly alike. A
// row of the field table that the layout does not place gets a plain
// input at the end of its group's fieldset (Section.Group), so a field
// added to model.RequestFields appears in the form with no change here.

// Section is one fieldset of the form.
type Section struct {
	// Group is the field table's group (model.Field.Group) whose rows the
	// layout leaves unplaced end this fieldset (the calculator's form; the
	// planner's places every row it shows).
	Group  string `json:"group,omitempty"`
	Legend string `json:"legend,omitempty"`
	Items  []Item `json:"items,omitempty"`
	// Note is a hint paragraph at the end of the fieldset.
	Note string `json:"note,omitempty"`
	// Rows marks where the planner's option rows go, each its own
	// fieldset, with the button that adds one.
	Rows bool `json:"rows,omitempty"`
}

// Item is one field (Key), or a block of items (Items): a grid row when
// Grid names its classes, hidden while none of its fields applies when
// Toggle is set.
type Item struct {
	Key string `json:"key,omitempty"`
	// Control says how Key is drawn when not by its row of the field table
	// (a select of its choices, a check box or a text field): "presets"
	// and "gpus" are text fields over a list of the catalog's presets or
	// accelerators, "regions" and "calibrations" selects of the catalog's,
	// "radios" the row's choices as radio buttons. The first three have a
	// hint that the page fills with what the value names.
	Control string `json:"control,omitempty"`
	Grid    string `json:"grid,omitempty"`
	Toggle  bool   `json:"toggle,omitempty"`
	Items   []Item `json:"items,omitempty"`
}

// Controls drawn other than by the field table's row (Item.Control).
const (
	ControlPresets      = "presets"
	ControlGPUs         = "gpus"
	ControlRegions      = "regions"
	ControlCalibrations = "calibrations"
	ControlRadios       = "radios"
)

func keys(ks ...string) []Item {
	out := make([]Item, len(ks))
	for i, k := range ks {
		out[i] = Item{Key: k}
	}
	return out
}

// Layout is the calculator form's layout over the form's rows of the
// field table (Meta.Fields): the custom shape's block holds the rows that
// apply to a custom model, in the table's order.
func Layout() []Section {
	var shape []string
	for _, k := range FormKeys {
		if w := formFields[k].When; w != nil && w.Key == "model" && w.Value == "custom" {
			shape = append(shape, k)
		}
	}
	return []Section{
		{Group: "model", Legend: "Model", Items: []Item{
			{Key: "model", Control: ControlPresets},
			{Grid: "grid3 shape", Toggle: true, Items: keys(shape...)},
			{Key: "head"},
		}},
		{Group: "training", Legend: "Training", Items: []Item{
			{Key: "length", Control: ControlRadios},
			{Key: "tokens"},
			{Grid: "grid2", Toggle: true, Items: keys("dataset_tokens", "epochs")},
			{Grid: "grid3", Items: keys("seq", "batch", "precision")},
		}},
		{Group: "method", Legend: "Fine-tuning method", Items: []Item{
			{Grid: "grid2", Items: keys("method", "ckpt")},
			{Toggle: true, Items: []Item{
				{Grid: "grid2", Items: keys("rank", "targets")},
				{Grid: "grid2", Toggle: true, Items: keys("base_format", "compute_dtype")},
				{Key: "train_emb"}, {Key: "compare"},
			}},
		}},
		{Group: "hardware", Legend: "Hardware and parallelism", Items: []Item{
			{Key: "gpu", Control: ControlGPUs},
			{Grid: "grid2 narrow-wide", Items: keys("count", "strategy")},
			{Grid: "grid2", Toggle: true, Items: keys("tensor", "data_mode")},
			{Key: "power"},
		}},
		siteSection(),
		{Group: "calibration", Legend: "Calibration", Items: []Item{
			{Key: "cal", Control: ControlCalibrations},
		}},
	}
}

// siteSection is the site, grid and price fieldset, the same in both forms.
func siteSection() Section {
	return Section{Group: "site", Legend: "Site, grid and price", Items: []Item{
		{Key: "region", Control: ControlRegions},
		{Grid: "grid3", Items: keys("carbon", "pue", "price")},
	}}
}

// PlannerLayout is the distillation planner form's layout around its
// option rows (PlannerMeta.Layout).
func PlannerLayout() []Section {
	return []Section{
		{Group: "plan", Legend: "Plan", Items: keys("set", "n")},
		{Rows: true},
		siteSection(),
		{Group: "serving", Legend: "Serving (for T*)", Items: []Item{{Grid: "grid2", Items: keys("jref", "jstu")}},
			Note: "Serving energy per token of the model the student replaces and of the student; leave empty to skip T*."},
		{Group: "recommend", Legend: "Cheaper hardware per stage", Items: []Item{{Grid: "grid2", Items: keys("minimise", "deadline")}}},
	}
}
