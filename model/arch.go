package model

// Arch is a transformer's shape. Zero KVHeads means KVHeads = Heads (no
// grouped-query attention); GLU marks a gated MLP (SwiGLU: three matrices of
// Hidden×FFN instead of two).
type Arch struct {
	Layers  int  `json:"layers"`             // transformer blocks L
	Hidden  int  `json:"hidden"`             // model width d
	Heads   int  `json:"heads"`              // attention heads h
	KVHeads int  `json:"kv_heads,omitempty"` // key/value heads (grouped-query attention); 0 = Heads
	FFN     int  `json:"ffn"`                // feed-forward width ff
	Vocab   int  `json:"vocab"`              // vocabulary size
	GLU     bool `json:"glu,omitempty"`      // gated MLP (three FFN matrices)
	Tied    bool `json:"tied,omitempty"`     // input and output embeddings shared
	// Experts is the number of feed-forward experts of a mixture-of-experts
	// block, each FFN wide (0 = a dense block); ExpertsPerToken how many of
	// them each token passes through (top-k routing).
	Experts         int `json:"experts,omitempty"`
	ExpertsPerToken int `json:"experts_per_token,omitempty"`
	// HeadDim is the width of one attention head when it is not
	// Hidden/Heads (Gemma, Qwen3: the query and output projections are then
	// Hidden × Heads·HeadDim); 0 = Hidden/Heads.
	HeadDim int `json:"head_dim,omitempty"`
}

// Preset is a named architecture with its published parameter count and the
// source of its shape.
type Preset struct {
	Name            string  `json:"name"`
	Family          string  `json:"family"`
	Arch            Arch    `json:"arch"`
	ParamsPublished float64 `json:"params_published"` // total parameters as published
	Source          string  `json:"source"`
	// Hub is the model's Hugging Face hub id, whose config.json gives
	// Arch (the model field accepts it as well as Name).
	Hub string `json:"hub,omitempty"`
}

// DefaultPresets returns a fresh copy of the built-in model presets.
func DefaultPresets() []Preset {
	const hf = "Hugging Face config.json of "
	return []Preset{
		{"bert-base", "BERT", Arch{12, 768, 12, 0, 3072, 30522, false, true, 0, 0, 0}, 110e6, "Devlin et al. 2019, Table 1 (BERT-base); " + hf + "bert-base-uncased", "google-bert/bert-base-uncased"},
		{"bert-large", "BERT", Arch{24, 1024, 16, 0, 4096, 30522, false, true, 0, 0, 0}, 340e6, "Devlin et al. 2019 (BERT-large); " + hf + "bert-large-uncased", "google-bert/bert-large-uncased"},
		{"roberta-base", "RoBERTa", Arch{12, 768, 12, 0, 3072, 50265, false, true, 0, 0, 0}, 125e6, "Liu et al. 2019; " + hf + "roberta-base", "FacebookAI/roberta-base"},
		{"roberta-large", "RoBERTa", Arch{24, 1024, 16, 0, 4096, 50265, false, true, 0, 0, 0}, 355e6, "Liu et al. 2019; " + hf + "roberta-large", "FacebookAI/roberta-large"},
		{"distilbert", "DistilBERT", Arch{6, 768, 12, 0, 3072, 30522, false, true, 0, 0, 0}, 66e6, "Sanh et al. 2019; " + hf + "distilbert-base-uncased", "distilbert/distilbert-base-uncased"},
		{"gpt2", "GPT-2", Arch{12, 768, 12, 0, 3072, 50257, false, true, 0, 0, 0}, 124e6, "Radford et al. 2019; " + hf + "gpt2", "openai-community/gpt2"},
		{"gpt2-medium", "GPT-2", Arch{24, 1024, 16, 0, 4096, 50257, false, true, 0, 0, 0}, 355e6, hf + "gpt2-medium", "openai-community/gpt2-medium"},
		{"gpt2-large", "GPT-2", Arch{36, 1280, 20, 0, 5120, 50257, false, true, 0, 0, 0}, 774e6, hf + "gpt2-large", "openai-community/gpt2-large"},
		{"gpt2-xl", "GPT-2", Arch{48, 1600, 25, 0, 6400, 50257, false, true, 0, 0, 0}, 1558e6, hf + "gpt2-xl", "openai-community/gpt2-xl"},
		{"llama-2-7b", "Llama 2", Arch{32, 4096, 32, 0, 11008, 32000, true, false, 0, 0, 0}, 6.74e9, "Touvron et al. 2023 (Llama 2), Table 1; " + hf + "meta-llama/Llama-2-7b-hf", "meta-llama/Llama-2-7b-hf"},
		{"llama-2-13b", "Llama 2", Arch{40, 5120, 40, 0, 13824, 32000, true, false, 0, 0, 0}, 13.0e9, hf + "meta-llama/Llama-2-13b-hf", "meta-llama/Llama-2-13b-hf"},
		{"llama-2-70b", "Llama 2", Arch{80, 8192, 64, 8, 28672, 32000, true, false, 0, 0, 0}, 69.0e9, hf + "meta-llama/Llama-2-70b-hf", "meta-llama/Llama-2-70b-hf"},
		{"llama-3-8b", "Llama 3", Arch{32, 4096, 32, 8, 14336, 128256, true, false, 0, 0, 0}, 8.03e9, hf + "meta-llama/Meta-Llama-3-8B", "meta-llama/Meta-Llama-3-8B"},
		{"llama-3-70b", "Llama 3", Arch{80, 8192, 64, 8, 28672, 128256, true, false, 0, 0, 0}, 70.6e9, hf + "meta-llama/Meta-Llama-3-70B", "meta-llama/Meta-Llama-3-70B"},
		{"mistral-7b", "Mistral", Arch{32, 4096, 32, 8, 14336, 32000, true, false, 0, 0, 0}, 7.24e9, "Jiang et al. 2023; " + hf + "mistralai/Mistral-7B-v0.1", "mistralai/Mistral-7B-v0.1"},
		{"olmo-2-1b", "OLMo 2", Arch{16, 2048, 16, 0, 8192, 100352, true, false, 0, 0, 0}, 1.48e9, hf + "allenai/OLMo-2-0425-1B", "allenai/OLMo-2-0425-1B"},
		{"olmo-2-7b", "OLMo 2", Arch{32, 4096, 32, 0, 11008, 100352, true, false, 0, 0, 0}, 7.30e9, "OLMo et al. 2024 (2 OLMo 2 Furious), Table 1; " + hf + "allenai/OLMo-2-1124-7B", "allenai/OLMo-2-1124-7B"},
		{"olmo-2-13b", "OLMo 2", Arch{40, 5120, 40, 0, 13824, 100352, true, false, 0, 0, 0}, 13.7e9, hf + "allenai/OLMo-2-1124-13B", "allenai/OLMo-2-1124-13B"},
		{"olmo-2-32b", "OLMo 2", Arch{64, 5120, 40, 8, 27648, 100352, true, false, 0, 0, 0}, 32.2e9, hf + "allenai/OLMo-2-0325-32B", "allenai/OLMo-2-0325-32B"},
		{"qwen2.5-0.5b", "Qwen2.5", Arch{24, 896, 14, 2, 4864, 151936, true, true, 0, 0, 0}, 0.49e9, "Qwen Team 2024 (Qwen2.5 technical report), Table 1; " + hf + "Qwen/Qwen2.5-0.5B", "Qwen/Qwen2.5-0.5B"},
		{"qwen2.5-1.5b", "Qwen2.5", Arch{28, 1536, 12, 2, 8960, 151936, true, true, 0, 0, 0}, 1.54e9, hf + "Qwen/Qwen2.5-1.5B", "Qwen/Qwen2.5-1.5B"},
		{"qwen2.5-3b", "Qwen2.5", Arch{36, 2048, 16, 2, 11008, 151936, true, true, 0, 0, 0}, 3.09e9, hf + "Qwen/Qwen2.5-3B", "Qwen/Qwen2.5-3B"},
		{"qwen2.5-7b", "Qwen2.5", Arch{28, 3584, 28, 4, 18944, 152064, true, false, 0, 0, 0}, 7.61e9, hf + "Qwen/Qwen2.5-7B", "Qwen/Qwen2.5-7B"},
		{"qwen2.5-14b", "Qwen2.5", Arch{48, 5120, 40, 8, 13824, 152064, true, false, 0, 0, 0}, 14.7e9, hf + "Qwen/Qwen2.5-14B", "Qwen/Qwen2.5-14B"},
	}
}

// FindPreset looks a preset up by name, ignoring case, spaces, dots and
// dashes; the error lists close names.
func FindPreset(presets []Preset, name string) (*Preset, error) {
	k := normName(name)
	for i := range presets {
		if normName(presets[i].Name) == k {
			return &presets[i], nil
		}
	}
	var cs []named
	for _, p := range presets {
		cs = append(cs, named{p.Name, editDistance(k, normName(p.Name))})
	}
	near := closest(cs, 4)
	return nil, codeErr(CodePresetUnknown, "model.preset", name, Args{{Name: "near", List: near}})
}

// Validate checks the shape: positive sizes, heads dividing hidden, kv heads
// dividing heads. Field names are under prefix (for example "model").
func (a Arch) Validate(prefix string) error {
	checks := []struct {
		f      string
		v      int
		lo, hi int
	}{
		{"layers", a.Layers, 1, 1000},
		{"hidden", a.Hidden, 1, 1 << 17},
		{"heads", a.Heads, 1, 4096},
		{"ffn", a.FFN, 1, 1 << 20},
		{"vocab", a.Vocab, 1, 1 << 22},
	}
	for _, c := range checks {
		if c.v < c.lo || c.v > c.hi {
			return codeErr(CodeRangeWhole, prefix+"."+c.f, c.v, Args{{Name: "min", Num: float64(c.lo)}, {Name: "max", Num: float64(c.hi)}})
		}
	}
	switch {
	case a.HeadDim < 0 || a.HeadDim > 1<<14:
		return codeErr(CodeHeadDim, prefix+".head_dim", a.HeadDim, Args{{Name: "max", Num: 1 << 14}})
	case a.HeadDim == 0 && a.Hidden%a.Heads != 0:
		return codeErr(CodeHeadsDivideHidden, prefix+".heads", a.Heads, Args{{Name: "hidden", Num: float64(a.Hidden)}})
	}
	if a.KVHeads < 0 || a.KVHeads > a.Heads || (a.KVHeads > 0 && a.Heads%a.KVHeads != 0) {
		return codeErr(CodeKVHeads, prefix+".kv_heads", a.KVHeads, Args{{Name: "heads", Num: float64(a.Heads)}})
	}
	switch {
	case a.Experts == 0 && a.ExpertsPerToken != 0:
		return codeErr(CodeExpertsPerTokenAlone, prefix+".experts_per_token", a.ExpertsPerToken, nil)
	case a.Experts == 0:
	case a.Experts < 2 || a.Experts > MaxExperts:
		return codeErr(CodeExperts, prefix+".experts", a.Experts, Args{{Name: "max", Num: MaxExperts}})
	case a.ExpertsPerToken < 1 || a.ExpertsPerToken > a.Experts:
		return codeErr(CodeExpertsPerToken, prefix+".experts_per_token", a.ExpertsPerToken, Args{{Name: "experts", Num: float64(a.Experts)}})
	}
	return nil
}

// MaxExperts is the largest accepted experts count.
const MaxExperts = 4096

// MoE reports whether the blocks are mixtures of experts.
func (a Arch) MoE() bool { return a.Experts > 0 }

func (a Arch) kvHeads() int {
	if a.KVHeads == 0 {
		return a.Heads
	}
	return a.KVHeads
}

// LayerParams is the parameter count of one transformer block: query and
// output projections d·q each (q = h·head_dim, d without head_dim), key and
// value projections d·(q·kv/h) each, and two
// (three with GLU) d×ff matrices; a mixture-of-experts block has that MLP
// once per expert and a d×experts router. Biases and norms are left out
// (under 0.1 %).
func (a Arch) LayerParams() float64 { return a.layerParams(a.Experts) }

// ActiveLayerParams is the parameters of one block that a token's forward
// pass multiplies by: LayerParams with only experts_per_token experts (all
// of a dense block).
func (a Arch) ActiveLayerParams() float64 { return a.layerParams(a.ExpertsPerToken) }

// attnWidth is the query (and output) projection's width, Heads·HeadDim.
func (a Arch) attnWidth() float64 {
	if a.HeadDim == 0 {
		return float64(a.Hidden)
	}
	return float64(a.Heads) * float64(a.HeadDim)
}

func (a Arch) layerParams(experts int) float64 {
	d := float64(a.Hidden)
	q := a.attnWidth()
	kv := q * float64(a.kvHeads()) / float64(a.Heads)
	attn := 2*d*q + 2*d*kv
	if a.Experts == 0 {
		return attn + a.mlpParams()
	}
	return attn + float64(experts)*a.mlpParams() + d*float64(a.Experts)
}

// mlpParams is one feed-forward block's (one expert's) weights: two d×ff
// matrices, three with GLU.
func (a Arch) mlpParams() float64 {
	m := 2.0
	if a.GLU {
		m = 3
	}
	return m * float64(a.Hidden) * float64(a.FFN)
}

// NonEmbeddingParams is Layers·LayerParams.
func (a Arch) NonEmbeddingParams() float64 { return float64(a.Layers) * a.LayerParams() }

// ActiveNonEmbeddingParams is Layers·ActiveLayerParams: the weights a token
// passes through, what its FLOPs count (NonEmbeddingParams for a dense
// model).
func (a Arch) ActiveNonEmbeddingParams() float64 { return float64(a.Layers) * a.ActiveLayerParams() }

// ExpertShare is the share of a token's non-embedding matmul work that the
// experts do (0 for a dense model): Layers·experts_per_token·(one expert's
// weights) over ActiveNonEmbeddingParams.
func (a Arch) ExpertShare() float64 {
	if a.Experts == 0 {
		return 0
	}
	return float64(a.Layers) * float64(a.ExpertsPerToken) * a.mlpParams() / a.ActiveNonEmbeddingParams()
}

// EmbeddingParams counts token embeddings and, when not tied, the output head.
func (a Arch) EmbeddingParams() float64 {
	e := float64(a.Vocab) * float64(a.Hidden)
	if !a.Tied {
		e *= 2
	}
	return e
}

// Params is the total parameter count (non-embedding plus embeddings).
func (a Arch) Params() float64 { return a.NonEmbeddingParams() + a.EmbeddingParams() }
