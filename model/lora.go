package model

import (
	"encoding/json"
	"math/bits"
	"strings"
)

// Fine-tuning methods (training.method).
const (
	MethodFull  = "full"  // every weight trained (the default)
	MethodLoRA  = "lora"  // low-rank adapters on a frozen 16-bit base (Hu et al. 2021)
	MethodQLoRA = "qlora" // low-rank adapters on a frozen 4- or 8-bit base (Dettmers et al. 2023)
)

// Methods lists the fine-tuning methods in display order.
var Methods = []string{MethodFull, MethodLoRA, MethodQLoRA}

// QLoRA base-weight formats (training.lora.base_format).
const (
	FormatNF4  = "nf4"  // 4-bit NormalFloat with double quantisation (QLoRA's default)
	FormatInt8 = "int8" // 8-bit LLM.int8() weights (Dettmers et al. 2022)
)

// LoRA target sets (training.lora.targets). A custom set is a
// comma-separated list of the modules q, k, v, o, gate, up, down.
const (
	TargetsQV           = "qv"            // W_q and W_v, the LoRA paper's choice and PEFT's default for Llama
	TargetsAttention    = "attention"     // q, k, v and o projections
	TargetsAttentionMLP = "attention_mlp" // every linear layer of the block (QLoRA's choice)
)

// LoRASpec holds the adapter options of training.method lora and qlora.
// Zero values take the common recipe of the method, listed in the
// response's assumptions.
type LoRASpec struct {
	// Rank is the adapter rank r, 1 to the model's hidden size; 0 = 8 for
	// lora (PEFT's default), 64 for qlora (Dettmers et al. 2023, section 5).
	Rank float64 `json:"rank,omitempty"`
	// Targets names the adapted modules: "qv", "attention", "attention_mlp"
	// or a comma-separated list of q, k, v, o, gate, up, down; "" = qv for
	// lora, attention_mlp for qlora.
	Targets string `json:"targets,omitempty"`
	// TrainEmbeddings trains the token embeddings and the LM head in full
	// (with optimizer state) besides the adapters.
	TrainEmbeddings bool `json:"train_embeddings,omitempty"`
	// BaseFormat is the storage format of the frozen base under qlora:
	// "nf4" (4-bit NormalFloat with double quantisation, the default) or
	// "int8" (LLM.int8()).
	BaseFormat string `json:"base_format,omitempty"`
	// ComputeDtype is the format the base weights are dequantised to for
	// each matmul under qlora: fp16, bf16 or fp32; "" = training.precision.
	ComputeDtype Precision `json:"compute_dtype,omitempty"`
}

// checkLoRAJSON decodes training.lora of a raw training object on its own
// first, so that an unknown or mistyped option is named with its path
// ("lora.rnak") and an explicit rank 0 is told from an absent one.
func checkLoRAJSON(training []byte) error {
	var t struct {
		LoRA json.RawMessage `json:"lora"`
	}
	if json.Unmarshal(training, &t) != nil || isNull(t.LoRA) {
		return nil // the strict decode of training reports it
	}
	var l struct {
		LoRASpec
		Rank *float64 `json:"rank"`
	}
	if err := DecodeExact(t.LoRA, &l); err != nil {
		return PrefixField("lora", err)
	}
	if l.Rank != nil && *l.Rank == 0 {
		return codeErr(CodeLoRARankZero, "lora.rank", 0.0, nil)
	}
	return nil
}

// Adapted modules of one transformer block, as a bit set.
type loraModules uint8

const (
	modQ loraModules = 1 << iota
	modK
	modV
	modO
	modGate
	modUp
	modDown
)

var moduleNames = []struct {
	m    loraModules
	name string
}{{modQ, "q"}, {modK, "k"}, {modV, "v"}, {modO, "o"}, {modGate, "gate"}, {modUp, "up"}, {modDown, "down"}}

// names lists the modules in block order.
func (m loraModules) names() []string {
	if m == 0 {
		return nil
	}
	out := make([]string, 0, bits.OnesCount8(uint8(m)))
	for _, n := range moduleNames {
		if m&n.m != 0 {
			out = append(out, n.name)
		}
	}
	return out
}

// parseTargets turns training.lora.targets into a module set, refusing
// modules the architecture does not have.
func parseTargets(s string, a Arch) (loraModules, error) {
	const field = "training.lora.targets"
	switch strings.ToLower(strings.TrimSpace(s)) {
	case TargetsQV:
		return modQ | modV, nil
	case TargetsAttention:
		return modQ | modK | modV | modO, nil
	case TargetsAttentionMLP, "all_linear":
		m := modQ | modK | modV | modO | modUp | modDown
		if a.GLU {
			m |= modGate
		}
		return m, nil
	}
	if len(s) > 100 {
		return 0, codeErr(CodeTooLong, field, nil, Args{{Name: "max", Num: 100}})
	}
	var m loraModules
	for _, part := range strings.Split(s, ",") {
		p := strings.ToLower(strings.TrimSpace(part))
		found := false
		for _, n := range moduleNames {
			if n.name == p {
				m |= n.m
				found = true
			}
		}
		if !found {
			return 0, codeErr(CodeLoRATargets, field, s, Args{{Name: "part", Str: p}})
		}
	}
	if m&modGate != 0 && !a.GLU {
		return 0, codeErr(CodeTargetsNoGate, field, s, Args{{Name: "glu", Str: "model.glu"}})
	}
	return m, nil
}

// AdapterParams is the number of LoRA parameters one block gets from rank-r
// adapters on the modules in m: r·(d_in + d_out) per adapted matrix (A is
// d_in×r, B is r×d_out; Hu et al. 2021, section 4.1). In a mixture of
// experts every expert's MLP matrices get their own adapters.
func (a Arch) adapterParams(m loraModules, r float64) float64 {
	d, ff, q := float64(a.Hidden), float64(a.FFN), a.attnWidth()
	kv := q * float64(a.kvHeads()) / float64(a.Heads)
	e := float64(max(1, a.Experts))
	var p float64
	for _, x := range []struct {
		m          loraModules
		in, out, n float64
	}{{modQ, d, q, 1}, {modK, d, kv, 1}, {modV, d, kv, 1}, {modO, q, d, 1}, {modGate, d, ff, e}, {modUp, d, ff, e}, {modDown, ff, d, e}} {
		if m&x.m != 0 {
			p += x.n * r * (x.in + x.out)
		}
	}
	return p
}

// LoRAParams returns the trainable adapter parameters of rank-r LoRA on
// the named targets ("qv", "attention", "attention_mlp" or a module list)
// over all layers, without embeddings; an error names a module the
// architecture lacks.
func (a Arch) LoRAParams(rank int, targets string) (float64, error) {
	m, err := parseTargets(targets, a)
	if err != nil {
		return 0, err
	}
	return float64(a.Layers) * a.adapterParams(m, float64(rank)), nil
}

// Bytes per parameter of the frozen base in storage.
const (
	// nf4Bytes is 4 bits per weight plus double-quantised constants:
	// 8-bit absmax per 64 weights and one fp32 second-level constant per
	// 256 blocks, 8/64 + 32/(64·256) = 0.127 bits (Dettmers et al. 2023,
	// section 3, "Double Quantization").
	nf4Bytes = (4 + 8.0/64 + 32.0/(64*256)) / 8
	// int8Bytes is LLM.int8()'s one byte per weight; its per-row fp32
	// scales are under 0.1 % of that for the presets' widths.
	int8Bytes = 1.0
	// dequantFLOPsPerWeight is the arithmetic of dequantising one weight for
	// one matmul: a table lookup scaled by its block's constant, itself
	// rescaled by the second-level constant (about 2 FLOPs; elementwise work
	// on the CUDA cores, memory-bound).
	dequantFLOPsPerWeight = 2
)

// method is the resolved fine-tuning method of a request.
type method struct {
	name       string // full, lora or qlora
	rank       int
	modules    loraModules
	trainEmb   bool
	format     string  // nf4 or int8 (qlora)
	storeBytes float64 // bytes per frozen non-embedding weight in storage
	embBytes   float64 // bytes per frozen embedding weight in storage
	useBytes   float64 // device-memory traffic per frozen weight per matmul that uses it
	adapters   float64 // adapter parameters, all layers
	trainable  float64 // adapters, plus embeddings when trained; = params for full
	ckpt       bool    // activation checkpointing (full recomputation per layer)
}

// QLoRAStateBytesPerParam is the device memory per trained parameter of
// the QLoRA recipe: bf16 adapter weights and gradients (2 + 2 bytes) and
// AdamW's two moments in 32 bits (8 bytes), with no fp32 master copy
// (Dettmers et al. 2023, QLoRA, sections 3 and 4: bf16 LoRA adapters and a
// paged 32-bit AdamW, artidoro/qlora's qlora.py with --bf16 and
// paged_adamw_32bit). Plain LoRA keeps DefaultStateBytesPerParam: PEFT
// creates the adapter weights in fp32 (autocast_adapter_dtype), so AdamW
// holds weights, gradients and two moments in 32 bits.
const QLoRAStateBytesPerParam = 12

// QLoRAStateAssumption states QLoRAStateBytesPerParam's source: the text
// of CodeAssumeQLoRAState, whose field is the request field not given.
const QLoRAStateAssumption = "trained parameters at 12 bytes each (bf16 adapters and gradients, AdamW's two moments in 32 bits, paged): the QLoRA recipe (Dettmers et al. 2023, sections 3-4; artidoro/qlora, --bf16 with paged_adamw_32bit) ({field:path} not given)"

// resolveMethod checks training.method, training.lora and
// training.gradient_checkpointing against the resolved shape, hardware and
// precision, filling r.method and its assumptions and warnings.
func (r *resolved) resolveMethod(t TrainingSpec) error {
	m := &r.method
	m.name = strings.ToLower(strings.TrimSpace(t.Method))
	switch m.name {
	case "":
		m.name = MethodFull
	case MethodFull, MethodLoRA, MethodQLoRA:
	default:
		return codeErr(CodeMethod, "training.method", t.Method, nil)
	}
	if t.GradientCheckpointing != nil {
		m.ckpt = *t.GradientCheckpointing
	} else if m.name == MethodQLoRA {
		m.ckpt = true
		r.assume = append(r.assume, Message{Code: CodeAssumeQLoRACheckpointing, Args: Args{{Name: "field", Str: "training.gradient_checkpointing"}}})
	}
	wb := 2.0 // 16-bit weights
	if r.prec == FP32 || r.prec == TF32 {
		wb = 4
	}
	if m.name == MethodFull {
		if t.LoRA != nil {
			return codeErr(CodeLoRAOnlyPEFT, "training.lora", nil, Args{{Name: "method", Str: "training.method"}})
		}
		m.trainable = r.params
		return nil
	}
	l := LoRASpec{}
	if t.LoRA != nil {
		l = *t.LoRA
	}
	if m.name == MethodLoRA && l.BaseFormat != "" {
		return codeErr(CodeBaseFormatOnlyQLoRA, "training.lora.base_format", l.BaseFormat, Args{{Name: "method", Str: "training.method"}})
	}
	if m.name == MethodLoRA && l.ComputeDtype != "" {
		return codeErr(CodeDtypeOnlyQLoRA, "training.lora.compute_dtype", string(l.ComputeDtype), Args{{Name: "method", Str: "training.method"}, {Name: "precision", Str: "training.precision"}})
	}
	rank := l.Rank
	if rank == 0 {
		rank = 8
		if m.name == MethodQLoRA {
			rank = 64
		}
		code := CodeAssumeLoRARank
		if m.name == MethodQLoRA {
			code = CodeAssumeQLoRARank
		}
		r.assume = append(r.assume, Message{Code: code, Args: Args{{Name: "rank", Num: rank}, {Name: "field", Str: "training.lora.rank"}}})
	}
	if err := checkCount("training.lora.rank", rank, 1, r.arch.Hidden); err != nil {
		return codeErr(CodeLoRARank, "training.lora.rank", rank, Args{{Name: "hidden", Num: float64(r.arch.Hidden)}})
	}
	m.rank = int(rank)
	targets := l.Targets
	if targets == "" {
		targets = TargetsQV
		code := CodeAssumeLoRATargets
		if m.name == MethodQLoRA {
			targets, code = TargetsAttentionMLP, CodeAssumeQLoRATargets
		}
		r.assume = append(r.assume, Message{Code: code, Args: Args{{Name: "targets", Str: targets}, {Name: "field", Str: "training.lora.targets"}}})
	}
	var err error
	if m.modules, err = parseTargets(targets, r.arch); err != nil {
		return err
	}
	m.trainEmb = l.TrainEmbeddings
	m.adapters = float64(r.arch.Layers) * r.arch.adapterParams(m.modules, rank)
	m.trainable = m.adapters
	if m.trainEmb {
		m.trainable += r.arch.EmbeddingParams()
	}
	m.storeBytes, m.embBytes, m.useBytes = wb, wb, wb
	if m.name == MethodLoRA {
		return nil
	}

	// QLoRA: bitsandbytes kernels, base format and compute dtype.
	if t.StateBytesPerParam == 0 {
		r.state = QLoRAStateBytesPerParam
		r.assume = append(r.assume, Message{Code: CodeAssumeQLoRAState, Args: Args{{Name: "field", Str: "training.state_bytes_per_param"}}})
	}
	m.format = strings.ToLower(l.BaseFormat)
	switch m.format {
	case "":
		m.format = FormatNF4
		r.assume = append(r.assume, Message{Code: CodeAssumeQLoRAFormat, Args: Args{{Name: "field", Str: "training.lora.base_format"}}})
	case FormatNF4, FormatInt8:
	default:
		return codeErr(CodeBaseFormat, "training.lora.base_format", l.BaseFormat, nil)
	}
	g := r.gpu
	if g.Vendor == "Google" {
		return codeErr(CodeQLoRAUnsupportedGPU, "training.method", MethodQLoRA, Args{{Name: "gpu", Str: g.ID}})
	}
	cd := r.prec
	cdField := "training.precision"
	if l.ComputeDtype != "" {
		cd = Precision(strings.ToLower(string(l.ComputeDtype)))
		cdField = "training.lora.compute_dtype"
	}
	switch cd {
	case FP16, BF16:
	case FP32, TF32:
		r.warn = append(r.warn, Message{Code: CodeQLoRAFP32, Field: cdField, Args: Args{{Name: "dtype", Str: string(cd)}}})
	case FP8:
		return codeErr(CodeQLoRADtypeFP8, cdField, string(cd), nil)
	default:
		return codeErr(CodeQLoRADtype, cdField, string(cd), nil)
	}
	if cd != r.prec {
		peak, err := g.PeakFLOPS(cd)
		if err != nil {
			fe := AsFieldError(err)
			fe.Field = cdField
			return fe
		}
		r.prec, r.peak = cd, peak
		r.assume = append(r.assume, Message{Code: CodeAssumeQLoRADtype, Args: Args{{Name: "dtype", Str: string(cd)}, {Name: "field", Str: "training.lora.compute_dtype"}}})
	}
	cb := 2.0
	if cd == FP32 || cd == TF32 {
		cb = 4
	}
	if g.Vendor == "AMD" {
		r.warn = append(r.warn, Message{Code: CodeQLoRAROCm, Field: "hardware.gpu", Args: Args{{Name: "gpu", Str: g.ID}}})
	}
	if strings.HasPrefix(g.ID, "p100") || strings.HasPrefix(g.ID, "v100") {
		r.warn = append(r.warn, Message{Code: CodeQLoRAOldGPU, Field: "hardware.gpu", Args: Args{{Name: "gpu", Str: g.ID}}})
	}
	m.storeBytes = nf4Bytes
	if m.format == FormatInt8 {
		m.storeBytes = int8Bytes
	}
	// bitsandbytes quantises nn.Linear layers only: embeddings and the LM
	// head stay in 16 bits.
	m.embBytes = 2
	// Each matmul reads the quantised weights, writes them dequantised in
	// the compute dtype and reads them back for the GEMM.
	m.useBytes = m.storeBytes + 2*cb
	return nil
}

// weightUses is how many matmuls use each frozen weight per step: the
// forward pass and the activation-gradient pass, plus the recomputed
// forward pass under checkpointing.
func (m *method) weightUses() float64 {
	if m.ckpt {
		return 3
	}
	return 2
}

// countsPEFT returns the per-token FLOPs and bytes of lora and qlora:
//
//   - the frozen base: forward 2·N and activation-gradient backward 2·N,
//     no weight-gradient GEMMs (Hu et al. 2021, section 4.2), plus the
//     attention scores' 6·L·S·d (they hold no weights);
//   - the LM head likewise 4·d·V, 6·d·V when embeddings are trained;
//   - the adapters 6·P like any trained weight;
//   - with checkpointing, one more forward pass of the blocks: 2·N +
//     2·L·S·d + 2·P (Chen et al. 2016; Korthikanti et al. 2022);
//   - for qlora the dequantisation of every frozen weight for every matmul
//     that uses it, amortised over the step's tokens.
//
// Without checkpointing that is about 4·N per token against full
// fine-tuning's 6·N.
func (r *resolved) countsPEFT() (flopsTok, bytesTok float64) {
	a, m := r.arch, &r.method
	L, d, S := float64(a.Layers), float64(a.Hidden), float64(r.seq)
	N, P := a.NonEmbeddingParams(), m.adapters
	NA := a.ActiveNonEmbeddingParams() // what a token multiplies by (N for a dense model)
	tokStep := float64(r.bat) * S
	uses := m.weightUses()
	flopsTok = 4*NA + 6*L*S*d + 6*P
	if r.head == "lm" {
		flopsTok += 4 * d * float64(a.Vocab)
		if m.trainEmb {
			flopsTok += 2 * d * float64(a.Vocab)
		}
	}
	if m.ckpt {
		flopsTok += 2*NA + 2*L*S*d + 2*P
	}
	if m.name == MethodQLoRA {
		flopsTok += uses * dequantFLOPsPerWeight * N / tokStep
	}
	// Traffic: activations as for full fine-tuning; frozen weights read
	// (or dequantised) once per use; adapters, and embeddings when trained,
	// with the full per-parameter traffic of a trained weight.
	emb := a.EmbeddingParams()
	perStep := N*uses*m.useBytes + m.adapters*r.paramTrafficBytes()
	if m.trainEmb {
		perStep += emb * r.paramTrafficBytes()
	} else {
		perStep += emb * 2 * m.embBytes
	}
	bytesTok = r.actTrafficPerToken() + perStep/tokStep
	return
}

// actTrafficPerToken is the activation traffic per token: written in the
// forward pass and read in the backward pass, 2·L·34·d bytes at 16 bits;
// checkpointing writes the recomputed layer's activations once more.
func (r *resolved) actTrafficPerToken() float64 {
	f := 2.0
	if r.method.ckpt {
		f = 3
	}
	return f * float64(r.arch.Layers) * r.actBytesPerTokenLayer()
}

// stateParts returns the per-GPU bytes of frozen weights and of trained
// state (trainable weights, gradients and optimizer state).
func (r *resolved) stateParts() (frozen, trained float64) {
	shards := float64(r.plan.Tensor)
	if r.plan.DataMode == FSDP {
		shards *= float64(r.plan.Replicas())
	}
	m := &r.method
	if m.name == MethodFull {
		return 0, r.state * r.params / shards
	}
	emb := r.arch.EmbeddingParams()
	frozen = r.arch.NonEmbeddingParams() * m.storeBytes
	trained = m.adapters * r.state
	if m.trainEmb {
		trained += emb * r.state
	} else {
		frozen += emb * m.embBytes
	}
	return frozen / shards, trained / shards
}

// gatherBytesPerParam is the average bytes per parameter an fsdp
// all-gather moves (adapters included, over the base's parameter count):
// the frozen base at its storage format, trained weights at the
// precision's width.
func (r *resolved) gatherBytesPerParam(gradBytes float64) float64 {
	m := &r.method
	if m.name == MethodFull {
		return gradBytes
	}
	emb := r.arch.EmbeddingParams()
	b := r.arch.NonEmbeddingParams()*m.storeBytes + m.adapters*gradBytes
	if m.trainEmb {
		b += emb * gradBytes
	} else {
		b += emb * m.embBytes
	}
	return b / r.params
}

// actMemPerGPU is the activation memory of one GPU: every layer's
// activations without checkpointing; with it, each layer's 16-bit input
// (2·d bytes per token) plus one layer's activations being recomputed.
func (r *resolved) actMemPerGPU() float64 {
	tok := float64(r.bat) * float64(r.seq)
	per := r.actBytesPerTokenLayer()
	if !r.method.ckpt {
		return tok * float64(r.arch.Layers) * per / float64(r.plan.Group())
	}
	in := 2 * float64(r.arch.Hidden)
	if r.prec == FP32 || r.prec == TF32 {
		in *= 2
	}
	return tok * (float64(r.arch.Layers)*in + per) / float64(r.plan.Group())
}

// methodUse reports the method in a response.
func (r *resolved) methodUse(flopsTok float64) MethodUse {
	m := &r.method
	u := MethodUse{Method: m.name, TrainableParams: m.trainable, GradientCheckpointing: m.ckpt}
	if r.stack.optimised {
		u.Stack = StackOptimised
	}
	u.Attention = r.eff.attn
	if u.Attention == "" {
		u.Attention = AttnSDPA
	}
	u.Compile = r.eff.compile
	u.FusedOptimizer = !r.eff.foreach
	u.TrainableShare = m.trainable / r.params
	full := r.fullFLOPsPerToken(false)
	u.FLOPsPerTokenVsFull = flopsTok / full
	if m.name != MethodFull {
		u.Rank = m.rank
		u.Targets = m.modules.names()
		u.TrainEmbeddings = m.trainEmb
		u.AdapterParams = m.adapters
		u.FrozenBytesPerParam = m.storeBytes
	}
	if m.name == MethodQLoRA {
		u.BaseFormat = m.format
		u.ComputeDtype = r.prec
	}
	return u
}

// fullFLOPsPerToken is full fine-tuning's 6·N + 6·L·S·d (+ 6·d·V with an
// LM head), plus a recomputed forward pass 2·N + 2·L·S·d when ckpt.
func (r *resolved) fullFLOPsPerToken(ckpt bool) float64 {
	a := r.arch
	L, d, S := float64(a.Layers), float64(a.Hidden), float64(r.seq)
	NA := a.ActiveNonEmbeddingParams() // a mixture of experts counts the experts a token passes through
	f := 6*NA + 6*L*S*d
	if r.head == "lm" {
		f += 6 * d * float64(a.Vocab)
	}
	if ckpt {
		f += 2*NA + 2*L*S*d
	}
	return f
}

// MethodUse describes the fine-tuning method of an estimate.
type MethodUse struct {
	Method                string    `json:"method"`           // full, lora or qlora
	TrainableParams       float64   `json:"trainable_params"` // parameters with gradients and optimizer state
	TrainableShare        float64   `json:"trainable_share"`  // trainable / total parameters
	AdapterParams         float64   `json:"adapter_params,omitempty"`
	Rank                  int       `json:"rank,omitempty"`
	Targets               []string  `json:"targets,omitempty"` // adapted modules of each block
	TrainEmbeddings       bool      `json:"train_embeddings,omitempty"`
	BaseFormat            string    `json:"base_format,omitempty"`            // qlora: nf4 or int8
	ComputeDtype          Precision `json:"compute_dtype,omitempty"`          // qlora: the matmuls' format
	FrozenBytesPerParam   float64   `json:"frozen_bytes_per_param,omitempty"` // storage of the frozen base
	GradientCheckpointing bool      `json:"gradient_checkpointing"`
	// Stack is the software stack when it is not the reference one
	// ("optimised"); empty = reference (training.stack).
	Stack string `json:"stack,omitempty"`
	// Attention is the attention implementation (training.attention).
	Attention string `json:"attention"`
	// Compile says the model runs under torch.compile (training.compile).
	Compile bool `json:"compile"`
	// FusedOptimizer says AdamW runs fused (training.fused_optimizer).
	FusedOptimizer bool `json:"fused_optimizer"`
	// FLOPsPerTokenVsFull is the method's training FLOPs per token over
	// full fine-tuning's without checkpointing (6·N + 6·L·S·d + …): about
	// 1 for full, 4/6 for lora, 1 for lora with checkpointing.
	FLOPsPerTokenVsFull float64 `json:"flops_per_token_vs_full"`
}

// methodLabel names the method for messages ("lora", "full fine-tuning
// with checkpointing").
func (r *resolved) methodLabel() string {
	s := r.method.name
	if s == MethodFull {
		s = "full fine-tuning"
	}
	if r.method.ckpt {
		s += " with checkpointing"
	}
	return s
}
