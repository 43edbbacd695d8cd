package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/wattscale/wattscale/model/csvx"
)

// CodeCarbon logs (issue 34): CodeCarbon (github.com/mlco2/codecarbon), the
// tracker most people who measure a training run use, writes one row per
// tracked run to emissions.csv: duration in seconds, and energy in kWh for
// the CPU, GPU and RAM (cpu_energy, gpu_energy, ram_energy) and their sum
// (energy_consumed), with the GPUs it saw (gpu_model, gpu_count). A log
// holds no configuration, so each row is described by an estimate
// request: one for every row, or one per project_name.

// The energy scopes of a CodeCarbon log.
const (
	CodeCarbonGPU   = "gpu"   // gpu_energy: the GPUs alone, what the calibrations are fitted to
	CodeCarbonTotal = "total" // energy_consumed: GPUs, CPU and RAM
)

// CodeCarbonScopes are the accepted scopes.
var CodeCarbonScopes = []string{CodeCarbonGPU, CodeCarbonTotal}

// CodeCarbonRuns are the requests describing a CodeCarbon log's rows: a
// JSON object with either "request" (one request for every row) or
// "projects" (a request per project_name).
type CodeCarbonRuns struct {
	All      *Request
	Projects map[string]Request
}

// ParseCodeCarbonRuns reads the requests of a CodeCarbon log; every error
// names its field ("projects.bert.training.tokens").
func ParseCodeCarbonRuns(raw []byte) (CodeCarbonRuns, error) {
	var top struct {
		Request  json.RawMessage            `json:"request"`
		Projects map[string]json.RawMessage `json:"projects"`
	}
	if err := CheckKeys(raw, &top); err != nil {
		return CodeCarbonRuns{}, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&top); err != nil {
		return CodeCarbonRuns{}, codeErr(CodeCCTop, "(body)", nil, Args{{Name: "detail", Str: err.Error()}})
	}
	var runs CodeCarbonRuns
	switch {
	case len(top.Request) > 0 && top.Projects != nil:
		return runs, codeErr(CodeCCBoth, "projects", nil, nil)
	case len(top.Request) > 0:
		req, err := DecodeRequest(top.Request, "request")
		if err != nil {
			return runs, err
		}
		runs.All = &req
	case len(top.Projects) > 0:
		runs.Projects = map[string]Request{}
		for name, r := range top.Projects {
			req, err := DecodeRequest(r, "projects."+name)
			if err != nil {
				return runs, err
			}
			runs.Projects[name] = req
		}
	default:
		return runs, codeErr(CodeCCNeither, "(body)", nil, nil)
	}
	return runs, nil
}

// CodeCarbonMeasurements reads a CodeCarbon emissions.csv whose rows runs
// describes into measurements, the energy read from the scope's column
// (gpu_energy or energy_consumed). Each row's GPU (gpu_model, gpu_count)
// must agree with its request's hardware; a disagreement is an error
// naming both. A request whose configuration the measurement schema
// cannot carry (a method other than full fine-tuning, checkpointing,
// accumulation, context parallelism, an attention implementation, compile
// or stack other than the default, a shape with experts, head_dim or tied
// embeddings outside a preset) is an error naming the field, never
// dropped. source names the log in each row's source column.
func (c *Catalog) CodeCarbonMeasurements(r io.Reader, runs CodeCarbonRuns, scope, source string) ([]Measurement, error) {
	col := map[string]string{CodeCarbonGPU: "gpu_energy", CodeCarbonTotal: "energy_consumed"}[scope]
	if col == "" {
		return nil, codeErr(CodeCCScope, "scope", scope, Args{{Name: "scopes", List: CodeCarbonScopes}})
	}
	if runs.All == nil && len(runs.Projects) == 0 {
		return nil, errors.New("codecarbon: no request describes the log's runs") // not coded: ParseCodeCarbonRuns refuses such runs
	}
	req := []string{"duration", col, "gpu_model", "gpu_count"}
	if runs.All == nil {
		req = append(req, "project_name")
	}
	rd, err := csvx.NewReader(r, csvx.Header{Required: req, MissingText: "not a CodeCarbon emissions.csv with scope " + scope + ": missing column %q"})
	if err != nil {
		return nil, fmt.Errorf("codecarbon: %w", err)
	}
	built := map[string]Measurement{}
	ms, err := csvx.All(rd, func(row csvx.Row) (Measurement, error) {
		name := row.Get("project_name")
		key := ""
		rq := runs.All
		if rq == nil {
			p, ok := runs.Projects[name]
			if !ok {
				return Measurement{}, row.Wrap("project_name", msgErr(CodeCCProject, Args{{Name: "name", Str: name}, {Name: "known", List: sortedKeys(runs.Projects)}}))
			}
			rq, key = &p, name
		}
		m, ok := built[key]
		if !ok {
			var err error
			if m, err = c.measurementOf(*rq); err != nil {
				if key != "" {
					err = PrefixField("projects."+key, err)
				} else {
					err = PrefixField("request", err)
				}
				return Measurement{}, err
			}
			built[key] = m
		}
		if err := codeCarbonGPUAgrees(c.Hardware, row, m); err != nil {
			return Measurement{}, err
		}
		num := func(column string) (float64, error) {
			s := row.Get(column)
			x, err := strconv.ParseFloat(s, 64)
			if err != nil || !(x > 0) || math.IsInf(x, 0) {
				return 0, row.Wrap(column, msgErr(CodeCCPositive, Args{{Name: "text", Str: s}}))
			}
			return x, nil
		}
		if m.DurationS, err = num("duration"); err != nil {
			return Measurement{}, err
		}
		if m.EnergyKWh, err = num(col); err != nil {
			return Measurement{}, err
		}
		m.Source = strings.TrimSpace(fmt.Sprintf("%s line %d %s %s (CodeCarbon %s)", source, row.Line, name, row.Get("run_id"), col))
		return m, nil
	})
	if err != nil {
		return nil, err
	}
	if len(ms) == 0 {
		return nil, msgErr(CodeCCNoRows, nil)
	}
	return ms, nil
}

// measurementOf resolves a request into a measurement's configuration.
func (c *Catalog) measurementOf(req Request) (Measurement, error) {
	resp, err := c.Estimate(req)
	if err != nil {
		return Measurement{}, err
	}
	in, tr, par := resp.Inputs, resp.Training, resp.Parallel
	switch {
	case tr.Method != MethodFull:
		return Measurement{}, codeErr(CodeFitMethod, "training.method", tr.Method, nil)
	case tr.GradientCheckpointing:
		return Measurement{}, codeErr(CodeFitRecompute, "training.gradient_checkpointing", true, nil)
	case in.GradientAccumulation > 1:
		return Measurement{}, codeErr(CodeFitAccumulation, "training.gradient_accumulation", in.GradientAccumulation, nil)
	case par.Context > 1:
		return Measurement{}, codeErr(CodeFitContext, "strategy.context", par.Context, nil)
	case tr.Attention != AttnSDPA || tr.Compile || tr.Stack != "":
		return Measurement{}, codeErr(CodeFitStack, "training", nil, nil)
	}
	m := Measurement{Arch: in.Arch, Head: in.Head, GPU: in.GPU, Count: in.Count, Strategy: par.Strategy, SeqLen: in.SeqLen, BatchPerGPU: in.BatchPerGPU,
		Tokens: in.Tokens, Precision: in.Precision, PowerLimitW: req.Hardware.PowerLimitW}
	if par.Strategy == Hybrid {
		m.Tensor, m.DataMode = par.Tensor, par.DataMode
	}
	if p := req.Model.Preset; p != "" && req.Model == (ModelSpec{Preset: p, Head: req.Model.Head}) {
		m.Model = in.Model
		if _, err := FindPreset(c.Presets, p); err == nil {
			m.Model = p
		}
	} else if a := in.Arch; a.Experts > 0 || a.HeadDim > 0 || a.Tied {
		return Measurement{}, codeErr(CodeFitShape, "model", nil, nil)
	}
	return m, nil
}

// codeCarbonGPUAgrees checks a row's gpu_model and gpu_count against the
// measurement's GPU and count.
func codeCarbonGPUAgrees(h *Hardware, row csvx.Row, m Measurement) error {
	g, err := h.Lookup(m.GPU)
	if err != nil {
		return err
	}
	raw := row.Get("gpu_model")
	n, name := splitCodeCarbonGPU(raw)
	if name == "" {
		return row.Wrap("gpu_model", msgErr(CodeCCGPUEmpty, Args{{Name: "count", Num: float64(m.Count)}, {Name: "name", Str: g.Name}}))
	}
	agree := gpuFamily(name) == gpuFamily(g.Name)
	if lg, err := h.Lookup(name); err == nil && lg.ID != g.ID {
		agree = false
	}
	if !agree {
		return row.Wrap("gpu_model", msgErr(CodeCCGPUOther, Args{{Name: "log", Str: name}, {Name: "name", Str: g.Name}, {Name: "id", Str: g.ID}}))
	}
	cs := row.Get("gpu_count")
	cnt, err := strconv.ParseFloat(cs, 64)
	if err != nil || cnt != math.Trunc(cnt) || cnt < 1 {
		return row.Wrap("gpu_count", msgErr(CodeCCCountWhole, Args{{Name: "text", Str: cs}}))
	}
	if n > 0 && float64(n) != cnt {
		return row.Wrap("gpu_count", msgErr(CodeCCCountModel, Args{{Name: "text", Str: cs}, {Name: "n", Num: float64(n)}, {Name: "name", Str: name}}))
	}
	if int(cnt) != m.Count {
		return row.Wrap("gpu_count", msgErr(CodeCCCountRequest, Args{{Name: "text", Str: cs}, {Name: "name", Str: name}, {Name: "count", Num: float64(m.Count)}}))
	}
	return nil
}

// splitCodeCarbonGPU splits CodeCarbon's gpu_model ("4 x NVIDIA A100-SXM4-80GB",
// or the name alone in older versions) into the count (0 when not given)
// and the name.
func splitCodeCarbonGPU(s string) (int, string) {
	s = strings.TrimSpace(s)
	if a, b, ok := strings.Cut(s, " x "); ok {
		if n, err := strconv.Atoi(strings.TrimSpace(a)); err == nil {
			return n, strings.TrimSpace(b)
		}
	}
	return 0, s
}

// gpuFamily is a GPU name's product, lower case, without vendor and brand
// words, memory size or form factor: "NVIDIA A100-SXM4-80GB" and "A100
// PCIe 80 GB" are "a100", "NVIDIA GeForce RTX 3090" "rtx3090", "RTX A6000"
// "rtxa6000".
func gpuFamily(name string) string {
	var words []string
	for _, w := range strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return r == ' ' || r == '-' || r == '_' }) {
		switch w {
		case "nvidia", "geforce", "tesla", "quadro", "amd", "instinct", "google", "cloud":
			continue
		}
		words = append(words, w)
	}
	if len(words) == 0 {
		return ""
	}
	if (words[0] == "rtx" || words[0] == "gtx") && len(words) > 1 {
		return words[0] + words[1]
	}
	return words[0]
}

func sortedKeys(m map[string]Request) []string {
	k := make([]string, 0, len(m))
	for n := range m {
		k = append(k, strconv.Quote(n))
	}
	sort.Strings(k)
	return k
}
