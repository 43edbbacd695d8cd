package hfapi

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/wasm/calcapi"
	"github.com/wattscale/wattscale/wasm/calcapi/view"
)

const example = "../../content/examples/hf-llama-3-8b-qlora"

func read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(example, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestImportExample pastes the example's three files into the default form
// and requires the form to estimate what the command line estimates from
// the files (content/examples/hf-llama-3-8b-qlora, run.json's GPU and
// dataset).
func TestImportExample(t *testing.T) {
	form := calcapi.DefaultForm()
	form["gpu"], form["count"], form["strategy"] = "a100-sxm4-80gb", "1", model.Single
	// Two pastes: the adapter config alone, then the model's config and
	// the trainer's arguments dropped together (one text, two objects).
	in, _ := json.Marshal(Input{Files: []string{read(t, "adapter_config.json"), read(t, "config.json") + "\n" + read(t, "training_args.json")}, Form: form})
	var out Output
	if err := json.Unmarshal(Import(in), &out); err != nil {
		t.Fatal(err)
	}
	if out.Error != nil {
		t.Fatalf("Import: %+v", out.Error)
	}
	for k, want := range map[string]string{"model": "custom", "layers": "32", "hidden": "4096", "heads": "32", "kv_heads": "8", "ffn": "14336", "vocab": "128256", "glu": "1", "tied": "",
		"batch": "4", "accum": "4", "seq": "2048", "precision": "bf16", "ckpt": "on", "state_bytes": "16", "length": "epochs", "epochs": "1",
		"method": "qlora", "rank": "64", "targets": "q,k,v,o,gate,up,down", "base_format": "nf4", "compute_dtype": "bf16"} {
		if got, ok := out.Form[k]; !ok || got != want {
			t.Errorf("form[%s] = %q (set %v), want %q", k, got, ok, want)
		}
	}
	if len(out.Took) < 30 {
		t.Errorf("%d keys listed, want every key of the three files", len(out.Took))
	}
	// The box lists them as view.HFTook draws them: a row per key.
	if out.HTML != view.HFTook(out.Took, out.Notes) || strings.Count(out.HTML, "<tr><td>") != len(out.Took) {
		t.Errorf("the box's markup is not view.HFTook's for the %d keys read:\n%s", len(out.Took), out.HTML)
	}
	for k, v := range out.Form {
		form[k] = v
	}
	form["dataset_tokens"] = "5e7"
	cat, err := content.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	a := calcapi.New(cat)
	fin, _ := json.Marshal(calcapi.EstimateInput{Form: form})
	var page calcapi.EstimateOutput
	if err := json.Unmarshal(a.Estimate(fin), &page); err != nil || page.Error != nil {
		t.Fatalf("the form's estimate: %v %+v", err, page.Error)
	}
	cat.ReadHFFiles()
	var run model.Request
	if err := json.Unmarshal([]byte(read(t, "run.json")), &run); err != nil {
		t.Fatal(err)
	}
	run.Model.HFConfig, run.Training.HFArgs, run.Training.PEFT = model.RawObject(read(t, "config.json")), model.RawObject(read(t, "training_args.json")), model.RawObject(read(t, "adapter_config.json"))
	cli, err := cat.Estimate(run)
	if err != nil {
		t.Fatal(err)
	}
	if page.Response.EnergyKWh != cli.EnergyKWh || page.Response.TimeS != cli.TimeS {
		t.Errorf("the form after the paste: %.17g kWh, %.6g s; the files on the command line: %.17g kWh, %.6g s", page.Response.EnergyKWh, page.Response.TimeS, cli.EnergyKWh, cli.TimeS)
	}
}

// TestImportErrors checks that a bad paste is an error naming what is wrong.
func TestImportErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []string
		field string
	}{
		{"not JSON", []string{"model_type: llama"}, "(file)"},
		{"twice", []string{`{"model_type": "gpt2", "n_layer": 2, "n_embd": 64, "n_head": 4, "vocab_size": 100}`, `{"model_type": "gpt2", "n_layer": 2, "n_embd": 64, "n_head": 4, "vocab_size": 100}`}, "model.hf_config"},
		{"unknown family", []string{`{"model_type": "mamba"}`}, "model.hf_config.model_type"},
		{"misspelt argument", []string{`{"per_device_train_bach_size": 4}`}, "training.hf_args.per_device_train_bach_size"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, _ := json.Marshal(Input{Files: tc.files, Form: calcapi.DefaultForm()})
			var out Output
			if err := json.Unmarshal(Import(in), &out); err != nil {
				t.Fatal(err)
			}
			if out.Error == nil || out.Error.Field != tc.field {
				t.Errorf("Import error %+v, want one on %s", out.Error, tc.field)
			}
		})
	}
}

// TestImportAdapterForThePreset pastes an adapter config alone: all-linear
// takes the gated MLP of the form's model, named by preset or by hub id.
func TestImportAdapterForThePreset(t *testing.T) {
	for _, m := range []string{"llama-3-8b", "meta-llama/Meta-Llama-3-8B"} {
		form := calcapi.DefaultForm()
		form["model"] = m
		in, _ := json.Marshal(Input{Files: []string{`{"r": 16, "target_modules": "all-linear", "load_in_4bit": true}`}, Form: form})
		var out Output
		if err := json.Unmarshal(Import(in), &out); err != nil || out.Error != nil {
			t.Fatalf("%s: %v %+v", m, err, out.Error)
		}
		if out.Form["targets"] != "q,k,v,o,gate,up,down" || out.Form["method"] != "qlora" || out.Form["rank"] != "16" {
			t.Errorf("%s: targets %q, method %q, rank %q; want q,k,v,o,gate,up,down, qlora, 16", m, out.Form["targets"], out.Form["method"], out.Form["rank"])
		}
	}
}
