package model

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/internal/jsonv"
)

// TestCalibrationKeys: the key schema ParseCalibration checks with is the
// one CheckKeys derives from the Calibration type by reflection.
func TestCalibrationKeys(t *testing.T) {
	got, want := calibrationKeys(), keysOf(reflect.TypeFor[Calibration]())
	if !reflect.DeepEqual(got, want) {
		t.Errorf("calibrationKeys() =\n%s\nwant keysOf(Calibration) =\n%s", keyPaths(got), keyPaths(want))
	}
}

// keyPaths lists a schema's paths, one a line ("fit.without_eta" once).
func keyPaths(k *keys) string {
	var out []string
	seen := map[*keys]bool{}
	var walk func(k *keys, path string)
	walk = func(k *keys, path string) {
		if k == nil {
			out = append(out, path)
			return
		}
		if seen[k] {
			out = append(out, path+" (again)")
			return
		}
		seen[k] = true
		defer delete(seen, k)
		switch k.kind {
		case keyStruct:
			out = append(out, path+" {}")
			for name, f := range k.fields {
				walk(f, path+"."+name)
			}
		case keyList:
			walk(k.elem, path+"[]")
		case keyMap:
			walk(k.elem, path+"{*}")
		}
	}
	walk(k, "")
	slices.Sort(out)
	return strings.Join(out, "\n")
}

// decodeByReflection is decodeCalibration as it was before
// calibrationjson.go: CheckKeys and jsonv.Decode, both by reflection.
func decodeByReflection(data []byte) (Calibration, error) {
	var c Calibration
	if err := CheckKeys(data, &c); err != nil {
		return c, err
	}
	return c, jsonv.Decode(data, &c)
}

// sameDecode fails t unless decodeCalibration and decodeByReflection agree
// on doc: the same calibration (after an error too: both fill in the same
// fields before it) and the same error (its words, code, field path and
// byte offset).
func sameDecode(t *testing.T, doc []byte) {
	t.Helper()
	got, gotErr := decodeCalibration(doc)
	want, wantErr := decodeByReflection(doc)
	if !reflect.DeepEqual(gotErr, wantErr) {
		t.Fatalf("decodeCalibration(%.300s) error = %#v (%v), by reflection %#v (%v)", doc, gotErr, gotErr, wantErr, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decodeCalibration(%.300s) =\n%+v\nby reflection\n%+v", doc, got, want)
	}
}

// shippedCalibrations are the files under content/calibrations.
func shippedCalibrations(t testing.TB) map[string][]byte {
	names, err := filepath.Glob("../content/calibrations/*.json")
	if err != nil || len(names) == 0 {
		t.Fatalf("no calibration files: %v", err)
	}
	out := map[string][]byte{}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(n)] = b
	}
	return out
}

// TestCalibrationDecoder holds decodeCalibration to encoding/json on the
// shipped calibrations (and ParseCalibration too) and on a document that
// sets every field, and to decodeByReflection on every variant of the
// latter with one value replaced by a value of another type, an
// out-of-range number or null, or one object given an unknown key, a key
// that differs from another in case only, or a key twice.
func TestCalibrationDecoder(t *testing.T) {
	docs := shippedCalibrations(t)
	full, err := json.Marshal(fullValue(reflect.TypeFor[Calibration](), 0).Interface())
	if err != nil {
		t.Fatal(err)
	}
	docs["every field"] = full
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			var want Calibration
			if err := json.Unmarshal(doc, &want); err != nil {
				t.Fatal(err)
			}
			if got, err := decodeCalibration(doc); err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("decodeCalibration = %+v, %v\nencoding/json: %+v", got, err, want)
			}
			if name != "every field" {
				if got, err := ParseCalibration(doc); err != nil || !reflect.DeepEqual(got, want) {
					t.Fatalf("ParseCalibration = %+v, %v\nencoding/json: %+v", got, err, want)
				}
				return
			}
			for _, variant := range variants(t, doc) {
				sameDecode(t, variant)
			}
		})
	}
}

// replacements are what a value is replaced with in a variant.
// (every kind of JSON value, a number that fits no integer, one out of
// range, an object and an array with a key no struct has).
var replacements = []string{`null`, `"s"`, `1.5`, `1e999`, `true`, `{"x":1}`, `[{"x":1}]`}

// variants are doc with one value replaced (replacements), or one object
// given an unknown key, a key that differs from the first only in case,
// or its first key twice.
func variants(t *testing.T, doc []byte) [][]byte {
	root, err := jsonv.Parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	splice := func(start, end int, s string) []byte {
		return slices.Concat(doc[:start], []byte(s), doc[end:])
	}
	var walk func(v jsonv.Value)
	walk = func(v jsonv.Value) {
		for _, r := range replacements {
			out = append(out, splice(v.Start, v.End, r))
		}
		switch v.Kind {
		case jsonv.Array:
			for _, e := range v.Elems {
				walk(e)
			}
		case jsonv.Object:
			out = append(out, splice(v.Start+1, v.Start+1, `"zz_unknown":1`+comma(v)))
			if len(v.Keys) > 0 {
				k := v.Keys[0]
				out = append(out, splice(v.Start+1, v.Start+1, strconv.Quote(strings.ToUpper(k))+`:1,`))
				out = append(out, splice(v.Start+1, v.Start+1, strconv.Quote(k)+`:null,`))
			}
			for _, m := range v.Members {
				walk(m)
			}
		}
	}
	walk(root)
	return out
}

func comma(v jsonv.Value) string {
	if len(v.Keys) > 0 {
		return ","
	}
	return ""
}

// fullValue is a value of type t with every field set (maps and slices
// with two entries, pointers allocated, a type inside itself once), each
// number and string different.
func fullValue(t reflect.Type, depth int) reflect.Value {
	n := 0
	var fill func(v reflect.Value, depth int)
	fill = func(v reflect.Value, depth int) {
		n++
		switch v.Kind() {
		case reflect.String:
			v.SetString("s" + strconv.Itoa(n))
		case reflect.Float64:
			v.SetFloat(float64(n) + 0.25)
		case reflect.Int:
			v.SetInt(int64(n))
		case reflect.Bool:
			v.SetBool(true)
		case reflect.Pointer:
			if depth > 1 {
				return
			}
			v.Set(reflect.New(v.Type().Elem()))
			fill(v.Elem(), depth+1)
		case reflect.Struct:
			for i := range v.NumField() {
				fill(v.Field(i), depth)
			}
		case reflect.Array:
			for i := range v.Len() {
				fill(v.Index(i), depth)
			}
		case reflect.Slice:
			v.Set(reflect.MakeSlice(v.Type(), 2, 2))
			for i := range 2 {
				fill(v.Index(i), depth)
			}
		case reflect.Map:
			v.Set(reflect.MakeMap(v.Type()))
			for range 2 {
				k := reflect.New(v.Type().Key()).Elem()
				fill(k, depth)
				e := reflect.New(v.Type().Elem()).Elem()
				fill(e, depth)
				v.SetMapIndex(k, e)
			}
		default:
			panic("fullValue: no case for " + v.Type().String())
		}
	}
	v := reflect.New(t).Elem()
	fill(v, depth)
	return v
}

// FuzzDecodeCalibration holds decodeCalibration to decodeByReflection on
// any bytes.
func FuzzDecodeCalibration(f *testing.F) {
	for _, doc := range shippedCalibrations(f) {
		f.Add(doc)
	}
	full, _ := json.Marshal(fullValue(reflect.TypeFor[Calibration](), 0).Interface())
	f.Add(full)
	for _, s := range []string{`{"name":"x","fit":{"without_eta":{"without_eta":{"n":1.5}}}}`, `{"envelope":{"layers":[1,"x",3]}}`, `{"law":{"ln_psi":{"a":{"value":1},"a":{}}}}`, `{"Name":1,`, `{"zz":1,`, `null`, `[]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		sameDecode(t, doc)
	})
}
