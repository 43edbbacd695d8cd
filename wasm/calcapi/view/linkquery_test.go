package view

import (
	"net/url"
	"testing"
)

// FuzzLinkQuery holds linkQuery to net/url's ParseQuery, which the
// planner's links were read with: each key's first value, the pairs that
// do not parse passed over.
func FuzzLinkQuery(f *testing.F) {
	for _, s := range []string{"", "set=all", "rows=2&o1.preset=a&o1.preset=b", "a=%zz&b=1", "a;b=1&c=2", "k+x=v%20w&&=&x", "%41=1&A=2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		want, _ := url.ParseQuery(q)
		got := linkQuery(q)
		if len(got) != len(want) {
			t.Fatalf("linkQuery(%q) = %q, ParseQuery = %q", q, got, want)
		}
		for k, v := range got {
			if want.Get(k) != v {
				t.Fatalf("linkQuery(%q)[%q] = %q, ParseQuery's = %q", q, k, v, want.Get(k))
			}
		}
	})
}
