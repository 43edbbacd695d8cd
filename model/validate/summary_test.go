package validate_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/model/validate"
)

var updateSummary = flag.Bool("update", false, "rewrite the summary table of content/validation/README.md from runs.csv")

// summaryTable is the validation README's summary of the table: counts by
// phase, source kind, energy scope, accelerator, GPU count, stack and
// method, most frequent first (ties by name).
func summaryTable(runs []validate.Run) string {
	counts := func(key func(validate.Run) string) string {
		m := map[string]int{}
		for _, r := range runs {
			m[key(r)]++
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			if m[keys[i]] != m[keys[j]] {
				return m[keys[i]] > m[keys[j]]
			}
			return keys[i] < keys[j]
		})
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%s %d", k, m[k])
		}
		return strings.Join(parts, ", ")
	}
	var one, many, none int
	for _, r := range runs {
		switch {
		case r.Count == 0:
			none++
		case r.Count == 1:
			one++
		default:
			many++
		}
	}
	var b strings.Builder
	b.WriteString("| | count |\n|---|---|\n")
	fmt.Fprintf(&b, "| rows | %d |\n", len(runs))
	fmt.Fprintf(&b, "| phase | %s |\n", counts(func(r validate.Run) string { return r.Phase }))
	fmt.Fprintf(&b, "| source_kind | %s |\n", counts(func(r validate.Run) string { return r.SourceKind }))
	fmt.Fprintf(&b, "| energy_scope | %s |\n", counts(func(r validate.Run) string { return r.Scope }))
	fmt.Fprintf(&b, "| accelerator | %s |\n", counts(func(r validate.Run) string { return r.GPU }))
	fmt.Fprintf(&b, "| single accelerator / multi-accelerator / count not reported | %d / %d / %d |\n", one, many, none)
	fmt.Fprintf(&b, "| stack | %s |\n", counts(func(r validate.Run) string { return r.Stack }))
	fmt.Fprintf(&b, "| method | %s |\n", counts(func(r validate.Run) string { return r.Method }))
	return b.String()
}

// TestREADMESummary checks the validation README's summary table against
// runs.csv (-update rewrites it), so the counts the page shows cannot go
// stale when rows are added.
func TestREADMESummary(t *testing.T) {
	path := filepath.Join("..", "..", "content", "validation", "README.md")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	start := strings.Index(doc, "| | count |\n")
	if start < 0 {
		t.Fatalf("%s has no summary table (a line \"| | count |\")", path)
	}
	end := start + strings.Index(doc[start:], "\n\n") + 1
	got, want := doc[start:end], summaryTable(table(t))
	if got == want {
		return
	}
	if *updateSummary {
		if err := os.WriteFile(path, []byte(doc[:start]+want+doc[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s: the summary table differs from runs.csv (go test ./model/validate -run TestREADMESummary -update):\ngot\n%s\nwant\n%s", path, got, want)
}
