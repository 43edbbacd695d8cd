package model

import (
	"math"
	"strconv"
	"strings"
)

// Resolving a request, in the order it happens: Catalog.resolveInto calls
// fillInputs, which checks and fills each part of the request in turn (the
// model, the Hugging Face imports, the training, the hardware and its power
// limit, the method (resolveMethod, lora.go), the layout
// (resolveStrategy), the site, the calibration, the software stack
// (resolveStack, stack.go) and the efficiency fields (resolveEfficiency,
// efficiency.go)), then checkState (memory) and checkSteps. Catalog.estimate (estimate.go)
// computes from the result; the response types are in response.go.

// resolved is a validated request.
type resolved struct {
	name     string
	arch     Arch
	head     string
	params   float64
	tokens   float64
	seq, bat int
	accum    int // micro-batches per optimizer step (gradient accumulation)
	prec     Precision
	state    float64 // bytes per parameter of weights, gradients and optimizer state
	gpu      *GPU
	limitW   float64 // power limit per GPU, W (the board's default when not given)
	belowMin bool    // limitW is under the board's estimated lowest limit (checkPowerLimit)
	peak     float64
	count    int
	strategy string
	plan     Plan
	site     SiteSpec
	cal      *Calibration
	timeCal  *Calibration
	method   method
	stack    stack
	eff      efficiency
	logits   bool // training.teacher_logits
	assume   []Message
	warn     []Message
	imported []Imported // what the Hugging Face files gave (Inputs.Imported)
	// numbersOnly: a sweep point (Sweep keeps the figures alone), whose
	// response leaves its messages' texts unwritten; the messages and
	// every number are the estimate's.
	numbersOnly bool
}

func (c *Catalog) resolve(req Request) (*resolved, error) {
	r := &resolved{}
	if err := c.resolveInto(r, req); err != nil {
		return nil, err
	}
	return r, nil
}

// resolveInto validates req into r, memory and step checks included.
func (c *Catalog) resolveInto(r *resolved, req Request) error {
	if err := c.fillInputs(r, req); err != nil {
		return err
	}
	// Memory feasibility: by default 16 bytes/param for weights, gradients
	// and Adam state in mixed precision (Rajbhandari et al. 2020, ZeRO,
	// section 3.1); training.state_bytes_per_param overrides it.
	if err := r.checkState(); err != nil {
		return err
	}
	return r.checkSteps()
}

// resolveInputs validates a request without the memory check (the
// recommender checks memory per layout).
func (c *Catalog) resolveInputs(req Request) (*resolved, error) {
	r := &resolved{}
	if err := c.fillInputs(r, req); err != nil {
		return nil, err
	}
	return r, nil
}

// fillInputs is resolveInputs into a zero resolved that the caller owns.
func (c *Catalog) fillInputs(r *resolved, req Request) (err error) {
	var hf *HFModel
	if r.name, r.arch, r.head, hf, err = c.resolveModelHF(req.Model); err != nil {
		return err
	}
	t := req.Training
	var hft *hfTraining
	if t.HFArgs != "" || t.PEFT != "" {
		if c.hf == nil {
			if t.HFArgs == "" {
				return c.noHF(PathPEFT)
			}
			return c.noHF(PathHFArgs)
		}
		var fam *hfFamily
		if hf != nil {
			fam = hf.family
		}
		if t, hft, err = c.hf.training(t, fam, r.arch); err != nil {
			return err
		}
	}
	if hf != nil || hft != nil {
		c.hf.note(r, hf, hft)
	}
	r.params = r.arch.Params()
	if a := r.arch; a.MoE() {
		r.assume = append(r.assume, Message{Code: CodeAssumeMoE, Args: Args{{Name: "per_token", Num: float64(a.ExpertsPerToken)}, {Name: "experts", Num: float64(a.Experts)}, {Name: "rate", Num: ExpertEfficiency}, {Name: "source", Str: ExpertSource}}})
	}

	maxSteps := 0
	if hft != nil {
		maxSteps = hft.maxSteps
	}
	if t.DatasetExamples != 0 {
		// Examples instead of tokens: each at the full sequence length.
		if t.DatasetTokens != 0 {
			return codeErr(CodeExamplesTwice, "training.dataset_examples", t.DatasetExamples, Args{{Name: "tokens", Str: "training.dataset_tokens"}, {Name: "examples", Str: "training.dataset_examples"}})
		}
		if err := fieldExamples.Check(t.DatasetExamples); err != nil {
			return err
		}
		if err := fieldSeqLen.Check(t.SeqLen); err != nil {
			return err
		}
		t.DatasetTokens = t.DatasetExamples * t.SeqLen
		r.assume = append(r.assume, Message{Code: CodeAssumeEpochFromExamples, Args: Args{{Name: "field", Str: "training.dataset_examples"}, {Name: "seq_len", Str: "training.seq_len"},
			{Name: "examples", Num: t.DatasetExamples}, {Name: "seq", Num: t.SeqLen}, {Name: "tokens", Num: t.DatasetTokens}}})
	}
	switch {
	case t.Tokens != 0 && (t.DatasetTokens != 0 || t.Epochs != 0):
		return codeErr(CodeTokensTwice, "training.tokens", t.Tokens, nil)
	case t.Tokens != 0:
		if err := fieldTokens.Check(t.Tokens); err != nil {
			return err
		}
		r.tokens = t.Tokens
	case maxSteps > 0 && t.Epochs == 0: // the tokens follow from the layout, below
		if t.DatasetTokens != 0 {
			r.assume = append(r.assume, Message{Code: CodeAssumeDatasetUnused, Args: Args{{Name: "dataset_tokens", Str: "training.dataset_tokens"}, {Name: "file", Str: PathHFArgs}}})
		}
	case t.DatasetTokens != 0 || t.Epochs != 0:
		if err := fieldDatasetTokens.Check(t.DatasetTokens); err != nil {
			return err
		}
		if err := fieldEpochs.Check(t.Epochs); err != nil {
			return err
		}
		r.tokens = t.DatasetTokens * t.Epochs
	default:
		return codeErr(CodeTokensRequired, "training.tokens", nil, nil)
	}
	if err := fieldSeqLen.Check(t.SeqLen); err != nil {
		return err
	}
	if err := fieldBatchPerGPU.Check(t.BatchPerGPU); err != nil {
		return err
	}
	r.seq, r.bat = int(t.SeqLen), int(t.BatchPerGPU)
	r.accum = 1
	if t.GradientAccumulation != 0 {
		if err := fieldAccum.Check(t.GradientAccumulation); err != nil {
			return err
		}
		r.accum = int(t.GradientAccumulation)
	}
	if hf != nil && hf.MaxPositions > 0 && r.seq > hf.MaxPositions {
		if hf.AbsolutePositions {
			return codeErr(CodeSeqBeyondLearned, "training.seq_len", r.seq, Args{{Name: "max", Num: float64(hf.MaxPositions)}, {Name: "file", Str: PathHFConfig}})
		}
		r.warn = append(r.warn, Message{Code: CodeSeqBeyondPositions, Field: "training.seq_len", Args: Args{{Name: "field", Str: "training.seq_len"}, {Name: "seq", Num: float64(r.seq)}, {Name: "max", Num: float64(hf.MaxPositions)}, {Name: "file", Str: PathHFConfig}}})
	}
	if maxSteps == 0 && r.tokens < float64(r.seq) {
		return codeErr(CodeTokensBelowSeq, "training.tokens", r.tokens, Args{{Name: "seq", Num: float64(r.seq)}})
	}
	r.state = DefaultStateBytesPerParam
	if t.StateBytesPerParam != 0 {
		if err := fieldStateBytes.Check(t.StateBytesPerParam); err != nil {
			return err
		}
		r.state = t.StateBytesPerParam
	}
	r.prec = Precision(strings.ToLower(string(t.Precision)))

	if req.Hardware.GPU == "" {
		return codeErr(CodeGPURequired, "hardware.gpu", nil, nil)
	}
	g, err := c.Hardware.Lookup(req.Hardware.GPU)
	if err != nil {
		return err
	}
	r.gpu = g
	if g.PowerScope == SystemPower {
		r.assume = append(r.assume, Message{Code: CodeAssumeSystemPower, Args: Args{{Name: "gpu", Str: g.ID}, {Name: "power_w", Num: g.BoardPowerW}}})
	}
	if r.prec == "" {
		r.prec = g.DefaultPrecision()
		r.assume = append(r.assume, Message{Code: CodeAssumePrecision, Args: Args{{Name: "field", Str: "training.precision"}, {Name: "precision", Str: string(r.prec)}, {Name: "gpu", Str: g.ID}, {Name: "rule", Str: DefaultPrecisionRule}}})
	}
	if r.peak, err = g.PeakFLOPS(r.prec); err != nil {
		return err
	}
	if r.limitW, r.belowMin, err = checkPowerLimit("hardware.power_limit_w", req.Hardware.PowerLimitW, g); err != nil {
		return err
	}
	if r.belowMin {
		r.warn = append(r.warn, belowMinWarning(g, r.limitW))
	}
	if err := fieldCount.Check(req.Hardware.Count); err != nil {
		return err
	}
	r.count = int(req.Hardware.Count)
	if err := r.resolveMethod(t); err != nil {
		return err
	}

	if err := r.resolveStrategy(req.Strategy); err != nil {
		return err
	}
	if maxSteps > 0 {
		// The Trainer's max_steps counts optimizer steps: each takes
		// gradient_accumulation micro-batches of batch_per_gpu sequences on
		// every data-parallel rank.
		r.tokens = float64(maxSteps) * float64(r.accum) * float64(r.bat) * float64(r.seq) * float64(r.plan.Data)
		if err := fieldTokens.Check(r.tokens); err != nil {
			return codeErr(CodeMaxStepsTokens, PathHFArgs+".max_steps", maxSteps, Args{{Name: "tokens", Num: r.tokens}, {Name: "data", Num: float64(r.plan.Data)}, {Name: "max", Num: fieldTokens.Bounds.Max}})
		}
		r.assume = append(r.assume, Message{Code: CodeAssumeTokensFromSteps, Args: Args{{Name: "field", Str: "training.tokens"}, {Name: "tokens", Num: r.tokens}, {Name: "steps", Num: float64(maxSteps)}, {Name: "file", Str: PathHFArgs},
			{Name: "accum", Num: float64(r.accum)}, {Name: "batch", Num: float64(r.bat)}, {Name: "seq", Num: float64(r.seq)}, {Name: "data", Num: float64(r.plan.Data)}, {Name: "seq_len", Str: "training.seq_len"}}})
	}

	var assume []Message
	if r.site, assume, err = resolveSite(req.Site); err != nil {
		return err
	}
	r.assume = append(r.assume, assume...)

	if r.cal, err = c.Calibration(req.Calibration); err != nil {
		return err
	}
	r.timeCal = r.cal
	if r.cal.Kind != KindRoofline {
		r.timeCal, _ = c.Calibration("")
	}
	r.logits = t.TeacherLogits
	if err := r.resolveStack(t); err != nil {
		return err
	}
	if err := r.resolveEfficiency(t); err != nil {
		return err
	}

	return nil
}

func (r *resolved) resolveStrategy(s Strategy) error {
	n := r.count
	switch s.Name {
	case "":
		return codeErr(CodeStrategyRequired, "strategy", nil, Args{{Name: "example", Str: `{"tensor": t, "data": d, "data_mode": "fsdp"}`}})
	case Single:
		if n != 1 {
			return codeErr(CodeSingleNeedsOne, "strategy", Single, Args{{Name: "count_field", Str: "hardware.count"}, {Name: "count", Num: float64(n)}})
		}
		r.plan = Plan{Tensor: 1, Data: 1}
	case DDP, FSDP:
		r.plan = Plan{Tensor: 1, Data: n, DataMode: s.Name}
	case TP:
		r.plan = Plan{Tensor: n, Data: 1}
	case Hybrid:
		if err := checkField("strategy.tensor", s.Tensor); err != nil {
			return err
		}
		if err := checkField("strategy.data", s.Data); err != nil {
			return err
		}
		mode := s.DataMode
		if mode == "" {
			mode = DDP
		}
		if mode != DDP && mode != FSDP {
			return codeErr(CodeDataMode, "strategy.data_mode", s.DataMode, nil)
		}
		c := 1
		if s.Context != 0 {
			if err := checkField("strategy.context", s.Context); err != nil {
				return err
			}
			c = int(s.Context)
		}
		t, d := int(s.Tensor), int(s.Data)
		if c > 1 && t*c*d != n {
			return codeErr(CodeLayoutProduct, "strategy", "tensor "+strconv.Itoa(t)+" × context "+strconv.Itoa(c)+" × data "+strconv.Itoa(d)+" = "+strconv.Itoa(t*c*d), Args{{Name: "count_field", Str: "hardware.count"}, {Name: "count", Num: float64(n)}})
		}
		if t*c*d != n {
			return codeErr(CodeLayoutProduct, "strategy", "tensor "+strconv.Itoa(t)+" × data "+strconv.Itoa(d)+" = "+strconv.Itoa(t*d), Args{{Name: "count_field", Str: "hardware.count"}, {Name: "count", Num: float64(n)}})
		}
		r.plan = Plan{Tensor: t, Data: d, DataMode: mode}
		if c > 1 {
			r.plan.Context = c
		}
	default:
		return codeErr(CodeStrategy, "strategy", s.Name, nil)
	}
	if r.plan.Replicas() == 1 {
		r.plan.DataMode = ""
	}
	r.strategy = s.Name
	if t := r.plan.Tensor; t > 1 {
		field := "strategy.tensor"
		if s.Name == TP {
			field = "hardware.count"
		}
		if t > r.arch.Heads {
			return codeErr(CodeTensorOverHeads, field, t, Args{{Name: "tensor", Num: float64(t)}, {Name: "heads", Num: float64(r.arch.Heads)}})
		}
		if r.arch.Heads%t != 0 {
			return codeErr(CodeTensorHeads, field, t, Args{{Name: "tensor", Num: float64(t)}, {Name: "heads", Num: float64(r.arch.Heads)}})
		}
	}
	return nil
}

// checkState refuses a layout whose weights, gradients and optimizer state
// (for lora and qlora: the frozen base at its storage format plus the
// trained adapters' state) do not fit in the memory of one GPU: a
// CodeMemoryState or CodeMemoryStatePEFT error whose need_gb and
// capacity_gb are the state per GPU and the GPU's memory, with advice
// against the layout asked for.
func (r *resolved) checkState() error {
	g := r.gpu
	frozen, trained := r.stateParts()
	state := frozen + trained
	if state <= g.MemoryGB*1e9 {
		return nil
	}
	args := Args{{Name: "need_gb", Num: state / 1e9}, {Name: "capacity_gb", Num: g.MemoryGB}, {Name: "gpu", Str: g.ID}, {Name: "params", Num: r.params}, {Name: "layout", Str: r.layoutString()}, {Name: "bytes_per_param", Num: r.state}}
	advice := []Message{r.shardHint()}
	if r.method.name == MethodFull {
		advice = append(advice, Message{Code: CodeAdvicePEFT, Args: Args{{Name: "method", Str: "training.method"}}})
		// A leaner optimizer, unless the state is at its least already.
		if r.state > fieldStateBytes.Bounds.Min {
			lean := Message{Code: CodeAdviceLeanOptimizer, Args: Args{{Name: "state_bytes", Str: "training.state_bytes_per_param"}}}
			if fit := math.Floor(r.state*g.MemoryGB*1e9/state*10) / 10; fit >= fieldStateBytes.Bounds.Min {
				lean = Message{Code: CodeAdviceLeanOptimizerFits, Args: Args{{Name: "state_bytes", Str: "training.state_bytes_per_param"}, {Name: "fit", Num: fit}}}
			}
			advice = append(advice, lean)
		}
		args = append(args, Arg{Name: "advice", Msgs: advice})
		return codeErr(CodeMemoryState, "hardware.count", r.count, args)
	}
	m := &r.method
	if m.name == MethodLoRA {
		advice = append(advice, Message{Code: CodeAdviceQLoRA, Args: Args{{Name: "method", Str: "training.method"}}})
	} else if m.format == FormatInt8 {
		advice = append(advice, Message{Code: CodeAdviceNF4, Args: Args{{Name: "base_format", Str: "training.lora.base_format"}}})
	}
	// The optimizer state that would fit beside the frozen base.
	if room := g.MemoryGB*1e9 - frozen; trained > 0 && room > 0 {
		if fit := math.Floor(r.state*room/trained*10) / 10; fit >= fieldStateBytes.Bounds.Min {
			advice = append(advice, Message{Code: CodeAdviceLeanStateFits, Args: Args{{Name: "state_bytes", Str: "training.state_bytes_per_param"}, {Name: "fit", Num: fit}}})
		}
	}
	format := "16-bit"
	if m.name == MethodQLoRA {
		format = m.format
	}
	args = append(args, Arg{Name: "method", Str: m.name}, Arg{Name: "format", Str: format},
		Arg{Name: "frozen_gb", Num: frozen / 1e9}, Arg{Name: "trained_gb", Num: trained / 1e9}, Arg{Name: "trainable", Num: m.trainable}, Arg{Name: "advice", Msgs: advice})
	return codeErr(CodeMemoryStatePEFT, "hardware.count", r.count, args)
}

// shardHint is a memory refusal's first advice, against the layout asked
// for: fsdp only when the data-parallel ranks do not shard already, tensor
// parallelism or, when it is used already, more tensor ranks; then more
// GPUs or a larger GPU.
func (r *resolved) shardHint() Message {
	var ways []string
	if r.plan.DataMode != FSDP {
		ways = append(ways, "fsdp")
	}
	if r.plan.Tensor > 1 {
		ways = append(ways, "more tensor ranks")
	} else {
		ways = append(ways, "tensor parallelism")
	}
	return Message{Code: CodeAdviceShard, Args: Args{{Name: "ways", List: ways}}}
}

func (r *resolved) layoutString() string {
	switch {
	case r.plan.Ctx() > 1:
		s := "sharded over " + strconv.Itoa(r.plan.Tensor) + " tensor ranks (each sequence split over " + strconv.Itoa(r.plan.Ctx()) + " context ranks)"
		if r.plan.DataMode == FSDP {
			s += " and " + strconv.Itoa(r.plan.Replicas()) + " fsdp ranks"
		}
		return s
	case r.plan.Tensor > 1 && r.plan.Data > 1:
		s := "sharded over " + strconv.Itoa(r.plan.Tensor) + " tensor ranks"
		if r.plan.DataMode == FSDP {
			s += " and " + strconv.Itoa(r.plan.Data) + " fsdp ranks"
		}
		return s
	case r.plan.Tensor > 1:
		return "sharded over " + strconv.Itoa(r.plan.Tensor) + " tensor ranks"
	case r.plan.DataMode == FSDP:
		return "sharded over " + strconv.Itoa(r.plan.Data) + " fsdp ranks"
	}
	return "replicated on every GPU"
}

// minSteps is the fewest optimizer steps a layout must leave the run: the
// speedup and communication models describe a steady state of repeated
// steps, and a run of fewer than one step per data-parallel rank does not
// use the GPUs at all.
const minSteps = 1

// checkSteps refuses a GPU count that leaves the run less than one
// optimizer step (with gradient accumulation, one micro-batch step: the
// last optimizer step may close a partial accumulation): each step takes
// seq_len × batch_per_gpu tokens on every data-parallel rank.
func (r *resolved) checkSteps() error {
	if steps := r.microSteps(); steps < minSteps {
		most := math.Floor(r.tokens / (float64(r.seq) * float64(r.bat)) * float64(r.count) / float64(r.plan.Data))
		what := "optimizer steps"
		if r.accum > 1 {
			what = "micro-batch steps" // an optimizer step may end on a partial accumulation
		}
		return codeErr(CodeTooFewSteps, "hardware.count", r.count, Args{{Name: "steps", Num: steps}, {Name: "what", Str: what}, {Name: "tokens", Num: r.tokens}, {Name: "tokens_per_step", Num: float64(r.seq * r.bat)}, {Name: "data", Num: float64(r.plan.Data)}, {Name: "most_gpus", Num: math.Max(1, most)}})
	}
	return nil
}

// microSteps is the run's micro-batch steps: its tokens over seq_len ×
// batch_per_gpu on each data-parallel rank (the optimizer steps times the
// gradient accumulation).
func (r *resolved) microSteps() float64 {
	return r.tokens / (float64(r.seq) * float64(r.bat) * float64(r.plan.Data))
}

// The resolution steps that other packages (model/distill, model/validate,
// the site) share with Catalog.Estimate, so that each rule and each error
// message exists once.

// ResolveModel resolves a preset-or-shape model: the name ("custom" for a
// shape), the shape and the head trained by default ("classifier" for
// encoder presets, else "lm"). Errors name the field under path (""
// for a top-level request, "options[0].teacher" inside a plan), with the
// shape's ranges from RequestFields.
func (c *Catalog) ResolveModel(m ModelSpec, path string) (name string, a Arch, head string, err error) {
	name, a, head, err = c.resolveModel(m)
	if err != nil {
		return "", Arch{}, "", PrefixField(path, err)
	}
	return name, a, head, nil
}

func (c *Catalog) resolveModel(m ModelSpec) (string, Arch, string, error) {
	name, a, head, _, err := c.resolveModelHF(m)
	return name, a, head, err
}

// resolveModelHF is resolveModel with what model.hf_config gave (nil
// without one).
func (c *Catalog) resolveModelHF(m ModelSpec) (string, Arch, string, *HFModel, error) {
	var name, head string
	var a Arch
	var hf *HFModel
	hasShape := m.Layers != 0 || m.Hidden != 0 || m.Heads != 0 || m.FFN != 0 || m.Vocab != 0 || m.KVHeads != 0 || m.Experts != 0 || m.ExpertsPerToken != 0 || m.HeadDim != 0 || m.Tied
	hasConfig := m.HFConfig != ""
	switch {
	case m.Preset != "" && hasConfig:
		return "", a, "", nil, codeErr(CodePresetAndHF, "model", nil, nil)
	case m.Preset != "" && hasShape:
		return "", a, "", nil, codeErr(CodePresetAndShape, "model", nil, nil)
	case m.Preset != "":
		p, err := c.preset(m.Preset)
		if err != nil {
			return "", a, "", nil, err
		}
		name, a = p.Name, p.Arch
		head = "lm"
		if p.Family == "BERT" || p.Family == "RoBERTa" || p.Family == "DistilBERT" {
			head = "classifier"
		}
	case hasConfig || hasShape:
		for _, f := range []struct {
			n string
			v float64
		}{{"layers", m.Layers}, {"hidden", m.Hidden}, {"heads", m.Heads}, {"ffn", m.FFN}, {"vocab", m.Vocab}, {"kv_heads", m.KVHeads}, {"experts", m.Experts}, {"experts_per_token", m.ExpertsPerToken}, {"head_dim", m.HeadDim}} {
			if f.v == 0 && (hasConfig || f.n == "head_dim") {
				continue // the config's, or hidden ÷ heads
			}
			if err := checkField("model."+f.n, f.v); err != nil {
				return "", a, "", nil, err
			}
		}
		name, head = "custom", "lm"
		if hasConfig {
			if c.hf == nil {
				return "", a, "", nil, c.noHF(PathHFConfig)
			}
			var err error
			if hf, err = c.hf.config([]byte(m.HFConfig)); err != nil {
				return "", a, "", nil, err
			}
			a, name = hf.Arch, hf.Name
			if hf.Encoder {
				head = "classifier"
			}
		}
		// Explicit shape fields win over the config's.
		for _, f := range []struct {
			path string
			v    float64
			dst  *int
		}{{"model.layers", m.Layers, &a.Layers}, {"model.hidden", m.Hidden, &a.Hidden}, {"model.heads", m.Heads, &a.Heads}, {"model.kv_heads", m.KVHeads, &a.KVHeads},
			{"model.ffn", m.FFN, &a.FFN}, {"model.vocab", m.Vocab, &a.Vocab}, {"model.experts", m.Experts, &a.Experts}, {"model.experts_per_token", m.ExpertsPerToken, &a.ExpertsPerToken}, {"model.head_dim", m.HeadDim, &a.HeadDim}} {
			if f.v != 0 {
				*f.dst = int(f.v)
				hf.override(f.path)
			}
		}
		if m.GLU {
			a.GLU = true
		}
		if m.Tied {
			a.Tied = true
			hf.override("model.tied")
		}
	default:
		return "", a, "", nil, codeErr(CodeModelRequired, "model", nil, nil)
	}
	switch m.Head {
	case "":
	case "lm", "classifier":
		head = m.Head
	default:
		return "", a, "", nil, codeErr(CodeHead, "model.head", m.Head, nil)
	}
	if err := a.Validate("model"); err != nil {
		return "", a, "", nil, err
	}
	return name, a, head, hf, nil
}

// override marks the config's keys for field as overridden by the
// request's own field (nil m: nothing to mark).
func (m *HFModel) override(field string) {
	if m == nil {
		return
	}
	for i := range m.Took {
		if m.Took[i].Field == field {
			m.Took[i].Use, m.Took[i].Note = UseOverridden, field+" is given"
		}
	}
}

// ResolveSite fills the site figures left at zero with the stated defaults
// (DefaultPUE, DefaultCarbonGPerKWh, DefaultUSDPerKWh) and checks the
// others against RequestFields. assumptions has one sentence per default
// used, the same wherever an estimate is made.
func ResolveSite(s SiteSpec) (site SiteSpec, assumptions []string, err error) {
	site, ms, err := resolveSite(s)
	return site, MessageTexts(ms), err
}

// resolveSite is ResolveSite with the assumptions as Messages.
func resolveSite(s SiteSpec) (site SiteSpec, assumptions []Message, err error) {
	site = s
	if s.PUE == 0 {
		site.PUE = DefaultPUE
		assumptions = append(assumptions, Message{Code: CodeAssumePUE, Args: Args{{Name: "pue", Num: DefaultPUE}, {Name: "field", Str: "site.pue"}}})
	} else if err := fieldPUE.Check(s.PUE); err != nil {
		return site, nil, err
	}
	if s.CarbonGPerKWh == 0 {
		site.CarbonGPerKWh = DefaultCarbonGPerKWh
		assumptions = append(assumptions, Message{Code: CodeAssumeCarbon, Args: Args{{Name: "carbon", Num: float64(DefaultCarbonGPerKWh)}, {Name: "field", Str: "site.carbon_g_per_kwh"}}})
	} else if err := fieldCarbon.Check(s.CarbonGPerKWh); err != nil {
		return site, nil, err
	}
	if s.USDPerKWh == 0 {
		site.USDPerKWh = DefaultUSDPerKWh
		assumptions = append(assumptions, Message{Code: CodeAssumePrice, Args: Args{{Name: "usd", Num: DefaultUSDPerKWh}, {Name: "field", Str: "site.usd_per_kwh"}}})
	} else if err := fieldUSD.Check(s.USDPerKWh); err != nil {
		return site, nil, err
	}
	if len(s.Region) > 100 {
		return site, nil, codeErr(CodeTooLong, "site.region", nil, Args{{Name: "max", Num: 100}})
	}
	return site, assumptions, nil
}

// BusyPowerW is one GPU's power while it computes: idle power plus
// activity × (board power − idle power), activity being the calibration's
// fraction of the dynamic range (RooflineParams.ForPrecision).
func (g *GPU) BusyPowerW(activity float64) float64 {
	return g.IdlePowerW + activity*(g.BoardPowerW-g.IdlePowerW)
}

// AlphaEtaFallback is α_η where a calibration has no fitted value for an
// interconnect class, and AlphaEtaFallbackNote the assumption that says so.
const (
	AlphaEtaFallback     = -1.0
	AlphaEtaFallbackNote = "α_η = −1 (no fitted value for this interconnect)"
)

// AlphaEtaFor returns the calibration's α_η, the exponent of η in the
// parallel energy factor η^α_η, for an interconnect class, or
// AlphaEtaFallback with fitted false when it has none.
func (c *Calibration) AlphaEtaFor(ic Interconnect) (alpha float64, fitted bool) {
	if a, ok := c.AlphaEta[ic]; ok {
		return a.Value, true
	}
	return AlphaEtaFallback, false
}

// NormalQuantile returns the p-quantile of the standard normal distribution,
// √2·erf⁻¹(2p − 1).
func NormalQuantile(p float64) float64 { return math.Sqrt2 * math.Erfinv(2*p-1) }
