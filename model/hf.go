package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
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

// hfObject is a JSON object read key by key, in order, with duplicate keys
// refused: a file's keys keep their exact spelling (encoding/json would fold
// their case).
type hfObject struct {
	file string // request path, for errors
	keys []string
	vals map[string]json.RawMessage
}

func parseHFObject(raw []byte, file string) (*hfObject, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	o := &hfObject{file: file, vals: map[string]json.RawMessage{}}
	tok, err := dec.Token()
	if d, ok := tok.(json.Delim); err != nil || !ok || d != '{' {
		return nil, fieldErr(file, nil, "must be a JSON object (the file's contents)")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fieldErr(file, nil, "is not valid JSON: %v", err)
		}
		k, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fieldErr(file+"."+k, nil, "is not valid JSON: %v", err)
		}
		if _, dup := o.vals[k]; dup {
			return nil, fieldErr(file+"."+k, nil, "appears twice; give each key once")
		}
		o.keys = append(o.keys, k)
		o.vals[k] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, fieldErr(file, nil, "is not valid JSON: %v", err)
	}
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
	if x != math.Trunc(x) || x < float64(lo) || x > float64(hi) {
		return 0, fieldErr(o.file+"."+key, x, "must be a whole number from %d to %d", lo, hi)
	}
	return int(x), nil
}

// num reads a finite number at key.
func (o *hfObject) num(key string) (float64, error) {
	v := bytes.TrimSpace(o.vals[key])
	if len(v) == 0 || (v[0] != '-' && (v[0] < '0' || v[0] > '9')) {
		return 0, fieldErr(o.file+"."+key, nil, "must be a JSON number, got %s", clip(v))
	}
	x, err := strconv.ParseFloat(string(v), 64)
	if err != nil || math.IsInf(x, 0) {
		return 0, fieldErr(o.file+"."+key, nil, "must be a finite number, got %s", clip(v))
	}
	return x, nil
}

// bool reads true or false at key.
func (o *hfObject) bool(key string) (bool, error) {
	var b bool
	if err := json.Unmarshal(o.vals[key], &b); err != nil {
		return false, fieldErr(o.file+"."+key, nil, "must be true or false, got %s", clip(o.vals[key]))
	}
	return b, nil
}

// str reads a string at key.
func (o *hfObject) str(key string) (string, error) {
	var s string
	if err := json.Unmarshal(o.vals[key], &s); err != nil {
		return "", fieldErr(o.file+"."+key, nil, "must be a string, got %s", clip(o.vals[key]))
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
	name  string   // for people: "Llama", "GPT-2"
	types []string // model_type values
	// keys of the shape, each with alternatives in order of preference
	layers, hidden, heads, kv, ffn []string
	glu                            bool // gated MLP (SwiGLU, GeGLU)
	encoder                        bool // a bidirectional encoder (a classifier head by default)
	tied                           bool // tie_word_embeddings when the config leaves it out
	ffnX4                          bool // the FFN is 4·hidden when the config leaves it out (GPT-2 n_inner, Falcon)
	absPos                         bool // learned absolute position embeddings: max positions is a hard limit
	bias                           bool // linear layers carry biases (for the exact parameter count)
	qkvBias                        bool // only q, k and v carry biases (Qwen2)
	ln                             bool // LayerNorm with a bias (else RMSNorm, one vector)
	moe                            string
	// modules maps PEFT target_modules names to the block's matrices.
	modules map[string]loraModules
}

var (
	llamaModules = map[string]loraModules{"q_proj": modQ, "k_proj": modK, "v_proj": modV, "o_proj": modO, "gate_proj": modGate, "up_proj": modUp, "down_proj": modDown}
	std          = struct{ layers, hidden, heads, kv, ffn []string }{
		[]string{"num_hidden_layers"}, []string{"hidden_size"}, []string{"num_attention_heads"}, []string{"num_key_value_heads"}, []string{"intermediate_size"}}
)

// hfFamilies are the config.json families read.
var hfFamilies = []hfFamily{
	{name: "Llama", types: []string{"llama"}, glu: true, modules: llamaModules},
	{name: "Mistral", types: []string{"mistral"}, glu: true, modules: llamaModules},
	{name: "Mixtral", types: []string{"mixtral"}, glu: true, moe: "mixtral",
		modules: map[string]loraModules{"q_proj": modQ, "k_proj": modK, "v_proj": modV, "o_proj": modO, "w1": modGate, "w3": modUp, "w2": modDown}},
	{name: "Qwen2 / Qwen2.5", types: []string{"qwen2"}, glu: true, qkvBias: true, modules: llamaModules},
	{name: "Qwen2 MoE", types: []string{"qwen2_moe"}, glu: true, qkvBias: true, moe: "qwen2_moe", modules: llamaModules},
	{name: "Qwen3", types: []string{"qwen3"}, glu: true, modules: llamaModules},
	{name: "Qwen3 MoE", types: []string{"qwen3_moe"}, glu: true, moe: "qwen3_moe", modules: llamaModules},
	{name: "Gemma", types: []string{"gemma", "gemma2", "gemma3_text"}, glu: true, tied: true, modules: llamaModules},
	{name: "Phi-3 / Phi-4", types: []string{"phi3"}, glu: true,
		modules: map[string]loraModules{"qkv_proj": modQ | modK | modV, "o_proj": modO, "gate_up_proj": modGate | modUp, "down_proj": modDown}},
	{name: "OLMo", types: []string{"olmo", "olmo2"}, glu: true, modules: llamaModules},
	{name: "GPT-2", types: []string{"gpt2"}, layers: []string{"n_layer"}, hidden: []string{"n_embd"}, heads: []string{"n_head"}, kv: []string{}, ffn: []string{"n_inner"},
		tied: true, ffnX4: true, absPos: true, bias: true, ln: true,
		modules: map[string]loraModules{"c_attn": modQ | modK | modV, "c_proj": modO | modDown, "c_fc": modUp}},
	{name: "GPT-NeoX / Pythia", types: []string{"gpt_neox"}, bias: true, ln: true,
		modules: map[string]loraModules{"query_key_value": modQ | modK | modV, "dense": modO, "dense_h_to_4h": modUp, "dense_4h_to_h": modDown}},
	{name: "Falcon", types: []string{"falcon", "RefinedWeb", "RefinedWebModel"}, layers: []string{"num_hidden_layers", "n_layer"}, heads: []string{"num_attention_heads", "n_head"},
		kv: []string{"num_kv_heads", "n_head_kv"}, ffn: []string{"ffn_hidden_size"}, tied: true, ffnX4: true, ln: true,
		modules: map[string]loraModules{"query_key_value": modQ | modK | modV, "dense": modO, "dense_h_to_4h": modUp, "dense_4h_to_h": modDown}},
	{name: "BERT", types: []string{"bert"}, encoder: true, tied: true, absPos: true, bias: true, ln: true, kv: []string{},
		modules: map[string]loraModules{"query": modQ, "key": modK, "value": modV, "dense": modO | modUp | modDown}},
	{name: "RoBERTa / XLM-R", types: []string{"roberta", "xlm-roberta"}, encoder: true, tied: true, absPos: true, bias: true, ln: true, kv: []string{},
		modules: map[string]loraModules{"query": modQ, "key": modK, "value": modV, "dense": modO | modUp | modDown}},
	{name: "DeBERTa-v2 / v3", types: []string{"deberta-v2"}, encoder: true, tied: true, bias: true, ln: true, kv: []string{},
		modules: map[string]loraModules{"query_proj": modQ, "key_proj": modK, "value_proj": modV, "dense": modO | modUp | modDown}},
	{name: "DistilBERT", types: []string{"distilbert"}, layers: []string{"n_layers"}, hidden: []string{"dim"}, heads: []string{"n_heads"}, kv: []string{}, ffn: []string{"hidden_dim"},
		encoder: true, tied: true, absPos: true, bias: true, ln: true,
		modules: map[string]loraModules{"q_lin": modQ, "k_lin": modK, "v_lin": modV, "out_lin": modO, "lin1": modUp, "lin2": modDown}},
}

// hfFamilyList names the families read, for people.
func hfFamilyList() string {
	var out []string
	for _, f := range hfFamilies {
		out = append(out, f.name)
	}
	return strings.Join(out, ", ")
}

// hfTypes lists the model_type values read, for an error.
func hfTypes() string {
	var out []string
	for _, f := range hfFamilies {
		out = append(out, f.types...)
	}
	return strings.Join(out, ", ")
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
	Notes   []string
	modules map[string]loraModules
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
		return nil, fieldErr(file+".model_type", nil, "is required: the config's model family (one of %s)", hfTypes())
	}
	mt, err := o.str("model_type")
	if err != nil {
		return nil, err
	}
	var archs []string
	if o.has("architectures") {
		if err := json.Unmarshal(o.vals["architectures"], &archs); err != nil {
			return nil, fieldErr(file+".architectures", nil, "must be a list of class names, got %s", clip(o.vals["architectures"]))
		}
	}
	if mt == "gemma3" || mt == "mistral3" || mt == "llava" {
		// A multimodal model: its language model is text_config.
		if !o.has("text_config") {
			return nil, fieldErr(file+".text_config", nil, "is required for model_type %q (the language model's config)", mt)
		}
		t, err := parseHFObject(o.vals["text_config"], file+".text_config")
		if err != nil {
			return nil, err
		}
		if !t.has("model_type") {
			t.keys = append(t.keys, "model_type")
			t.vals["model_type"] = json.RawMessage(strconv.Quote(map[string]string{"gemma3": "gemma3_text", "mistral3": "mistral", "llava": "llama"}[mt]))
		}
		m, err := parseHFConfig(t)
		if err != nil {
			return nil, err
		}
		m.Notes = append(m.Notes, fmt.Sprintf("%s is a multimodal model (model_type %s): its language model (text_config) is estimated; the vision encoder is not counted", file, mt))
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
		return nil, fieldErr(file+".model_type", mt, "is not a model family wattscale reads; it reads %s", hfTypes())
	}
	for _, a := range archs {
		if !strings.HasSuffix(a, "LMHeadModel") && !strings.Contains(a, "For") && !strings.HasSuffix(a, "Model") {
			return nil, fieldErr(file+".architectures", a, "is not a known model class of %s (a ...ForCausalLM, ...ForMaskedLM, ...ForSequenceClassification or ...Model class)", fam.name)
		}
	}
	keys := func(alt, def []string) []string {
		if alt != nil {
			return alt
		}
		return def
	}
	m := &HFModel{Type: mt, Family: fam.name, Encoder: fam.encoder, AbsolutePositions: fam.absPos, modules: fam.modules}
	m.Name = mt
	if len(archs) > 0 {
		m.Name = archs[0]
	}
	if o.has("_name_or_path") {
		if s, err := o.str("_name_or_path"); err == nil && s != "" && len(s) <= 100 {
			m.Name = s
		}
	}
	took := func(key, field string) {
		m.Took = append(m.Took, Imported{File: file, Key: key, Value: clip(o.vals[key]), Field: field, Use: UseUsed})
	}
	need := func(field string, ks []string, lo, hi int) (int, error) {
		k := o.first(ks...)
		if k == "" {
			return 0, fieldErr(file+"."+ks[0], nil, "is required for model_type %s (the model's %s)", mt, strings.TrimPrefix(field, "model."))
		}
		v, err := o.int(k, lo, hi)
		if err == nil {
			took(k, field)
		}
		return v, err
	}
	a := &m.Arch
	if a.Layers, err = need("model.layers", keys(fam.layers, std.layers), 1, 1000); err != nil {
		return nil, err
	}
	if a.Hidden, err = need("model.hidden", keys(fam.hidden, std.hidden), 1, 1<<17); err != nil {
		return nil, err
	}
	if a.Heads, err = need("model.heads", keys(fam.heads, std.heads), 1, 4096); err != nil {
		return nil, err
	}
	if a.Vocab, err = need("model.vocab", []string{"vocab_size"}, 1, 1<<22); err != nil {
		return nil, err
	}
	// Key/value heads: grouped-query attention, or Falcon's multi-query
	// (one key/value head unless new_decoder_architecture sets num_kv_heads).
	kvKeys := keys(fam.kv, std.kv)
	if fam.name == "Falcon" {
		nda := false
		if o.has("new_decoder_architecture") {
			if nda, err = o.bool("new_decoder_architecture"); err != nil {
				return nil, err
			}
		}
		if !nda {
			kvKeys = nil
			if o.has("multi_query") {
				mq, err := o.bool("multi_query")
				if err != nil {
					return nil, err
				}
				if mq {
					a.KVHeads = 1
				}
				took("multi_query", "model.kv_heads")
			}
		}
	}
	if k := o.first(kvKeys...); k != "" {
		if a.KVHeads, err = o.int(k, 1, a.Heads); err != nil {
			return nil, err
		}
		took(k, "model.kv_heads")
	}
	if a.KVHeads == a.Heads {
		a.KVHeads = 0
	}
	if o.has("head_dim") {
		if a.HeadDim, err = o.int("head_dim", 1, 1<<14); err != nil {
			return nil, err
		}
		took("head_dim", "model.head_dim")
		if a.HeadDim*a.Heads == a.Hidden {
			a.HeadDim = 0 // the usual width: the shape says it without head_dim
		}
	}
	// The FFN width (one expert's, for a mixture of experts).
	ffnKeys := keys(fam.ffn, std.ffn)
	if fam.moe == "qwen2_moe" || fam.moe == "qwen3_moe" {
		ffnKeys = []string{"moe_intermediate_size"}
	}
	if k := o.first(ffnKeys...); k != "" {
		if a.FFN, err = o.int(k, 1, 1<<20); err != nil {
			return nil, err
		}
		took(k, "model.ffn")
	} else if fam.ffnX4 {
		a.FFN = 4 * a.Hidden
		m.Notes = append(m.Notes, fmt.Sprintf("%s: FFN %d = 4 × hidden, %s's rule when %s is not set", file, a.FFN, fam.name, ffnKeys[0]))
	} else {
		return nil, fieldErr(file+"."+ffnKeys[0], nil, "is required for model_type %s (the feed-forward width)", mt)
	}
	a.GLU = fam.glu
	a.Tied = fam.tied
	if o.has("tie_word_embeddings") {
		if a.Tied, err = o.bool("tie_word_embeddings"); err != nil {
			return nil, err
		}
		took("tie_word_embeddings", "model.tied")
	}
	if err := m.readExperts(o, fam); err != nil {
		return nil, err
	}
	if k := o.first("max_position_embeddings", "n_positions"); k != "" {
		if m.MaxPositions, err = o.int(k, 1, 1<<30); err != nil {
			return nil, err
		}
		took(k, "")
		m.Took[len(m.Took)-1].Note = "checks training.seq_len"
		if mt == "roberta" || mt == "xlm-roberta" {
			m.MaxPositions -= 2 // RoBERTa's positions start after the padding index
		}
	}
	if err := a.Validate("model"); err != nil {
		fe := AsFieldError(err)
		return nil, &FieldError{Field: file, Value: fe.Value, Message: "gives a shape wattscale cannot use: " + fe.Field + " " + fe.Message}
	}
	m.ParamsExact = a.Params() + m.extraParams(o, fam)
	return m, nil
}

// readExperts reads a mixture of experts' counts.
func (m *HFModel) readExperts(o *hfObject, fam *hfFamily) error {
	const file = PathHFConfig
	a := &m.Arch
	var err error
	switch fam.moe {
	case "":
		for _, k := range []string{"num_local_experts", "num_experts", "n_routed_experts"} {
			if o.has(k) {
				if n, _ := o.int(k, 0, MaxExperts); n > 1 {
					return fieldErr(file+"."+k, n, "sets experts, which model_type %s does not have; wattscale reads experts for mixtral, qwen2_moe and qwen3_moe", m.Type)
				}
			}
		}
		return nil
	case "mixtral":
		if a.Experts, err = o.need(m.Type, "num_local_experts", "the experts of each block", 2, MaxExperts); err != nil {
			return err
		}
	default:
		if a.Experts, err = o.need(m.Type, "num_experts", "the experts of each block", 2, MaxExperts); err != nil {
			return err
		}
		if o.has("mlp_only_layers") {
			var l []int
			if json.Unmarshal(o.vals["mlp_only_layers"], &l) != nil || len(l) > 0 {
				return fieldErr(file+".mlp_only_layers", nil, "must be empty: wattscale models every layer as a mixture of experts")
			}
		}
		if o.has("decoder_sparse_step") {
			if s, err := o.int("decoder_sparse_step", 0, 1<<20); err != nil || s > 1 {
				return fieldErr(file+".decoder_sparse_step", nil, "must be 1: wattscale models every layer as a mixture of experts")
			}
		}
	}
	k := "num_experts_per_tok"
	if a.ExpertsPerToken, err = o.need(m.Type, k, "the experts each token is routed to", 1, a.Experts); err != nil {
		return err
	}
	m.Took = append(m.Took, Imported{File: file, Key: map[bool]string{true: "num_local_experts", false: "num_experts"}[fam.moe == "mixtral"], Value: strconv.Itoa(a.Experts), Field: "model.experts", Use: UseUsed},
		Imported{File: file, Key: k, Value: strconv.Itoa(a.ExpertsPerToken), Field: "model.experts_per_token", Use: UseUsed})
	if fam.moe == "qwen2_moe" && o.has("shared_expert_intermediate_size") {
		// A shared expert that every token passes through, as wide as n
		// routed experts: n more experts, always chosen.
		s, err := o.int("shared_expert_intermediate_size", 0, 1<<20)
		if err != nil {
			return err
		}
		if s > 0 {
			if s%a.FFN != 0 {
				return fieldErr(file+".shared_expert_intermediate_size", s, "must be a multiple of moe_intermediate_size (%d): wattscale counts the shared expert as that many always-chosen experts", a.FFN)
			}
			n := s / a.FFN
			a.Experts += n
			a.ExpertsPerToken += n
			m.Took = append(m.Took, Imported{File: file, Key: "shared_expert_intermediate_size", Value: strconv.Itoa(s), Field: "model.experts", Use: UseUsed,
				Note: fmt.Sprintf("the shared expert counts as %d always-chosen experts of width %d", n, a.FFN)})
		}
	}
	return nil
}

// need reads a whole number that model_type mt requires at key.
func (o *hfObject) need(mt, key, what string, lo, hi int) (int, error) {
	if !o.has(key) {
		return 0, fieldErr(o.file+"."+key, nil, "is required for model_type %s (%s)", mt, what)
	}
	return o.int(key, lo, hi)
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
	type cand struct {
		name string
		d    int
	}
	k := strings.ToLower(s)
	cs := make([]cand, 0, len(names))
	for _, x := range names {
		cs = append(cs, cand{x, editDistance(k, strings.ToLower(x))})
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].d < cs[j].d })
	var out []string
	for i := 0; i < n && i < len(cs); i++ {
		out = append(out, cs[i].name)
	}
	return out
}

// noteImports records what the Hugging Face files gave: every key in
// r.imported, and one sentence per file in the assumptions.
func (r *resolved) noteImports(hf *HFModel, h *hfTraining) {
	if hf != nil {
		r.imported = append(r.imported, hf.Took...)
		a := hf.Arch
		shape := fmt.Sprintf("%d layers, hidden %d, %d heads", a.Layers, a.Hidden, a.Heads)
		if a.KVHeads > 0 {
			shape += fmt.Sprintf(" (%d key/value heads)", a.KVHeads)
		}
		if a.HeadDim > 0 {
			shape += fmt.Sprintf(", head_dim %d", a.HeadDim)
		}
		shape += fmt.Sprintf(", FFN %d, vocabulary %d", a.FFN, a.Vocab)
		if a.MoE() {
			shape += fmt.Sprintf(", %d experts (%d per token)", a.Experts, a.ExpertsPerToken)
		}
		shape += map[bool]string{true: ", gated MLP", false: ""}[a.GLU] + map[bool]string{true: ", tied embeddings", false: ", untied embeddings"}[a.Tied]
		r.assume = append(r.assume, fmt.Sprintf("model from %s (%s, model_type %s, read as %s): %s; the config implies %s parameters with biases, norms and position embeddings, the estimate counts %s (the matmul weights and embeddings)",
			PathHFConfig, hf.Name, hf.Type, hf.Family, shape, fmtParams(hf.ParamsExact), fmtParams(a.Params())))
		r.assume = append(r.assume, hf.Notes...)
		if over := importedKeys(hf.Took, UseOverridden); over != "" {
			r.assume = append(r.assume, PathHFConfig+": the request's own fields win over "+over)
		}
	}
	if h == nil {
		return
	}
	r.imported = append(r.imported, h.took...)
	for _, file := range []string{PathHFArgs, PathPEFT} {
		var used, fields []string
		from := map[string][]string{}
		var took []Imported
		for _, t := range h.took {
			if t.File != file {
				continue
			}
			took = append(took, t)
			if t.Use == UseUsed && t.Field != "" {
				if from[t.Field] == nil {
					fields = append(fields, t.Field)
				}
				from[t.Field] = append(from[t.Field], t.Key+" "+t.Value)
			}
		}
		for _, f := range fields {
			used = append(used, f+" from "+strings.Join(from[f], ", "))
		}
		if len(took) == 0 {
			continue
		}
		s := file + ": " + strings.Join(used, ", ")
		if len(used) == 0 {
			s = file + ": no value used"
		}
		if over := importedKeys(took, UseOverridden); over != "" {
			s += "; the request's own fields win over " + over
		}
		if ign := importedKeys(took, UseIgnored); ign != "" {
			s += "; ignored (no bearing on the estimate): " + ign
		}
		r.assume = append(r.assume, s)
	}
	r.assume = append(r.assume, h.notes...)
}

// fmtParams writes a parameter count for people: 8.03 B, 124 M.
func fmtParams(x float64) string {
	if x >= 1e9 {
		return strconv.FormatFloat(x/1e9, 'f', 2, 64) + " B"
	}
	return strconv.FormatFloat(x/1e6, 'f', 0, 64) + " M"
}

// importedKeys lists the keys of took with the given use.
func importedKeys(took []Imported, use string) string {
	var ks []string
	for _, t := range took {
		if t.Use == use {
			ks = append(ks, t.Key)
		}
	}
	return strings.Join(ks, ", ")
}
