package model

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/wattscale/wattscale/model/csvx"
)

// Measurement is one measured training run in the project's measurement
// schema (docs: the site's "Measuring your own runs" page). Energy is the accelerators' energy
// for the whole run in kWh; Tokens are all tokens processed (all epochs).
type Measurement struct {
	Model       string  // preset name, or "" when the shape columns are given
	Arch        Arch    // resolved shape (from the preset or the columns)
	Head        string  // "lm" or "classifier"; "" = by preset family / lm
	GPU         string  // accelerator id or alias
	Count       int     // accelerators
	Strategy    string  // single, ddp, fsdp, tp or hybrid
	Tensor      int     // tensor-parallel degree (hybrid; else 0)
	DataMode    string  // hybrid data mode: ddp or fsdp
	SeqLen      int     // tokens per sequence (effective length where padding is dynamic)
	BatchPerGPU int     // sequences per GPU per step
	Tokens      float64 // tokens processed
	Precision   Precision
	PowerLimitW float64 // 0 = default board power
	EnergyKWh   float64
	DurationS   float64
	Stage       string // pipeline stage, "" for a whole run
	Source      string // citation or run id
	Group       string // workload group for grouped cross-validation ("" = derived)
	// Eta is the measured parallel efficiency T₁/(N·T_N) of the run, in
	// (0, 2] (above 1 when a run scales super-linearly); 0 = not measured.
	Eta float64
}

// MeasurementColumns is the header of the measurement CSV, in order. Columns
// marked optional in the docs may be empty.
var MeasurementColumns = []string{"model", "layers", "hidden", "heads", "kv_heads", "ffn", "vocab", "glu", "head",
	"gpu", "count", "strategy", "tensor", "data_mode", "seq_len", "batch_per_gpu", "tokens", "precision",
	"power_limit_w", "energy_kwh", "duration_s", "stage", "group", "source", "eta"}

var requiredColumns = []string{"gpu", "count", "strategy", "seq_len", "batch_per_gpu", "tokens", "precision", "energy_kwh", "duration_s"}

// MaxMeasurementRows bounds an import.
const MaxMeasurementRows = 100000

// ParseMeasurements reads a measurement CSV with a header row. Columns may
// come in any order; unknown columns are errors; every error names the line
// and column. presets resolves the model column.
func ParseMeasurements(r io.Reader, presets []Preset) ([]Measurement, error) {
	rd, err := csvx.NewReader(r, csvx.Header{Required: requiredColumns, Known: MeasurementColumns,
		MissingText: "missing required column %q", UnknownText: "unknown column %q (known: " + strings.Join(MeasurementColumns, ", ") + ")"})
	if errors.Is(err, csvx.ErrEmpty) {
		return nil, msgErr(CodeMeasEmpty, Args{{Name: "columns", List: requiredColumns}})
	}
	if err != nil {
		return nil, fmt.Errorf("measurements: %w", err)
	}
	n := 0
	out, err := csvx.All(rd, func(row csvx.Row) (Measurement, error) {
		if n++; n > MaxMeasurementRows {
			return Measurement{}, msgErr(CodeMeasRows, Args{{Name: "max", Num: MaxMeasurementRows}})
		}
		m, err := parseMeasurement(row, presets)
		if err != nil {
			return m, row.Wrap("", err)
		}
		return m, nil
	})
	if err != nil {
		return nil, fmt.Errorf("measurements: %w", err)
	}
	if len(out) == 0 {
		return nil, msgErr(CodeMeasNoRows, nil)
	}
	return out, nil
}

func parseMeasurement(row csvx.Row, presets []Preset) (Measurement, error) {
	get := row.Get
	num := func(name string, lo, hi float64, optional bool) (float64, error) {
		s := get(name)
		if s == "" {
			if optional {
				return 0, nil
			}
			return 0, msgErr(CodeColEmpty, Args{{Name: "column", Str: name}})
		}
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, msgErr(CodeColNotFinite, Args{{Name: "column", Str: name}, {Name: "text", Str: s}})
		}
		if x < lo || x > hi {
			return 0, msgErr(CodeColOutside, Args{{Name: "column", Str: name}, {Name: "text", Str: s}, {Name: "lo", Num: lo}, {Name: "hi", Num: hi}})
		}
		return x, nil
	}
	whole := func(name string, lo, hi float64, optional bool) (int, error) {
		x, err := num(name, lo, hi, optional)
		if err != nil {
			return 0, err
		}
		if x != math.Trunc(x) {
			return 0, msgErr(CodeColNotWhole, Args{{Name: "column", Str: name}, {Name: "text", Str: get(name)}})
		}
		return int(x), nil
	}
	var m Measurement
	var err error
	m.Model = get("model")
	if m.Model != "" {
		p, err := FindPreset(presets, m.Model)
		if err != nil {
			return m, msgErr(CodeColModel, Args{{Name: "problem", Msgs: []Message{AsMessage(err)}}})
		}
		m.Model, m.Arch = p.Name, p.Arch
	} else {
		var a Arch
		for _, f := range []struct {
			n string
			p *int
		}{{"layers", &a.Layers}, {"hidden", &a.Hidden}, {"heads", &a.Heads}, {"ffn", &a.FFN}, {"vocab", &a.Vocab}} {
			if *f.p, err = whole(f.n, 1, 1<<22, false); err != nil {
				return m, msgErr(CodeColShapeHint, Args{{Name: "problem", Msgs: []Message{AsMessage(err)}}})
			}
		}
		if a.KVHeads, err = whole("kv_heads", 0, 1<<22, true); err != nil {
			return m, err
		}
		switch g := strings.ToLower(get("glu")); g {
		case "", "0", "false", "no":
		case "1", "true", "yes":
			a.GLU = true
		default:
			return m, msgErr(CodeColGLU, Args{{Name: "text", Str: g}})
		}
		if err := a.Validate("model"); err != nil {
			return m, fmt.Errorf("shape: %w", err) // the shape's *FieldError inside is coded
		}
		m.Arch = a
	}
	switch m.Head = get("head"); m.Head {
	case "", "lm", "classifier":
	default:
		return m, msgErr(CodeColHead, Args{{Name: "text", Str: m.Head}})
	}
	if m.GPU = get("gpu"); m.GPU == "" {
		return m, msgErr(CodeColEmpty, Args{{Name: "column", Str: "gpu"}})
	}
	if m.Count, err = whole("count", 1, 1<<20, false); err != nil {
		return m, err
	}
	m.Strategy = strings.ToLower(get("strategy"))
	switch m.Strategy {
	case Single, DDP, FSDP, TP:
	case Hybrid:
		if m.Tensor, err = whole("tensor", 1, 1<<20, false); err != nil {
			return m, err
		}
		if m.Count%m.Tensor != 0 {
			return m, msgErr(CodeColTensor, Args{{Name: "tensor", Num: float64(m.Tensor)}, {Name: "count", Num: float64(m.Count)}})
		}
		m.DataMode = strings.ToLower(get("data_mode"))
		if m.DataMode != "" && m.DataMode != DDP && m.DataMode != FSDP {
			return m, msgErr(CodeColDataMode, Args{{Name: "text", Str: m.DataMode}})
		}
	default:
		return m, msgErr(CodeColStrategy, Args{{Name: "text", Str: m.Strategy}})
	}
	if m.Strategy == Single && m.Count != 1 {
		return m, msgErr(CodeColSingle, Args{{Name: "count", Num: float64(m.Count)}})
	}
	if m.SeqLen, err = whole("seq_len", 1, 1<<21, false); err != nil {
		return m, err
	}
	if m.BatchPerGPU, err = whole("batch_per_gpu", 1, 1<<16, false); err != nil {
		return m, err
	}
	if m.Tokens, err = num("tokens", 1, 1e16, false); err != nil {
		return m, err
	}
	m.Precision = Precision(strings.ToLower(get("precision")))
	ok := false
	for _, p := range Precisions {
		ok = ok || p == m.Precision
	}
	if !ok {
		return m, msgErr(CodeColPrecision, Args{{Name: "text", Str: get("precision")}, {Name: "among", Str: joinPrecisions(Precisions)}})
	}
	if m.PowerLimitW, err = num("power_limit_w", 0, 5000, true); err != nil {
		return m, err
	}
	if m.EnergyKWh, err = num("energy_kwh", 0, 1e9, false); err != nil {
		return m, err
	}
	if m.EnergyKWh <= 0 {
		return m, msgErr(CodeColPositive, Args{{Name: "column", Str: "energy_kwh"}})
	}
	if m.DurationS, err = num("duration_s", 0, 1e10, false); err != nil {
		return m, err
	}
	if m.DurationS <= 0 {
		return m, msgErr(CodeColPositive, Args{{Name: "column", Str: "duration_s"}})
	}
	if s := get("eta"); s != "" {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || !(x > 0 && x <= 2) {
			return m, msgErr(CodeColEta, Args{{Name: "text", Str: s}})
		}
		m.Eta = x
	}
	if m.Count == 1 && m.Eta > 0 && m.Eta != 1 {
		return m, msgErr(CodeColEtaSingle, Args{{Name: "text", Str: get("eta")}})
	}
	m.Stage, m.Group, m.Source = get("stage"), get("group"), get("source")
	return m, nil
}

// WriteMeasurements writes rows in the measurement schema with the full header.
// Numbers are written with the shortest representation that round-trips.
func WriteMeasurements(w io.Writer, rows []Measurement) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(MeasurementColumns); err != nil {
		return err
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	i := func(x int) string {
		if x == 0 {
			return ""
		}
		return strconv.Itoa(x)
	}
	for _, m := range rows {
		rec := []string{m.Model, "", "", "", "", "", "", "", m.Head, m.GPU, strconv.Itoa(m.Count), m.Strategy, i(m.Tensor), m.DataMode,
			strconv.Itoa(m.SeqLen), strconv.Itoa(m.BatchPerGPU), f(m.Tokens), string(m.Precision), "", f(m.EnergyKWh), f(m.DurationS), m.Stage, m.Group, m.Source, ""}
		if m.Model == "" {
			a := m.Arch
			rec[1], rec[2], rec[3], rec[4], rec[5], rec[6] = i(a.Layers), i(a.Hidden), i(a.Heads), i(a.KVHeads), i(a.FFN), i(a.Vocab)
			if a.GLU {
				rec[7] = "true"
			}
		}
		if m.PowerLimitW > 0 {
			rec[18] = f(m.PowerLimitW)
		}
		if m.Eta > 0 {
			rec[24] = f(m.Eta)
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// Request turns a measurement into the estimate request for the same
// configuration (site figures left to defaults).
func (m Measurement) Request() Request {
	req := Request{
		Training: TrainingSpec{Tokens: m.Tokens, SeqLen: float64(m.SeqLen), BatchPerGPU: float64(m.BatchPerGPU), Precision: m.Precision},
		Hardware: HardwareSpec{GPU: m.GPU, Count: float64(m.Count)},
		Strategy: Strategy{Name: m.Strategy},
	}
	if m.Model != "" {
		req.Model = ModelSpec{Preset: m.Model, Head: m.Head}
	} else {
		a := m.Arch
		req.Model = ModelSpec{Layers: float64(a.Layers), Hidden: float64(a.Hidden), Heads: float64(a.Heads), KVHeads: float64(a.KVHeads), FFN: float64(a.FFN), Vocab: float64(a.Vocab), GLU: a.GLU, Head: m.Head}
	}
	if m.Strategy == Hybrid {
		req.Strategy = Strategy{Name: Hybrid, Tensor: float64(m.Tensor), Data: float64(m.Count / m.Tensor), DataMode: m.DataMode}
	}
	return req
}

// WorkloadGroup is the grouping key for grouped cross-validation: all
// GPU-count and strategy variants of one workload share it.
func (m Measurement) WorkloadGroup() string {
	if m.Group != "" {
		return m.Group
	}
	a := m.Arch
	return fmt.Sprintf("%s/L%d/d%d/S%d/B%d/%s", m.Model, a.Layers, a.Hidden, m.SeqLen, m.BatchPerGPU, strings.ToLower(m.GPU))
}
