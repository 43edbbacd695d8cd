package model_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/internal/keytest"
)

func TestParseRequestErrors(t *testing.T) {
	tests := []struct {
		name, body, field string
	}{
		{"empty", ``, "(body)"},
		{"malformed", `{"model": {`, "(body)"},
		{"unknown field", `{"model": {"preset": "bert-base"}, "colour": 3}`, "colour"},
		{"unknown nested field", `{"training": {"steps": 3}}`, "training.steps"},
		{"nested type error", `{"hardware": {"count": "four"}}`, "hardware.count"},
		{"letters in a number", `{"training": {"tokens": "lots"}}`, "training.tokens"},
		{"trailing data", `{} {}`, "(body)"},
		{"bad strategy object", `{"strategy": {"tensor": 2, "pipeline": 4}}`, "strategy.pipeline"},
		{"strategy of wrong type", `{"strategy": 4}`, "strategy"},
		{"unknown lora field", `{"training": {"lora": {"rnak": 8}}}`, "training.lora.rnak"},
		{"lora of wrong type", `{"training": {"lora": 8}}`, "training.lora"},
		{"lora rank of wrong type", `{"training": {"lora": {"rank": "eight"}}}`, "training.lora.rank"},
		{"lora rank 0", `{"training": {"lora": {"rank": 0}}}`, "training.lora.rank"},
		{"checkpointing not a boolean", `{"training": {"gradient_checkpointing": "yes"}}`, "training.gradient_checkpointing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := model.ParseRequest(strings.NewReader(tt.body))
			fe := model.AsFieldError(err)
			if fe == nil || fe.Field != tt.field {
				t.Errorf("ParseRequest(%q) error = %v, want field %q", tt.body, err, tt.field)
			}
		})
	}
}

func TestStrategyJSON(t *testing.T) {
	for _, body := range []string{`"fsdp"`, `{"tensor":8,"data":4,"data_mode":"fsdp"}`} {
		var s model.Strategy
		if err := json.Unmarshal([]byte(body), &s); err != nil {
			t.Fatalf("Unmarshal(%s): %v", body, err)
		}
		b, _ := json.Marshal(s)
		if string(b) != body {
			t.Errorf("round trip of %s gave %s", body, b)
		}
	}
}

func TestHardwareLookup(t *testing.T) {
	hw := model.NewHardware(model.DefaultGPUs())
	if n := len(hw.GPUs); n < 20 {
		t.Errorf("hardware table has %d accelerators, want at least 20", n)
	}
	for in, want := range map[string]string{
		"h100": "h100-sxm5", "H100-SXM5-80GB": "h100-sxm5", "NVIDIA A100 80GB": "a100-sxm4-80gb", "rtx 2080 ti": "rtx-2080-ti",
		"MI300X": "mi300x", "a100-pcie-40gb": "a100-pcie-40gb", "Tesla T4": "t4", "h200": "h200-sxm",
	} {
		g, err := hw.Lookup(in)
		if err != nil || g.ID != want {
			t.Errorf("Lookup(%q) = %v, %v; want %s", in, g, err, want)
		}
	}
	// A near miss names another product (a size or form factor the part
	// does not come in): an error with suggestions, never a substitution.
	for in, suggest := range map[string]string{
		"a100-sxm4-8gb": "a100-sxm4-80gb", "v100-pcie-99gb": "v100-pcie", "h100-nvl-94gb": "h100",
		"h100-pcie-94gb": "h100-pcie", "a100-pcie-48gb": "a100-pcie", "v100-sxm2-99gb": "v100-sxm2",
	} {
		g, err := hw.Lookup(in)
		if err == nil {
			t.Errorf("Lookup(%q) = %s, want an error: it is not that accelerator", in, g.ID)
			continue
		}
		if fe := model.AsFieldError(err); fe == nil || fe.Field != "hardware.gpu" || !strings.Contains(err.Error(), suggest) {
			t.Errorf("Lookup(%q) error %v should name hardware.gpu and suggest %s", in, err, suggest)
		}
	}
	// Every part's id followed by its own memory size is that part.
	for _, g := range hw.GPUs {
		in := fmt.Sprintf("%s-%dgb", g.ID, int(math.Round(g.MemoryGB)))
		if strings.HasSuffix(g.ID, "gb") {
			in = g.ID
		}
		if got, err := hw.Lookup(in); err != nil || got.ID != g.ID {
			t.Errorf("Lookup(%q) = %v, %v; want %s", in, got, err, g.ID)
		}
	}
	// Exact names only (issue 29): a prefix, a name cut short, another
	// separator or an invisible character is an error, never a part.
	for in, want := range map[string]string{
		"a100-sxm4-8":          "close matches: a100-sxm4-80gb",
		"a100-sxm4-4":          "a100-sxm4-40gb",
		"h100-sxm5-80":         "close matches: h100-sxm5",
		"h10":                  "close matches: h100",
		"h100_sxm5":            "close matches: h100-sxm5",
		"h100\u200b":           "U+200B at byte 4",
		"h1\x0000":             "U+0000 at byte 2",
		"a100\u00ad-sxm4-80gb": "U+00AD at byte 4",
		"t4\xff":               "U+FFFD at byte 2",
	} {
		g, err := hw.Lookup(in)
		if err == nil {
			t.Errorf("Lookup(%q) = %s, want an error", in, g.ID)
		} else if !strings.Contains(err.Error(), want) {
			t.Errorf("Lookup(%q) = %v, want an error containing %q", in, err, want)
		}
	}
	_, err := hw.Lookup("h1000")
	if err == nil || !strings.Contains(err.Error(), "h100") {
		t.Errorf("Lookup(h1000) error %v should list close matches including h100", err)
	}
	for _, g := range hw.GPUs {
		if g.Source == "" || g.IdleSource == "" || g.BoardPowerW <= g.IdlePowerW || g.BandwidthGBs <= 0 || g.MemoryGB <= 0 {
			t.Errorf("%s: incomplete row %+v", g.ID, g)
		}
		if len(g.Supported()) == 0 {
			t.Errorf("%s: no supported precision", g.ID)
		}
	}
}

func TestPresetParams(t *testing.T) {
	for _, p := range model.DefaultPresets() {
		if err := p.Arch.Validate("model"); err != nil {
			t.Errorf("%s: %v", p.Name, err)
		}
		got := p.Arch.Params()
		if rel := math.Abs(got/p.ParamsPublished - 1); rel > 0.04 {
			t.Errorf("%s: counted %.4g parameters, published %.4g (%.1f%% off)", p.Name, got, p.ParamsPublished, rel*100)
		}
	}
}

func TestProxies(t *testing.T) {
	// With ff = 4d the paper's N equals 20·L·d² (section 3 of the reference).
	if got, want := model.ParamsProxy(12, 768, 3072), 20*12*768.0*768; got != want {
		t.Errorf("ParamsProxy = %g, want %g", got, want)
	}
	if got, want := model.ComputePerTokenProxy(2, 64, 66), 12*2*64.0*64+3*2*66*64.0; got != want {
		t.Errorf("ComputePerTokenProxy = %g, want %g", got, want)
	}
	if got := model.MemoryProxy(32, 66, 768, 12); got != 32*66*768*12 {
		t.Errorf("MemoryProxy = %g", got)
	}
}

func TestMeasurementsRoundTrip(t *testing.T) {
	rows := []model.Measurement{
		{Model: "bert-base", GPU: "a40", Count: 1, Strategy: "single", SeqLen: 384, BatchPerGPU: 32, Tokens: 3.4e7, Precision: "tf32", EnergyKWh: 0.0675, DurationS: 909.5, Source: "x"},
		{Arch: model.Arch{Layers: 4, Hidden: 256, Heads: 4, FFN: 1024, Vocab: 1000}, GPU: "h100", Count: 8, Strategy: "hybrid", Tensor: 2, DataMode: "fsdp", SeqLen: 128, BatchPerGPU: 8, Tokens: 1e6, Precision: "bf16", PowerLimitW: 500, EnergyKWh: 1, DurationS: 60, Stage: "student", Eta: 0.4375},
	}
	var buf bytes.Buffer
	if err := model.WriteMeasurements(&buf, rows); err != nil {
		t.Fatal(err)
	}
	got, err := model.ParseMeasurements(&buf, model.DefaultPresets())
	if err != nil {
		t.Fatalf("ParseMeasurements(WriteMeasurements(rows)): %v", err)
	}
	if len(got) != 2 || got[0].Arch.Hidden != 768 || got[1].Tensor != 2 || got[1].PowerLimitW != 500 || got[1].Stage != "student" || got[0].EnergyKWh != 0.0675 || got[0].Eta != 0 || got[1].Eta != 0.4375 {
		t.Errorf("round trip = %+v", got)
	}
}

func TestParseMeasurementsErrors(t *testing.T) {
	head := "model,gpu,count,strategy,seq_len,batch_per_gpu,tokens,precision,energy_kwh,duration_s\n"
	tests := map[string]string{
		"unknown column":  "model,gpu,count,strategy,seq_len,batch_per_gpu,tokens,precision,energy_kwh,duration_s,colour\n",
		"missing column":  "model,gpu\n",
		"negative energy": head + "bert-base,a40,1,single,128,8,1e6,fp16,-1,10\n",
		"letters":         head + "bert-base,a40,1,single,128,8,many,fp16,1,10\n",
		"unknown preset":  head + "bert-huge,a40,1,single,128,8,1e6,fp16,1,10\n",
		"no rows":         head,
		"nan":             head + "bert-base,a40,1,single,128,8,NaN,fp16,1,10\n",
	}
	etaHead := strings.TrimSuffix(head, "\n") + ",eta\n"
	for name, row := range map[string]string{
		"eta zero":       "bert-base,a40,2,fsdp,128,8,1e6,fp16,1,10,0\n",
		"eta negative":   "bert-base,a40,2,fsdp,128,8,1e6,fp16,1,10,-0.5\n",
		"eta above 2":    "bert-base,a40,2,fsdp,128,8,1e6,fp16,1,10,2.5\n",
		"eta nan":        "bert-base,a40,2,fsdp,128,8,1e6,fp16,1,10,NaN\n",
		"eta letters":    "bert-base,a40,2,fsdp,128,8,1e6,fp16,1,10,half\n",
		"eta single gpu": "bert-base,a40,1,single,128,8,1e6,fp16,1,10,0.5\n",
	} {
		_, err := model.ParseMeasurements(strings.NewReader(etaHead+row), model.DefaultPresets())
		if err == nil || !strings.Contains(err.Error(), "line 2: column eta: ") {
			t.Errorf("%s: error %v, want one naming line 2 and column eta", name, err)
		}
	}
	for name, body := range tests {
		if _, err := model.ParseMeasurements(strings.NewReader(body), model.DefaultPresets()); err == nil {
			t.Errorf("%s: no error", name)
		} else if !strings.HasPrefix(err.Error(), "measurements: ") {
			t.Errorf("%s: error %q lacks context", name, err)
		}
	}
}

func FuzzParseRequest(f *testing.F) {
	c, err := catalogForFuzz()
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(`{"model":{"preset":"bert-base"},"training":{"tokens":2e8,"seq_len":128,"batch_per_gpu":32,"precision":"fp16"},"hardware":{"gpu":"a100","count":4},"strategy":"fsdp"}`))
	f.Add([]byte(`{"model":{"layers":2,"hidden":64,"heads":2,"ffn":256,"vocab":100},"training":{"dataset_tokens":1e5,"epochs":0.5,"seq_len":16,"batch_per_gpu":1,"precision":"fp32"},"hardware":{"gpu":"t4","count":2},"strategy":{"tensor":2,"data":1}}`))
	f.Add([]byte(`{"model":{"preset":"llama-2-70b"},"training":{"tokens":1e8,"seq_len":2048,"batch_per_gpu":4,"precision":"bf16","method":"lora","lora":{"rank":16,"targets":"attention_mlp","train_embeddings":true},"gradient_checkpointing":true},"hardware":{"gpu":"h100","count":8},"strategy":"fsdp"}`))
	f.Add([]byte(`{"model":{"preset":"llama-3-8b"},"training":{"tokens":1e7,"seq_len":1024,"batch_per_gpu":1,"precision":"bf16","method":"qlora","lora":{"rank":64,"targets":"q,k,v,o,gate,up,down","base_format":"int8","compute_dtype":"fp16"},"gradient_checkpointing":false},"hardware":{"gpu":"rtx-4090","count":1},"strategy":"single"}`))
	f.Add([]byte(`{"model":{"layers":2,"hidden":64,"heads":2,"ffn":256,"vocab":100},"training":{"tokens":1e5,"seq_len":16,"batch_per_gpu":1,"precision":"fp32","method":"qlora","lora":{"rank":0}},"hardware":{"gpu":"t4","count":1},"strategy":"single"}`))
	f.Add([]byte(`{"model":{"layers":16,"hidden":2048,"heads":16,"ffn":1024,"vocab":50304,"glu":true,"experts":64,"experts_per_token":8},"training":{"tokens":1e9,"seq_len":4096,"batch_per_gpu":4,"precision":"bf16","method":"lora","lora":{"targets":"attention_mlp"}},"hardware":{"gpu":"h100","count":8},"strategy":"fsdp"}`))
	f.Add([]byte(`{"model":{"layers":2,"hidden":64,"heads":2,"ffn":256,"vocab":100,"experts":3,"experts_per_token":4},"training":{"tokens":1e5,"seq_len":16,"batch_per_gpu":1},"hardware":{"gpu":"t4","count":1},"strategy":"single"}`))
	// Case variants and duplicate keys, at each level (issue 29).
	f.Add([]byte(`{"MODEL":{"preset":"bert-base"},"training":{"tokens":2e8,"seq_len":128,"batch_per_gpu":32,"precision":"fp16"},"hardware":{"gpu":"a100","count":4},"strategy":"fsdp"}`))
	f.Add([]byte(`{"model":{"preset":"bert-base"},"training":{"to\u212Aens":2e8,"seq_len":128,"batch_per_gpu":32,"precision":"fp16"},"hardware":{"gpu":"a100","count":4},"ſtrategy":"fsdp"}`))
	f.Add([]byte(`{"model":{"preset":"bert-base"},"training":{"tokens":2e8,"seq_len":128,"batch_per_gpu":32,"precision":"fp16"},"hardware":{"gpu":"a100","count":4},"HARDWARE":{"gpu":"t4","count":1},"strategy":"fsdp"}`))
	f.Add([]byte(`{"model":{"preset":"bert-base","preset":"gpt2"},"training":{"tokens":2e8,"seq_len":128,"batch_per_gpu":32,"precision":"fp16"},"hardware":{"gpu":"a100","count":4},"strategy":{"tensor":2,"Data":2,"data":2}}`))
	f.Add([]byte(`{"model":{"preset":"bert-base"},"training":{"tokens":2e8,"seq_len":128,"batch_per_gpu":32,"precision":"fp16"},"hardware":{"gpu":"a100","count":4},"strategy":"fsdp","\u0073trategy":"ddp"}`))
	// A Hugging Face config's own keys are free (any case, unknown ones
	// too); a key twice in it is still an error.
	f.Add([]byte(`{"model":{"hf_config":{"model_type":"llama","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":2,"intermediate_size":256,"vocab_size":100,"Torch_Dtype":"bfloat16"}},"training":{"tokens":1e5,"seq_len":16,"batch_per_gpu":1},"hardware":{"gpu":"t4","count":1},"strategy":"single"}`))
	f.Add([]byte(`{"model":{"hf_config":{"hidden_size":64,"hidden_size":128}},"training":{"tokens":1e5,"seq_len":16,"batch_per_gpu":1},"hardware":{"gpu":"t4","count":1},"strategy":"single"}`))
	keys := keytest.New(reflect.TypeFor[model.Request]())
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := model.ParseRequest(bytes.NewReader(body))
		if err != nil {
			if model.AsFieldError(err) == nil {
				t.Fatalf("ParseRequest error %v is not a *FieldError", err)
			}
			return
		}
		if bad := keys.Bad(body); bad != "" {
			t.Fatalf("ParseRequest accepted %s: %s", body, bad)
		}
		r, err := c.Estimate(req)
		if err != nil {
			if model.AsFieldError(err) == nil {
				t.Fatalf("Estimate error %v is not a *FieldError", err)
			}
			return
		}
		if math.IsNaN(r.EnergyKWh) || math.IsInf(r.EnergyKWh, 0) || r.EnergyKWh <= 0 {
			t.Fatalf("energy %g for %s", r.EnergyKWh, body)
		}
		if _, err := json.Marshal(r); err != nil {
			t.Fatalf("response does not encode: %v", err)
		}
	})
}

func FuzzParseMeasurements(f *testing.F) {
	f.Add("model,gpu,count,strategy,seq_len,batch_per_gpu,tokens,precision,energy_kwh,duration_s\nbert-base,a40,1,single,128,8,1e6,fp16,1,10\n")
	f.Add("layers,hidden,heads,ffn,vocab,gpu,count,strategy,tensor,seq_len,batch_per_gpu,tokens,precision,energy_kwh,duration_s\n2,64,2,256,100,h100,4,hybrid,2,16,1,1e4,bf16,0.1,5\n")
	f.Add("model,gpu,count,strategy,seq_len,batch_per_gpu,tokens,precision,energy_kwh,duration_s,eta,group\nbert-base,rtx-2080-ti,4,tp,66,32,8.2e6,fp16,0.3,900,0.108,bert-L12\nbert-base,rtx-2080-ti,1,single,66,32,8.2e6,fp16,0.1,300,,bert-L12\n")
	presets := model.DefaultPresets()
	f.Fuzz(func(t *testing.T, body string) {
		rows, err := model.ParseMeasurements(strings.NewReader(body), presets)
		if err != nil {
			return
		}
		for _, m := range rows {
			if !(m.EnergyKWh > 0) || !(m.DurationS > 0) || !(m.Tokens > 0) || m.Count < 1 || !(m.Eta >= 0 && m.Eta <= 2) || (m.Count == 1 && m.Eta != 0 && m.Eta != 1) {
				t.Fatalf("accepted a bad row %+v", m)
			}
		}
		var buf bytes.Buffer
		if err := model.WriteMeasurements(&buf, rows); err != nil {
			t.Fatal(err)
		}
		again, err := model.ParseMeasurements(&buf, presets)
		if err != nil || len(again) != len(rows) {
			t.Fatalf("rewritten rows do not parse: %v", err)
		}
		for i := range rows {
			if again[i].Eta != rows[i].Eta {
				t.Fatalf("row %d: eta %v rewritten as %v", i+1, rows[i].Eta, again[i].Eta)
			}
		}
	})
}
