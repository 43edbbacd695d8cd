package meter

import (
	"bytes"
	"errors"
	"fmt"
	"math"

	"github.com/wattscale/wattscale/model"
)

// Template resolves the run's configuration, given as an estimate request
// (model, training, hardware, strategy; site is ignored), into the
// measurement row the recording will fill: Tokens from the request (0 when
// it gives none and the stage markers are to supply them), no energy or
// duration yet. The request is checked through the catalog first, so a bad
// field is reported by its request path before anything runs.
func Template(req model.Request, cat *model.Catalog) (model.Measurement, error) {
	probe := req
	if probe.Training.Tokens == 0 && probe.Training.DatasetTokens == 0 && probe.Training.Epochs == 0 {
		// Tokens may come from the stage markers: check the rest with one
		// optimizer step's worth.
		t, n := probe.Training, math.Max(probe.Hardware.Count, 1)
		probe.Training.Tokens = math.Max(t.SeqLen*t.BatchPerGPU*n, 1)
	}
	probe.Calibration = ""
	resp, err := cat.Estimate(probe)
	if err != nil {
		return model.Measurement{}, err
	}
	// The precision the estimate used: the request's, or the accelerator's
	// usual one when the request leaves it out.
	m := model.Measurement{Head: req.Model.Head, Count: int(req.Hardware.Count), Strategy: req.Strategy.Name,
		SeqLen: int(req.Training.SeqLen), BatchPerGPU: int(req.Training.BatchPerGPU), Precision: resp.Inputs.Precision}
	if req.Model.Preset != "" {
		p, err := model.FindPreset(cat.Presets, req.Model.Preset)
		if err != nil {
			return m, err
		}
		m.Model, m.Arch = p.Name, p.Arch
	} else {
		s := req.Model
		m.Arch = model.Arch{Layers: int(s.Layers), Hidden: int(s.Hidden), Heads: int(s.Heads), KVHeads: int(s.KVHeads), FFN: int(s.FFN), Vocab: int(s.Vocab), GLU: s.GLU}
	}
	g, err := cat.Hardware.Lookup(req.Hardware.GPU)
	if err != nil {
		return m, err
	}
	m.GPU = g.ID
	if m.Strategy == model.Hybrid {
		m.Tensor, m.DataMode = int(req.Strategy.Tensor), req.Strategy.DataMode
	}
	for _, f := range []struct {
		name string
		x    float64
	}{{"training.seq_len", req.Training.SeqLen}, {"training.batch_per_gpu", req.Training.BatchPerGPU}, {"hardware.count", req.Hardware.Count}} {
		if f.x != math.Trunc(f.x) {
			return m, &model.FieldError{Field: f.name, Value: fmt.Sprint(f.x), Message: "must be a whole number in a measurement"}
		}
	}
	switch t := req.Training; {
	case t.Tokens > 0:
		m.Tokens = t.Tokens
	case t.DatasetTokens > 0 && t.Epochs > 0:
		m.Tokens = t.DatasetTokens * t.Epochs
	}
	return m, nil
}

// ErrNoTokens is returned by Rows when no token count is known.
var ErrNoTokens = errors.New("measure: tokens unknown: give -tokens, training.tokens in -config, or tokens= on the stage markers")

// Rows builds the measurement-schema rows of a run from its summary: the
// whole run first (stage empty), then every stage with tokens, time and
// energy (stage filled). The whole run's tokens are tpl.Tokens, or else the
// sum of the stages' tokens. Each row is checked by writing and re-reading
// it with the schema's own parser.
func Rows(tpl model.Measurement, s *Summary, source, group string, presets []model.Preset) ([]model.Measurement, error) {
	if s.GPUEnergyJ <= 0 {
		return nil, errors.New("measure: no GPU energy was recorded: no measurement row can be written")
	}
	if s.DurationS <= 0 {
		return nil, errors.New("measure: the command took no measurable time: no measurement row can be written")
	}
	whole := tpl
	if whole.Tokens <= 0 {
		whole.Tokens = s.Tokens
	}
	if whole.Tokens <= 0 {
		return nil, ErrNoTokens
	}
	whole.EnergyKWh, whole.DurationS, whole.Stage, whole.Source, whole.Group = s.GPUEnergyKW, s.DurationS, "", source, group
	rows := []model.Measurement{whole}
	for _, st := range s.Stages {
		if st.Tokens <= 0 || st.GPUEnergyJ <= 0 || st.DurationS <= 0 {
			continue
		}
		r := whole
		r.Tokens, r.EnergyKWh, r.DurationS, r.Stage = st.Tokens, st.GPUEnergyJ/3.6e6, st.DurationS, st.Name
		rows = append(rows, r)
	}
	var b bytes.Buffer
	if err := model.WriteMeasurements(&b, rows); err != nil {
		return nil, err
	}
	if _, err := model.ParseMeasurements(&b, presets); err != nil {
		return nil, fmt.Errorf("measure: the row would not be accepted by the fitter: %w", err)
	}
	return rows, nil
}
