package calcapi

import (
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/distill"
)

// The page speaks the form's language: it names inputs by their labels, not
// by request paths, and never points at API routes. Error.Say carries that
// wording; Error.Message and Error.Text keep the JSON paths the command line
// and the API print.

// formLabels are the labels of the form's inputs (the Label column of
// model.RequestFields and recommendFields, which the view renders) by the
// request path a message may mention, with messageLabels' wording where
// that differs.
//
// Built on first use (sync.OnceValue), as planLabels: only a message needs
// them, and the WebAssembly's start-up runs every package-level
// initialiser before it can answer.
var formLabels = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, rows := range [][]model.Field{model.RequestFields, recommendFields} {
		for _, f := range rows {
			if f.Path != "" && f.Label != "" {
				m[f.Path] = f.Label
			}
		}
	}
	for p, l := range messageLabels {
		m[p] = l
	}
	return m
})

// messageLabels are how a sentence names the inputs whose form label is
// not fit to quote in one: a label with a choice or an aside in it
// ("Preset or “custom”", "KV heads (GQA)", "Tokens processed (all
// epochs)", "Train embeddings and LM head in full"), an abbreviation
// ("State bytes / parameter") or a word that needs its noun
// ("Checkpointing").
var messageLabels = map[string]string{
	"model.preset": "Preset", "model.kv_heads": "KV heads", "training.tokens": "Tokens processed",
	"training.state_bytes_per_param": "optimizer state per parameter", "training.gradient_checkpointing": "Gradient checkpointing",
	"training.lora.train_embeddings": "Train embeddings",
}

// planLabels are the planner's labels (distill.PlanFields) by a path below
// an option ("stages_kwh.teacher") or the plan's ("options.students"),
// with a sentence's wording where a label is not fit to quote in one.
var planLabels = sync.OnceValue(func() map[string]string {
	m := map[string]string{"quality": "Quality Q", "stages_kwh.prerun": "Preprocess kWh", "total_kwh": "total kWh"}
	for _, f := range distill.PlanFields {
		if rest, ok := strings.CutPrefix(f.Path, "options[]."); ok && m[rest] == "" {
			m[rest] = f.Label
		}
	}
	m["options.students"] = m["students"]
	return m
})

// pageNamer names things as the page does (model.Namer): inputs by
// their labels in quotes, GPUs by name.
var pageNamer = model.Namer{Plain: true, Field: pathLabel, GPU: gpuName}

// briefNamer is pageNamer for a message's gist (model.MessageText.Brief).
var briefNamer = model.Namer{Plain: true, Brief: true, Field: pathLabel, GPU: gpuName}

// pathLabel is how the page names a request path (training.seq_len,
// options[2].stages_kwh.teacher): its label in quotes, "" when it has none.
func pathLabel(p string) string {
	if l, ok := formLabels()[p]; ok {
		return "“" + l + "”"
	}
	if i := strings.Index(p, "]."); i > 0 && strings.HasPrefix(p, "options[") {
		if l, ok := formLabels()[strings.TrimPrefix(p[i+2:], "student.")]; ok && strings.HasPrefix(p[i+2:], "student.") {
			n, _ := strconv.Atoi(p[len("options["):i])
			return "“" + l + "” of option " + strconv.Itoa(n+1) + "'s student"
		}
		if l, ok := planLabels()[p[i+2:]]; ok {
			n, _ := strconv.Atoi(p[len("options["):i])
			return "“" + l + "” of option " + strconv.Itoa(n+1)
		}
	}
	if l, ok := planLabels()[p]; ok {
		return "“" + l + "”"
	}
	return ""
}

// gpuName is the name of the table's GPU id, or "".
func gpuName(id string) string { return gpuNames()[id] }

// sayError is a model error's message in the page's words: its code's
// text when it has one (the tokens' advice by the form's value), else its
// words as they are.
func sayError(fe *model.FieldError, input string, f Form) string {
	if fe.Code == model.CodeTokensRequired && f != nil {
		if x, ok := ParseNumber(f[input]); ok && x <= 0 {
			return "must be more than 0 tokens, for example 2e8 or 200M"
		}
	}
	return fe.Say(pageNamer)
}

// WarningsSay is a response's warnings in the form's words (inputs by
// label, GPUs by name), less the envelope warning when env (EnvelopeNote)
// explains it.
func WarningsSay(r *model.Response, env []string) []string {
	var out []string
	for _, w := range r.WarningMessages {
		if len(env) > 0 && w.Code == model.CodeOutsideEnvelope {
			continue
		}
		out = append(out, Say(w))
	}
	return out
}

// Say is a message in the page's words (pageNamer): inputs by their
// labels, GPUs by name.
func Say(m model.Message) string { return m.Text(pageNamer) }

// gpuNames are the table's GPU names by id, for pageNamer.
var gpuNames = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, g := range model.DefaultGPUs() {
		m[g.ID] = g.Name
	}
	return m
})

// numberProblem is the code of why text is not a number the input takes: what a
// number there looks like (ex, the Example of the input's field row), or
// else "a number, for example " + fallback.
func numberProblem(ex, raw, fallback string) (code string, args model.Args) {
	t := strings.NewReplacer(",", "", "_", "", " ", "").Replace(strings.TrimSpace(raw))
	t = strings.TrimRight(t, "kKmMbBgGtT")
	if x, err := strconv.ParseFloat(t, 64); err != nil && math.IsInf(x, 0) {
		return CodeNumberTooLarge, nil
	}
	if ex != "" {
		return CodeNumberExample, model.Args{{Name: "example", Str: ex}}
	}
	return CodeNumber, model.Args{{Name: "example", Str: fallback}}
}

// EnvelopeNote explains in plain words why an estimate lies outside its
// calibration's fitted range and what to change: one sentence per
// dimension, from the response's Calibration.OutsideMessages.
func EnvelopeNote(r *model.Response) []string {
	if r == nil || r.Calibration.InEnvelope {
		return nil
	}
	names := map[string][2]string{
		"seq_len":       {"Sequence length", "a sequence length"},
		"batch_per_gpu": {"Batch per GPU", "a batch per GPU"},
		"gpus":          {"The GPU count", "a GPU count"},
		"params":        {"The model size", "a model"},
	}
	cal := r.Calibration.Name
	var out []string
	for _, o := range r.Calibration.OutsideMessages {
		switch o.Code {
		case model.CodeEnvelopeGPU:
			id := o.Args.Str("gpu")
			among, _ := o.Args.Get("among")
			out = append(out, id+" is not one of the GPUs calibration "+cal+" was fitted on ("+strings.Join(among.List, ", ")+"): choose one of those, or a calibration fitted on your GPU (refit one from your own measurements below).")
		case model.CodeEnvelopeRange:
			name, x, l, h := o.Args.Str("dim"), o.Args.Num("x"), o.Args.Num("low"), o.Args.Num("high")
			n := names[name]
			if n[0] == "" {
				n = [2]string{name, name}
			}
			val, lo, hi, unit := model.ShortNum(x), model.ShortNum(l), model.ShortNum(h), ""
			if name == "params" {
				val, lo, hi = humanCount(x), humanCount(l), humanCount(h)
				unit = " parameters"
			}
			side := "above"
			if x < l {
				side = "below"
			}
			what := n[0] + " " + val + unit + " is " + side + " the range calibration " + cal + " was fitted on (" + lo + " to " + hi + unit + ")"
			if lo == hi {
				what = n[0] + " " + val + unit + " differs from the only one calibration " + cal + " was fitted on (" + lo + unit + ")"
			}
			out = append(out, what+": choose "+n[1]+" inside that range to stay where the calibration was measured, or read this estimate as a rough guide.")
		}
	}
	if len(out) > 0 {
		out = append(out, "Outside its fitted range the calibration is extrapolating, so the interval above is widened; it is an assumption there, not a measured error.")
	}
	return out
}

// humanCount writes 108375552 as "108 M".
func humanCount(x float64) string {
	switch {
	case x >= 1e9:
		return model.ShortNum(x/1e9) + " B"
	case x >= 1e6:
		return model.ShortNum(math.Round(x/1e6)) + " M"
	}
	return model.ShortNum(x)
}

// What a number looks like in an input whose field row has no Example:
// in the calculator, and in the planner (stage energies, quality).
const (
	calcNumberExample = "2e8, 200M or 0.15"
	planNumberExample = "11 or 0.37"
)

// planExample is the Example of a planner field, or of the estimate
// request's field at the same path (the site inputs).
func planExample(fd *model.Field) string {
	if fd.Example == "" {
		if rf := model.RequestField(fd.Path); rf != nil {
			return rf.Example
		}
	}
	return fd.Example
}
