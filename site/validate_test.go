package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model/validate"
)

// subsetCSV writes the rows of the real table whose ids are in ids.
func subsetCSV(t *testing.T, ids ...string) string {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(content.ValidationRuns)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	keep := map[string]bool{}
	for _, id := range ids {
		keep[id] = true
	}
	out := [][]string{recs[0]}
	for _, r := range recs[1:] {
		if keep[r[0]] {
			out = append(out, r)
		}
	}
	if len(out) != len(ids)+1 {
		t.Fatalf("found %d of %d runs", len(out)-1, len(ids))
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	if err := w.WriteAll(out); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "runs.csv")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestValidateCommand runs "validate" on a small fixed subset of the table
// (the make test run of the validation) and checks its JSON with loose
// bounds: wattscale answers every run, within ×2.5 each.
func TestValidateCommand(t *testing.T) {
	path := subsetCSV(t, "olmo-2-13b-pretrain", "granite-3.0-8b-pretrain", "mlperf4.0-smc-gpt3-175b-512xh100-ac",
		"gpt-3-175b-pretrain", "mlperf4.0-smc-gpt3-175b-512xh100-dc", "distill-paper-kd-teacher-logits-olmo2-32b")
	var out, errb bytes.Buffer
	if code := run([]string{"validate", "-json", "-runs", path}, nil, &out, &errb); code != 0 {
		t.Fatalf("validate exited %d: %s", code, errb.String())
	}
	var rep validate.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("validate -json output is not a report: %v", err)
	}
	if len(rep.Rows) != 6 || rep.Headline.Rows != 4 {
		t.Fatalf("report has %d rows and %d headline runs, want 6 and 4 (a duplicate meter and a teacher stage are listed, not scored)", len(rep.Rows), rep.Headline.Rows)
	}
	for _, r := range rep.Rows {
		w := r.Predict[validate.Wattscale]
		if r.Headline && (!w.Available || w.Fold > 2.5) {
			t.Errorf("%s: wattscale available %v, fold %.2f; want an answer within ×2.5", r.ID, w.Available, w.Fold)
		}
	}
	if s := rep.Headline.Summaries[validate.SixND]; s.N != 4 {
		t.Errorf("6ND baseline answered %d of 4 headline runs", s.N)
	}

	out.Reset()
	if code := run([]string{"validate", "-runs", path}, nil, &out, &errb); code != 0 || !strings.Contains(out.String(), "headline: scored runs") {
		t.Errorf("validate (text) exited %d, output lacks the headline summary:\n%s", code, out.String())
	}
	if code := run([]string{"validate", "-holdout", "-calibration", "zoubeirou2026-bert-pooled"}, nil, &out, &errb); code != 1 {
		t.Errorf("validate -holdout -calibration exited %d, want 1", code)
	}
}
