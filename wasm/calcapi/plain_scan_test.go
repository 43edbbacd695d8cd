package calcapi

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// The regular expressions replaceRanges and replacePaths implement (plain.go
// does without package regexp to keep it out of calc.wasm).
var (
	pathRE  = regexp.MustCompile(`options\[\d+\]\.[a-z_]+(?:\.[a-z_]+)*|\b(?:model|training|hardware|strategy|site|serving)\.[a-z_]+(?:\.[a-z_]+)?\b`)
	rangeRE = regexp.MustCompile(`in \[([^\],]+), ([^\]]+)\]`)
)

// TestScannersMatchRegexps compares the scanners with the regular
// expressions on real messages and on 200,000 random strings built from
// the pieces that matter (names, dots, brackets, digits, word characters).
func TestScannersMatchRegexps(t *testing.T) {
	mark := func(p string) string { return "<" + p + ">" }
	check := func(s string) {
		t.Helper()
		if got, want := replacePaths(s, mark), pathRE.ReplaceAllStringFunc(s, mark); got != want {
			t.Fatalf("replacePaths(%q) = %q, regexp gives %q", s, got, want)
		}
		if got, want := replaceRanges(s), rangeRE.ReplaceAllString(s, "from $1 to $2"); got != want {
			t.Fatalf("replaceRanges(%q) = %q, regexp gives %q", s, got, want)
		}
	}
	for _, s := range []string{
		"training.seq_len: must be a whole number in [1, 1048576], got 0",
		"options[2].stages_kwh.teacher: must be in [0, 1e9]",
		"set training.state_bytes_per_param (or model.kv_heads) to fit; hardware.gpu a100 not in [a, b]",
		"xmodel.a model.a.bC model.a. site.pue2 serving.j_ref, strategy.tensor.x.y options[].a options[1].A",
		"in [1,2] in [, 2] in [1, ] in [1, 2 in [[1, 2]] in [1, 2]]", "", "model.", "options[12].a_b.c.d.",
	} {
		check(s)
	}
	pieces := []string{"model", "training", "hardware", "strategy", "site", "serving", "options", ".", "[", "]", ", ", ",", " ",
		"in [", "1", "42", "a", "b_c", "Z", "_", "é", "x", "seq_len"}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200000; i++ {
		var b strings.Builder
		for n := rng.IntN(12); n >= 0; n-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		check(b.String())
	}
}
