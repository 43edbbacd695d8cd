package gen

import (
	"os"
	"strings"
	"testing"
)

// TestPowerReport: the report's power-limit section has the two charts
// with every capped run as a marker, and the cross-validation rows; without
// the trace it says why the charts are missing.
func TestPowerReport(t *testing.T) {
	zeus, st, err := loadZeus(os.DirFS(testDataDir()), "DATA_DIR")
	if err != nil {
		t.Fatal(err)
	}
	if !st.Available {
		if os.Getenv("WATTSCALE_REQUIRE_E2E") == "1" {
			t.Fatalf("Zeus trace missing: %s", st.Note)
		}
		t.Skipf("Zeus trace not available: %s", st.Note)
	}
	r, err := powerReport(zeus, st)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Charts) != 2 || len(r.CV) != 2 || len(r.Coefs) != 4 {
		t.Fatalf("power report: %d charts, %d CV rows, %d coefficients; want 2, 2, 4", len(r.Charts), len(r.CV), len(r.Coefs))
	}
	for i, c := range r.Charts {
		if n := strings.Count(string(c), "<title>"); n < 205 {
			t.Errorf("chart %d has %d labelled markers, want the 205 capped runs", i, n)
		}
	}
	none, err := powerReport(nil, ZeusStatus{Path: "DATA_DIR/zeus-bert-power.csv", Note: "DATA_DIR is not set"})
	if err != nil || len(none.Charts) != 0 || !strings.Contains(none.ChartNote, "DATA_DIR is not set") {
		t.Errorf("without the trace: %d charts, note %q, error %v", len(none.Charts), none.ChartNote, err)
	}
}
