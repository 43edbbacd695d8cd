package model

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// Hugging Face files. A request may carry the three files a fine-tuner
// already has instead of (or besides) wattscale's own fields:
// model.hf_config (the model's config.json), training.hf_args (the
// trainer's arguments by their TrainingArguments names) and training.peft
// (PEFT's adapter_config.json, with the BitsAndBytesConfig quantisation
// keys of a QLoRA run). Each value read fills the wattscale field it means
// unless the request gives that field itself (explicit fields win); the
// response's inputs.imported lists every key read, what it filled and
// whether it was used, overridden or ignored.

// hfReader holds the readers of the three files. A Catalog reaches them
// only through it, so that a program that never calls ReadHFFiles (the
// calculator's WebAssembly, where they would cost about 22 KB of brotli)
// does not link them.
type hfReader struct {
	config   func(raw []byte) (*HFModel, error)
	training func(t TrainingSpec, fam *hfFamily, a Arch) (TrainingSpec, *hfTraining, error)
	note     func(r *resolved, hf *HFModel, h *hfTraining)
}

// ReadHFFiles makes the catalog read requests' Hugging Face files
// (model.hf_config, training.hf_args, training.peft); without it such a
// request is refused with an error naming the file. Call it before the
// catalog is shared: the command line and the API do.
func (c *Catalog) ReadHFFiles() {
	c.hf = &hfReader{config: ParseHFConfig, training: applyHFTraining, note: (*resolved).noteImports}
}

// noHF is the error for a Hugging Face file given to a catalog that does
// not read them.
func (c *Catalog) noHF(file string) error {
	return hfErr(CodeHFNotRead, file, nil)
}

// Request paths of the three files.
const (
	PathHFConfig = "model.hf_config"
	PathHFArgs   = "training.hf_args"
	PathPEFT     = "training.peft"
)

// How an imported key was used (Imported.Use).
const (
	UseUsed       = "used"       // it filled Field
	UseOverridden = "overridden" // the request gives Field itself, which wins
	UseIgnored    = "ignored"    // it has no bearing on the estimate
)

// Imported is one key of a Hugging Face file as the estimate used it.
type Imported struct {
	File  string `json:"file"`            // the file's request path: model.hf_config, training.hf_args or training.peft
	Key   string `json:"key"`             // the file's key, e.g. "per_device_train_batch_size"
	Value string `json:"value"`           // the value as read (JSON text)
	Field string `json:"field,omitempty"` // the wattscale field it fills ("" when ignored)
	Use   string `json:"use"`             // used, overridden or ignored
	Note  string `json:"note,omitempty"`  // why, where the use needs a reason
}

// hfObject is a JSON object read key by key, in the keys' sorted order,
// with duplicate keys refused (CheckKeys); a file's keys keep their exact
// spelling.
type hfObject struct {
	file string // request path, for errors
	keys []string
	vals map[string]json.RawMessage
}

func parseHFObject(raw []byte, file string) (*hfObject, error) {
	if err := CheckKeys(raw, reflect.TypeFor[map[string]json.RawMessage]()); err != nil {
		return nil, PrefixField(file, err)
	}
	o := &hfObject{file: file}
	if json.Unmarshal(raw, &o.vals) != nil || o.vals == nil {
		return nil, hfErr(CodeHFObject, file, nil)
	}
	for k := range o.vals {
		o.keys = append(o.keys, k)
	}
	sort.Strings(o.keys)
	return o, nil
}

// has reports whether key is present and not null.
func (o *hfObject) has(key string) bool {
	v, ok := o.vals[key]
	return ok && !isNull(v)
}

// first returns the first of keys present (not null), or "".
func (o *hfObject) first(keys ...string) string {
	for _, k := range keys {
		if o.has(k) {
			return k
		}
	}
	return ""
}

// int reads a whole number from lo to hi at key.
func (o *hfObject) int(key string, lo, hi int) (int, error) {
	x, err := o.num(key)
	if err != nil {
		return 0, err
	}
	if err := (Bounds{Min: float64(lo), Max: float64(hi), Whole: true}).Check(o.file+"."+key, x); err != nil {
		return 0, err
	}
	return int(x), nil
}

// num reads a finite number at key.
func (o *hfObject) num(key string) (float64, error) {
	v := bytes.TrimSpace(o.vals[key])
	if len(v) == 0 || (v[0] != '-' && (v[0] < '0' || v[0] > '9')) {
		return 0, hfErr(CodeHFNumber, o.file+"."+key, nil).withValue(clip(v))
	}
	x, err := strconv.ParseFloat(string(v), 64)
	if err != nil || math.IsInf(x, 0) {
		return 0, hfErr(CodeHFFinite, o.file+"."+key, nil).withValue(clip(v))
	}
	return x, nil
}

// bool reads true or false at key.
func (o *hfObject) bool(key string) (bool, error) {
	var b bool
	if err := json.Unmarshal(o.vals[key], &b); err != nil {
		return false, hfErr(CodeHFBool, o.file+"."+key, nil).withValue(clip(o.vals[key]))
	}
	return b, nil
}

// str reads a string at key.
func (o *hfObject) str(key string) (string, error) {
	var s string
	if err := json.Unmarshal(o.vals[key], &s); err != nil {
		return "", hfErr(CodeHFString, o.file+"."+key, nil).withValue(clip(o.vals[key]))
	}
	return s, nil
}

// clip is a raw JSON value for an error message, at most 40 bytes.
func clip(v json.RawMessage) string {
	var b bytes.Buffer
	s := string(bytes.TrimSpace(v))
	if json.Compact(&b, v) == nil {
		s = b.String()
	}
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return s
}

// hfFamily is one model family's config.json: its model_type values, the
// keys of its shape and the facts its config leaves implicit.
type hfFamily struct {
	name    string   // for people: "Llama", "GPT-2"
	types   []string // model_type values
	glu     bool     // gated MLP (SwiGLU, GeGLU)
	encoder bool     // a bidirectional encoder (a classifier head by default)
	tied    bool     // tie_word_embeddings when the config leaves it out
	ffnX4   bool     // the FFN is 4·hidden when the config leaves it out (GPT-2 n_inner, Falcon)
	absPos  bool     // learned absolute position embeddings: max positions is a hard limit
	bias    bool     // linear layers carry biases (for the exact parameter count)
	qkvBias bool     // only q, k and v carry biases (Qwen2)
	ln      bool     // LayerNorm with a bias (else RMSNorm, one vector)
	moe     string
	// modules maps PEFT target_modules names to the block's matrices:
	// name:modules pairs separated by spaces (moduleOf).
	modules string
	// classes are the architectures class names' stems: a class is
	// STEM + "For…" (LlamaForCausalLM), STEM + "Model" or STEM +
	// "LMHeadModel", compared without case (OLMoForCausalLM).
	classes []string
}

// Module tables of the families' PEFT names.
const (
	llamaModules = "q_proj:q k_proj:k v_proj:v o_proj:o gate_proj:gate up_proj:up down_proj:down"
	neoxModules  = "query_key_value:q,k,v dense:o dense_h_to_4h:up dense_4h_to_h:down"
	bertModules  = "query:q key:k value:v dense:o,up,down"
)

// hfShape are the shape's keys in config.json, each with the names the
// families give it (GPT-2 n_layer, DistilBERT dim, Falcon n_head_kv), its
// largest accepted value and whether every family has it.
var hfShape = [...]struct {
	field, keys string
	hi          int
	need        bool
}{
	{"model.layers", "num_hidden_layers n_layer n_layers", 1000, true},
	{"model.hidden", "hidden_size n_embd dim", 1 << 17, true},
	{"model.heads", "num_attention_heads n_head n_heads", 4096, true},
	{"model.vocab", "vocab_size", 1 << 22, true},
	{"model.kv_heads", "num_key_value_heads num_kv_heads n_head_kv", 4096, false},
	{"model.head_dim", "head_dim", 1 << 14, false},
	{"model.ffn", "intermediate_size ffn_hidden_size n_inner hidden_dim", 1 << 20, false},
	{"model.experts", "num_local_experts num_experts", MaxExperts, false},
	{"model.experts_per_token", "num_experts_per_tok", MaxExperts, false},
}

// took records key of config.json as filling field.
func (m *HFModel) took(o *hfObject, key, field string) {
	m.Took = append(m.Took, Imported{File: o.file, Key: key, Value: clip(o.vals[key]), Field: field, Use: UseUsed})
}

// flag reads a bool at key, false when absent or not a bool.
func (o *hfObject) flag(key string) bool {
	b, err := o.bool(key)
	return err == nil && b
}

// hfFamilies are the config.json families read.
var hfFamilies = []hfFamily{
	{name: "Llama", types: []string{"llama"}, classes: []string{"Llama"}, glu: true, modules: llamaModules},
	{name: "Mistral", types: []string{"mistral"}, classes: []string{"Mistral"}, glu: true, modules: llamaModules},
	{name: "Mixtral", types: []string{"mixtral"}, classes: []string{"Mixtral"}, glu: true, moe: "mixtral",
		modules: "q_proj:q k_proj:k v_proj:v o_proj:o w1:gate w3:up w2:down"},
	{name: "Qwen2 / Qwen2.5", types: []string{"qwen2"}, classes: []string{"Qwen2"}, glu: true, qkvBias: true, modules: llamaModules},
	{name: "Qwen2 MoE", types: []string{"qwen2_moe"}, classes: []string{"Qwen2Moe"}, glu: true, qkvBias: true, moe: "qwen2_moe", modules: llamaModules},
	{name: "Qwen3", types: []string{"qwen3"}, classes: []string{"Qwen3"}, glu: true, modules: llamaModules},
	{name: "Qwen3 MoE", types: []string{"qwen3_moe"}, classes: []string{"Qwen3Moe"}, glu: true, moe: "qwen3_moe", modules: llamaModules},
	{name: "Gemma", types: []string{"gemma", "gemma2", "gemma3_text"}, classes: []string{"Gemma", "Gemma2", "Gemma3"}, glu: true, tied: true, modules: llamaModules},
	{name: "Phi-3 / Phi-4", types: []string{"phi3"}, classes: []string{"Phi3"}, glu: true,
		modules: "qkv_proj:q,k,v o_proj:o gate_up_proj:gate,up down_proj:down"},
	{name: "OLMo", types: []string{"olmo", "olmo2"}, classes: []string{"Olmo", "Olmo2"}, glu: true, modules: llamaModules},
	{name: "GPT-2", types: []string{"gpt2"}, classes: []string{"GPT2"},
		tied: true, ffnX4: true, absPos: true, bias: true, ln: true,
		modules: "c_attn:q,k,v c_proj:o,down c_fc:up"},
	{name: "GPT-NeoX / Pythia", types: []string{"gpt_neox"}, classes: []string{"GPTNeoX"}, bias: true, ln: true,
		modules: neoxModules},
	{name: "Falcon", types: []string{"falcon", "RefinedWeb", "RefinedWebModel"}, classes: []string{"Falcon", "RW"}, tied: true, ffnX4: true, ln: true,
		modules: neoxModules},
	{name: "BERT", types: []string{"bert"}, classes: []string{"Bert"}, encoder: true, tied: true, absPos: true, bias: true, ln: true,
		modules: bertModules},
	{name: "RoBERTa / XLM-R", types: []string{"roberta", "xlm-roberta"}, classes: []string{"Roberta", "XLMRoberta"}, encoder: true, tied: true, absPos: true, bias: true, ln: true,
		modules: bertModules},
	{name: "DeBERTa-v2 / v3", types: []string{"deberta-v2"}, classes: []string{"DebertaV2"}, encoder: true, tied: true, bias: true, ln: true,
		modules: "query_proj:q key_proj:k value_proj:v dense:o,up,down"},
	{name: "DistilBERT", types: []string{"distilbert"}, classes: []string{"DistilBert"},
		encoder: true, tied: true, absPos: true, bias: true, ln: true,
		modules: "q_lin:q k_lin:k v_lin:v out_lin:o lin1:up lin2:down"},
}

// hasClass reports whether the architectures class name a is one of the
// family's (a stem followed by For…, Model or LMHeadModel, without case).
func (f *hfFamily) hasClass(a string) bool {
	l := strings.ToLower(a)
	for _, c := range f.classes {
		rest, ok := strings.CutPrefix(l, strings.ToLower(c))
		if ok && (strings.HasPrefix(rest, "for") || rest == "model" || rest == "lmheadmodel") {
			return true
		}
	}
	return false
}

// hfFamilyNames names the families read (hfFamilies), for people, as a
// constant, for RequestFields (TestFieldDefaultTexts keeps it equal to
// hfFamilies).
const hfFamilyNames = "Llama, Mistral, Mixtral, Qwen2 / Qwen2.5, Qwen2 MoE, Qwen3, Qwen3 MoE, Gemma, Phi-3 / Phi-4, OLMo, GPT-2, GPT-NeoX / Pythia, Falcon, BERT, RoBERTa / XLM-R, DeBERTa-v2 / v3, DistilBERT"

// hfTypes lists the model_type values read, for an error.
func hfTypes() []string {
	var out []string
	for _, f := range hfFamilies {
		out = append(out, f.types...)
	}
	return out
}

// HFModel is what a config.json gives.
type HFModel struct {
	Arch Arch
	// Name is the model's hub id where the config names it
	// (_name_or_path), else its architecture class.
	Name    string
	Type    string // model_type
	Family  string // the family, for people ("Llama")
	Encoder bool   // a bidirectional encoder (BERT class): a classifier head by default
	// MaxPositions is max_position_embeddings (0: the config states none);
	// AbsolutePositions marks learned absolute positions, for which it is a
	// hard limit on the sequence length.
	MaxPositions      int
	AbsolutePositions bool
	// ParamsExact counts every parameter the config implies: Arch.Params
	// plus biases, norms, position embeddings and an encoder's pooler.
	ParamsExact float64
	Took        []Imported
	// Notes are sentences for the response's assumptions.
	Notes  []Message
	family *hfFamily
}

// ParseHFConfig reads a model's config.json (the JSON object raw). An
// unknown model_type or architectures value is an error listing the
// families read; a missing key is an error naming it.
func ParseHFConfig(raw []byte) (*HFModel, error) {
	o, err := parseHFObject(raw, PathHFConfig)
	if err != nil {
		return nil, err
	}
	return parseHFConfig(o)
}

func parseHFConfig(o *hfObject) (*HFModel, error) {
	const file = PathHFConfig
	if !o.has("model_type") {
		return nil, hfErr(CodeHFModelTypeNeeded, file+".model_type", Args{{Name: "types", List: hfTypes()}})
	}
	mt, err := o.str("model_type")
	if err != nil {
		return nil, err
	}
	var archs []string
	if o.has("architectures") {
		if err := json.Unmarshal(o.vals["architectures"], &archs); err != nil {
			return nil, hfErr(CodeHFArchitectures, file+".architectures", nil).withValue(clip(o.vals["architectures"]))
		}
	}
	if o.has("text_config") {
		// A multimodal model (Gemma 3 from 4B, Mistral 3, LLaVA): its
		// language model is text_config, with its own model_type.
		t, err := parseHFObject(o.vals["text_config"], file+".text_config")
		if err != nil {
			return nil, err
		}
		m, err := parseHFConfig(t)
		if err != nil {
			return nil, err
		}
		m.Notes = append(m.Notes, Message{Code: CodeNoteMultimodal, Args: Args{{Name: "file", Str: file}, {Name: "type", Str: mt}}})
		return m, nil
	}
	var fam *hfFamily
	for i := range hfFamilies {
		for _, t := range hfFamilies[i].types {
			if t == mt {
				fam = &hfFamilies[i]
			}
		}
	}
	if fam == nil {
		return nil, codeErr(CodeHFModelType, file+".model_type", mt, Args{{Name: "types", List: hfTypes()}})
	}
	for _, a := range archs {
		if !fam.hasClass(a) {
			var read []string
			for _, c := range fam.classes {
				read = append(read, c+"For…", c+"Model")
			}
			return nil, codeErr(CodeHFClass, file+".architectures", a, Args{{Name: "family", Str: fam.name}, {Name: "type", Str: mt}, {Name: "classes", List: read}})
		}
	}
	m := &HFModel{Type: mt, Family: fam.name, Encoder: fam.encoder, AbsolutePositions: fam.absPos, family: fam}
	m.Name = mt
	if len(archs) > 0 {
		m.Name = archs[0]
	}
	if s, err := o.str("_name_or_path"); err == nil && s != "" && len(s) <= 100 {
		m.Name = s
	}
	a := &m.Arch
	dst := [...]*int{&a.Layers, &a.Hidden, &a.Heads, &a.Vocab, &a.KVHeads, &a.HeadDim, &a.FFN, &a.Experts, &a.ExpertsPerToken}
	for i, row := range hfShape {
		keys := row.keys
		switch {
		case i == 4 && fam.name == "Falcon" && !o.flag("new_decoder_architecture"):
			// Falcon's multi-query attention: one key/value head.
			keys = ""
			if o.flag("multi_query") {
				*dst[i] = 1
				m.took(o, "multi_query", row.field)
			}
		case i == 6 && fam.moe != "" && fam.moe != "mixtral":
			keys = "moe_intermediate_size"
		}
		k := o.first(strings.Fields(keys)...)
		if k == "" {
			if row.need {
				return nil, hfErr(CodeHFKeyNeeded, file+"."+strings.Fields(row.keys)[0], Args{{Name: "type", Str: mt}, {Name: "field", Str: strings.TrimPrefix(row.field, "model.")}})
			}
			continue
		}
		if *dst[i], err = o.int(k, 1, row.hi); err != nil {
			return nil, err
		}
		m.took(o, k, row.field)
	}
	if a.KVHeads == a.Heads {
		a.KVHeads = 0 // no grouped-query attention
	}
	if a.HeadDim*a.Heads == a.Hidden {
		a.HeadDim = 0 // the usual width: the shape says it without head_dim
	}
	if a.FFN == 0 {
		if !fam.ffnX4 {
			return nil, hfErr(CodeHFFFNNeeded, file+".intermediate_size", Args{{Name: "type", Str: mt}})
		}
		a.FFN = 4 * a.Hidden
		m.Notes = append(m.Notes, Message{Code: CodeNoteFFNRule, Args: Args{{Name: "file", Str: file}, {Name: "ffn", Num: float64(a.FFN)}, {Name: "family", Str: fam.name}}})
	}
	a.GLU = fam.glu
	a.Tied = fam.tied
	if o.has("tie_word_embeddings") {
		if a.Tied, err = o.bool("tie_word_embeddings"); err != nil {
			return nil, err
		}
		m.took(o, "tie_word_embeddings", "model.tied")
	}
	// A mixture of experts: every layer's MLP, each token routed to
	// experts_per_token of them; Qwen2-MoE's shared expert, as wide as n
	// routed experts, counts as n more experts that every token passes.
	switch {
	case fam.moe == "" && a.Experts > 1:
		return nil, hfErr(CodeHFNoExperts, file+"."+o.first("num_local_experts", "num_experts"), Args{{Name: "type", Str: mt}})
	case fam.moe == "":
		a.Experts, a.ExpertsPerToken = 0, 0
	case a.Experts < 2 || a.ExpertsPerToken < 1:
		return nil, hfErr(CodeHFExpertsPerTok, file+".num_experts_per_tok", Args{{Name: "type", Str: mt}})
	case clip(o.vals["mlp_only_layers"]) != "[]" && o.has("mlp_only_layers"), o.has("decoder_sparse_step") && clip(o.vals["decoder_sparse_step"]) != "1":
		return nil, hfErr(CodeHFMLPOnlyLayers, file+".mlp_only_layers", nil)
	}
	if s, _ := o.int("shared_expert_intermediate_size", 1, 1<<20); fam.moe == "qwen2_moe" && s > 0 {
		if s%a.FFN != 0 {
			return nil, hfErr(CodeHFSharedExpert, file+".shared_expert_intermediate_size", nil)
		}
		a.Experts += s / a.FFN
		a.ExpertsPerToken += s / a.FFN
		m.took(o, "shared_expert_intermediate_size", "model.experts")
	}
	if k := o.first("max_position_embeddings", "n_positions"); k != "" {
		if m.MaxPositions, err = o.int(k, 1, 1<<30); err != nil {
			return nil, err
		}
		m.took(o, k, "")
		m.Took[len(m.Took)-1].Note = "checks training.seq_len"
		if mt == "roberta" || mt == "xlm-roberta" {
			m.MaxPositions -= 2 // RoBERTa's positions start after the padding index
		}
	}
	if err := a.Validate("model"); err != nil {
		fe := AsFieldError(err)
		return nil, codeErr(CodeHFShape, file, nil, Args{{Name: "field", Str: fe.Field}, {Name: "problem", Msgs: []Message{fe.asMessage()}}}).withValue(fe.Value)
	}
	m.ParamsExact = a.Params() + m.extraParams(o, fam)
	return m, nil
}

// extraParams counts what Arch.Params leaves out: biases, norms, position
// embeddings (and BERT's token types) and an encoder's pooler.
func (m *HFModel) extraParams(o *hfObject, fam *hfFamily) float64 {
	a := m.Arch
	d, L := float64(a.Hidden), float64(a.Layers)
	q := a.attnWidth()
	kv := q * float64(a.kvHeads()) / float64(a.Heads)
	norm := d // RMSNorm: a scale
	if fam.ln {
		norm = 2 * d // LayerNorm: scale and bias
	}
	if m.Type == "olmo" {
		norm = 0 // OLMo's non-parametric LayerNorm
	}
	perLayer := 2 * norm
	bias := fam.bias
	if fam.name == "Falcon" && o.has("bias") {
		bias, _ = o.bool("bias")
	}
	switch {
	case bias:
		mlp := float64(a.FFN) + d
		perLayer += q + 2*kv + d + mlp
	case fam.qkvBias:
		perLayer += q + 2*kv
	}
	if m.Type == "olmo2" || m.Type == "qwen3" || m.Type == "qwen3_moe" || m.Type == "gemma3_text" {
		hd := q / float64(a.Heads)
		if m.Type == "olmo2" {
			perLayer += q + kv // q_norm, k_norm over the whole projection
		} else {
			perLayer += 2 * hd
		}
	}
	if m.Type == "gemma2" || m.Type == "gemma3_text" {
		perLayer += 2 * d // pre- and post-feed-forward norms
	}
	x := L*perLayer + norm // and the final norm
	if m.AbsolutePositions || m.Type == "roberta" || m.Type == "xlm-roberta" {
		x += float64(m.MaxPositions) * d
		if m.Type == "roberta" || m.Type == "xlm-roberta" {
			x += 2 * d
		}
	}
	if m.Encoder {
		x += norm // the embeddings' LayerNorm
		if o.has("type_vocab_size") {
			if n, err := o.int("type_vocab_size", 0, 1<<20); err == nil {
				x += float64(n) * d
			}
		}
		if m.Type == "deberta-v2" {
			// Relative position embeddings: 2·position_buckets rows (or
			// 2·max_relative_positions), and their LayerNorm.
			if n, err := o.int("position_buckets", 1, 1<<20); err == nil {
				x += 2*float64(n)*d + norm
			}
		}
		if m.Type == "bert" || m.Type == "roberta" || m.Type == "xlm-roberta" {
			x += d*d + d // the pooler
		}
	}
	return x
}

// NearestNames returns up to n of names closest to s by edit distance
// (ignoring case), for an error's "close matches".
func NearestNames(s string, names []string, n int) []string {
	k := strings.ToLower(s)
	cs := make([]named, 0, len(names))
	for _, x := range names {
		cs = append(cs, named{x, editDistance(k, strings.ToLower(x))})
	}
	return closest(cs, max(n, 0))
}

// noteImports records what the Hugging Face files gave: every key in
// r.imported, and one sentence per file in the assumptions.
func (r *resolved) noteImports(hf *HFModel, h *hfTraining) {
	var took []Imported
	if hf != nil {
		took = hf.Took
	}
	if h != nil {
		took = append(took[:len(took):len(took)], h.took...)
	}
	r.imported = took
	for _, file := range [...]string{PathHFConfig, PathHFArgs, PathPEFT} {
		used := []Message{}
		var over, ign []string
		n := 0
		for i := range took {
			t := &took[i]
			if t.File != file {
				continue
			}
			n++
			switch {
			case t.Use == UseOverridden:
				over = append(over, t.Key)
			case t.Use == UseIgnored:
				ign = append(ign, t.Key)
			case t.Field != "":
				used = append(used, Message{Code: CodeNoteImportKey, Args: Args{{Name: "key", Str: t.Key}, {Name: "value", Str: t.Value}, {Name: "field", Str: t.Field}}})
			}
		}
		if n == 0 {
			continue
		}
		rest := []Message{}
		if len(over) > 0 {
			rest = append(rest, Message{Code: CodeNoteImportOverridden, Args: Args{{Name: "keys", List: over}}})
		}
		if len(ign) > 0 {
			rest = append(rest, Message{Code: CodeNoteImportIgnored, Args: Args{{Name: "keys", List: ign}}})
		}
		r.assume = append(r.assume, Message{Code: CodeNoteImport, Args: Args{{Name: "file", Str: file}, {Name: "used", Msgs: used}, {Name: "rest", Msgs: rest}}})
	}
	if hf != nil {
		r.assume = append(r.assume, Message{Code: CodeNoteHFModel, Args: Args{{Name: "file", Str: PathHFConfig}, {Name: "name", Str: hf.Name}, {Name: "type", Str: hf.Type},
			{Name: "family", Str: hf.Family}, {Name: "exact", Num: hf.ParamsExact}, {Name: "counted", Num: r.arch.Params()}}})
		r.assume = append(r.assume, hf.Notes...)
	}
}

// fmtParams writes a parameter count for people: 8.03 B, 124 M.
func fmtParams(x float64) string {
	if x >= 1e9 {
		return strconv.FormatFloat(x/1e9, 'f', 2, 64) + " B"
	}
	return strconv.FormatFloat(x/1e6, 'f', 0, 64) + " M"
}

// ImportHF reads req's Hugging Face files into the wattscale fields they
// mean, as an estimate reads them (the request's own fields win), and
// returns the request without the files, every key read (used, overridden
// or ignored) and the notes the estimate would add to its assumptions. The
// Trainer's max_steps becomes training.tokens over the data-parallel ranks
// of req's layout. An estimate of the result equals the estimate of req;
// the calculator's import of pasted files is this (wasm/hfapi).
func ImportHF(req Request) (Request, []Imported, []string, error) {
	var notes []string
	var imported []Imported
	var fam *hfFamily
	a := Arch{}
	if req.Model.HFConfig != "" {
		m := req.Model
		if m.Preset != "" {
			return req, nil, nil, codeErr(CodePresetAndHF, "model", nil, nil)
		}
		hf, err := ParseHFConfig([]byte(m.HFConfig))
		if err != nil {
			return req, nil, nil, err
		}
		fam, a = hf.family, hf.Arch
		for _, f := range []struct {
			path string
			dst  *float64
			v    int
		}{{"model.layers", &m.Layers, a.Layers}, {"model.hidden", &m.Hidden, a.Hidden}, {"model.heads", &m.Heads, a.Heads}, {"model.kv_heads", &m.KVHeads, a.KVHeads},
			{"model.ffn", &m.FFN, a.FFN}, {"model.vocab", &m.Vocab, a.Vocab}, {"model.experts", &m.Experts, a.Experts}, {"model.experts_per_token", &m.ExpertsPerToken, a.ExpertsPerToken},
			{"model.head_dim", &m.HeadDim, a.HeadDim}} {
			if *f.dst != 0 {
				hf.override(f.path)
				continue
			}
			*f.dst = float64(f.v)
		}
		m.GLU = m.GLU || a.GLU
		m.Tied = m.Tied || a.Tied
		if hf.Encoder && m.Head == "" {
			m.Head = "classifier"
		}
		m.HFConfig = ""
		req.Model = m
		imported = append(imported, hf.Took...)
		notes = append(notes, MessageTexts(hf.Notes)...)
	} else if req.Model.Preset != "" {
		// A preset's shape for target_modules' names and the rank's bound.
		for _, p := range DefaultPresets() {
			if k := normName(req.Model.Preset); k == normName(p.Name) || k == normName(p.Hub) {
				a = p.Arch
			}
		}
	}
	if req.Training.HFArgs == "" && req.Training.PEFT == "" {
		return req, imported, notes, nil
	}
	if a.Hidden == 0 {
		a = Arch{Layers: int(req.Model.Layers), Hidden: int(req.Model.Hidden), Heads: max(1, int(req.Model.Heads)), GLU: req.Model.GLU}
	}
	t, h, err := applyHFTraining(req.Training, fam, a)
	if err != nil {
		return req, nil, nil, err
	}
	imported = append(imported, h.took...)
	t.HFArgs, t.PEFT = "", ""
	if h.maxSteps > 0 {
		r := resolved{count: int(req.Hardware.Count), arch: a}
		if err := fieldCount.Check(req.Hardware.Count); err != nil {
			return req, nil, nil, codeErr(CodeCountForMaxSteps, "hardware.count", nil, Args{{Name: "file", Str: PathHFArgs}})
		}
		if err := r.resolveStrategy(req.Strategy); err != nil {
			return req, nil, nil, err
		}
		accum := max(1, t.GradientAccumulation)
		t.Tokens = float64(h.maxSteps) * accum * t.BatchPerGPU * t.SeqLen * float64(r.plan.Data)
		t.DatasetTokens, t.DatasetExamples = 0, 0
	}
	req.Training = t
	return req, imported, notes, nil
}
