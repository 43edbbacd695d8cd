package model_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/model"
)

// TestExactKeys: a key that matches a field only without regard to case
// (or after Unicode case folding) is unknown, and a key given twice in one
// object is an error naming it, at every level of every parser.
func TestExactKeys(t *testing.T) {
	const ok = `{"model":{"preset":"bert-base"},"training":{"tokens":2e8,"seq_len":128,"batch_per_gpu":32,"precision":"fp16"},"hardware":{"gpu":"a100","count":4},"strategy":"fsdp"}`
	if _, err := model.ParseRequest(strings.NewReader(ok)); err != nil {
		t.Fatalf("ParseRequest(the valid request) = %v", err)
	}
	tests := []struct {
		name, from, to string // the valid request with from replaced by to
		field, message string // want
	}{
		{"upper-case top key", `"model"`, `"MODEL"`, "MODEL", `did you mean "model"`},
		{"long s", `"model":{"preset":"bert-base"},`, `"model":{"preset":"bert-base"},"ſite":{},`, "ſite", "not a known field"},
		{"kelvin sign", `"tokens"`, `"to\u212Aens"`, "training.to\u212Aens", "not a known field"},
		{"nested capital", `"preset"`, `"Preset"`, "model.Preset", `did you mean "preset"`},
		{"duplicate top key", `"strategy":"fsdp"`, `"strategy":"fsdp","strategy":"ddp"`, "strategy", "given twice"},
		{"case-variant duplicate", `"strategy":"fsdp"`, `"strategy":"fsdp","HARDWARE":{"gpu":"h100","count":1}`, "HARDWARE", `did you mean "hardware"`},
		{"escaped duplicate", `"strategy":"fsdp"`, `"strategy":"fsdp","\u006dodel":{}`, "model", "given twice"},
		{"nested duplicate", `"count":4`, `"count":4,"count":8`, "hardware.count", "given twice"},
		{"hybrid strategy capital", `"strategy":"fsdp"`, `"strategy":{"Tensor":2,"data":2}`, "strategy.Tensor", `did you mean "tensor"`},
		{"hybrid strategy duplicate", `"strategy":"fsdp"`, `"strategy":{"tensor":2,"data":2,"data":1}`, "strategy.data", "given twice"},
		{"lora capital", `"precision":"fp16"`, `"precision":"fp16","method":"lora","lora":{"RANK":8}`, "training.lora.RANK", `did you mean "rank"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := strings.Replace(ok, tt.from, tt.to, 1)
			if body == ok {
				t.Fatalf("%q is not in the request", tt.from)
			}
			_, err := model.ParseRequest(strings.NewReader(body))
			fe := model.AsFieldError(err)
			if fe == nil {
				t.Fatalf("ParseRequest(%s) = %v, want a field error", body, err)
			}
			if fe.Field != tt.field || !strings.Contains(fe.Message, tt.message) {
				t.Errorf("ParseRequest(%s) = %q: %q, want %q: ...%s...", body, fe.Field, fe.Message, tt.field, tt.message)
			}
		})
	}
}

// TestCheckKeysMalformed: bytes that are not JSON are left to the decoder
// (no error, no panic) when no bad key comes before the fault.
func TestCheckKeysMalformed(t *testing.T) {
	for _, s := range []string{``, `{`, `{"model"`, `{"model":`, `{"model":{}`, `[1,`, `"\`, `{"model":1,}`, `{"model" 1}`, `{1:2}`, strings.Repeat("[", 20000)} {
		if err := model.CheckKeys([]byte(s), &model.Request{}); err != nil {
			t.Errorf("CheckKeys(%.20q) = %v, want nil (the decoder reports malformed JSON)", s, err)
		}
	}
}

// TestCheckKeysEmbedded: the fields of an untagged embedded struct are
// promoted, a shallower field wins, and many keys in a map are checked for
// duplicates too.
func TestCheckKeysEmbedded(t *testing.T) {
	type inner struct {
		A int `json:"a"`
		B int `json:"b"`
	}
	type outer struct {
		inner
		B   string         `json:"b"`
		C   int            // untagged: its Go name
		M   map[string]int `json:"m"`
		Skp int            `json:"-"`
	}
	good := `{"a":1,"b":"x","C":2,"m":{"k1":1,"K1":2}}`
	if err := model.CheckKeys([]byte(good), &outer{}); err != nil {
		t.Errorf("CheckKeys(%s) = %v", good, err)
	}
	var many bytes.Buffer
	many.WriteString(`{"m":{`)
	for i := range 40 {
		many.WriteString(`"k` + strings.Repeat("x", i) + `":1,`)
	}
	many.WriteString(`"kxxx":2}}`)
	for _, tt := range []struct{ body, field string }{
		{`{"c":1}`, "c"}, {`{"Skp":1}`, "Skp"}, {`{"-":1}`, "-"}, {`{"inner":{}}`, "inner"},
		{`{"m":{"k":1,"k":2}}`, "m.k"}, {many.String(), "m.kxxx"},
	} {
		fe := model.AsFieldError(model.CheckKeys([]byte(tt.body), &outer{}))
		if fe == nil || fe.Field != tt.field {
			t.Errorf("CheckKeys(%.60s) = %v, want an error at %s", tt.body, fe, tt.field)
		}
	}
}
