package calcapi

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Query is the form as a query string: every key it holds (FormKeys
// first, in their order, then any other in name order), values
// percent-encoded as the page's URLSearchParams writes them. ParseFormQuery
// reads it back. The address carries only the active keys (the view's
// query); this carries the whole state, which is how calc.js hands the
// form to calc.wasm without a JSON codec.
func (f Form) Query() string {
	var b strings.Builder
	put := func(k string) {
		if b.Len() > 0 {
			b.WriteByte('&')
		}
		b.WriteString(url.QueryEscape(k) + "=" + url.QueryEscape(f[k]))
	}
	known := map[string]bool{}
	for _, k := range FormKeys {
		known[k] = true
		if _, ok := f[k]; ok {
			put(k)
		}
	}
	var rest []string
	for k := range f {
		if !known[k] {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	for _, k := range rest {
		put(k)
	}
	return b.String()
}

// ParseFormQuery reads a form from a query string (Query's, or the
// page's URLSearchParams of its state): each key's first value; a key
// without "=" holds "". An escape that is not valid percent-encoding is
// an error naming the pair; nothing is dropped silently.
func ParseFormQuery(q string) (Form, error) {
	f := Form{}
	for q != "" {
		var pair string
		pair, q, _ = strings.Cut(q, "&")
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		key, err := url.QueryUnescape(k)
		if err != nil {
			return f, &queryError{pair}
		}
		val, err := url.QueryUnescape(v)
		if err != nil {
			return f, &queryError{pair}
		}
		if _, seen := f[key]; !seen {
			f[key] = val
		}
	}
	return f, nil
}

// queryError is a pair of a form query that is not valid
// percent-encoding.
type queryError struct{ pair string }

func (e *queryError) Error() string {
	return "form query: " + strconv.Quote(e.pair) + " is not valid percent-encoding"
}
