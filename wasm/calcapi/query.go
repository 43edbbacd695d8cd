package calcapi

import (
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
		b.WriteString(QueryEscape(k) + "=" + QueryEscape(f[k]))
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
		key, err := queryUnescape(k)
		if err != nil {
			return f, &queryError{pair}
		}
		val, err := queryUnescape(v)
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

// QueryEscape is net/url's QueryEscape: every byte but the unreserved
// ones (letters, digits, - _ . ~) percent-encoded, a space as +. (Its own,
// so that calc.wasm links no net/url, whose package initialisation brings
// net/netip, unique and internal/godebug: about 60 KB of code.)
func QueryEscape(s string) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if !unreserved(s[i]) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	const hex = "0123456789ABCDEF"
	b := make([]byte, 0, len(s)+2*n)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case unreserved(c):
			b = append(b, c)
		case c == ' ':
			b = append(b, '+')
		default:
			b = append(b, '%', hex[c>>4], hex[c&15])
		}
	}
	return string(b)
}

func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~'
}

// queryUnescape is net/url's QueryUnescape: + is a space, %XX a byte; a
// % not followed by two hex digits is an error.
func queryUnescape(s string) (string, error) {
	if !strings.ContainsAny(s, "%+") {
		return s, nil
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '+':
			b = append(b, ' ')
		case '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return "", &queryError{s}
			}
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
		default:
			b = append(b, c)
		}
	}
	return string(b), nil
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
