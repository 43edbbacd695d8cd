package gen

import (
	"go/parser"
	"go/token"
	"regexp"
	"testing"
)

// TestDocIsTheSpecification requires the package doc, the content tree's
// specification, to list every front-matter key and every template that
// load accepts, each at the start of a line of its tables.
func TestDocIsTheSpecification(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	if f.Doc == nil {
		t.Fatal("doc.go has no package doc")
	}
	doc := f.Doc.Text()
	for _, c := range []struct {
		what  string
		names []string
	}{{"front-matter key", frontMatterKeys}, {"template", templates}} {
		for _, name := range c.names {
			if !regexp.MustCompile(`(?m)^\t` + regexp.QuoteMeta(name) + ` `).MatchString(doc) {
				t.Errorf("the package doc does not describe the %s %q", c.what, name)
			}
		}
	}
}
