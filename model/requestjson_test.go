package model

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
)

// fill sets every field of v (a pointer's target) to a random value, or
// leaves it zero, so that each field is written both ways; strings hold
// characters encoding/json escapes, raw objects are small JSON objects.
func fill(rng *rand.Rand, v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(rng, v.Field(i))
			}
		}
	case reflect.Pointer:
		if rng.IntN(3) > 0 {
			v.Set(reflect.New(v.Type().Elem()))
			fill(rng, v.Elem())
		}
	case reflect.String:
		if v.Type() == reflect.TypeFor[RawObject]() {
			v.SetString([]string{"", `{"a": [1, 2.50, "<x>"] }`, "{\n \"b\":{}}"}[rng.IntN(3)])
			return
		}
		v.SetString([]string{"", "fsdp", "a<b>&\"c\"\u2028é\x01", Hybrid}[rng.IntN(4)])
	case reflect.Float64:
		v.SetFloat([]float64{0, 1, 4096, 1e-7, 2.5e21, -3.25, 1.0 / 3}[rng.IntN(7)])
	case reflect.Bool:
		v.SetBool(rng.IntN(2) == 1)
	}
}

// TestRequestAppendJSONIsMarshal: AppendJSON writes every field of a
// request as encoding/json's Marshal does (a field added to Request and
// not to AppendJSON fails here).
func TestRequestAppendJSONIsMarshal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		var r Request
		fill(rng, reflect.ValueOf(&r).Elem())
		want, err := json.Marshal(r)
		got, ok := r.AppendJSON(nil)
		if ok != (err == nil) || ok && string(got) != string(want) {
			t.Fatalf("request %d: AppendJSON = %s, %v\nencoding/json %s, %v", i, got, ok, want, err)
		}
	}
	r := Request{Model: ModelSpec{HFConfig: "{not json"}}
	if _, ok := r.AppendJSON(nil); ok {
		t.Error("AppendJSON of a request whose hf_config is not JSON: ok, want false (encoding/json fails)")
	}
}
