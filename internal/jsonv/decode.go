package jsonv

import (
	"reflect"
	"strconv"
	"strings"
)

// Decode parses b (Parse) and stores it in v, a non-nil pointer (Store).
func Decode(b []byte, v any) error {
	t, err := Parse(b)
	if err != nil {
		return err
	}
	return Store(t, v)
}

// Store stores the value t in v, a non-nil pointer, as encoding/json's
// Unmarshal stores a document (with its decoder's DisallowUnknownFields),
// except that an object's keys must be exactly its fields' names and may
// not repeat. null leaves a value as it is and sets a pointer, slice, map
// or interface to nil; a number goes into an integer only if its literal
// is an integer in range; an array's elements beyond a Go array's length
// are dropped, as encoding/json drops them.
func Store(t Value, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return &Error{Msg: "Store needs a non-nil pointer"}
	}
	return store(t, rv.Elem(), "")
}

func typeErr(t *Value, path string, want string) error {
	if path == "" {
		path = "(document)"
	}
	return &Error{Offset: t.Start, Path: path, Msg: "want " + want + ", got " + kindNames[t.Kind]}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func store(t Value, v reflect.Value, path string) error {
	if t.Kind == Null {
		switch v.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
			v.SetZero()
		}
		return nil
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		return store(t, v.Elem(), path)
	case reflect.Interface:
		if v.NumMethod() != 0 {
			return &Error{Offset: t.Start, Path: path, Msg: "cannot store into " + v.Type().String()}
		}
		v.Set(reflect.ValueOf(t.Any()))
		return nil
	case reflect.String:
		if t.Kind != String {
			return typeErr(&t, path, "a string")
		}
		v.SetString(t.Str)
	case reflect.Bool:
		if t.Kind != Bool {
			return typeErr(&t, path, "a boolean")
		}
		v.SetBool(t.Bool)
	case reflect.Float32, reflect.Float64:
		if t.Kind != Number {
			return typeErr(&t, path, "a number")
		}
		f, err := strconv.ParseFloat(t.Str, v.Type().Bits())
		if err != nil {
			return &Error{Offset: t.Start, Path: path, Msg: "number " + t.Str + " is out of range"}
		}
		v.SetFloat(f)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if t.Kind != Number {
			return typeErr(&t, path, "an integer")
		}
		n, err := strconv.ParseInt(t.Str, 10, v.Type().Bits())
		if err != nil {
			return &Error{Offset: t.Start, Path: path, Msg: "want an integer in range, got " + t.Str}
		}
		v.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if t.Kind != Number {
			return typeErr(&t, path, "an integer")
		}
		n, err := strconv.ParseUint(t.Str, 10, v.Type().Bits())
		if err != nil {
			return &Error{Offset: t.Start, Path: path, Msg: "want a non-negative integer in range, got " + t.Str}
		}
		v.SetUint(n)
	case reflect.Slice:
		if t.Kind != Array {
			return typeErr(&t, path, "an array")
		}
		s := reflect.MakeSlice(v.Type(), len(t.Elems), len(t.Elems))
		for i, e := range t.Elems {
			if err := store(e, s.Index(i), path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
		v.Set(s)
	case reflect.Array:
		if t.Kind != Array {
			return typeErr(&t, path, "an array")
		}
		for i := range v.Len() {
			if i >= len(t.Elems) {
				v.Index(i).SetZero()
				continue
			}
			if err := store(t.Elems[i], v.Index(i), path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
	case reflect.Map:
		if t.Kind != Object {
			return typeErr(&t, path, "an object")
		}
		if v.Type().Key().Kind() != reflect.String {
			return &Error{Offset: t.Start, Path: path, Msg: "cannot store into " + v.Type().String()}
		}
		if v.IsNil() {
			v.Set(reflect.MakeMapWithSize(v.Type(), len(t.Keys)))
		}
		seen := map[string]bool{}
		for i, k := range t.Keys {
			if seen[k] {
				return &Error{Offset: t.Members[i].Start, Path: join(path, k), Msg: "is given twice"}
			}
			seen[k] = true
			e := reflect.New(v.Type().Elem()).Elem()
			if err := store(t.Members[i], e, join(path, k)); err != nil {
				return err
			}
			v.SetMapIndex(reflect.ValueOf(k).Convert(v.Type().Key()), e)
		}
	case reflect.Struct:
		if t.Kind != Object {
			return typeErr(&t, path, "an object")
		}
		fields := fieldsOf(v.Type())
		seen := map[string]bool{}
		for i, k := range t.Keys {
			if seen[k] {
				return &Error{Offset: t.Members[i].Start, Path: join(path, k), Msg: "is given twice"}
			}
			seen[k] = true
			idx, ok := fields[k]
			if !ok {
				return &Error{Offset: t.Members[i].Start, Path: join(path, k), Msg: "is not a known field"}
			}
			f, err := fieldByIndex(v, idx)
			if err != nil {
				return err
			}
			if err := store(t.Members[i], f, join(path, k)); err != nil {
				return err
			}
		}
	default:
		return &Error{Offset: t.Start, Path: path, Msg: "cannot store into " + v.Type().String()}
	}
	return nil
}

// fieldByIndex is v.FieldByIndex, allocating the embedded pointers on the
// way.
func fieldByIndex(v reflect.Value, idx []int) (reflect.Value, error) {
	for i, x := range idx {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				if !v.CanSet() {
					return v, &Error{Msg: "cannot set an embedded pointer to an unexported type"}
				}
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, nil
}

// fieldsOf maps a struct's JSON names to its fields, embedded structs'
// fields promoted as encoding/json promotes them (the shallower wins; of
// two at one depth, a tagged one; otherwise neither).
func fieldsOf(t reflect.Type) map[string][]int {
	type cand struct {
		idx    []int
		tagged bool
	}
	byName := map[string][]cand{}
	var walk func(t reflect.Type, idx []int, depth int)
	walk = func(t reflect.Type, idx []int, depth int) {
		if depth > 10 {
			return
		}
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			at := append(append([]int(nil), idx...), i)
			if f.Anonymous && name == "" {
				ft := f.Type
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft.Kind() == reflect.Struct {
					walk(ft, at, depth+1)
					continue
				}
			}
			if !f.IsExported() {
				continue
			}
			tagged := name != ""
			if !tagged {
				name = f.Name
			}
			byName[name] = append(byName[name], cand{at, tagged})
		}
	}
	walk(t, nil, 0)
	out := map[string][]int{}
	for name, cs := range byName {
		depth := len(cs[0].idx)
		for _, c := range cs {
			depth = min(depth, len(c.idx))
		}
		var top, tagged []cand
		for _, c := range cs {
			if len(c.idx) == depth {
				top = append(top, c)
				if c.tagged {
					tagged = append(tagged, c)
				}
			}
		}
		switch {
		case len(tagged) == 1:
			out[name] = tagged[0].idx
		case len(top) == 1:
			out[name] = top[0].idx
		}
	}
	return out
}

// Any is the value as encoding/json decodes it into an interface:
// map[string]any, []any, float64, string, bool or nil (a number out of
// float64's range is ±Inf here, where encoding/json fails).
func (t Value) Any() any {
	switch t.Kind {
	case Bool:
		return t.Bool
	case Number:
		f, _ := strconv.ParseFloat(t.Str, 64)
		return f
	case String:
		return t.Str
	case Array:
		out := make([]any, len(t.Elems))
		for i, e := range t.Elems {
			out[i] = e.Any()
		}
		return out
	case Object:
		out := make(map[string]any, len(t.Keys))
		for i, k := range t.Keys {
			out[k] = t.Members[i].Any()
		}
		return out
	}
	return nil
}
