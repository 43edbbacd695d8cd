package calcapi

import (
	"fmt"
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
	hw := fmt.Sprintf("%d x %s", in.Count, in.GPUName)
	cal := r.Calibration.Name + " " + r.Calibration.Version
	level := pct(r.IntervalLevel)
	var b strings.Builder
	b.WriteString("co2_eq_emissions:\n")
	fmt.Fprintf(&b, "  emissions: %s\n", sig(r.CO2eKg*1000))
	fmt.Fprintf(&b, "  source: %s\n", yamlQuote(fmt.Sprintf("wattscale estimate before training, calibration %s; %s interval %s–%s g; PUE %s",
		cal, level, sig(r.CO2eIntervalKg[0]*1000), sig(r.CO2eIntervalKg[1]*1000), sig(in.PUE))))
	fmt.Fprintf(&b, "  training_type: %s\n", yamlQuote("fine-tuning: "+RunDescription(r)))
	fmt.Fprintf(&b, "  geographical_location: %s\n", yamlQuote(loc))
	fmt.Fprintf(&b, "  hardware_used: %s\n", yamlQuote(hw))

	cite := fmt.Sprintf("Fine-tuning %s was estimated before training to use %s kWh of accelerator energy (%s interval %s–%s kWh; %s kWh at PUE %s) over %s GPU-hours, emitting %s kg CO2e at %s g CO2e/kWh; estimate by wattscale.",
		RunDescription(r), sig(r.EnergyKWh), level, sig(r.EnergyIntervalKWh[0]), sig(r.EnergyIntervalKWh[1]),
		sig(r.FacilityEnergyKWh), sig(in.PUE), sig(r.GPUHours), sig(r.CO2eKg), sig(in.CarbonGPerKWh))
	return &Snippets{ModelCard: b.String(), Citation: cite}
}

// RunDescription says what an estimate was made for, in a paper's words:
// the model, the method with its rank, targets, base format and
// checkpointing, the precision, the tokens with their sequence, batch and
// accumulation, the optimizer state, the hardware and its layout, a power
// limit below the board's default, the software stack, the attention
// implementation, torch.compile and the calibration. Every input that moves the estimate
// is in it (TestSnippetsNameEveryInput), so a pasted snippet says what was
// estimated.
func RunDescription(r *model.Response) string {
	in, tr, p := r.Inputs, r.Training, r.Parallel
	var parts []string
	add := func(format string, args ...any) { parts = append(parts, fmt.Sprintf(format, args...)) }
	a := in.Arch
	name, head := in.Model, ""
	if name == "" || name == "custom" {
		name = "a custom model"
	}
	if in.Head == "classifier" {
		head = ", classifier head"
	}
	add("%s (%d layers, hidden %d, %s parameters%s)", name, a.Layers, a.Hidden, count(r.Proxies.Params), head)
	switch tr.Method {
	case model.MethodLoRA, model.MethodQLoRA:
		m := "LoRA"
		if tr.Method == model.MethodQLoRA {
			m = fmt.Sprintf("QLoRA on a %s base computing in %s", strings.ToUpper(tr.BaseFormat), tr.ComputeDtype)
		}
		emb := ""
		if tr.TrainEmbeddings {
			emb = ", embeddings and LM head trained in full"
		}
		add("with %s, rank %d on %s%s", m, tr.Rank, strings.Join(tr.Targets, ", "), emb)
	default:
		add("every weight trained")
	}
	if tr.GradientCheckpointing {
		add("gradient checkpointing")
	}
	accum := ""
	if in.GradientAccumulation > 1 {
		accum = fmt.Sprintf(" × %d accumulation steps", in.GradientAccumulation)
	}
	add("%s, %s tokens of sequence length %d at %d sequences per GPU%s", in.Precision, count(in.Tokens), in.SeqLen, in.BatchPerGPU, accum)
	add("optimizer state of %s bytes per trained parameter", model.ShortNum(in.StateBytesPerParam))
	layout := strings.ToUpper(p.Strategy)
	if p.Strategy == model.Hybrid {
		layout = fmt.Sprintf("%d-way tensor × %d-way %s", p.Tensor, p.Data, strings.ToUpper(p.DataMode))
		if p.Context > 1 {
			layout += fmt.Sprintf(" × %d-way context", p.Context)
		}
	}
	hw := fmt.Sprintf("on %d× %s (%s)", in.Count, in.GPUName, layout)
	if pl := r.PowerLimit; pl.DefaultW > 0 && pl.LimitW < pl.DefaultW {
		hw += fmt.Sprintf(" at a %s W power limit per GPU", sig(pl.LimitW))
	}
	add("%s", hw)
	sw := tr.Attention + " attention"
	if tr.Stack != "" {
		sw = tr.Stack + " software stack, " + sw
	}
	if tr.Compile {
		sw += ", torch.compile"
	}
	add("%s", sw)
	add("calibration %s %s", r.Calibration.Name, r.Calibration.Version)
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
