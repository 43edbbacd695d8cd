package gen

import (
	"strings"
	"testing"
)

// TestPlainFit checks the user-facing sentence for the default
// calibration's held-out figures (R² −0.20, coverage 0.585 of a 90 %
// interval) and for a good fit.
func TestPlainFit(t *testing.T) {
	bad := plainFit(-0.1989, 0.585, 0.9)
	for _, want := range []string{"held-out R² −0.20", "less well than the plain average", "held only 58.5 % of those runs instead of 90 %", "wider than the interval shown"} {
		if !strings.Contains(bad, want) {
			t.Errorf("plainFit(−0.20, 0.585) = %q, want %q in it", bad, want)
		}
	}
	good := plainFit(0.91, 0.89, 0.9)
	if !strings.Contains(good, "explained most") || !strings.Contains(good, "about as many as it promises") {
		t.Errorf("plainFit(0.91, 0.89) = %q", good)
	}
	if s := plainFit(0, 0, 0.9); s != "" {
		t.Errorf("plainFit with no held-out figures = %q, want nothing", s)
	}
}
