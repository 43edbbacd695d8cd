// Package keytest is the fuzz targets' oracle for exact JSON keys,
// independent of model.CheckKeys: it reads a body with encoding/json's
// token stream and says which key a strict parser must not have accepted.
package keytest

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
)

// Schema is the keys a document of some Go types may hold: every JSON
// field name they reach, and the fields whose value is free-form JSON (a
// map, or a non-struct type with its own UnmarshalJSON such as a raw
// object), whose keys are not field names.
type Schema struct {
	names, free map[string]bool
}

var unmarshaler = reflect.TypeFor[json.Unmarshaler]()

// New returns the schema of the given types and the types they reach
// (struct fields, pointers, slices, maps): a field's name is its tag's, or
// the Go name of an untagged field.
func New(types ...reflect.Type) Schema {
	s := Schema{names: map[string]bool{}, free: map[string]bool{}}
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] {
			return
		}
		seen[t] = true
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if name == "" && !f.Anonymous {
				name = f.Name
			}
			if name != "" {
				s.names[name] = true
				ft := f.Type
				for ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft.Kind() == reflect.Map || ft.Kind() != reflect.Struct && (ft.Implements(unmarshaler) || reflect.PointerTo(ft).Implements(unmarshaler)) {
					s.free[name] = true
				}
			}
			walk(f.Type)
		}
	}
	for _, t := range types {
		walk(t)
	}
	return s
}

// Bad returns the first object key of body (a valid JSON document, a UTF-8
// byte-order mark allowed) that is not a field name of s or that its
// object holds twice, with why; "" if there is none. Keys inside a free
// field's value are checked for duplicates only.
func (s Schema) Bad(body []byte) string {
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimPrefix(body, []byte("\ufeff"))))
	type level struct {
		object, wantKey, free bool
		seen                  map[string]bool
	}
	var stack []*level
	pendingFree := false // the value about to start is a free field's
	inFree := func() bool { return len(stack) > 0 && stack[len(stack)-1].free }
	endValue := func() {
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].wantKey = true
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		var top *level
		if n := len(stack); n > 0 {
			top = stack[n-1]
		}
		if top != nil && top.object && top.wantKey {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:len(stack)-1]
				endValue()
				continue
			}
			key := tok.(string)
			if top.seen[key] {
				return "duplicate key " + key
			}
			top.seen[key] = true
			if !top.free && !s.names[key] {
				return "unknown key " + key
			}
			top.wantKey = false
			pendingFree = !top.free && s.free[key]
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &level{object: true, wantKey: true, free: pendingFree || inFree(), seen: map[string]bool{}})
		case json.Delim('['):
			stack = append(stack, &level{free: pendingFree || inFree()})
		case json.Delim(']'), json.Delim('}'):
			stack = stack[:len(stack)-1]
			endValue()
		default:
			endValue()
		}
		pendingFree = false
	}
}
