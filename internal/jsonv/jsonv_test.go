package jsonv

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

// sample has the kinds of field the project's files use.
type sample struct {
	Name   string             `json:"name"`
	N      int                `json:"n,omitempty"`
	F      float64            `json:"f"`
	On     bool               `json:"on"`
	P      *inner             `json:"p,omitempty"`
	Pair   [2]float64         `json:"pair"`
	List   []string           `json:"list"`
	Map    map[kind]inner     `json:"map"`
	Any    any                `json:"any"`
	Skip   string             `json:"-"`
	Nested []inner            `json:"nested"`
	Named  named              `json:"named"`
	Deep   map[string][]*bool `json:"deep"`
}

type kind string

type inner struct {
	V  float64 `json:"v"`
	SE float64 `json:"se,omitempty"`
}

type named struct {
	Label string `json:"label"`
	inner
	T float64 `json:"t"`
}

var seeds = []string{
	`{"name":"a","n":3,"f":-1.5e-7,"on":true,"p":{"v":2},"pair":[1,2,3],"list":["x","\u00e9\ud83d\ude00"],"map":{"nv":{"v":1,"se":0.5}},"any":{"b":[1,"s",null,false]},"nested":[{"v":1}],"named":{"label":"l","v":4,"t":5},"deep":{"k":[true,null]}}`,
	`{"p":null,"list":null,"map":null,"any":null,"pair":[1]}`,
	`{"f":1e400}`, `{"n":1.5}`, `{"n":"1"}`, `{"name":1}`, `{"x":1}`, `{"name":"a","name":"b"}`,
	`{"name":"\ud800x\udc00\ud83d"}`, "{\"name\":\"\xff\"}", `[1,2]`, `"s"`, `1`, `{"Name":"a"}`, ` {} `, `{}x`, `{"a":}`, `-01`, `1.`, `[1,]`,
}

// FuzzParse holds Parse to encoding/json: the same documents are valid,
// and Indent writes what encoding/json writes for the document decoded
// into an interface.
func FuzzParse(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := Parse(b)
		if (err == nil) != json.Valid(b) {
			t.Fatalf("Parse(%q) error %v, json.Valid %v", b, err, json.Valid(b))
		}
		if err != nil {
			return
		}
		var x any
		if json.Unmarshal(b, &x) != nil {
			return // a number beyond float64
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(x); err != nil {
			t.Fatal(err)
		}
		if got := string(Indent(nil, v, "  ")); got != strings.TrimSuffix(want.String(), "\n") {
			t.Fatalf("Indent(%q) =\n%s\nencoding/json:\n%s", b, got, want.String())
		}
		if !reflect.DeepEqual(v.Any(), x) {
			t.Fatalf("Parse(%q).Any() = %#v, encoding/json %#v", b, v.Any(), x)
		}
	})
}

// FuzzDecode holds Decode to encoding/json's strict decoding: a document
// Decode accepts is one encoding/json accepts, with the same value; one
// it refuses that encoding/json accepts has a key that is not exactly a
// field's name or that is given twice (encoding/json matches keys without
// regard to case and lets the last of two win).
func FuzzDecode(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var got, want sample
		err := Decode(b, &got)
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		jerr := dec.Decode(&want)
		if jerr == nil && dec.More() {
			jerr = &Error{Msg: "data after the value"}
		}
		if jerr == nil && dec.InputOffset() < int64(len(b)) && strings.TrimSpace(string(b[dec.InputOffset():])) != "" {
			jerr = &Error{Msg: "data after the value"}
		}
		switch {
		case err == nil && jerr != nil:
			t.Fatalf("Decode(%q) accepted what encoding/json refuses: %v", b, jerr)
		case err == nil && !reflect.DeepEqual(got, want):
			t.Fatalf("Decode(%q) = %+v, encoding/json %+v", b, got, want)
		case err != nil && jerr == nil:
			e, ok := err.(*Error)
			if !ok || e.Msg != "is not a known field" && e.Msg != "is given twice" {
				t.Fatalf("Decode(%q) refused what encoding/json accepts: %v", b, err)
			}
		}
	})
}

func TestDecodeErrorsSayWhere(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"p":{"v":"x"}}`, `p.v: want a number, got a string`},
		{`{"nested":[{"v":1},{"v":true}]}`, `nested[1].v: want a number, got a boolean`},
		{`{"n":2.5}`, `n: want an integer in range, got 2.5`},
		{`{"f":1e999}`, `f: number 1e999 is out of range`},
		{`{"map":{"a":{"w":1}}}`, `map.a.w: is not a known field`},
		{`{"name":"a","name":"b"}`, `name: is given twice`},
		{"{\n\"name\": x}", `invalid JSON at byte 10: want a value`},
	} {
		var s sample
		if err := Decode([]byte(c.in), &s); err == nil || err.Error() != c.want {
			t.Errorf("Decode(%q) error = %v, want %q", c.in, err, c.want)
		}
	}
}

func TestAppendFloatIsEncodingJSONs(t *testing.T) {
	for _, f := range []float64{0, 1, -2.5, 1e-7, 1.5e-6, 1e21, 123456789012345678901, 1e20, 3.14159, math.SmallestNonzeroFloat64, math.MaxFloat64, -1e-9} {
		want, _ := json.Marshal(f)
		if got := string(AppendFloat(nil, f)); got != string(want) {
			t.Errorf("AppendFloat(%v) = %s, encoding/json %s", f, got, want)
		}
	}
}

// FuzzCompact holds Compact and AppendStringHTML to encoding/json's
// Marshal of a RawMessage and of a string.
func FuzzCompact(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Add([]byte("{\"a\" : \"<&>\u2028\u2029\\\" x\" , \"b\": [ 1 ,\n2 ] }"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := Compact(nil, b)
		want, err := json.Marshal(json.RawMessage(b))
		if ok != (err == nil) || ok && string(got) != string(want) {
			t.Fatalf("Compact(%q) = %q, %v; encoding/json %q, %v", b, got, ok, want, err)
		}
		s := string(b)
		want, _ = json.Marshal(s)
		if got := AppendStringHTML(nil, s); string(got) != string(want) {
			t.Fatalf("AppendStringHTML(%q) = %q, encoding/json %q", s, got, want)
		}
	})
}
