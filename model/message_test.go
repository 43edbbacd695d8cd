package model

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// placeholders are the values a text names, with their specs.
var placeholderRE = regexp.MustCompile(`\{([a-z_0-9]+)(?::([^}]*))?\}`)

// requestPathRE finds a request path written out in a sentence; the page's
// form of a message names fields by label, so its text must not.
var requestPathRE = regexp.MustCompile(`\b(?:model|training|hardware|strategy|site|serving)\.[a-z_]+`)

// sampleArgs gives every value text names a value of the kind its spec
// asks for.
func sampleArgs(text string) Args {
	var a Args
	for _, m := range placeholderRE.FindAllStringSubmatch(text, -1) {
		if _, ok := a.Get(m[1]); ok {
			continue
		}
		x := Arg{Name: m[1]}
		switch m[2] {
		case "path", "key":
			x.Str = "training.seq_len"
		case "gpu", "agpu":
			x.Str = "h100-sxm5"
		case "q":
			x.Str = "given"
		case "or":
			x.List = []string{"fsdp", "tensor parallelism"}
		case "list", "semilist", "orlist":
			x.Msgs = []Message{{Code: CodeRangeWhole, Args: Args{{Name: "min", Num: 1}, {Name: "max", Num: 8}}}, {Code: CodeRangeWhole, Args: Args{{Name: "min", Num: 2}, {Name: "max", Num: 4}}}}
		case "gpulist":
			x.List = []string{"h100-sxm5", "a100-sxm4-80gb"}
		default:
			x.Num = 2.5
		}
		a = append(a, x)
	}
	return a
}

var testPageNamer = Namer{Plain: true,
	Field: func(p string) string { return "“label of " + strings.ReplaceAll(p, ".", " ") + "”" },
	GPU:   func(id string) string { return "GPU named " + strings.ToUpper(id) }}

// TestEveryCodeRenders walks every message code: both forms name the same
// values, every value is written (no "{name}" left), the technical form
// keeps paths and ids, and the page's form gives labels and names and
// never a request path.
func TestEveryCodeRenders(t *testing.T) {
	if len(Codes()) == 0 {
		t.Fatal("no message codes")
	}
	for i, c := range Codes()[1:] {
		if c == Codes()[i] {
			t.Errorf("code %s given twice", c)
		}
	}
	for _, code := range Codes() {
		tx, _ := TextOf(code)
		if tx.Tech == "" {
			t.Errorf("%s: no technical text", code)
			continue
		}
		names := func(s string) []string {
			var out []string
			for _, m := range placeholderRE.FindAllStringSubmatch(s, -1) {
				out = append(out, m[1])
			}
			slices.Sort(out)
			return slices.Compact(out)
		}
		// The page's words may leave out a JSON example ({example}); every
		// other value both forms name.
		techNames := slices.DeleteFunc(names(tx.Tech), func(n string) bool { return n == "example" && !strings.Contains(tx.Plain, "{example") })
		if tx.Plain != "" && !slices.Equal(techNames, names(tx.Plain)) {
			t.Errorf("%s: the technical text names %v, the page's %v", code, names(tx.Tech), names(tx.Plain))
		}
		if tx.Brief != "" {
			for _, n := range names(tx.Brief) {
				if !slices.Contains(names(tx.Tech), n) {
					t.Errorf("%s: the brief text names %s, which the technical text does not", code, n)
				}
			}
		}
		m := Message{Code: code, Field: "training.seq_len", Args: sampleArgs(tx.Tech + tx.Plain)}
		brief := testPageNamer
		brief.Brief = true
		tech, page, short := m.Text(Technical), m.Text(testPageNamer), m.Text(brief)
		if tx.Brief != "" && !(len(short) < len(page)) {
			t.Errorf("%s: the brief text %q is not shorter than the page's %q", code, short, page)
		}
		for _, s := range []string{tech, page, short} {
			if strings.ContainsAny(s, "{}") || s == "" || s == code {
				t.Errorf("%s: rendered as %q", code, s)
			}
		}
		if strings.Contains(tech, "label of") || strings.Contains(tech, "GPU named") {
			t.Errorf("%s: technical form %q uses the page's names", code, tech)
		}
		if p := requestPathRE.FindString(page); p != "" {
			t.Errorf("%s: page's form %q writes the path %s", code, page, p)
		}
		if strings.Contains(page, "h100-sxm5") {
			t.Errorf("%s: page's form %q writes a GPU id", code, page)
		}
		if strings.Contains(tx.Tech+tx.Plain, "{gpu") && !strings.Contains(page, "GPU named") {
			t.Errorf("%s: page's form %q does not name the GPU", code, page)
		}
	}
}

func TestMessageText(t *testing.T) {
	for _, c := range []struct {
		m          Message
		tech, page string
	}{
		{Message{Code: CodeRangeClosed, Args: Args{{Name: "min", Num: 0.0}, {Name: "max", Num: 1.5}}}, "must be a finite number in [0, 1.5]", "must be a finite number from 0 to 1.5"},
		{Message{Code: CodeRangeWhole, Args: Args{{Name: "min", Num: 1.0}, {Name: "max", Num: 65536.0}}}, "must be a whole number from 1 to 65536", "must be a whole number from 1 to 65536"},
		{Message{Code: CodeRangeOpen, Args: Args{{Name: "min", Num: 0.0}, {Name: "max", Num: 1e30}}}, "must be a finite number greater than 0 and at most 1e+30", "must be a finite number greater than 0 and at most 1e+30"},
		{Message{Code: "no.such.code"}, "no.such.code", "no.such.code"},
	} {
		if got := c.m.Text(Technical); got != c.tech {
			t.Errorf("%v technical = %q, want %q", c.m, got, c.tech)
		}
		if got := c.m.Text(testPageNamer); got != c.page {
			t.Errorf("%v page = %q, want %q", c.m, got, c.page)
		}
	}
}

// TestRangeErrorIsCoded: Bounds.Check's error carries its code and numbers,
// and its text is the code's.
func TestRangeErrorIsCoded(t *testing.T) {
	err := Bounds{Min: 1, Max: 65536, Whole: true}.Check("training.batch_per_gpu", 0)
	fe := AsFieldError(err)
	if fe == nil || fe.Code != CodeRangeWhole || fe.Args.Num("min") != 1 || fe.Args.Num("max") != 65536 {
		t.Fatalf("Check = %#v, want code %s with min 1 and max 65536", fe, CodeRangeWhole)
	}
	if got, want := err.Error(), "training.batch_per_gpu: must be a whole number from 1 to 65536, got 0"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if got := fe.Say(testPageNamer); got != fe.Message {
		t.Errorf("Say = %q, want the code's text %q", got, fe.Message)
	}
}
