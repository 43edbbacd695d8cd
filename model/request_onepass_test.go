package model

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzDecodeRequestOnePass holds DecodeRequest's one-pass path to the
// decode by parts: the same request, or the same error, for every body.
func FuzzDecodeRequestOnePass(f *testing.F) {
	files, _ := filepath.Glob("../content/examples/*.json")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{
		`{"model":{"preset":"bert-base"},"training":{"tokens":2e8,"seq_len":128,"batch_per_gpu":32,"precision":"fp16"},"hardware":{"gpu":"a100","count":4},"strategy":"fsdp"}`,
		`{"model":{"preset":"bert-base","layers":2},"model":{"preset":"gpt2"}}`,
		`{"model":{"preset":"bert-base","layers":2},"MODEL":{"preset":"gpt2"}}`,
		`{"strategy":null,"training":{"tokens":1}}`,
		`{"strategy":{"tensor":2,"data":2,"data_mode":"fsdp"},"model":{"preset":"x"}}`,
		`{"training":{"method":"lora","lora":{"rank":0}}}`,
		`{"ſite":{"pue":1.2}}`,
		`{"model":{"preset":"bert-base"},"training":{"to\u212Aens":1}}`,
		`{"model":{"preset":"bert-base","Preset":"gpt2"}}`,
		`{"hardware":{"gpu":"t4","count":1},"hardware":{"gpu":"t4","count":1}}`,
		`{"strategy":{"tensor":2,"tensor":2}}`,
		`{"\u006dodel":{"preset":"gpt2"},"model":{"layers":3}}`,
		`{"training":{"tokens":"1e9"}}`,
		`{"colour":1}`,
		`{"model":{}} {}`,
		`[]`,
		``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		want, wantErr := decodeRequestByParts(raw, "p")
		got, gotErr := DecodeRequest(raw, "p")
		if (wantErr == nil) != (gotErr == nil) || wantErr != nil && wantErr.Error() != gotErr.Error() {
			t.Fatalf("%s: error %v, by parts %v", raw, gotErr, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: request %+v, by parts %+v", raw, got, want)
		}
	})
}

// TestOnePassSafe: the bodies the one-pass path may read and those it
// leaves to the decode by parts.
func TestOnePassSafe(t *testing.T) {
	b, err := os.ReadFile("../content/examples/request.json")
	if err != nil {
		t.Fatal(err)
	}
	if !onePassSafe(b) {
		t.Errorf("the example request is not read in one pass")
	}
	for _, s := range []string{
		`{"strategy":null}`, `{"training":{"lora":{"rank":0}}}`, `{"site":{"region":"\u0041"}}`,
		`{"ſite":{}}`, `{"model":{},"Model":{}}`,
	} {
		if onePassSafe([]byte(s)) {
			t.Errorf("%s: read in one pass", s)
		}
	}
}
