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

// Names returns every JSON field name of the given types and the types
// they reach (struct fields, pointers, slices, maps): the tag's name, or
// the Go name of an untagged field.
func Names(types ...reflect.Type) map[string]bool {
	names := map[string]bool{}
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
				names[name] = true
			}
			walk(f.Type)
		}
	}
	for _, t := range types {
		walk(t)
	}
	return names
}

// Bad returns the first object key of body (a valid JSON document, a UTF-8
// byte-order mark allowed) that is not in names or that its object holds
// twice, with why; "" if there is none. A key under a map field (free
// text) is in names only by chance, so maps is the set of keys whose
// values are maps and are not checked against names.
func Bad(body []byte, names map[string]bool, maps ...string) string {
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimPrefix(body, []byte("\ufeff"))))
	type level struct {
		object, wantKey, free bool
		seen                  map[string]bool
	}
	var stack []*level
	pendingFree := false
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
		top := (*level)(nil)
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
			if !top.free && !names[key] {
				return "unknown key " + key
			}
			top.wantKey = false
			pendingFree = false
			for _, m := range maps {
				if key == m {
					pendingFree = true
				}
			}
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &level{object: true, wantKey: true, free: pendingFree, seen: map[string]bool{}})
		case json.Delim('['):
			stack = append(stack, &level{})
		case json.Delim(']'), json.Delim('}'):
			stack = stack[:len(stack)-1]
			endValue()
		default:
			endValue()
		}
		pendingFree = false
	}
}
