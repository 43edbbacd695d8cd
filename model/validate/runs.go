// Package validate scores energy estimators against the validation table
// (the site's validation page): published training runs with their reported
// energy. It reads the table (ReadRuns), turns each run into a wattscale
// request with every assumption listed (Run.Inputs), predicts each run with
// wattscale and two baseline estimators, and summarises the fold errors
// (Score). It uses the standard library only; fitting a calibration on the
// table (for hold-out scores) lives in model/fit.
package validate

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/csvx"
)

// Run is one row of the validation table. Zero numbers mean "not reported"
// (the CSV cell was empty). The validation page defines each column.
type Run struct {
	ID    string
	Phase string // pretrain, finetune or distill
	// Method is the fine-tuning method: full (every weight trained; also
	// pre-training), lora or qlora (model.Method*).
	Method string
	// Stack is the software stack as the source documents it: optimised
	// (an MLPerf submission's or a NeMo/Megatron-class tuned stack) or
	// reference (model.Stack*).
	Stack string
	Model string // a wattscale preset name, or a descriptive name with the shape columns
	// Params is the total parameter count as published (MoE: total, not active).
	Params  float64
	Layers  int // encoder-decoder: encoder plus decoder blocks
	Hidden  int
	Heads   int
	KVHeads int
	FFN     int    // MoE: one expert's width
	GLU     string // "yes", "no" or "" (from the preset)
	EncDec  bool   // encoder-decoder model
	MoETopK int    // experts per token; 0 = dense
	Vocab   int
	SeqLen  int
	// BatchPerGPU is sequences per accelerator per step.
	BatchPerGPU int
	Tokens      float64 // tokens processed, all epochs
	Precision   model.Precision
	GPU         string
	Count       int
	Strategy    string // single, ddp, fsdp, tp, hybrid or ""
	Tensor      int    // tensor-parallel degree of a hybrid layout
	EnergyKWh   float64
	Scope       string  // gpu, node or facility, as the source defines it
	Host        string  // no, cpu or yes: whether host energy is inside EnergyKWh
	PUE         float64 // PUE factor inside EnergyKWh (1 = none)
	PowerW      float64 // tdp_estimate rows: per-accelerator power the source multiplied accelerator-hours by
	TimeS       float64 // reported wall-clock training time
	SourceKind  string  // metered, nvml or tdp_estimate
	Stage       string  // train, or teacher (forward-only inference of a distillation teacher)
	DuplicateOf string  // id of the run this row measures again (another meter on the same runs)
	// Exclude, when set, is why the row is left out of headline scores and
	// fits (a data problem stated in the table, e.g. a token count that is
	// not the run's); it is still predicted and listed.
	Exclude  string
	Source   string // short source name; the hold-out unit
	Citation string
	Notes    string
	Line     int // line in the CSV file

	// StateBytes is the bytes per parameter of weights, gradients and
	// optimizer state the source's recipe implies (bf16-only weights,
	// Adafactor); 0 = not stated, the default AdamW mixed-precision 16.
	// Optional column state_bytes (OptionalRunColumns).
	StateBytes float64
	// Checkpointing is "yes" or "no" when the source states whether
	// activations were recomputed (gradient checkpointing), "" when it does
	// not (the method's default). Optional column checkpointing.
	Checkpointing string
	// EnergyWindow is WindowTimed when the reported energy covers the
	// timed training only (MLPerf's run_start to run_stop, which leaves out
	// initialisation), "" when it covers the whole run. Optional column
	// energy_window.
	EnergyWindow string
	// Head is "classifier" for a run that trains a small task head instead
	// of the language-model head (sequence classification); "" or "lm" =
	// the language-model head. Optional column head.
	Head string
	// GradAccum is the micro-batches per optimizer step the source's
	// configuration states (gradient_accumulation_steps), with
	// BatchPerGPU the micro-batch; 0 = not stated (one micro-batch per
	// step). Optional column grad_accum.
	GradAccum int
	// Context is the context-parallel degree the source's configuration
	// states (each sequence split over this many GPUs); 0 = none. Optional
	// column context, hybrid layouts only.
	Context int
	// TeacherLogits is "yes" for a student whose loss read a teacher's
	// cached top-k log-probs (logit distillation). Optional column
	// teacher_logits.
	TeacherLogits string
}

// WindowTimed marks a run whose energy covers the timed training only: it
// is compared with the estimate's training_energy_kwh, which leaves out
// the fixed start-up.
const WindowTimed = "timed"

// RunColumns is the header of the validation table, in order.
var RunColumns = []string{"id", "phase", "method", "stack", "model", "params", "layers", "hidden", "heads", "kv_heads", "ffn", "glu", "encdec",
	"moe_top_k", "vocab", "seq_len", "batch_per_gpu", "tokens", "precision", "gpu", "count", "strategy", "tensor",
	"energy_kwh", "energy_scope", "host", "pue", "power_w", "time_s", "source_kind", "stage", "duplicate_of",
	"exclude", "source", "citation", "notes"}

// OptionalRunColumns may follow RunColumns; a table without them reads as
// if they were empty.
var OptionalRunColumns = []string{"state_bytes", "checkpointing", "energy_window", "head", "grad_accum", "teacher_logits", "context"}

// Source kinds: how the reported energy was obtained.
const (
	Metered     = "metered"      // wall, PDU, power-shelf or node meter, or measured system power
	NVML        = "nvml"         // GPU counters or software meters (NVML, RAPL)
	TDPEstimate = "tdp_estimate" // accelerator-hours × a nameplate or assumed power
)

var enums = map[string][]string{
	"phase":          {"pretrain", "finetune", "distill"},
	"method":         {model.MethodFull, model.MethodLoRA, model.MethodQLoRA},
	"stack":          {model.StackReference, model.StackOptimised},
	"glu":            {"", "yes", "no"},
	"encdec":         {"", "yes", "no"},
	"checkpointing":  {"", "yes", "no"},
	"energy_window":  {"", WindowTimed},
	"head":           {"", "lm", "classifier"},
	"teacher_logits": {"", "yes"},
	"precision":      {"", "fp32", "tf32", "fp16", "bf16", "fp8"},
	"strategy":       {"", model.Single, model.DDP, model.FSDP, model.TP, model.Hybrid},
	"energy_scope":   {"gpu", "node", "facility"},
	"host":           {"no", "cpu", "yes"},
	"source_kind":    {Metered, NVML, TDPEstimate},
	"stage":          {"train", "teacher"},
}

// ReadRuns parses the validation table. The header must hold RunColumns
// and may hold OptionalRunColumns (in any order); every error names the line and the column
// (a *csvx.LineError, wrapped as "runs: line N: column C: …").
func ReadRuns(r io.Reader) ([]Run, error) {
	rd, err := csvx.NewReader(r, csvx.Header{Required: RunColumns, Known: append(append([]string{}, RunColumns...), OptionalRunColumns...)})
	if err != nil {
		return nil, fmt.Errorf("runs: %w", err)
	}
	ids := map[string]int{}
	out, err := csvx.All(rd, func(row csvx.Row) (Run, error) {
		p := rowParser{row: row}
		run := p.run()
		if p.err != nil {
			return run, p.err
		}
		if prev, dup := ids[run.ID]; dup {
			return run, row.Errorf("", "id %q already used on line %d", run.ID, prev)
		}
		ids[run.ID] = row.Line
		return run, nil
	})
	if err != nil {
		return nil, fmt.Errorf("runs: %w", err)
	}
	for _, r := range out {
		if r.DuplicateOf != "" {
			if _, ok := ids[r.DuplicateOf]; !ok || r.DuplicateOf == r.ID {
				return nil, fmt.Errorf("runs: %w", &csvx.LineError{Line: r.Line, Column: "duplicate_of", Err: fmt.Errorf("%q is not the id of another row", r.DuplicateOf)})
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("runs: no rows")
	}
	return out, nil
}

// rowParser reads one record, keeping the first error.
type rowParser struct {
	row csvx.Row
	err error
}

func (p *rowParser) fail(c, format string, args ...any) {
	if p.err == nil {
		p.err = p.row.Errorf(c, format, args...)
	}
}

func (p *rowParser) str(c string) string {
	s := p.row.Get(c)
	if e, ok := enums[c]; ok {
		for _, v := range e {
			if s == v {
				return s
			}
		}
		p.fail(c, "%q is not one of %s", s, strings.Join(e, ", "))
	}
	return s
}

// num parses a positive finite number; empty gives 0 unless required.
func (p *rowParser) num(c string, required bool) float64 {
	s := p.row.Get(c)
	if s == "" {
		if required {
			p.fail(c, "is required")
		}
		return 0
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x <= 0 {
		p.fail(c, "%q is not a positive number", s)
		return 0
	}
	return x
}

// whole parses a positive whole number below 2^31; empty gives 0.
func (p *rowParser) whole(c string) int {
	x := p.num(c, false)
	if x != math.Trunc(x) || x >= 1<<31 {
		p.fail(c, "%g is not a whole number", x)
		return 0
	}
	return int(x)
}

func (p *rowParser) run() Run {
	r := Run{
		ID: p.str("id"), Phase: p.str("phase"), Method: p.str("method"), Stack: p.str("stack"), Model: p.str("model"), Params: p.num("params", false),
		Layers: p.whole("layers"), Hidden: p.whole("hidden"), Heads: p.whole("heads"), KVHeads: p.whole("kv_heads"),
		FFN: p.whole("ffn"), GLU: p.str("glu"), EncDec: p.str("encdec") == "yes", MoETopK: p.whole("moe_top_k"),
		Vocab: p.whole("vocab"), SeqLen: p.whole("seq_len"), BatchPerGPU: p.whole("batch_per_gpu"),
		Tokens: p.num("tokens", true), Precision: model.Precision(p.str("precision")), GPU: p.str("gpu"),
		Count: p.whole("count"), Strategy: p.str("strategy"), Tensor: p.whole("tensor"),
		EnergyKWh: p.num("energy_kwh", true), Scope: p.str("energy_scope"), Host: p.str("host"),
		PUE: p.num("pue", false), PowerW: p.num("power_w", false), TimeS: p.num("time_s", false),
		SourceKind: p.str("source_kind"), Stage: p.str("stage"), DuplicateOf: p.str("duplicate_of"), Exclude: p.str("exclude"),
		Source: p.str("source"), Citation: p.str("citation"), Notes: p.str("notes"), Line: p.row.Line,
		StateBytes: p.num("state_bytes", false), Checkpointing: p.str("checkpointing"), EnergyWindow: p.str("energy_window"), Head: p.str("head"),
		GradAccum: p.whole("grad_accum"), TeacherLogits: p.str("teacher_logits"), Context: p.whole("context"),
	}
	switch {
	case r.ID == "":
		p.fail("id", "is required")
	case r.Source == "":
		p.fail("source", "is required")
	case r.Citation == "":
		p.fail("citation", "is required")
	case r.GPU == "":
		p.fail("gpu", "is required")
	case r.PUE == 0:
		p.fail("pue", "is required (1 when the figure includes no PUE)")
	case r.PUE > 3:
		p.fail("pue", "%g is above 3", r.PUE)
	case r.SourceKind == TDPEstimate && r.PowerW == 0:
		p.fail("power_w", "is required for a tdp_estimate row (the per-accelerator power the source assumed)")
	case r.Scope == "gpu" && r.Host != "no":
		p.fail("host", "must be no for energy_scope gpu")
	case r.Scope == "node" && r.Host == "no":
		p.fail("host", "must be cpu or yes for energy_scope node")
	case r.Strategy == model.Hybrid && r.Tensor < 2:
		p.fail("tensor", "must be at least 2 for a hybrid layout")
	case r.Strategy != model.Hybrid && r.Tensor != 0:
		p.fail("tensor", "is only given for a hybrid layout")
	case r.Context != 0 && (r.Strategy != model.Hybrid || r.Context < 2):
		p.fail("context", "is given for a hybrid layout only, and at least 2")
	case r.GradAccum != 0 && r.BatchPerGPU == 0:
		p.fail("grad_accum", "needs batch_per_gpu, the micro-batch it repeats")
	case r.StateBytes != 0 && r.Method != model.MethodFull:
		p.fail("state_bytes", "is for full training; the %s method sets its own memory", r.Method)
	case r.Method != model.MethodFull && r.Phase != "finetune" && r.Phase != "distill":
		p.fail("method", "%s is a fine-tuning method; a %s run is full", r.Method, r.Phase)
	}
	return r
}
