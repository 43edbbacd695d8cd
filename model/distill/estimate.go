package distill

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/wattscale/wattscale/model"
)

// Defaults of the estimated stages when a configuration leaves them out;
// the result states each one it used.
const (
	// DefaultTokensPerS is the assumed tokenisation throughput of one
	// process (a Hugging Face fast tokenizer driven through datasets.map,
	// packing and sharding included), tokens per second.
	DefaultTokensPerS = 5e5
	// DefaultCPUPowerW is the assumed package power of the host CPU while it
	// preprocesses, W.
	DefaultCPUPowerW = 150
	// DefaultTopK is the number of log-probs cached per token in logit KD
	// (the paper's harness stores the top 100).
	DefaultTopK = 100
	// usableMemory is the fraction of device memory taken as usable for
	// weights, KV cache and activations (the rest: CUDA context, allocator
	// fragmentation, workspaces).
	usableMemory = 0.9
	// actBytesPerTokenLayer16 is the activation bytes per token per layer per
	// unit of hidden size at 16 bit: 34·d (Korthikanti et al. 2022, eq. 1
	// without the attention-score term), the fine-tuning model's figure.
	actBytesPerTokenLayer16 = 34
	// logitBytes is the size of one fp32 logit.
	logitBytes = 4
	// topKEntryBytes is one cached log-prob: a 16-bit value and a 32-bit index.
	topKEntryBytes = 6
)

// Strategies of an inference stage.
const (
	InferSingle = "single" // one GPU holds the model
	InferTP     = "tp"     // tensor parallel: weights and heads split over the GPUs
	InferDP     = "dp"     // one full replica per GPU, the work split between them
)

// estimator holds what estimated stages share: the catalog and the roofline
// calibration whose efficiencies they use.
type estimator struct {
	cat *model.Catalog
	cal *model.Calibration // roofline kind
	rp  *model.RooflineParams
	// quiet skips the words of an inference stage (detail, warnings): the
	// recommender's search needs only its energy and time.
	quiet bool
}

func newEstimator(cat *model.Catalog, calName string) (*estimator, error) {
	cal, err := cat.Calibration(calName)
	if err != nil {
		return nil, err
	}
	if cal.Kind != model.KindRoofline || cal.Roofline == nil {
		// A law calibration has no time model; use the default's, as the
		// fine-tuning estimate does.
		if cal, err = cat.Calibration(""); err != nil {
			return nil, err
		}
	}
	return &estimator{cat: cat, cal: cal, rp: cal.Roofline}, nil
}

// inferenceAssumptions returns the sentences every estimated inference stage relies on.
func (e *estimator) inferenceAssumptions() []string {
	rp := e.rp
	return []string{
		fmt.Sprintf("estimated teacher and evaluation stages: time = FLOPs/(peak·u_compute) + bytes/(bandwidth·u_memory), with u_compute %.3f and u_memory %.3f from calibration %s (fitted on fine-tuning runs, not on inference; set u_compute and u_memory per stage to override); busy power P_idle + %.3f·(P_board − P_idle) per GPU; %.0f s start-up per stage at idle power",
			rp.UCompute.Value, rp.UMemory.Value, e.cal.Name, rp.Activity.Value, rp.OverheadS.Value+model.WarmupS),
		"inference counts: forward FLOPs per token 2·N_non-embedding + 2·d·V (LM head) + 4·L·c·d (attention at context c; c = S/2 on average in a causal prefill); the weights are read once per forward pass or decode step; the KV cache holds 2·L·kv_heads·head_dim values per token; activations 34·d bytes per token per layer at 16 bit (Korthikanti et al. 2022)",
		fmt.Sprintf("inference batch, when not given: the largest that fits in %.0f %% of device memory after the weights (KV cache for generation, fp32 logits and their log-softmax for prefill)", usableMemory*100),
		"tensor-parallel inference (strategy tp) uses the calibration's tensor-parallel speedup curve and energy exponent α_η (fitted on training); dp runs one replica per GPU with no communication",
	}
}

// device is a resolved accelerator layout for an inference stage.
type device struct {
	gpu       *model.GPU
	n         int // GPUs
	tensor    int // tensor-parallel degree
	strategy  string
	prec      model.Precision
	bpe       float64 // bytes per weight, activation and KV element
	peak      float64 // FLOP/s per GPU
	uC, uM    float64
	pBusy     float64 // W per busy GPU
	overheadS float64
	sp, eta   float64 // speedup and efficiency of the layout
	alpha     float64 // α_η
}

// stageEst is an estimated stage.
type stageEst struct {
	kwh, timeS, tokens float64
	// lo and hi are the stage's energy interval, kWh, and class the
	// interval class that set it ("" for a stage taken as exact).
	lo, hi   float64
	class    string
	detail   string
	params   float64         // parameters of the stage's model; 0 = none
	warnings []model.Message // about this stage's assumptions
}

// plausibleUCompute is the highest achieved fraction of peak FLOP/s taken as
// usual for large transformer workloads (model-FLOPs utilisation of 0.2–0.46
// in large-scale training: Chowdhery et al. 2022, PaLM, table 3).
const plausibleUCompute = 0.6

func bytesPerElement(p model.Precision) float64 {
	switch p {
	case model.FP32, model.TF32:
		return 4
	case model.FP8:
		return 1
	}
	return 2
}

// resolveArch returns the model of an inference stage (model.ResolveModel:
// the same presets, shapes, ranges and messages as a fine-tuning request);
// an inference stage computes the language-model head.
func (e *estimator) resolveArch(m model.ModelSpec, path string) (string, model.Arch, error) {
	if m.Head != "" && m.Head != "lm" {
		return "", model.Arch{}, errAt(CodeHeadLM, path+".model.head", quote(m.Head), nil)
	}
	name, a, _, err := e.cat.ResolveModel(m, path)
	return name, a, err
}

// resolveDevice checks the hardware, precision, strategy and overrides of an
// inference stage.
func (e *estimator) resolveDevice(s *InferenceSpec, a model.Arch, path string) (*device, error) {
	d := &device{}
	g, n, err := e.lookupGPU(s.Hardware, path, 1)
	if err != nil {
		return nil, err
	}
	d.gpu, d.n = g, n
	d.prec = model.Precision(strings.ToLower(string(s.Precision)))
	if d.prec == "" {
		d.prec = model.BF16
	}
	if d.peak, err = g.PeakFLOPS(d.prec); err != nil {
		fe := model.AsFieldError(err)
		return nil, fe.At(path + ".precision")
	}
	d.bpe = bytesPerElement(d.prec)
	d.tensor = 1
	d.strategy = strings.ToLower(s.Strategy)
	switch d.strategy {
	case "":
		if n != 1 {
			return nil, errAt(CodeStageStrategyNeeded, path+".strategy", "", model.Args{{Name: "n", Num: float64(n)}})
		}
		d.strategy = InferSingle
	case InferSingle:
		if n != 1 {
			return nil, model.CodeErr(CodeStageSingleNeedsOne, path+".strategy", s.Strategy, model.Args{{Name: "count_field", Str: "hardware.count"}, {Name: "count", Num: float64(n)}})
		}
	case InferTP:
		d.tensor = n
		if n > a.Heads || a.Heads%n != 0 {
			return nil, errAt(CodeStageTPHeads, path+".hardware.count", strconv.Itoa(n), model.Args{{Name: "heads", Num: float64(a.Heads)}})
		}
	case InferDP:
	default:
		return nil, errAt(CodeStageStrategy, path+".strategy", quote(s.Strategy), nil)
	}
	rp := e.rp
	d.uC, d.uM = rp.UCompute.Value, rp.UMemory.Value
	if s.UCompute != 0 {
		if err := checkRange(path+".u_compute", s.UCompute, 0, 1, true); err != nil {
			return nil, err
		}
		d.uC = s.UCompute
	}
	if s.UMemory != 0 {
		if err := checkRange(path+".u_memory", s.UMemory, 0, 1, true); err != nil {
			return nil, err
		}
		d.uM = s.UMemory
	}
	d.pBusy = g.BusyPowerW(rp.Activity.Value)
	d.overheadS = rp.OverheadS.Value + model.WarmupS // the stage's whole start-up, the first steps' warm-up included
	d.sp, d.eta, d.alpha = float64(n), 1, 0
	if d.strategy == InferTP {
		sp, eta, err := e.cal.Speedup.Efficiency(g.Interconnect, model.Plan{Tensor: n, Data: 1}, model.StepWorkload{Hidden: float64(a.Hidden)})
		if err != nil {
			return nil, &model.FieldError{Field: path + ".hardware.gpu", Value: quote(g.ID), Message: err.Error()}
		}
		d.sp, d.eta = sp, eta
		d.alpha, _ = e.cal.AlphaEtaFor(g.Interconnect)
	}
	return d, nil
}

// The estimate request's fields whose ranges a stage's numbers share (one
// rule, in model's field table): the GPU count; the sequence length, which
// also bounds an inference stage's prompt and generated tokens; the batch
// per GPU; the tokens.
var (
	hardwareCount = model.RequestField("hardware.count")
	seqLen        = model.RequestField("training.seq_len")
	batchPerGPU   = model.RequestField("training.batch_per_gpu")
	tokensField   = model.RequestField("training.tokens")
)

// lookupGPU resolves a hardware spec; count must be at least minCount.
func (e *estimator) lookupGPU(h model.HardwareSpec, path string, minCount int) (*model.GPU, int, error) {
	if h.GPU == "" {
		return nil, 0, errAt(model.CodeCandidateGPURequired, path+".hardware.gpu", "", nil)
	}
	g, err := e.cat.Hardware.Lookup(h.GPU)
	if err != nil {
		return nil, 0, atPath(path, err)
	}
	// The request's own range for a GPU count (model.RequestFields), from
	// minCount: a prerun or inference stage needs at least one GPU.
	if err := checkWhole(path+".hardware.count", h.Count, float64(minCount), hardwareCount.Bounds.Max); err != nil {
		return nil, 0, err
	}
	return g, int(h.Count), nil
}

// run turns single-GPU-equivalent FLOPs and bytes into energy and time on
// the layout: t₁ = C/(peak·u_c) + M/(bandwidth·u_m), the fine-tuning
// estimate's roofline time without its per-step latency, at the busy power
// of the calibration's activity (one figure for every precision); dp
// divides the time by the replicas at equal energy; tp divides it by the
// speedup S and multiplies the energy by η^α_η (α_η = −1 where the
// calibration has no fitted value); every GPU idles through the start-up
// time.
func (d *device) run(flops, bytes float64) (kwh, timeS float64) {
	t1 := flops/(d.peak*d.uC) + bytes/(d.gpu.BandwidthGBs*1e9*d.uM)
	j := d.pBusy * t1
	switch d.strategy {
	case InferDP:
		timeS = t1 / float64(d.n)
	case InferTP:
		timeS = t1 / d.sp
		j *= math.Pow(d.eta, d.alpha)
	default:
		timeS = t1
	}
	j += float64(d.n) * d.gpu.IdlePowerW * d.overheadS
	return j / 3.6e6, timeS + d.overheadS
}

// bound names the roofline regime of a workload.
func (d *device) bound(flops, bytes float64) string {
	if bytes/(d.gpu.BandwidthGBs*1e9) > flops/d.peak {
		return "memory-bound"
	}
	return "compute-bound"
}

// layout describes the device layout for details.
func (d *device) layout() string {
	s := fmt.Sprintf("%d × %s, %s", d.n, d.gpu.ID, d.prec)
	if d.strategy != InferSingle {
		s += ", " + d.strategy
	}
	return s
}

// inferModel holds a model's inference counts.
type inferModel struct {
	name        string
	a           model.Arch
	params      float64
	weightsRead float64 // bytes read per forward pass: non-embedding weights and the LM head
	resident    float64 // bytes of all weights held in memory
	kvPerToken  float64 // bytes of KV cache per token
	actPerToken float64 // activation traffic per token (all layers, forward)
}

func newInferModel(name string, a model.Arch, bpe float64) inferModel {
	d, L := float64(a.Hidden), float64(a.Layers)
	kv := a.KVHeads
	if kv == 0 {
		kv = a.Heads
	}
	headDim := d / float64(a.Heads)
	return inferModel{
		name: name, a: a, params: a.Params(),
		weightsRead: (a.NonEmbeddingParams() + d*float64(a.Vocab)) * bpe,
		resident:    a.Params() * bpe,
		kvPerToken:  2 * L * float64(kv) * headDim * bpe,
		actPerToken: L * actBytesPerTokenLayer16 * d * bpe / 2,
	}
}

// flopsPerToken is the forward FLOPs of one token at attention context c,
// with the LM head when head is true.
func (m inferModel) flopsPerToken(c float64, head bool) float64 {
	d := float64(m.a.Hidden)
	f := 2*m.a.ActiveNonEmbeddingParams() + 4*float64(m.a.Layers)*c*d
	if head {
		f += 2 * d * float64(m.a.Vocab)
	}
	return f
}

// prefill is a forward pass over tokens in sequences of seq, with logits at
// every position.
type prefill struct {
	tokens, seq, batch float64
	topK               float64 // cached log-probs per token; 0 = none stored
}

// generation decodes prompts × newTokens tokens in batches.
type generation struct {
	prompts, promptTokens, newTokens, batch float64
}

// prefillMemPerSeq is the transient memory per sequence of a prefill: fp32
// logits and their log-softmax at every position, plus one layer's
// activations.
func (m inferModel) prefillMemPerSeq(seq, bpe float64) float64 {
	return seq * (2*float64(m.a.Vocab)*logitBytes + actBytesPerTokenLayer16*float64(m.a.Hidden)*bpe/2)
}

// genMemPerSeq is the memory per sequence of a generation: its full KV cache
// (split over the tensor ranks) and the fp32 logits of its last token.
func (m inferModel) genMemPerSeq(ctx float64, tensor int) float64 {
	return ctx*m.kvPerToken/float64(tensor) + float64(m.a.Vocab)*logitBytes
}

// fitBatch returns the batch to use: the given one if it fits, else an
// error; the largest that fits when given is 0.
func fitBatch(d *device, m inferModel, perSeq, given, limit float64, path, what string) (float64, error) {
	free := usableMemory*d.gpu.MemoryGB*1e9 - m.resident/float64(d.tensor)
	if free < perSeq {
		return 0, errAt(CodeStageMemory, path+".hardware.count", strconv.Itoa(d.n), model.Args{{Name: "model", Str: m.name}, {Name: "weights_gb", Num: m.resident / float64(d.tensor) / 1e9}, {Name: "what", Str: what}, {Name: "seq_gb", Num: perSeq / 1e9}, {Name: "usable_pct", Num: usableMemory * 100}, {Name: "capacity_gb", Num: d.gpu.MemoryGB}, {Name: "gpu", Str: d.gpu.ID}})
	}
	most := math.Floor(free / perSeq)
	if given != 0 {
		if err := batchPerGPU.Bounds.Check(path+".batch", given); err != nil {
			return 0, err
		}
		if given > most {
			return 0, errAt(CodeStageBatchFit, path+".batch", model.ShortNum(given), model.Args{{Name: "most", Num: most}, {Name: "free_gb", Num: free / 1e9}, {Name: "what", Str: what}, {Name: "seq_gb", Num: perSeq / 1e9}})
		}
		return given, nil
	}
	return math.Max(1, math.Min(math.Min(most, batchPerGPU.Bounds.Max), math.Ceil(limit))), nil
}

// prefillCounts returns the FLOPs and bytes of a prefill.
func (m inferModel) prefillCounts(p prefill) (flops, bytes float64) {
	flops = p.tokens * m.flopsPerToken(p.seq/2, true)
	passes := math.Ceil(p.tokens / p.seq / p.batch)
	bytes = p.tokens*(m.actPerToken+3*float64(m.a.Vocab)*logitBytes) + passes*m.weightsRead
	return flops, bytes
}

// genCounts returns the FLOPs and bytes of a generation: the prompts'
// prefill (logits for the last position only), then one decode step per new
// token per batch, each reading the weights once and every sequence's KV
// cache at the mean context.
func (m inferModel) genCounts(g generation) (flops, bytes float64) {
	pre := g.prompts * g.promptTokens
	flops = pre*m.flopsPerToken(g.promptTokens/2, false) + g.prompts*2*float64(m.a.Hidden)*float64(m.a.Vocab)
	bytes = pre*m.actPerToken + math.Ceil(g.prompts/g.batch)*m.weightsRead
	gen := g.prompts * g.newTokens
	ctx := g.promptTokens + (g.newTokens+1)/2
	steps := math.Ceil(g.prompts/g.batch) * g.newTokens
	flops += gen * m.flopsPerToken(ctx, true)
	bytes += steps*m.weightsRead + gen*(ctx*m.kvPerToken+m.actPerToken+float64(m.a.Vocab)*logitBytes)
	return flops, bytes
}

// inference estimates a teacher or evaluation stage. role is "kd" (logit
// caching), "synthetic" (generation) or "eval" (scoring and/or generation);
// fallback is the model to use when the spec names none (eval: the student).
func (e *estimator) inference(s *InferenceSpec, role string, fallback *model.ModelSpec, path string) (stageEst, error) {
	ms := s.Model
	if ms == (model.ModelSpec{}) && fallback != nil {
		ms = *fallback
	}
	name, a, err := e.resolveArch(ms, path)
	if err != nil {
		return stageEst{}, err
	}
	d, err := e.resolveDevice(s, a, path)
	if err != nil {
		return stageEst{}, err
	}
	m := newInferModel(name, a, d.bpe)
	hasPrefill := s.Tokens != 0 || s.SeqLen != 0 || s.TopK != 0
	hasGen := s.Prompts != 0 || s.PromptTokens != 0 || s.MaxNewTokens != 0
	switch role {
	case RegimeKD:
		if hasGen {
			return stageEst{}, errAt(CodeKDPrompts, path+".prompts", "", nil)
		}
		hasPrefill = true
	case RegimeSynthetic:
		if hasPrefill {
			return stageEst{}, errAt(CodeSyntheticTokens, path+".tokens", "", nil)
		}
		hasGen = true
	default:
		if s.TopK != 0 {
			return stageEst{}, errAt(CodeTopKOnlyKD, path+".top_k", "", nil)
		}
		if !hasPrefill && !hasGen {
			return stageEst{}, errAt(CodeEvalWork, path+".tokens", "", nil)
		}
	}
	var flops, bytes, tokens float64
	var parts []string
	if hasPrefill {
		p := prefill{tokens: s.Tokens, seq: s.SeqLen}
		if err := tokensField.Bounds.Check(path+".tokens", p.tokens); err != nil {
			return stageEst{}, err
		}
		if err := seqLen.Bounds.Check(path+".seq_len", p.seq); err != nil {
			return stageEst{}, err
		}
		if role == RegimeKD {
			p.topK = s.TopK
			if p.topK == 0 {
				p.topK = DefaultTopK
			} else if err := checkWhole(path+".top_k", p.topK, 1, float64(a.Vocab)); err != nil {
				return stageEst{}, err
			}
		}
		perSeq := m.prefillMemPerSeq(p.seq, d.bpe)
		if p.batch, err = fitBatch(d, m, perSeq, s.Batch, math.Ceil(p.tokens/p.seq), path, "logits and activations"); err != nil {
			return stageEst{}, err
		}
		f, b := m.prefillCounts(p)
		flops, bytes, tokens = flops+f, bytes+b, tokens+p.tokens
		what := "scoring"
		if role == RegimeKD {
			what = "logit caching"
		}
		if !e.quiet {
			part := fmt.Sprintf("%s: %s tokens forward through %s in sequences of %s, batch %s (%s FLOP/token, %s)",
				what, model.ShortNum(p.tokens), name, model.ShortNum(p.seq), model.ShortNum(p.batch), model.ShortNum(m.flopsPerToken(p.seq/2, true)), d.bound(f, b))
			if p.topK > 0 {
				part += fmt.Sprintf("; top-%s log-probs stored, %s B/token, %s GB in all (host copy and disk not counted)",
					model.ShortNum(p.topK), model.ShortNum(p.topK*topKEntryBytes), model.ShortNum(p.tokens*p.topK*topKEntryBytes/1e9))
			}
			parts = append(parts, part)
		}
	}
	if hasGen {
		g := generation{prompts: s.Prompts, promptTokens: s.PromptTokens, newTokens: s.MaxNewTokens}
		if err := checkWhole(path+".prompts", g.prompts, 1, maxTokens); err != nil {
			return stageEst{}, err
		}
		if err := seqLen.Bounds.Check(path+".prompt_tokens", g.promptTokens); err != nil {
			return stageEst{}, err
		}
		if err := seqLen.Bounds.Check(path+".max_new_tokens", g.newTokens); err != nil {
			return stageEst{}, err
		}
		perSeq := m.genMemPerSeq(g.promptTokens+g.newTokens, d.tensor)
		if g.batch, err = fitBatch(d, m, perSeq, s.Batch, g.prompts, path, "KV cache"); err != nil {
			return stageEst{}, err
		}
		f, b := m.genCounts(g)
		flops, bytes, tokens = flops+f, bytes+b, tokens+g.prompts*g.newTokens
		if !e.quiet {
			parts = append(parts, fmt.Sprintf("generation: %s prompts of %s tokens decoded to %s new tokens each (%s tokens; every sequence runs to max_new_tokens) by %s at batch %s, %s weight bytes read per decode step shared by the batch (%s)",
				model.ShortNum(g.prompts), model.ShortNum(g.promptTokens), model.ShortNum(g.newTokens), model.ShortNum(g.prompts*g.newTokens), name, model.ShortNum(g.batch), model.ShortNum(m.weightsRead), d.bound(f, b)))
		}
	}
	kwh, t := d.run(flops, bytes)
	r := stageEst{kwh: kwh, timeS: t, tokens: tokens, params: m.params}
	class := model.ClassCore
	var bound model.Message
	var isBound bool
	if role == RegimeKD {
		if bound, isBound = model.InputBoundMessage("logit caching", tokens, t, d.n); isBound {
			class = model.ClassInputBound
		}
	}
	lo, hi := e.cal.IntervalFactors(class, tokens, t, d.n)
	r.lo, r.hi, r.class = kwh*lo, kwh*hi, class
	if e.quiet {
		return r, nil
	}
	r.detail = strings.Join(parts, "; ") + " on " + d.layout()
	if isBound {
		r.warnings = append(r.warnings, bound)
	}
	if s.UCompute == 0 && d.uC > plausibleUCompute && flops/(d.peak*d.uC) > bytes/(d.gpu.BandwidthGBs*1e9*d.uM) {
		alt := *d
		alt.uC = 0.4
		k, _ := alt.run(flops, bytes)
		r.warnings = append(r.warnings, model.Message{Code: CodeHighUCompute, Args: model.Args{{Name: "u", Num: d.uC}, {Name: "calibration", Str: e.cal.Name}, {Name: "factor", Num: k / kwh}}})
	}
	return r, nil
}

// preprocess estimates data preprocessing.
func (e *estimator) preprocess(s *PreprocessSpec, path string) (stageEst, []string, error) {
	if err := tokensField.Bounds.Check(path+".tokens", s.Tokens); err != nil {
		return stageEst{}, nil, err
	}
	var assume []string
	tps, cpu := s.TokensPerS, s.CPUPowerW
	if tps == 0 {
		tps = DefaultTokensPerS
		assume = append(assume, fmt.Sprintf("preprocessing throughput %s tokens/s (assumed: one process of a Hugging Face fast tokenizer through datasets.map, packing and sharding included; set preprocess.tokens_per_s)", model.ShortNum(DefaultTokensPerS)))
	} else if err := checkPositive(path+".tokens_per_s", tps, 1e12); err != nil {
		return stageEst{}, nil, err
	}
	if cpu == 0 {
		cpu = DefaultCPUPowerW
		assume = append(assume, fmt.Sprintf("host CPU power %s W while preprocessing (assumed: one server socket under load; set preprocess.cpu_power_w)", model.ShortNum(DefaultCPUPowerW)))
	} else if err := checkPositive(path+".cpu_power_w", cpu, 1e5); err != nil {
		return stageEst{}, nil, err
	}
	idleW, gpus := 0.0, "no GPUs"
	if s.Hardware.GPU != "" || s.Hardware.Count != 0 {
		g, n, err := e.lookupGPU(s.Hardware, path, 0)
		if err != nil {
			return stageEst{}, nil, err
		}
		idleW = float64(n) * g.IdlePowerW
		gpus = fmt.Sprintf("%d × %s idle at %s W", n, g.ID, model.ShortNum(g.IdlePowerW))
	}
	t := s.Tokens/tps + e.rp.OverheadS.Value + model.WarmupS
	kwh := t * (cpu + idleW) / 3.6e6
	detail := fmt.Sprintf("tokenise, pack and shard %s tokens at %s tokens/s on a %s W CPU, %s, plus %.0f s start-up", model.ShortNum(s.Tokens), model.ShortNum(tps), model.ShortNum(cpu), gpus, e.rp.OverheadS.Value+model.WarmupS)
	return stageEst{kwh: kwh, timeS: t, tokens: s.Tokens, detail: detail}, assume, nil
}

// prerun estimates the prerun stage.
func (e *estimator) prerun(s *PrerunSpec, path string) (stageEst, error) {
	g, n, err := e.lookupGPU(s.Hardware, path, 1)
	if err != nil {
		return stageEst{}, err
	}
	if err := checkRange(path+".idle_s", s.IdleS, 0, 1e7, false); err != nil {
		return stageEst{}, err
	}
	if err := checkRange(path+".burn_in_s", s.BurnInS, 0, 1e7, false); err != nil {
		return stageEst{}, err
	}
	if s.IdleS == 0 && s.BurnInS == 0 {
		return stageEst{}, errAt(CodeIdleNeeded, path+".idle_s", "", nil)
	}
	busy := g.BusyPowerW(e.rp.Activity.Value)
	j := float64(n) * (g.IdlePowerW*s.IdleS + busy*s.BurnInS)
	detail := fmt.Sprintf("%s s idle at %s W and %s s burn-in at %.0f W on %d × %s", model.ShortNum(s.IdleS), model.ShortNum(g.IdlePowerW), model.ShortNum(s.BurnInS), busy, n, g.ID)
	return stageEst{kwh: j / 3.6e6, timeS: s.IdleS + s.BurnInS, detail: detail}, nil
}

// student estimates the student stage through the fine-tuning estimate.
func (e *estimator) student(req model.Request, site model.SiteSpec, calName, path string) (stageEst, model.Response, error) {
	if req.Site != (model.SiteSpec{}) {
		return stageEst{}, model.Response{}, errAt(CodeSiteOnce, path+".site", "", nil)
	}
	req.Site = site
	if req.Calibration == "" {
		req.Calibration = calName
	}
	resp, err := e.cat.Estimate(req)
	if err != nil {
		return stageEst{}, model.Response{}, atPath(path, err)
	}
	in := resp.Inputs
	detail := fmt.Sprintf("fine-tuning estimate: %s on %s tokens, seq %d, batch %d per GPU, %s, %d × %s, %s (calibration %s, 90 %% interval %.3g–%.3g kWh)",
		in.Model, model.ShortNum(in.Tokens), in.SeqLen, in.BatchPerGPU, in.Precision, in.Count, in.GPU, resp.Parallel.Strategy, resp.Calibration.Name, resp.EnergyIntervalKWh[0], resp.EnergyIntervalKWh[1])
	return stageEst{kwh: resp.EnergyKWh, timeS: resp.TimeS, tokens: in.Tokens, detail: detail, params: resp.Proxies.Params,
		lo: resp.EnergyIntervalKWh[0], hi: resp.EnergyIntervalKWh[1], class: resp.Calibration.Interval.Class}, resp, nil
}

// checkWhole, checkPositive and checkRange check a plan's numbers with
// model.Bounds, so that a plan's range errors read as a request's.
func checkWhole(field string, x, lo, hi float64) error {
	return model.Bounds{Min: lo, Max: hi, Whole: true}.Check(field, x)
}

func checkPositive(field string, x, hi float64) error {
	return model.Bounds{Max: hi, MinOpen: true}.Check(field, x)
}

func checkRange(field string, x, lo, hi float64, openLo bool) error {
	return model.Bounds{Min: lo, Max: hi, MinOpen: openLo}.Check(field, x)
}

// checkKWh checks a measured energy: 0 (nothing spent) or from minKWh to
// maxKWh. A positive energy below minKWh (3.6 J, a 4 W device for one
// second) is no measurement of a training or inference stage, and would
// make every ratio built on it (N*, the Pareto set) meaningless.
func checkKWh(field string, x float64) error {
	if err := stageKWhBounds.Check(field, x); err != nil {
		return err
	}
	if x > 0 && x < minKWh {
		return errAt(CodeKWhRange, field, model.ShortNum(x), model.Args{{Name: "min", Num: minKWh}, {Name: "max", Num: maxKWh}})
	}
	return nil
}

func quote(s string) string { return strconv.Quote(s) }

// errAt is the error code about field, with value the value given as
// written ("" for none) and args the numbers its words speak of.
func errAt(code, field, value string, args model.Args) *model.FieldError {
	fe := model.CodeErr(code, field, nil, args)
	fe.Value = value
	return fe
}
