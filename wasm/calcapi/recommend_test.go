package calcapi

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/model"
)

func recommendForm(t *testing.T, a *API, f Form) RecommendOutput {
	t.Helper()
	b, _ := json.Marshal(RecommendInput{Form: f})
	var out RecommendOutput
	if err := json.Unmarshal(a.Recommend(b), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRecommendForm: the default form gets a recommendation whose best,
// loaded back into the form as the panel does (hardware, layout, micro-batch
// and accumulation), estimates to the same energy; the form's power limit
// reaches the request.
func TestRecommendForm(t *testing.T) {
	a := newAPI(t)
	f := DefaultForm()
	f["deadline"] = "2"
	out := recommendForm(t, a, f)
	if out.Error != nil || out.Result == nil || out.Result.Best == nil || out.Result.Current == nil {
		t.Fatalf("Recommend(default form) = %+v", out)
	}
	if out.Result.DeadlineS != 7200 {
		t.Errorf("deadline 2 h gave deadline_s %v, want 7200", out.Result.DeadlineS)
	}
	b := out.Result.Best
	g := DefaultForm()
	g["gpu"], g["count"], g["power"] = b.Hardware.GPU, itoa(b.Hardware.Count), ftoa(b.Hardware.PowerLimitW)
	g["strategy"] = b.Strategy.Name
	// the panel loads the micro-batch and accumulation that hold the
	// global batch too
	g["batch"], g["accum"] = itoa(b.BatchPerGPU), ""
	if b.GradientAccumulation > 1 {
		g["accum"] = itoa(b.GradientAccumulation)
	}
	if b.Strategy.Name == model.Hybrid {
		g["tensor"], g["data_mode"] = ftoa(b.Strategy.Tensor), b.Strategy.DataMode
	}
	e := estimate(t, a, EstimateInput{Form: g})
	if e.Response == nil {
		t.Fatalf("the best loaded into the form: %+v", e.Error)
	}
	if e.Response.EnergyKWh != b.EnergyKWh || e.Response.TimeS != b.TimeS {
		t.Errorf("best loaded into the form estimates %.10g kWh %.10g s, the panel said %.10g kWh %.10g s", e.Response.EnergyKWh, e.Response.TimeS, b.EnergyKWh, b.TimeS)
	}
}

func TestRecommendFormErrors(t *testing.T) {
	a := newAPI(t)
	for _, tc := range []struct{ key, value, input string }{
		{"deadline", "soon", "deadline"},
		{"deadline", "-3", "deadline"},
		{"minimise", "speed", "minimise"},
		{"batch", "0", "batch"},
	} {
		f := DefaultForm()
		f[tc.key] = tc.value
		out := recommendForm(t, a, f)
		if out.Error == nil || out.Error.Input != tc.input {
			t.Errorf("%s=%q: error %+v, want one on input %s", tc.key, tc.value, out.Error, tc.input)
		}
	}
	// A current configuration that cannot run still gets recommendations.
	f := DefaultForm()
	f["model"], f["count"], f["strategy"], f["seq"], f["batch"] = "llama-3-8b", "1", "single", "2048", "1"
	out := recommendForm(t, a, f)
	if out.Error != nil || out.Result == nil || out.Result.Best == nil || out.Result.Current != nil {
		t.Errorf("llama-3-8b on one A100: error %+v, want recommendations without a current configuration", out.Error)
	}
	f = DefaultForm()
	f["power"] = "20"
	if e := estimate(t, a, EstimateInput{Form: f}); e.Error == nil || e.Error.Input != "power" || e.Error.Field != "hardware.power_limit_w" {
		t.Errorf("power 20 W: error %+v, want hardware.power_limit_w on input power", e.Error)
	}
}

func itoa(n int) string     { return strconv.Itoa(n) }
func ftoa(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// TestDeadlineReadAlike: the calculator's panel and the planner's
// per-stage search read the deadline (hours) by one rule: the same
// seconds, the same error on deadline_s for text that is not a number.
func TestDeadlineReadAlike(t *testing.T) {
	a := newAPI(t)
	for _, v := range []string{"1.5", "soon", "1e999"} {
		f := DefaultForm()
		f["deadline"] = v
		calc := recommendForm(t, a, f)
		g := estimatedStudentForm(nil)
		g["deadline"] = v
		in, _ := json.Marshal(PlanInput{Form: g})
		var plan PlanRecommendOutput
		json.Unmarshal(a.DistillRecommend(in), &plan)
		if v == "1.5" {
			if calc.Result == nil || plan.Result == nil || calc.Result.DeadlineS != 5400 || !bytes.Contains(plan.Request, []byte(`"deadline_s":5400`)) {
				t.Errorf("deadline 1.5 h: calculator %+v, planner request %s; want deadline_s 5400 in both", calc.Error, plan.Request)
			}
			continue
		}
		if calc.Error == nil || plan.Error == nil || calc.Error.Field != "deadline_s" || !reflect.DeepEqual(calc.Error, plan.Error) {
			t.Errorf("deadline %q: calculator error %+v, planner error %+v; want the same error on deadline_s", v, calc.Error, plan.Error)
		}
	}
}

// TestRecommendOnlyMyGPU: "only my GPU type" limits the search to the
// form's GPU (every configuration on it, the count searched up to the
// form's own), and the panel's words say so, give the form's
// configuration's memory check and the skipped counts with the GPU's name,
// never its id. Without it the search finds other GPU types.
func TestRecommendOnlyMyGPU(t *testing.T) {
	a := newAPI(t)
	f := DefaultForm()
	g, err := a.Catalog.Hardware.Lookup(f["gpu"])
	if err != nil {
		t.Fatal(err)
	}
	all := recommendForm(t, a, f)
	if all.Result == nil || all.Say == nil {
		t.Fatalf("Recommend(default form) = %+v", all)
	}
	types := map[string]bool{}
	for _, c := range all.Result.Pareto {
		types[c.Hardware.GPU] = true
	}
	if len(types) == 1 && types[g.ID] {
		t.Errorf("the whole table's search found only GPU type %v: cannot tell it from the limited one", types)
	}
	if !strings.Contains(all.Say.Searched, "every GPU type") {
		t.Errorf("searched: %q", all.Say.Searched)
	}
	f["only_gpu"] = "1"
	out := recommendForm(t, a, f)
	if out.Error != nil || out.Result == nil || out.Result.Best == nil || out.Say == nil {
		t.Fatalf("Recommend(only my GPU) = %+v", out)
	}
	for _, c := range append([]model.Config{*out.Result.Best}, out.Result.Pareto...) {
		if c.Hardware.GPU != g.ID {
			t.Errorf("only %s asked, the search returned %d × %s", g.ID, c.Hardware.Count, c.Hardware.GPU)
		}
	}
	say := out.Say.Current + " " + out.Say.Searched + " " + strings.Join(out.Say.Skipped, " ")
	if !strings.Contains(out.Say.Searched, g.Name) || !strings.Contains(out.Say.Current, "memory check") || !strings.Contains(out.Say.Current, g.Name) {
		t.Errorf("the panel's words %q: want the memory check and the search naming %s", say, g.Name)
	}
	if strings.Contains(say, g.ID+" ") || strings.Contains(say, g.ID+":") || strings.Contains(say, g.ID+",") {
		t.Errorf("the panel's words name the GPU by its id %s: %q", g.ID, say)
	}
	// A configuration that does not fit says so: Llama-2-70B full
	// fine-tuning on 8 A100 80GB without FSDP's sharding.
	h := DefaultForm()
	h["model"], h["gpu"], h["count"], h["strategy"], h["precision"] = "llama-2-70b", "a100-sxm4-80gb", "8", "ddp", "bf16"
	h["seq"], h["batch"] = "4096", "1"
	o2 := recommendForm(t, a, h)
	if o2.Say == nil || o2.Say.Current == "" {
		t.Fatalf("Llama-2-70B DDP on 8 A100: %+v", o2)
	}
	if !strings.Contains(o2.Say.Current, "does not fit") && !strings.Contains(o2.Say.Current, "not compared") {
		t.Errorf("Llama-2-70B DDP on 8 A100 80GB: the panel says %q, want that it does not fit", o2.Say.Current)
	}
	for _, s := range o2.Say.Skipped {
		if strings.Contains(s, "× a100") || strings.Contains(s, "× h100") || strings.Contains(s, "× b200") {
			t.Errorf("skipped count named by id: %q", s)
		}
	}
	t.Logf("%s | %s | %d skipped, e.g. %v", o2.Say.Current, o2.Say.Searched, len(o2.Say.Skipped), o2.Say.Skipped[:min(2, len(o2.Say.Skipped))])
}
