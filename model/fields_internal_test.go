package model

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// reflectSet is Field.Set as it was written with package reflect (the
// struct field found by its JSON tag, optional objects allocated on the
// way): the reference TestSetIsReflectSet holds the switch (Request.at)
// to.
func reflectSet(path string, req *Request, v any) bool {
	if path == "strategy" {
		s, ok := v.(string)
		if ok {
			req.Strategy.Name = s
		}
		return ok
	}
	dst := reflect.ValueOf(req).Elem()
	for _, name := range strings.Split(path, ".") {
		if dst.Kind() == reflect.Pointer {
			if dst.IsNil() {
				dst.Set(reflect.New(dst.Type().Elem()))
			}
			dst = dst.Elem()
		}
		if dst.Kind() != reflect.Struct {
			return false
		}
		t, found := dst.Type(), false
		for i := range t.NumField() {
			if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); tag == name {
				dst, found = dst.Field(i), true
				break
			}
		}
		if !found {
			return false
		}
	}
	if dst.Kind() == reflect.Pointer {
		dst.Set(reflect.New(dst.Type().Elem()))
		dst = dst.Elem()
	}
	val := reflect.ValueOf(v)
	if val.Kind() != dst.Kind() {
		return false
	}
	dst.Set(val.Convert(dst.Type()))
	return true
}

// TestSetIsReflectSet checks that Field.Set stores each kind of value at
// every field's path as the reflection over the request's JSON tags did,
// and refuses the same wrong kinds; and that every leaf of the request
// type has a path Request.at knows, so a new field cannot be missed.
func TestSetIsReflectSet(t *testing.T) {
	values := []any{2.5, "fsdp", true, false, 3, nil}
	for i := range RequestFields {
		f := &RequestFields[i]
		if f.Path == "" {
			continue
		}
		for _, v := range values {
			var got, want Request
			err := f.Set(&got, v)
			ok := reflectSet(f.Path, &want, v)
			if (err == nil) != ok {
				t.Errorf("Set(%s, %#v): error %v, reflection stored it: %v", f.Path, v, err, ok)
				continue
			}
			// (On a refusal, a programming error, reflection had
			// already allocated an optional value: not compared.)
			if err == nil && !reflect.DeepEqual(got, want) {
				t.Errorf("Set(%s, %#v) = %+v, reflection gives %+v", f.Path, v, got, want)
			}
		}
	}
	var walk func(t reflect.Type, prefix string, each func(string))
	walk = func(t reflect.Type, prefix string, each func(string)) {
		for i := range t.NumField() {
			tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			if tag == "-" || tag == "" {
				continue
			}
			ft := t.Field(i).Type
			if ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				walk(ft, prefix+tag+".", each)
				continue
			}
			each(prefix + tag)
		}
	}
	n := 0
	walk(reflect.TypeOf(Request{}), "", func(path string) {
		n++
		var r Request
		if r.at(path) == nil {
			t.Errorf("Request.at(%q) = nil: the request has that field", path)
		}
	})
	if n < 40 {
		t.Errorf("walked %d request fields, want the whole request", n)
	}
	var r Request
	if r.at("model.nope") != nil || r.at("training.lora.nope") != nil {
		t.Errorf("Request.at of an unknown path is not nil")
	}
}

// TestFieldDefaultTexts holds RequestFields' constant texts to the values
// they write out: the defaults' figures, the precisions offered and the
// Hugging Face families read.
func TestFieldDefaultTexts(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{defaultStateBytesText, strconv.Itoa(DefaultStateBytesPerParam)},
		{defaultCarbonText, formatFloat(DefaultCarbonGPerKWh)},
		{defaultPUEText, formatFloat(DefaultPUE)},
		{defaultUSDText, formatFloat(DefaultUSDPerKWh)},
	} {
		if c.text != c.want {
			t.Errorf("default text %q, want %q", c.text, c.want)
		}
	}
	var names []string
	for _, f := range hfFamilies {
		names = append(names, f.name)
	}
	if got := strings.Join(names, ", "); hfFamilyNames != got {
		t.Errorf("hfFamilyNames = %q, want %q", hfFamilyNames, got)
	}
	var precisions []string
	for _, p := range Precisions {
		precisions = append(precisions, string(p))
	}
	if f := RequestField("training.precision"); f == nil || !reflect.DeepEqual(f.Choices, precisions) {
		t.Errorf("precision choices %v, want %v", f, precisions)
	}
}
