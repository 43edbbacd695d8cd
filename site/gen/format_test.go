package gen

import "testing"

func TestPct(t *testing.T) {
	if got := pct(0.9); got != "90 %" {
		t.Errorf("pct(0.9) = %q, want %q", got, "90 %")
	}
}
