package gen_test

import (
	"fmt"
	"io/fs"
	"log"
	"slices"
	"strings"
	"testing/fstest"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/site/gen"
)

// A content tree in memory: two pages, with the calibrations, the scaling
// table and the validation runs the repository ships.
func ExampleBuild() {
	tree := fstest.MapFS{
		"pages/index.md":             {Data: []byte("---\ntitle: Home\nnav: 1\n---\nRead the [notes](notes.md#method).\n")},
		"pages/notes.md":             {Data: []byte("---\ntitle: Notes\nnav: 2\n---\n## Method\n\nThe energy is $E = P t$.\n")},
		"data/published-scaling.csv": {Data: content.PublishedScaling},
		"validation/runs.csv":        {Data: content.ValidationRuns},
	}
	cals, err := fs.Glob(content.Calibrations, "calibrations/*.json")
	if err != nil {
		log.Fatal(err)
	}
	for _, name := range cals {
		b, err := fs.ReadFile(content.Calibrations, name)
		if err != nil {
			log.Fatal(err)
		}
		tree[name] = &fstest.MapFile{Data: b}
	}
	files, _, err := gen.Build(gen.Options{Content: tree})
	if err != nil {
		log.Fatal(err)
	}
	var pages []string
	for name := range files {
		if strings.HasSuffix(name, ".html") {
			pages = append(pages, name)
		}
	}
	slices.Sort(pages)
	fmt.Println(strings.Join(pages, "\n"))
	// Output:
	// embed.html
	// index.html
	// notes/index.html
}
