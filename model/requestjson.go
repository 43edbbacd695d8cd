package model

import (
	"math"

	"github.com/wattscale/wattscale/internal/jsonv"
)

// AppendJSON appends the request as encoding/json's Marshal writes it
// (the fields in order, omitempty as tagged, the strategy as a name or a
// hybrid object, a raw object compacted, <, > and & escaped), without
// encoding/json: the calculator's WebAssembly shows a form's request JSON
// on every input. ok is false where Marshal fails: a number that is NaN
// or infinite, a raw object (hf_config, hf_args, peft) that is not JSON.
// TestRequestAppendJSONIsMarshal holds the two equal, field by field.
func (r Request) AppendJSON(dst []byte) (out []byte, ok bool) {
	w := jsonWriter{b: dst, ok: true}
	w.open()
	w.key("model")
	m := r.Model
	w.open()
	w.str("preset", m.Preset, true)
	w.num("layers", m.Layers, true)
	w.num("hidden", m.Hidden, true)
	w.num("heads", m.Heads, true)
	w.num("kv_heads", m.KVHeads, true)
	w.num("ffn", m.FFN, true)
	w.num("vocab", m.Vocab, true)
	w.flag("glu", m.GLU)
	w.num("experts", m.Experts, true)
	w.num("experts_per_token", m.ExpertsPerToken, true)
	w.str("head", m.Head, true)
	w.num("head_dim", m.HeadDim, true)
	w.flag("tied", m.Tied)
	w.raw("hf_config", m.HFConfig)
	w.close()
	w.key("training")
	t := r.Training
	w.open()
	w.num("tokens", t.Tokens, true)
	w.num("dataset_tokens", t.DatasetTokens, true)
	w.num("epochs", t.Epochs, true)
	w.num("seq_len", t.SeqLen, false)
	w.num("batch_per_gpu", t.BatchPerGPU, false)
	w.num("dataset_examples", t.DatasetExamples, true)
	w.num("gradient_accumulation", t.GradientAccumulation, true)
	w.str("precision", string(t.Precision), false)
	w.num("state_bytes_per_param", t.StateBytesPerParam, true)
	w.str("method", t.Method, true)
	if l := t.LoRA; l != nil {
		w.key("lora")
		w.open()
		w.num("rank", l.Rank, true)
		w.str("targets", l.Targets, true)
		w.flag("train_embeddings", l.TrainEmbeddings)
		w.str("base_format", l.BaseFormat, true)
		w.str("compute_dtype", string(l.ComputeDtype), true)
		w.close()
	}
	w.boolPtr("gradient_checkpointing", t.GradientCheckpointing)
	w.str("stack", t.Stack, true)
	w.str("attention", t.Attention, true)
	w.boolPtr("compile", t.Compile)
	w.boolPtr("fused_optimizer", t.FusedOptimizer)
	w.flag("teacher_logits", t.TeacherLogits)
	w.raw("hf_args", t.HFArgs)
	w.raw("peft", t.PEFT)
	w.close()
	w.key("hardware")
	w.open()
	w.str("gpu", r.Hardware.GPU, false)
	w.num("count", r.Hardware.Count, false)
	w.num("power_limit_w", r.Hardware.PowerLimitW, true)
	w.close()
	w.key("strategy")
	if s := r.Strategy; s.Name != Hybrid && s.Name != "" {
		w.b = jsonv.AppendStringHTML(w.b, s.Name)
	} else {
		w.open()
		w.num("tensor", s.Tensor, false)
		w.num("data", s.Data, false)
		w.str("data_mode", s.DataMode, true)
		w.num("context", s.Context, true)
		w.close()
	}
	w.key("site")
	w.open()
	w.num("pue", r.Site.PUE, true)
	w.num("carbon_g_per_kwh", r.Site.CarbonGPerKWh, true)
	w.num("usd_per_kwh", r.Site.USDPerKWh, true)
	w.str("region", r.Site.Region, true)
	w.close()
	w.str("calibration", r.Calibration, true)
	w.close()
	if !w.ok {
		return dst, false
	}
	return w.b, true
}

// jsonWriter writes a JSON object's members as encoding/json's Marshal
// does (Request.AppendJSON).
type jsonWriter struct {
	b  []byte
	n  []int // members written in each open object
	ok bool
}

func (w *jsonWriter) open() { w.b, w.n = append(w.b, '{'), append(w.n, 0) }

func (w *jsonWriter) close() { w.b, w.n = append(w.b, '}'), w.n[:len(w.n)-1] }

func (w *jsonWriter) key(k string) {
	if w.n[len(w.n)-1] > 0 {
		w.b = append(w.b, ',')
	}
	w.n[len(w.n)-1]++
	w.b = append(jsonv.AppendStringHTML(w.b, k), ':')
}

func (w *jsonWriter) str(k, v string, omitempty bool) {
	if omitempty && v == "" {
		return
	}
	w.key(k)
	w.b = jsonv.AppendStringHTML(w.b, v)
}

func (w *jsonWriter) num(k string, v float64, omitempty bool) {
	if omitempty && v == 0 {
		return
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		w.ok = false
	}
	w.key(k)
	w.b = jsonv.AppendFloat(w.b, v)
}

// flag writes a bool tagged omitempty.
func (w *jsonWriter) flag(k string, v bool) {
	if v {
		w.key(k)
		w.b = append(w.b, "true"...)
	}
}

func (w *jsonWriter) boolPtr(k string, v *bool) {
	if v == nil {
		return
	}
	w.key(k)
	if *v {
		w.b = append(w.b, "true"...)
	} else {
		w.b = append(w.b, "false"...)
	}
}

func (w *jsonWriter) raw(k string, v RawObject) {
	if v == "" {
		return
	}
	w.key(k)
	var ok bool
	if w.b, ok = jsonv.Compact(w.b, []byte(v)); !ok {
		w.ok = false
	}
}
