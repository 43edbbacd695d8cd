package model_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/model"
)

// fieldsTable writes the request's field table as Markdown, one row per
// row of model.RequestFields with a request path.
func fieldsTable() string {
	var b strings.Builder
	b.WriteString("| field | kind | accepted | left out | what it is |\n|---|---|---|---|---|\n")
	for _, f := range model.RequestFields {
		if f.Path == "" {
			continue
		}
		acc := ""
		if f.Bounds != nil {
			acc = strings.TrimPrefix(f.Rule(), "must be ")
		}
		var cs []string
		for _, c := range f.Choices {
			if c != "" {
				cs = append(cs, "`"+c+"`")
			}
		}
		if len(cs) > 0 {
			acc = "one of " + strings.Join(cs, ", ")
		}
		left := f.Default
		if !f.Optional && left == "" {
			left = "required"
			if f.When != nil {
				left = "required when used"
			}
		}
		kind := string(f.Kind)
		if f.Unit != "" {
			kind += ", " + f.Unit
		}
		b.WriteString("| `" + f.Path + "` | " + kind + " | " + acc + " | " + left + " | " + f.Help + " |\n")
	}
	return b.String()
}

// TestDocsListEveryField checks that the API page (the manual's list of
// request fields; the README links to it) carries the field table as
// model.RequestFields writes it (-update rewrites them), so
// that the documented fields, ranges and defaults are the ones the model
// checks.
func TestDocsListEveryField(t *testing.T) {
	want := fieldsTable()
	header := want[:strings.Index(want, "\n")+1]
	for _, p := range []string{"../content/pages/api.md"} {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		s := string(raw)
		i := strings.Index(s, header)
		if i < 0 {
			t.Errorf("%s has no field table (a line %q)", filepath.Base(p), strings.TrimSpace(header))
			continue
		}
		j := strings.Index(s[i:], "\n\n")
		if j < 0 {
			j = len(s) - i - 1
		}
		got := s[i : i+j+1]
		if got == want {
			continue
		}
		if *update {
			if err := os.WriteFile(p, []byte(s[:i]+want+s[i+j+1:]), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s: the field table differs from model.RequestFields (run go test ./model -run TestDocsListEveryField -update):\n%s\nwant:\n%s", p, got, want)
	}
}

// TestTableCoversTheRequest walks model.Request by its JSON names and
// requires a row of the field table for every leaf (and the strategy), so
// that a request field cannot be added without its row.
func TestTableCoversTheRequest(t *testing.T) {
	want := map[string]bool{"strategy": true}
	var walk func(rt reflect.Type, prefix string)
	walk = func(rt reflect.Type, prefix string) {
		for i := range rt.NumField() {
			name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			ft := rt.Field(i).Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				walk(ft, prefix+name+".")
				continue
			}
			want[prefix+name] = true
		}
	}
	walk(reflect.TypeFor[model.Request](), "")
	have := map[string]bool{}
	for _, f := range model.RequestFields {
		if f.Path != "" {
			have[f.Path] = true
		}
	}
	for p := range want {
		if !have[p] {
			t.Errorf("request field %s has no row in model.RequestFields", p)
		}
	}
	for p := range have {
		if !want[p] {
			t.Errorf("model.RequestFields has %s, which is not a request field", p)
		}
	}
}
