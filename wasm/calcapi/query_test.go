package calcapi

import (
	"maps"
	"net/url"
	"strings"
	"testing"
)

// TestFormQueryRoundTrip: a form written by Query reads back as itself,
// whatever its values hold (separators, escapes, non-ASCII, empty).
func TestFormQueryRoundTrip(t *testing.T) {
	f := DefaultForm()
	f["model"] = "custom & co=1 ü %zz+"
	f["tokens"] = ""
	f["zz-extra"] = "a;b"
	got, err := ParseFormQuery(f.Query())
	if err != nil {
		t.Fatalf("ParseFormQuery(%q): %v", f.Query(), err)
	}
	if !maps.Equal(got, f) {
		t.Errorf("ParseFormQuery(Query()) = %v, want %v", got, f)
	}
}

// TestParseFormQueryReadsURLSearchParams: what the page's URLSearchParams
// writes (+ for a space, %20 too, a key without "=") and a bad escape,
// which is an error naming the pair.
func TestParseFormQueryReadsURLSearchParams(t *testing.T) {
	got, err := ParseFormQuery("model=llama+3&gpu=a%20b&glu&count=4&count=8")
	if err != nil {
		t.Fatal(err)
	}
	want := Form{"model": "llama 3", "gpu": "a b", "glu": "", "count": "4"}
	if !maps.Equal(got, want) {
		t.Errorf("ParseFormQuery = %v, want %v (first value of a key wins)", got, want)
	}
	if _, err := ParseFormQuery("model=x&count=%zz"); err == nil || !strings.Contains(err.Error(), `"count=%zz"`) {
		t.Errorf("ParseFormQuery(bad escape) error = %v, want one naming the pair count=%%zz", err)
	}
}

// FuzzParseFormQuery: any string parses or fails without panicking, and a
// form that parses writes a query that reads back as the same form; on
// valid input it agrees with net/url's reading (first values).
func FuzzParseFormQuery(f *testing.F) {
	f.Add(DefaultForm().Query())
	f.Add("a=1&&b=%41&c&=x&a=2")
	f.Add("x=%zz")
	f.Fuzz(func(t *testing.T, q string) {
		form, err := ParseFormQuery(q)
		if err != nil {
			return
		}
		back, err := ParseFormQuery(form.Query())
		if err != nil || !maps.Equal(back, form) {
			t.Fatalf("ParseFormQuery(%q) = %v; its Query %q reads back as %v, %v", q, form, form.Query(), back, err)
		}
		if vs, err := url.ParseQuery(q); err == nil {
			for k, v := range vs {
				if form[k] != v[0] {
					t.Fatalf("ParseFormQuery(%q)[%q] = %q, net/url reads %q", q, k, form[k], v[0])
				}
			}
			if len(vs) != len(form) {
				t.Fatalf("ParseFormQuery(%q) has %d keys, net/url %d", q, len(form), len(vs))
			}
		}
	})
}

// FuzzQueryEscape holds QueryEscape and the unescaping to net/url's.
func FuzzQueryEscape(f *testing.F) {
	f.Add("a b+c%41&=é~")
	f.Add("%zz%4")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := QueryEscape(s), url.QueryEscape(s); got != want {
			t.Fatalf("QueryEscape(%q) = %q, net/url %q", s, got, want)
		}
		got, err := queryUnescape(s)
		want, werr := url.QueryUnescape(s)
		if (err == nil) != (werr == nil) || err == nil && got != want {
			t.Fatalf("queryUnescape(%q) = %q, %v; net/url %q, %v", s, got, err, want, werr)
		}
	})
}
