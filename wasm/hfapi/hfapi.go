// Package hfapi is the logic behind the calculator's "Paste from Hugging
// Face" box: pasted or dropped config.json, trainer arguments and
// adapter_config.json become the calculator's form values, through
// model.ImportHF, the reading every estimate does. It runs in the
// on-demand module (wasm/fit), not in calc.wasm: the readers cost about
// 22 KB of brotli, which the calculator's first load cannot carry.
package hfapi

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"

	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/wasm/calcapi"
	"github.com/wattscale/wattscale/wasm/calcapi/view"
)

// Input is what the page sends: the files' texts, in any order, and the
// form as it stands (its GPU count and layout turn max_steps into tokens).
type Input struct {
	Files []string     `json:"files"`
	Form  calcapi.Form `json:"form"`
}

// Output is the form values the files give (only the keys they set), what
// each key of each file gave, the notes an estimate would add, the two as
// the box's markup (view.HFTook), and the first error.
type Output struct {
	Form  calcapi.Form     `json:"form,omitempty"`
	Took  []model.Imported `json:"took,omitempty"`
	Notes []string         `json:"notes,omitempty"`
	HTML  string           `json:"html,omitempty"`
	Error *calcapi.Error   `json:"error,omitempty"`
}

// Import answers an Input with an Output, both JSON.
func Import(input []byte) (out []byte) {
	var in Input
	if err := model.CheckKeys(input, &in); err != nil {
		return answer(Output{Error: errOf(err)})
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return answer(Output{Error: errOf(&model.FieldError{Field: "(body)", Message: "is not valid JSON: " + err.Error()})})
	}
	return answer(Read(in))
}

// Read is Import without the JSON around it (the box in wasm/fit calls
// it): the Output for an Input, its error in Output.Error.
func Read(in Input) (o Output) {
	defer func() {
		if r := recover(); r != nil {
			o = Output{Error: errOf(fmt.Errorf("internal error: %v", r))}
		}
	}()
	o, err := importFiles(in)
	if err != nil {
		return Output{Error: errOf(err)}
	}
	o.HTML = view.HFTook(o.Took, o.Notes)
	return o
}

func answer(o Output) []byte {
	b, err := json.Marshal(o)
	if err != nil {
		panic(err)
	}
	return b
}

func errOf(err error) *calcapi.Error {
	fe := model.AsFieldError(err)
	if fe == nil {
		fe = &model.FieldError{Field: "(body)", Message: err.Error()}
	}
	return &calcapi.Error{Field: fe.Field, Value: fe.Value, Message: fe.Message, Text: fe.Error(), Say: fe.Error()}
}

// kind tells the three files apart by their keys: a config.json has
// model_type, an adapter_config.json PEFT's or BitsAndBytesConfig's keys;
// anything else is trainer arguments.
func kind(raw []byte) (string, error) {
	var o map[string]json.RawMessage
	if json.Unmarshal(raw, &o) != nil || o == nil {
		return "", &model.FieldError{Field: "(file)", Message: "is not a JSON object; paste a config.json, the trainer's arguments as JSON, or an adapter_config.json"}
	}
	if _, ok := o["model_type"]; ok {
		return model.PathHFConfig, nil
	}
	for _, k := range []string{"peft_type", "target_modules", "lora_alpha", "load_in_4bit", "load_in_8bit", "quantization_config"} {
		if _, ok := o[k]; ok {
			return model.PathPEFT, nil
		}
	}
	return model.PathHFArgs, nil
}

func importFiles(in Input) (Output, error) {
	var req model.Request
	seen := map[string]bool{}
	var files []json.RawMessage
	for _, text := range in.Files {
		// One text may hold several files, one JSON object after another
		// (pasted or dropped together).
		dec := json.NewDecoder(strings.NewReader(strings.TrimPrefix(strings.TrimSpace(text), "\ufeff")))
		for {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err == io.EOF {
				break
			} else if err != nil {
				return Output{}, &model.FieldError{Field: "(file)", Message: "is not valid JSON (" + err.Error() + "); paste a config.json, the trainer's arguments as JSON, or an adapter_config.json"}
			}
			files = append(files, raw)
		}
	}
	for _, raw := range files {
		k, err := kind(raw)
		if err != nil {
			return Output{}, err
		}
		if seen[k] {
			return Output{}, &model.FieldError{Field: k, Message: "is pasted twice; paste each file once"}
		}
		seen[k] = true
		switch k {
		case model.PathHFConfig:
			req.Model.HFConfig = model.RawObject(raw)
		case model.PathPEFT:
			req.Training.PEFT = model.RawObject(raw)
		default:
			req.Training.HFArgs = model.RawObject(raw)
		}
	}
	// The layout, for max_steps: the form's GPU count and strategy; the
	// dataset, for num_train_epochs: the form's tokens per epoch.
	f := in.Form
	if n, ok := calcapi.ParseNumber(f["count"]); ok {
		req.Hardware.Count = n
	}
	if n, ok := calcapi.ParseNumber(f["dataset_tokens"]); ok {
		req.Training.DatasetTokens = n // num_train_epochs counts passes over it
	}
	req.Strategy.Name = f["strategy"]
	if req.Strategy.Name == model.Hybrid {
		if t, ok := calcapi.ParseNumber(f["tensor"]); ok && t > 0 {
			req.Strategy.Tensor, req.Strategy.Data = t, req.Hardware.Count/t
		}
		req.Strategy.DataMode = f["data_mode"]
	}
	if req.Model.HFConfig == "" {
		// The model the adapter is for: its gated MLP decides whether
		// all-linear includes gate.
		if f["model"] != "custom" {
			req.Model.Preset = f["model"]
		} else {
			req.Model.GLU = f["glu"] == "1" || f["glu"] == "on" || f["glu"] == "true"
		}
	}
	plain, took, notes, err := model.ImportHF(req)
	if err != nil {
		return Output{}, err
	}
	out := Output{Form: calcapi.Form{}, Took: took, Notes: notes}
	set := func(path string) {
		fd := model.RequestField(path)
		if fd == nil || fd.Key == "" {
			return
		}
		out.Form[fd.Key] = formValue(fd, valueAt(reflect.ValueOf(plain), path))
	}
	if req.Model.HFConfig != "" {
		out.Form["model"] = "custom"
		for _, p := range []string{"model.layers", "model.hidden", "model.heads", "model.kv_heads", "model.head_dim", "model.ffn", "model.vocab",
			"model.glu", "model.tied", "model.experts", "model.experts_per_token", "model.head"} {
			set(p)
		}
	}
	for _, t := range took {
		if t.Use != model.UseUsed || !strings.HasPrefix(t.Field, "training.") {
			continue
		}
		set(t.Field)
		switch t.Field {
		case "training.epochs":
			out.Form["length"] = "epochs"
		case "training.tokens":
			out.Form["length"] = "tokens"
		}
	}
	return out, nil
}

// valueAt is the value at a dotted JSON path of v (the zero Value when a
// pointer on the way is nil).
func valueAt(v reflect.Value, path string) reflect.Value {
	for _, name := range strings.Split(path, ".") {
		for v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}
			}
			v = v.Elem()
		}
		t := v.Type()
		found := false
		for i := range t.NumField() {
			if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); tag == name {
				v, found = v.Field(i), true
				break
			}
		}
		if !found {
			return reflect.Value{}
		}
	}
	return v
}

// formValue writes a request value as the form's input holds it: numbers
// as typed ("" for an optional zero), bools "1" or "" (a select of
// default, on, off: "on" or "off"), text as it is.
func formValue(fd *model.Field, v reflect.Value) string {
	if v.IsValid() && v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return ""
		}
		v = v.Elem()
	}
	if !v.IsValid() {
		return ""
	}
	switch v.Kind() {
	case reflect.Float64:
		if v.Float() == 0 && fd.Optional {
			return ""
		}
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	case reflect.Bool:
		switch {
		case fd.Offer != nil && v.Bool():
			return "on"
		case fd.Offer != nil:
			return "off"
		case v.Bool():
			return "1"
		}
		return ""
	case reflect.String:
		return v.String()
	}
	return fmt.Sprint(v.Interface())
}
