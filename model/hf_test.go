package model_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
)

// hfSource is a row of testdata/hf/sources.json: a real config.json, where
// it was found and the parameter count its model card (or report) states.
type hfSource struct {
	File   string  `json:"file"`
	Hub    string  `json:"hub"`
	Preset string  `json:"preset"`
	Repo   string  `json:"repo"`
	Commit string  `json:"commit"`
	Path   string  `json:"path"`
	Params float64 `json:"params"`
	Active float64 `json:"active"`
	Source string  `json:"source"`
}

func hfSources(t *testing.T) []hfSource {
	t.Helper()
	raw, err := os.ReadFile("testdata/hf/sources.json")
	if err != nil {
		t.Fatal(err)
	}
	var ss []hfSource
	if err := json.Unmarshal(raw, &ss); err != nil {
		t.Fatal(err)
	}
	return ss
}

func hfFixture(t *testing.T, file string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata/hf", file))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestHFConfigParams reads real config.json files of public models and
// checks the parameter count they imply against the count their model card
// or report states (sources.json cites each), within 1 %.
func TestHFConfigParams(t *testing.T) {
	ss := hfSources(t)
	if len(ss) < 15 {
		t.Errorf("sources.json lists %d configs, want at least 15", len(ss))
	}
	for _, s := range ss {
		t.Run(s.File, func(t *testing.T) {
			if s.Repo == "" || len(s.Commit) != 40 || s.Source == "" {
				t.Errorf("%s: source incomplete: repo %q, commit %q, source %q", s.File, s.Repo, s.Commit, s.Source)
			}
			m, err := model.ParseHFConfig(hfFixture(t, s.File))
			if err != nil {
				t.Fatalf("ParseHFConfig(%s) = %v", s.File, err)
			}
			if d := m.ParamsExact/s.Params - 1; math.Abs(d) > 0.01 {
				t.Errorf("%s: %.4g parameters from the config, want %.4g (%s): off by %+.2f %%", s.File, m.ParamsExact, s.Params, s.Source, 100*d)
			}
			// The estimate's own count (matmul weights and embeddings)
			// leaves out only biases, norms and position embeddings.
			if d := m.Arch.Params()/s.Params - 1; math.Abs(d) > 0.02 {
				t.Errorf("%s: Arch.Params %.4g, want within 2 %% of %.4g: off by %+.2f %%", s.File, m.Arch.Params(), s.Params, 100*d)
			}
			if s.Active > 0 {
				a := m.Arch
				active := a.ActiveNonEmbeddingParams() + a.EmbeddingParams()
				if d := active/s.Active - 1; math.Abs(d) > 0.02 {
					t.Errorf("%s: %.4g active parameters, want %.4g (%s)", s.File, active, s.Active, s.Source)
				}
			}
		})
	}
}

// TestHFConfigMatchesPresets holds each preset with a fixture equal to the
// shape its config.json gives, and checks that the preset answers to its
// hub id.
func TestHFConfigMatchesPresets(t *testing.T) {
	presets := model.DefaultPresets()
	n := 0
	for _, s := range hfSources(t) {
		if s.Preset == "" {
			continue
		}
		n++
		p, err := model.FindPreset(presets, s.Preset)
		if err != nil {
			t.Fatal(err)
		}
		m, err := model.ParseHFConfig(hfFixture(t, s.File))
		if err != nil {
			t.Fatal(err)
		}
		if m.Arch != p.Arch {
			t.Errorf("preset %s = %+v, its config.json (%s) gives %+v", p.Name, p.Arch, s.File, m.Arch)
		}
	}
	if n < 4 {
		t.Errorf("%d presets checked against a config, want at least 4", n)
	}
	cat := catalog(t)
	for _, p := range presets {
		if p.Hub == "" {
			t.Errorf("preset %s has no hub id", p.Name)
			continue
		}
		req := baseRequest()
		req.Model = model.ModelSpec{Preset: p.Hub}
		req.Hardware = model.HardwareSpec{GPU: "h100-sxm5-80gb", Count: 64}
		req.Strategy = model.Strategy{Name: model.FSDP}
		resp, err := cat.Estimate(req)
		if err != nil {
			t.Errorf("preset by hub id %q: %v", p.Hub, err)
			continue
		}
		if resp.Inputs.Model != p.Name {
			t.Errorf("hub id %q resolved to %q, want %q", p.Hub, resp.Inputs.Model, p.Name)
		}
	}
}

// TestHFConfigErrors checks that a config wattscale cannot read is an error
// naming what is wrong, never a guess.
func TestHFConfigErrors(t *testing.T) {
	llama := string(hfFixture(t, "llama-3.1-8b.json"))
	for _, tc := range []struct {
		name, config, field, says string
	}{
		{"unknown type", strings.Replace(llama, `"llama"`, `"mamba"`, 1), "model.hf_config.model_type", "falcon"},
		{"no model_type", `{"hidden_size": 768, "num_hidden_layers": 12}`, "model.hf_config.model_type", "is required"},
		{"missing layers", strings.Replace(llama, `"num_hidden_layers"`, `"num_layers_x"`, 1), "model.hf_config.num_hidden_layers", "is required"},
		{"missing ffn", strings.Replace(llama, `"intermediate_size"`, `"intermediate_sizes"`, 1), "model.hf_config.intermediate_size", "is required"},
		{"fractional", strings.Replace(llama, `"hidden_size": 4096`, `"hidden_size": 4096.5`, 1), "model.hf_config.hidden_size", "whole number"},
		{"string", strings.Replace(llama, `"hidden_size": 4096`, `"hidden_size": "4096"`, 1), "model.hf_config.hidden_size", "JSON number"},
		{"duplicate", strings.Replace(llama, `"hidden_size": 4096`, `"hidden_size": 4096, "hidden_size": 2048`, 1), "model.hf_config.hidden_size", "twice"},
		{"not an object", `[1, 2]`, "model.hf_config", "JSON object"},
		{"another family's class", strings.Replace(llama, `"LlamaForCausalLM"`, `"MambaForCausalLM"`, 1), "model.hf_config.architectures", "the classes read for it are LlamaFor…, LlamaModel"},
		{"moe class on a dense type", strings.Replace(llama, `"LlamaForCausalLM"`, `"LlamaMoeForCausalLM"`, 1), "model.hf_config.architectures", "not a model class of Llama"},
		{"experts on llama", strings.Replace(llama, `"hidden_size": 4096`, `"hidden_size": 4096, "num_local_experts": 8`, 1), "model.hf_config.num_local_experts", "does not have"},
		{"mixtral without top-k", strings.Replace(strings.Replace(strings.Replace(llama, `"LlamaForCausalLM"`, `"MixtralForCausalLM"`, 1), `"llama"`, `"mixtral"`, 1), `"hidden_size": 4096`, `"hidden_size": 4096, "num_local_experts": 8`, 1), "model.hf_config.num_experts_per_tok", "is required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := model.ParseHFConfig([]byte(tc.config))
			fe := model.AsFieldError(err)
			if fe == nil {
				t.Fatalf("ParseHFConfig = %v, want a *FieldError on %s", err, tc.field)
			}
			if fe.Field != tc.field || !strings.Contains(fe.Error(), tc.says) {
				t.Errorf("ParseHFConfig error = %q on %s, want field %s saying %q", fe.Error(), fe.Field, tc.field, tc.says)
			}
		})
	}
}

// hfRequest is a Llama-3.1-8B QLoRA run described by the three files.
func hfRequest(t *testing.T, args, peft string) model.Request {
	req := model.Request{
		Model:    model.ModelSpec{HFConfig: model.RawObject(hfFixture(t, "llama-3.1-8b.json"))},
		Training: model.TrainingSpec{DatasetTokens: 5e7, HFArgs: model.RawObject(args), PEFT: model.RawObject(peft)},
		Hardware: model.HardwareSpec{GPU: "a100-sxm4-80gb", Count: 1},
		Strategy: model.Strategy{Name: model.Single},
	}
	return req
}

const (
	hfArgs = `{"output_dir": "out", "per_device_train_batch_size": 4, "gradient_accumulation_steps": 4, "num_train_epochs": 2, "learning_rate": 2e-4,
		"bf16": true, "fp16": false, "gradient_checkpointing": true, "optim": "paged_adamw_32bit", "max_seq_length": 2048, "logging_steps": 10, "report_to": "none"}`
	hfPEFT = `{"peft_type": "LORA", "r": 16, "lora_alpha": 32, "lora_dropout": 0.05, "target_modules": ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
		"task_type": "CAUSAL_LM", "bias": "none", "modules_to_save": null,
		"quantization_config": {"load_in_4bit": true, "bnb_4bit_quant_type": "nf4", "bnb_4bit_use_double_quant": true, "bnb_4bit_compute_dtype": "bfloat16"}}`
)

// TestHFFilesEqualExplicitFields checks that the three files give the same
// estimate as the wattscale fields they mean, and that inputs.imported
// says what was taken from which file.
func TestHFFilesEqualExplicitFields(t *testing.T) {
	cat := catalog(t)
	got, err := cat.Estimate(hfRequest(t, hfArgs, hfPEFT))
	if err != nil {
		t.Fatal(err)
	}
	ckpt := true
	want, err := cat.Estimate(model.Request{
		Model: model.ModelSpec{Preset: "llama-3-8b"},
		Training: model.TrainingSpec{DatasetTokens: 5e7, Epochs: 2, SeqLen: 2048, BatchPerGPU: 4, GradientAccumulation: 4, Precision: model.BF16, StateBytesPerParam: 16,
			Method: model.MethodQLoRA, GradientCheckpointing: &ckpt, LoRA: &model.LoRASpec{Rank: 16, Targets: "q,k,v,o,gate,up,down", BaseFormat: model.FormatNF4, ComputeDtype: model.BF16}},
		Hardware: model.HardwareSpec{GPU: "a100-sxm4-80gb", Count: 1},
		Strategy: model.Strategy{Name: model.Single},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got.EnergyKWh != want.EnergyKWh || got.TimeS != want.TimeS || got.Memory != want.Memory {
		t.Errorf("from the files: %.6g kWh, %.6g s; from the fields: %.6g kWh, %.6g s", got.EnergyKWh, got.TimeS, want.EnergyKWh, want.TimeS)
	}
	use := map[string]string{}
	for _, im := range got.Inputs.Imported {
		if _, seen := use[im.File+" "+im.Key]; !seen {
			use[im.File+" "+im.Key] = im.Use + " " + im.Field
		}
	}
	for k, v := range map[string]string{
		"model.hf_config num_hidden_layers":            "used model.layers",
		"model.hf_config num_key_value_heads":          "used model.kv_heads",
		"training.hf_args per_device_train_batch_size": "used training.batch_per_gpu",
		"training.hf_args optim":                       "used training.state_bytes_per_param",
		"training.hf_args learning_rate":               "ignored ",
		"training.hf_args num_train_epochs":            "used training.epochs",
		"training.peft r":                              "used training.lora.rank",
		"training.peft load_in_4bit":                   "used training.method",
		"training.peft bnb_4bit_compute_dtype":         "used training.lora.compute_dtype",
		"training.peft lora_alpha":                     "ignored ",
		"training.hf_args gradient_checkpointing":      "used training.gradient_checkpointing",
		"training.peft target_modules":                 "used training.lora.targets",
		"training.hf_args max_seq_length":              "used training.seq_len",
		"training.hf_args bf16":                        "used training.precision",
		"training.hf_args gradient_accumulation_steps": "used training.gradient_accumulation",
		"model.hf_config max_position_embeddings":      "used ",
		"model.hf_config tie_word_embeddings":          "used model.tied",
		"training.peft task_type":                      "ignored ",
		"model.hf_config intermediate_size":            "used model.ffn",
		"model.hf_config vocab_size":                   "used model.vocab",
		"training.hf_args report_to":                   "ignored ",
		"training.peft quantization_config":            "",
		"training.peft bnb_4bit_quant_type":            "used training.lora.base_format",
		"training.peft bnb_4bit_use_double_quant":      "used training.lora.base_format",
		"training.hf_args fp16":                        "used training.precision",
		"training.hf_args output_dir":                  "ignored ",
		"training.hf_args logging_steps":               "ignored ",
		"training.peft bias":                           "ignored ",
		"training.peft lora_dropout":                   "ignored ",
		"model.hf_config num_attention_heads":          "used model.heads",
		"model.hf_config hidden_size":                  "used model.hidden",
	} {
		if use[k] != v {
			t.Errorf("inputs.imported %s = %q, want %q", k, use[k], v)
		}
	}
	var said bool
	for _, a := range got.Assumptions {
		if strings.HasPrefix(a, "training.hf_args: ") && strings.Contains(a, "ignored (no bearing on the estimate): learning_rate, logging_steps, output_dir, report_to") {
			said = true
		}
	}
	if !said {
		t.Errorf("assumptions do not list the ignored trainer arguments: %q", got.Assumptions)
	}
}

// TestHFExplicitFieldsWin checks that a wattscale field beside a file's
// value wins, and that the response says so.
func TestHFExplicitFieldsWin(t *testing.T) {
	cat := catalog(t)
	req := hfRequest(t, hfArgs, hfPEFT)
	req.Model.Layers = 16
	req.Training.BatchPerGPU = 2
	req.Training.LoRA = &model.LoRASpec{Rank: 8}
	resp, err := cat.Estimate(req)
	if err != nil {
		t.Fatal(err)
	}
	if in := resp.Inputs; in.Arch.Layers != 16 || in.BatchPerGPU != 2 || resp.Training.Rank != 8 {
		t.Errorf("explicit fields lost: layers %d, batch %d, rank %d; want 16, 2, 8", in.Arch.Layers, in.BatchPerGPU, resp.Training.Rank)
	}
	for _, im := range resp.Inputs.Imported {
		switch im.Key {
		case "num_hidden_layers", "per_device_train_batch_size", "r":
			if im.Use != model.UseOverridden {
				t.Errorf("imported %s: use %q, want overridden", im.Key, im.Use)
			}
		}
	}
}

// TestHFArgsErrors checks the trainer arguments' and adapter config's
// errors: each names the key and says what is accepted.
func TestHFArgsErrors(t *testing.T) {
	cat := catalog(t)
	for _, tc := range []struct {
		name, args, peft, field, says string
	}{
		{"misspelt", `{"per_device_train_bach_size": 4}`, "", "training.hf_args.per_device_train_bach_size", "close matches: per_device_train_batch_size"},
		{"unknown optim", `{"optim": "adamw_tourch", "per_device_train_batch_size": 4, "max_seq_length": 512, "num_train_epochs": 1}`, "", "training.hf_args.optim", "adamw_torch"},
		{"bf16 and fp16", `{"bf16": true, "fp16": true, "per_device_train_batch_size": 4, "max_seq_length": 512, "num_train_epochs": 1}`, "", "training.hf_args.fp16", "cannot be true with bf16"},
		{"batch zero", `{"per_device_train_batch_size": 0}`, "", "training.hf_args.per_device_train_batch_size", "whole number from 1"},
		{"lengths differ", `{"max_seq_length": 512, "max_length": 1024}`, "", "training.hf_args.max_length", "differs from max_seq_length"},
		{"prefix tuning", `{"per_device_train_batch_size": 4, "max_seq_length": 512, "num_train_epochs": 1}`, `{"peft_type": "PREFIX_TUNING"}`, "training.peft.peft_type", "must be LORA"},
		{"unknown module", `{"per_device_train_batch_size": 4, "max_seq_length": 512, "num_train_epochs": 1}`, `{"r": 8, "target_modules": ["q_proj", "c_attn"]}`, "training.peft.target_modules", "q_proj"},
		{"regex", `{"per_device_train_batch_size": 4, "max_seq_length": 512, "num_train_epochs": 1}`, `{"r": 8, "target_modules": ".*proj"}`, "training.peft.target_modules", "regular expression"},
		{"misspelt peft", `{"per_device_train_batch_size": 4, "max_seq_length": 512, "num_train_epochs": 1}`, `{"lora_alpah": 16}`, "training.peft.lora_alpah", "lora_alpha"},
		{"epochs without dataset", `{"per_device_train_batch_size": 4, "max_seq_length": 512, "num_train_epochs": 1}`, "", "training.dataset_tokens", "num_train_epochs"},
		{"seq over positions", `{"per_device_train_batch_size": 4, "max_seq_length": 512, "max_steps": 10}`, "", "training.seq_len", "positions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := hfRequest(t, tc.args, tc.peft)
			if tc.name == "epochs without dataset" {
				req.Training.DatasetTokens = 0
			}
			if tc.name == "seq over positions" {
				req.Model.HFConfig = model.RawObject(hfFixture(t, "gpt2.json"))
				req.Training.SeqLen = 2048
			}
			_, err := cat.Estimate(req)
			fe := model.AsFieldError(err)
			if fe == nil || fe.Field != tc.field || !strings.Contains(fe.Error(), tc.says) {
				t.Errorf("Estimate = %v, want an error on %s saying %q", err, tc.field, tc.says)
			}
		})
	}
}

// TestHFMaxSteps checks that max_steps sets the tokens from the layout:
// optimizer steps × accumulation × batch × seq_len × data-parallel ranks.
func TestHFMaxSteps(t *testing.T) {
	cat := catalog(t)
	req := hfRequest(t, `{"per_device_train_batch_size": 2, "gradient_accumulation_steps": 8, "max_steps": 500, "num_train_epochs": 3, "max_seq_length": 1024, "bf16": true}`, hfPEFT)
	req.Training.DatasetTokens = 0
	req.Hardware.Count = 4
	req.Strategy = model.Strategy{Name: model.DDP}
	resp, err := cat.Estimate(req)
	if err != nil {
		t.Fatal(err)
	}
	if want := 500.0 * 8 * 2 * 1024 * 4; resp.Inputs.Tokens != want {
		t.Errorf("tokens from max_steps = %g, want %g", resp.Inputs.Tokens, want)
	}
	for _, im := range resp.Inputs.Imported {
		if im.Key == "num_train_epochs" && (im.Use != model.UseOverridden || !strings.Contains(im.Note, "max_steps")) {
			t.Errorf("num_train_epochs beside max_steps: %+v, want overridden by max_steps", im)
		}
	}
	// tf32 off alone sets no precision: the request's (or the GPU's
	// default) stands, and the key is listed as ignored.
	req = hfRequest(t, `{"per_device_train_batch_size": 2, "max_steps": 10, "max_seq_length": 1024, "tf32": false}`, `{"r": 8, "target_modules": "all-linear"}`)
	req.Training.DatasetTokens = 0
	resp, err = cat.Estimate(req)
	if err != nil {
		t.Fatal(err)
	}
	for _, im := range resp.Inputs.Imported {
		if im.Key == "tf32" && im.Use != model.UseIgnored {
			t.Errorf("tf32 false alone: %+v, want ignored", im)
		}
	}
	if resp.Inputs.Precision != model.BF16 {
		t.Errorf("precision %s, want the A100's default bf16", resp.Inputs.Precision)
	}
}

// TestHFEncoderHead checks that an encoder's config trains a classifier
// head by default, as the encoder presets do, and reads DistilBERT-style
// LoRA module names only for the family that has them.
func TestHFEncoderHead(t *testing.T) {
	cat := catalog(t)
	req := model.Request{
		Model:    model.ModelSpec{HFConfig: model.RawObject(hfFixture(t, "bert-base-uncased.json"))},
		Training: model.TrainingSpec{Tokens: 2e8, SeqLen: 512, BatchPerGPU: 32, PEFT: `{"r": 8, "target_modules": ["query", "value"]}`},
		Hardware: model.HardwareSpec{GPU: "a100-sxm4-80gb", Count: 1},
		Strategy: model.Strategy{Name: model.Single},
	}
	resp, err := cat.Estimate(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Inputs.Head != "classifier" || resp.Training.Method != model.MethodLoRA || strings.Join(resp.Training.Targets, ",") != "q,v" {
		t.Errorf("BERT config with a LoRA adapter: head %q, method %q, targets %v; want classifier, lora, [q v]", resp.Inputs.Head, resp.Training.Method, resp.Training.Targets)
	}
}

// FuzzParseHFConfig checks that no config.json makes the reader panic or
// give a shape that fails validation.
func FuzzParseHFConfig(f *testing.F) {
	for _, s := range []string{"llama-3.1-8b.json", "gpt2.json", "qwen3-30b-a3b.json", "deberta-v3-base.json", "gemma-2-9b-it.json", "phi-3-medium-4k-instruct.json"} {
		raw, err := os.ReadFile(filepath.Join("testdata/hf", s))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Add([]byte(`{"model_type": "falcon", "hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 2, "vocab_size": 100, "multi_query": true}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		m, err := model.ParseHFConfig(raw)
		if err != nil {
			if model.AsFieldError(err) == nil {
				t.Fatalf("ParseHFConfig error %v is not a *FieldError", err)
			}
			return
		}
		if err := m.Arch.Validate("model"); err != nil {
			t.Fatalf("ParseHFConfig gave an invalid shape %+v: %v", m.Arch, err)
		}
		if math.IsNaN(m.ParamsExact) || m.ParamsExact <= 0 {
			t.Fatalf("ParamsExact = %v", m.ParamsExact)
		}
	})
}

// TestHFNotRead checks that a catalog that does not read Hugging Face files
// (the calculator's) refuses a request carrying one, naming the file.
func TestHFNotRead(t *testing.T) {
	cat, err := content.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		req   model.Request
		field string
	}{
		{hfRequest(t, "", ""), "model.hf_config"},
		{func() model.Request { r := baseRequest(); r.Training.PEFT = `{"r": 8}`; return r }(), "training.peft"},
	} {
		_, err := cat.Estimate(tc.req)
		if fe := model.AsFieldError(err); fe == nil || fe.Field != tc.field || !strings.Contains(fe.Message, "not read by this program") {
			t.Errorf("Estimate without ReadHFFiles = %v, want an error on %s", err, tc.field)
		}
	}
}

// TestHFFamiliesFromPublishedShapes reads configs of the families the real
// fixtures do not cover, written with each family's config.json keys from
// the shapes their papers publish (not files from a repository), and
// checks the parameter count against the paper's.
func TestHFFamiliesFromPublishedShapes(t *testing.T) {
	for _, tc := range []struct {
		name, config   string
		params, active float64
		source         string
	}{
		{"mixtral-8x7b", `{"model_type": "mixtral", "architectures": ["MixtralForCausalLM"], "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32,
			"num_key_value_heads": 8, "num_local_experts": 8, "num_experts_per_tok": 2, "vocab_size": 32000, "max_position_embeddings": 32768, "tie_word_embeddings": false}`,
			46.7e9, 12.9e9, "Jiang et al. 2024 (Mixtral of Experts, arXiv:2401.04088): 47B parameters, 13B active; 46.7B on its Hugging Face page"},
		{"pythia-160m", `{"model_type": "gpt_neox", "architectures": ["GPTNeoXForCausalLM"], "hidden_size": 768, "intermediate_size": 3072, "num_hidden_layers": 12, "num_attention_heads": 12,
			"vocab_size": 50304, "max_position_embeddings": 2048, "tie_word_embeddings": false, "rotary_pct": 0.25}`,
			162322944, 0, "Biderman et al. 2023 (Pythia, arXiv:2304.01373), Table 1: 162,322,944 parameters"},
		{"distilbert-base", `{"model_type": "distilbert", "architectures": ["DistilBertForMaskedLM"], "dim": 768, "hidden_dim": 3072, "n_layers": 6, "n_heads": 12, "vocab_size": 30522,
			"max_position_embeddings": 512, "sinusoidal_pos_embds": false, "tie_weights_": true}`,
			66e6, 0, "Sanh et al. 2019 (DistilBERT, arXiv:1910.01108): 66M parameters"},
		{"roberta-base", `{"model_type": "roberta", "architectures": ["RobertaForMaskedLM"], "hidden_size": 768, "intermediate_size": 3072, "num_hidden_layers": 12, "num_attention_heads": 12,
			"vocab_size": 50265, "max_position_embeddings": 514, "type_vocab_size": 1}`,
			125e6, 0, "Liu et al. 2019 (RoBERTa, arXiv:1907.11692): RoBERTa-base, 125M parameters"},
		{"gemma-2b", `{"model_type": "gemma", "architectures": ["GemmaForCausalLM"], "hidden_size": 2048, "intermediate_size": 16384, "num_hidden_layers": 18, "num_attention_heads": 8,
			"num_key_value_heads": 1, "head_dim": 256, "vocab_size": 256000, "max_position_embeddings": 8192}`,
			2.506e9, 0, "Gemma Team 2024 (Gemma, arXiv:2403.08295), Table 2: 2B model, 524,550,144 embedding and 1,981,884,416 non-embedding parameters"},
		{"gemma-3-1b", `{"model_type": "gemma3_text", "architectures": ["Gemma3ForCausalLM"], "hidden_size": 1152, "intermediate_size": 6912, "num_hidden_layers": 26, "num_attention_heads": 4,
			"num_key_value_heads": 1, "head_dim": 256, "vocab_size": 262144, "max_position_embeddings": 32768}`,
			1.0e9, 0, "Gemma Team 2025 (Gemma 3 technical report, arXiv:2503.19786), Table 1: 1B model, 302M embedding and 698M non-embedding parameters"},
		{"olmo-2-7b", `{"model_type": "olmo2", "architectures": ["Olmo2ForCausalLM"], "hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32, "num_attention_heads": 32,
			"num_key_value_heads": 32, "vocab_size": 100352, "max_position_embeddings": 4096, "tie_word_embeddings": false}`,
			7.30e9, 0, "OLMo et al. 2024 (2 OLMo 2 Furious, arXiv:2501.00656), Table 1: OLMo 2 7B, 7.30B parameters"},
		{"qwen1.5-moe-a2.7b", `{"model_type": "qwen2_moe", "architectures": ["Qwen2MoeForCausalLM"], "hidden_size": 2048, "intermediate_size": 5632, "moe_intermediate_size": 1408,
			"shared_expert_intermediate_size": 5632, "num_experts": 60, "num_experts_per_tok": 4, "decoder_sparse_step": 1, "mlp_only_layers": [], "num_hidden_layers": 24,
			"num_attention_heads": 16, "num_key_value_heads": 16, "vocab_size": 151936, "max_position_embeddings": 8192, "tie_word_embeddings": false}`,
			14.3e9, 2.7e9, "Qwen Team 2024 (Qwen1.5-MoE-A2.7B, qwenlm.github.io/blog/qwen-moe): 14.3B parameters in total, 2.7B activated"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := model.ParseHFConfig([]byte(tc.config))
			if err != nil {
				t.Fatal(err)
			}
			if d := m.ParamsExact/tc.params - 1; math.Abs(d) > 0.01 {
				t.Errorf("%s: %.5g parameters, want %.5g (%s): off by %+.2f %%", tc.name, m.ParamsExact, tc.params, tc.source, 100*d)
			}
			if tc.active > 0 {
				a := m.Arch
				if d := (a.ActiveNonEmbeddingParams()+a.EmbeddingParams())/tc.active - 1; math.Abs(d) > 0.01 {
					t.Errorf("%s: active parameters off by %+.2f %% from %.4g", tc.name, 100*d, tc.active)
				}
			}
		})
	}
	// Falcon's multi-query attention: one key/value head, the FFN 4 × hidden.
	m, err := model.ParseHFConfig([]byte(`{"model_type": "falcon", "hidden_size": 4544, "num_hidden_layers": 32, "num_attention_heads": 71, "multi_query": true,
		"new_decoder_architecture": false, "vocab_size": 65024, "parallel_attn": true, "bias": false}`))
	if err != nil {
		t.Fatal(err)
	}
	if a := m.Arch; a.KVHeads != 1 || a.FFN != 4*4544 || !a.Tied {
		t.Errorf("Falcon-7B shape: kv %d, ffn %d, tied %v; want 1, 18176, true", a.KVHeads, a.FFN, a.Tied)
	}
	// XLM-R reads as RoBERTa: an encoder whose positions start after the
	// padding index (514 rows, 512 positions).
	m, err = model.ParseHFConfig([]byte(`{"model_type": "xlm-roberta", "architectures": ["XLMRobertaForMaskedLM"], "hidden_size": 768, "intermediate_size": 3072,
		"num_hidden_layers": 12, "num_attention_heads": 12, "vocab_size": 250002, "max_position_embeddings": 514, "type_vocab_size": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	if a := m.Arch; !m.Encoder || m.MaxPositions != 512 || a.Vocab != 250002 || a.Layers != 12 || a.GLU {
		t.Errorf("XLM-R base: encoder %v, max positions %d, %+v; want an encoder of 512 positions, vocabulary 250,002, 12 layers, no gate", m.Encoder, m.MaxPositions, a)
	}
}

// TestImportHFEqualsEstimate checks that ImportHF, the calculator's
// import of pasted files, gives a request without files that estimates as
// the request with them, max_steps included.
func TestImportHFEqualsEstimate(t *testing.T) {
	cat := catalog(t)
	for _, args := range []string{hfArgs, `{"per_device_train_batch_size": 2, "gradient_accumulation_steps": 8, "max_steps": 300, "max_seq_length": 1024, "bf16": true}`} {
		req := hfRequest(t, args, hfPEFT)
		req.Hardware.Count, req.Strategy = 4, model.Strategy{Name: model.DDP}
		want, err := cat.Estimate(req)
		if err != nil {
			t.Fatal(err)
		}
		plain, took, _, err := model.ImportHF(req)
		if err != nil {
			t.Fatal(err)
		}
		if plain.Model.HFConfig != "" || plain.Training.HFArgs != "" || plain.Training.PEFT != "" {
			t.Errorf("ImportHF left a file in the request: %+v", plain)
		}
		got, err := cat.Estimate(plain)
		if err != nil {
			t.Fatal(err)
		}
		if got.EnergyKWh != want.EnergyKWh || got.Inputs.Tokens != want.Inputs.Tokens || len(took) != len(want.Inputs.Imported) {
			t.Errorf("ImportHF then Estimate: %.6g kWh, %g tokens, %d keys; Estimate of the files: %.6g kWh, %g tokens, %d keys",
				got.EnergyKWh, got.Inputs.Tokens, len(took), want.EnergyKWh, want.Inputs.Tokens, len(want.Inputs.Imported))
		}
	}
}

// TestHFOptimStateBytes checks the trainer's optim names against the
// bytes each trained parameter then holds: fp32 weights and gradients
// (4 + 4; the Trainer's mixed precision keeps fp32 master weights) and the
// optimizer's moments:
// AdamW two fp32 moments (8), its 8-bit versions two bytes, Lion one fp32
// moment (4), Adafactor's factored second moment about none, plain SGD none.
func TestHFOptimStateBytes(t *testing.T) {
	const base = 4 + 4
	for optim, moments := range map[string]float64{"adamw_torch": 8, "adamw_torch_fused": 8, "paged_adamw_32bit": 8, "adamw_8bit": 2, "paged_adamw_8bit": 2,
		"lion_32bit": 4, "adafactor": 0, "sgd": 0} {
		req := model.Request{Model: model.ModelSpec{Preset: "llama-3-8b"},
			Training: model.TrainingSpec{HFArgs: model.RawObject(`{"optim": "` + optim + `", "per_device_train_batch_size": 1, "max_seq_length": 512, "max_steps": 10}`)},
			Hardware: model.HardwareSpec{GPU: "h100-sxm5-80gb", Count: 1}, Strategy: model.Strategy{Name: model.Single}}
		plain, took, _, err := model.ImportHF(req)
		if err != nil {
			t.Fatalf("optim %s: %v", optim, err)
		}
		if got := plain.Training.StateBytesPerParam; got != base+moments {
			t.Errorf("optim %s: %g bytes per parameter, want %g", optim, got, base+moments)
		}
		said := false
		for _, im := range took {
			said = said || im.Key == "optim" && im.Use == model.UseUsed && im.Field == "training.state_bytes_per_param"
		}
		if !said {
			t.Errorf("optim %s: inputs.imported does not list optim as used for training.state_bytes_per_param: %+v", optim, took)
		}
	}
}

// TestHFPEFTMapping checks what an adapter_config.json gives: the method
// follows from the base's quantisation (none: lora; load_in_4bit or
// load_in_8bit: qlora with NF4 or int8 weights), target_modules by names
// or all-linear, and modules_to_save that train the embeddings and LM
// head in full (a task head alone does not).
func TestHFPEFTMapping(t *testing.T) {
	for _, tc := range []struct {
		peft, method, targets, format string
		emb                           bool
	}{
		{`{"peft_type": "LORA", "r": 8, "target_modules": ["q_proj", "v_proj"]}`, model.MethodLoRA, "q,v", "", false},
		{`{"r": 8, "target_modules": "all-linear", "modules_to_save": ["embed_tokens", "lm_head"]}`, model.MethodLoRA, "q,k,v,o,gate,up,down", "", true},
		{`{"r": 8, "target_modules": ["q_proj"], "modules_to_save": ["score"]}`, model.MethodLoRA, "q", "", false},
		{`{"r": 8, "target_modules": ["q_proj"], "load_in_4bit": true, "bnb_4bit_quant_type": "nf4"}`, model.MethodQLoRA, "q", model.FormatNF4, false},
		{`{"r": 8, "target_modules": ["q_proj"], "quantization_config": {"load_in_8bit": true}}`, model.MethodQLoRA, "q", model.FormatInt8, false},
	} {
		req := model.Request{Model: model.ModelSpec{Preset: "llama-3-8b"}, Training: model.TrainingSpec{PEFT: model.RawObject(tc.peft)}}
		plain, _, _, err := model.ImportHF(req)
		if err != nil {
			t.Errorf("%s: %v", tc.peft, err)
			continue
		}
		l := plain.Training.LoRA
		if plain.Training.Method != tc.method || l == nil || l.Targets != tc.targets || l.BaseFormat != tc.format || l.TrainEmbeddings != tc.emb || l.Rank != 8 {
			t.Errorf("%s: method %q, lora %+v; want %s, targets %s, base format %q, embeddings %v, rank 8", tc.peft, plain.Training.Method, l, tc.method, tc.targets, tc.format, tc.emb)
		}
	}
}

// TestHFDatasetExamples checks the training length from examples: with
// num_train_epochs of the trainer's arguments (or epochs), an epoch of
// training.dataset_examples is examples × seq_len tokens, the estimate of
// the same dataset_tokens, and the assumptions say so; both at once are
// an error.
func TestHFDatasetExamples(t *testing.T) {
	cat := catalog(t)
	examples := 24414.0 // about 5e7 tokens at 2,048 per example
	req := hfRequest(t, hfArgs, hfPEFT)
	req.Training.DatasetTokens, req.Training.DatasetExamples = 0, examples
	got, err := cat.Estimate(req)
	if err != nil {
		t.Fatal(err)
	}
	req.Training.DatasetTokens, req.Training.DatasetExamples = examples*2048, 0
	want, err := cat.Estimate(req)
	if err != nil {
		t.Fatal(err)
	}
	if got.EnergyKWh != want.EnergyKWh || got.Inputs.Tokens != 2*examples*2048 {
		t.Errorf("%g examples of 2,048 tokens, 2 epochs: %.6g kWh, %g tokens; as dataset_tokens: %.6g kWh, want %g tokens", examples, got.EnergyKWh, got.Inputs.Tokens, want.EnergyKWh, 2*examples*2048)
	}
	said := false
	for _, a := range got.Assumptions {
		said = said || strings.Contains(a, "dataset_examples × seq_len = 24414 × 2048")
	}
	if !said {
		t.Errorf("assumptions do not say how the examples became tokens: %q", got.Assumptions)
	}
	plain := baseRequest()
	plain.Training.Tokens, plain.Training.DatasetExamples, plain.Training.Epochs = 0, 1000, 3
	if resp, err := cat.Estimate(plain); err != nil || resp.Inputs.Tokens != 3*1000*plain.Training.SeqLen {
		t.Errorf("1,000 examples × 3 epochs without the files: %v tokens, %v; want %g", resp.Inputs.Tokens, err, 3*1000*plain.Training.SeqLen)
	}
	req.Training.DatasetExamples = examples
	if _, err := cat.Estimate(req); model.AsFieldError(err) == nil || model.AsFieldError(err).Field != "training.dataset_examples" {
		t.Errorf("dataset_tokens and dataset_examples both given: %v, want an error on training.dataset_examples", err)
	}
}
