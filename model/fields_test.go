package model_test

import (
	"os"
	"path/filepath"
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

// TestDocsListEveryField checks that the README and the API page carry the
// field table as model.RequestFields writes it (-update rewrites them), so
// that the documented fields, ranges and defaults are the ones the model
// checks.
func TestDocsListEveryField(t *testing.T) {
	want := fieldsTable()
	header := want[:strings.Index(want, "\n")+1]
	for _, p := range []string{"../README.md", "../content/pages/api.md"} {
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
