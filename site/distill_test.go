package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The -update flag may also be declared by other golden tests of this
// package; register it only once.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files")
	}
}

func updateGolden() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// floatRE matches a JSON string (left alone) or a number with a fraction or
// exponent.
var floatRE = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|-?\d+\.\d+(?:[eE][-+]?\d+)?|-?\d+[eE][-+]?\d+`)

// roundFloats prints every fractional number outside strings at 6
// significant digits, so the golden does not depend on the CPU's fused
// multiply-add.
func roundFloats(b []byte) []byte {
	return floatRE.ReplaceAllFunc(b, func(m []byte) []byte {
		if m[0] == '"' {
			return m
		}
		x, err := strconv.ParseFloat(string(m), 64)
		if err != nil {
			return m
		}
		return []byte(strconv.FormatFloat(x, 'g', 6, 64))
	})
}

func TestDistillGolden(t *testing.T) {
	for _, name := range []string{"plan-paper-presets", "plan-sweep"} {
		t.Run(name, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join("..", "content", "examples", name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var out, errb bytes.Buffer
			if code := run([]string{"distill"}, bytes.NewReader(in), &out, &errb); code != 0 {
				t.Fatalf("distill exit %d: %s", code, errb.String())
			}
			if !json.Valid(out.Bytes()) {
				t.Fatalf("output is not JSON:\n%s", out.String())
			}
			got := roundFloats(out.Bytes())
			path := filepath.Join("testdata", "distill-"+name+".golden")
			if updateGolden() {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./site -run TestDistillGolden -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("distill output differs from %s (run with -update if intended):\n%s", path, got)
			}
		})
	}
}

func TestDistillBadInput(t *testing.T) {
	tests := []struct{ body, field string }{
		{`{"options": [{"preset": "kd-70b"}]}`, "options[0].preset"},
		{`{"options": [{"name": "kd", "regime": "kd", "stages_kwh": {"preprocess": 0.37, "teacher": -2, "student": 5, "eval": 0.3}}]}`, "options[0].stages_kwh.teacher"},
		{`{"options": [{"name": "kd", "regime": "kd", "stages_kwh": {"preprocess": 0.37, "teacher": 11, "eval": 0.3}}]}`, "options[0].stages_kwh.student"},
		{`not json`, "(body)"},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		code := run([]string{"distill"}, strings.NewReader(tt.body), &out, &errb)
		msg := errb.String()
		if code != 1 || out.Len() != 0 || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "distill: "+tt.field+": ") {
			t.Errorf("distill < %s: exit %d, stdout %q, stderr %q; want exit 1 and one line naming %s", tt.body, code, out.String(), msg, tt.field)
		}
	}
}

// TestDistillStudentFromHFFiles checks that the planner's estimated
// student stage takes the Hugging Face files as the estimate does: a
// student given by Qwen2.5-0.5B's config.json and trainer arguments costs
// what the qwen2.5-0.5b preset with the same fields costs.
func TestDistillStudentFromHFFiles(t *testing.T) {
	cfg, err := os.ReadFile(filepath.Join("..", "model", "testdata", "hf", "qwen2.5-0.5b-instruct.json"))
	if err != nil {
		t.Fatal(err)
	}
	plan := func(student string) []byte {
		return []byte(`{"options": [{"name": "sft", "regime": "sft", "stages_kwh": {"preprocess": 0, "eval": 0}, "student": ` + student + `}]}`)
	}
	fromFiles := plan(`{"model": {"hf_config": ` + string(cfg) + `}, "training": {"tokens": 1e8, "hf_args": {"per_device_train_batch_size": 8, "gradient_accumulation_steps": 4, "max_seq_length": 1024, "bf16": true, "learning_rate": 1e-5}}, "hardware": {"gpu": "h100-sxm5", "count": 1}, "strategy": "single"}`)
	fromFields := plan(`{"model": {"preset": "qwen2.5-0.5b"}, "training": {"tokens": 1e8, "batch_per_gpu": 8, "gradient_accumulation": 4, "seq_len": 1024, "precision": "bf16"}, "hardware": {"gpu": "h100-sxm5", "count": 1}, "strategy": "single"}`)
	kwh := func(in []byte) float64 {
		var out, errb bytes.Buffer
		if code := run([]string{"distill"}, bytes.NewReader(in), &out, &errb); code != 0 {
			t.Fatalf("distill exit %d: %s", code, errb.String())
		}
		var r struct {
			Options []struct {
				StudentKWh float64 `json:"student_kwh"`
			} `json:"options"`
		}
		if err := json.Unmarshal(out.Bytes(), &r); err != nil || len(r.Options) != 1 {
			t.Fatalf("distill output %s: %v", out.String(), err)
		}
		return r.Options[0].StudentKWh
	}
	if a, b := kwh(fromFiles), kwh(fromFields); a != b || a <= 0 {
		t.Errorf("student stage from the files %.6g kWh, from the fields %.6g kWh", a, b)
	}
}

// TestDistillTeacherFromHFConfig checks that an estimated teacher stage
// (inference: logit caching) takes the teacher's config.json as its
// model, as the student takes the three files: Qwen2.5-7B's config.json
// costs what the qwen2.5-7b preset costs.
func TestDistillTeacherFromHFConfig(t *testing.T) {
	cfg, err := os.ReadFile(filepath.Join("..", "model", "testdata", "hf", "qwen2.5-7b.json"))
	if err != nil {
		t.Fatal(err)
	}
	teacherKWh := func(model string) float64 {
		in := `{"options": [{"name": "sft", "regime": "sft", "stages_kwh": {"preprocess": 0, "student": 1, "eval": 0}},
			{"name": "kd", "regime": "kd", "stages_kwh": {"preprocess": 0, "student": 0.5, "eval": 0},
			 "teacher": {"model": ` + model + `, "hardware": {"gpu": "h100", "count": 1}, "tokens": 3e7, "seq_len": 1024}}]}`
		var out, errb bytes.Buffer
		if code := run([]string{"distill"}, strings.NewReader(in), &out, &errb); code != 0 {
			t.Fatalf("distill exit %d: %s", code, errb.String())
		}
		var r struct {
			Options []struct {
				Stages []struct {
					Stage     string  `json:"stage"`
					Source    string  `json:"source"`
					EnergyKWh float64 `json:"energy_kwh"`
				} `json:"stages"`
			} `json:"options"`
		}
		if err := json.Unmarshal(out.Bytes(), &r); err != nil || len(r.Options) != 2 {
			t.Fatalf("distill output %s: %v", out.String(), err)
		}
		for _, s := range r.Options[1].Stages {
			if s.Stage == "teacher" && s.Source == "estimated" {
				return s.EnergyKWh
			}
		}
		t.Fatalf("no estimated teacher stage in %s", out.String())
		return 0
	}
	if a, b := teacherKWh(`{"hf_config": `+string(cfg)+`}`), teacherKWh(`{"preset": "qwen2.5-7b"}`); a != b || a <= 0 {
		t.Errorf("teacher stage from config.json %.6g kWh, from the preset %.6g kWh", a, b)
	}
}
