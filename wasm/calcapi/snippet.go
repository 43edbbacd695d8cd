package calcapi

import (
	"math"
	"strconv"
	"strings"

	"github.com/wattscale/wattscale/model"
)

// Snippets are texts to paste elsewhere: the Hugging Face model-card
// metadata block and a sentence for a paper's compute statement.
type Snippets struct {
	ModelCard string `json:"model_card"` // YAML: the co2_eq_emissions block of a model card
	Citation  string `json:"citation"`   // one sentence with the figures and their source
}

// NewSnippets writes the snippets for a response. Emissions in the model
// card are grams CO2e including PUE (the card's unit), rounded to 3
// significant digits, with the interval and calibration in source.
func NewSnippets(r *model.Response) *Snippets {
	in := r.Inputs
	loc := in.Region
	if loc == "" {
		loc = "grid at " + sig(in.CarbonGPerKWh) + " g CO2e/kWh"
	} else {
		loc += " (" + sig(in.CarbonGPerKWh) + " g CO2e/kWh)"
	}
	hw := strconv.Itoa(in.Count) + " x " + in.GPUName
	cal := r.Calibration.Name + " " + r.Calibration.Version
	level := pct(r.IntervalLevel)
	var b strings.Builder
	b.WriteString("co2_eq_emissions:\n")
	b.WriteString("  emissions: " + sig(r.CO2eKg*1000) + "\n")
	b.WriteString("  source: " + yamlQuote("wattscale estimate before training, calibration "+cal+"; "+level+" interval "+
		sig(r.CO2eIntervalKg[0]*1000)+"–"+sig(r.CO2eIntervalKg[1]*1000)+" g; PUE "+sig(in.PUE)) + "\n")
	b.WriteString("  training_type: " + yamlQuote("fine-tuning: "+RunDescription(r)) + "\n")
	b.WriteString("  geographical_location: " + yamlQuote(loc) + "\n")
	b.WriteString("  hardware_used: " + yamlQuote(hw) + "\n")

	cite := "Fine-tuning " + RunDescription(r) + " was estimated before training to use " + sig(r.EnergyKWh) + " kWh of accelerator energy (" +
		level + " interval " + sig(r.EnergyIntervalKWh[0]) + "–" + sig(r.EnergyIntervalKWh[1]) + " kWh; " + sig(r.FacilityEnergyKWh) + " kWh at PUE " + sig(in.PUE) +
		") over " + sig(r.GPUHours) + " GPU-hours, emitting " + sig(r.CO2eKg) + " kg CO2e at " + sig(in.CarbonGPerKWh) + " g CO2e/kWh; estimate by wattscale."
	return &Snippets{ModelCard: b.String(), Citation: cite}
}

// RunDescription says what an estimate was made for, in a paper's words:
// the model, the method with its rank, targets, base format and
// checkpointing, the precision, the tokens with their sequence, batch and
// accumulation, the optimizer state, the hardware and its layout, a power
// limit below the board's default, the software stack, the attention
// implementation, torch.compile, a foreach AdamW and the calibration. Every
// input that moves the estimate
// is in it (TestSnippetsNameEveryInput), so a pasted snippet says what was
// estimated.
func RunDescription(r *model.Response) string {
	in, tr, p := r.Inputs, r.Training, r.Parallel
	var parts []string
	add := func(s ...string) { parts = append(parts, strings.Join(s, "")) }
	itoa := strconv.Itoa
	a := in.Arch
	name, head := in.Model, ""
	if name == "" || name == "custom" {
		name = "a custom model"
	}
	if in.Head == "classifier" {
		head = ", classifier head"
	}
	add(name, " (", itoa(a.Layers), " layers, hidden ", itoa(a.Hidden), ", ", count(r.Proxies.Params), " parameters", head, ")")
	switch tr.Method {
	case model.MethodLoRA, model.MethodQLoRA:
		m := "LoRA"
		if tr.Method == model.MethodQLoRA {
			m = "QLoRA on a " + strings.ToUpper(tr.BaseFormat) + " base computing in " + string(tr.ComputeDtype)
		}
		emb := ""
		if tr.TrainEmbeddings {
			emb = ", embeddings and LM head trained in full"
		}
		add("with ", m, ", rank ", itoa(tr.Rank), " on ", strings.Join(tr.Targets, ", "), emb)
	default:
		add("every weight trained")
	}
	if tr.GradientCheckpointing {
		add("gradient checkpointing")
	}
	accum := ""
	if in.GradientAccumulation > 1 {
		accum = " × " + itoa(in.GradientAccumulation) + " accumulation steps"
	}
	add(string(in.Precision), ", ", count(in.Tokens), " tokens of sequence length ", itoa(in.SeqLen), " at ", itoa(in.BatchPerGPU), " sequences per GPU", accum)
	add("optimizer state of ", model.ShortNum(in.StateBytesPerParam), " bytes per trained parameter")
	layout := strings.ToUpper(p.Strategy)
	if p.Strategy == model.Hybrid {
		layout = itoa(p.Tensor) + "-way tensor × " + itoa(p.Data) + "-way " + strings.ToUpper(p.DataMode)
		if p.Context > 1 {
			layout += " × " + itoa(p.Context) + "-way context"
		}
	}
	hw := "on " + itoa(in.Count) + "× " + in.GPUName + " (" + layout + ")"
	if pl := r.PowerLimit; pl.DefaultW > 0 && pl.LimitW < pl.DefaultW {
		hw += " at a " + sig(pl.LimitW) + " W power limit per GPU"
	}
	add(hw)
	sw := tr.Attention + " attention"
	if tr.Stack != "" {
		sw = tr.Stack + " software stack, " + sw
	}
	if tr.Compile {
		sw += ", torch.compile"
	}
	if !tr.FusedOptimizer {
		sw += ", foreach AdamW"
	}
	add(sw)
	add("calibration ", r.Calibration.Name, " ", r.Calibration.Version)
	return strings.Join(parts, ", ")
}

// sig formats x to 3 significant digits without an exponent for everyday
// magnitudes (1e-3 to 1e6), with one otherwise.
func sig(x float64) string {
	if x == 0 {
		return "0"
	}
	a := math.Abs(x)
	if a >= 1e-3 && a < 1e6 {
		d := 2 - int(math.Floor(math.Log10(a)))
		if d < 0 {
			d = 0
		}
		return strconv.FormatFloat(x, 'f', d, 64)
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

// count writes a large count the way papers do: 200M, 1.5B, 2T.
func count(x float64) string {
	for _, u := range []struct {
		f float64
		s string
	}{{1e12, "T"}, {1e9, "B"}, {1e6, "M"}, {1e3, "k"}} {
		if math.Abs(x) >= u.f {
			return strconv.FormatFloat(x/u.f, 'g', 3, 64) + u.s
		}
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

func pct(level float64) string { return strconv.FormatFloat(level*100, 'f', -1, 64) + " %" }

// yamlQuote writes s as a double-quoted YAML scalar.
func yamlQuote(s string) string { return strconv.Quote(s) }
