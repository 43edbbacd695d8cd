package keepalive

import (
	"cmp"
	"errors"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestMetaRoundTrip checks that parseMeta reads what the shim writes
// (appendMeta writes it as shim/worker.mjs does): method, URL, and every
// header value in order, repeated names included.
func TestMetaRoundTrip(t *testing.T) {
	hs := [][2]string{{"content-type", "application/json"}, {"if-none-match", `"a", W/"b"`}, {"x-empty", ""}, {"x-empty", "second"}, {"x-utf8", "énergie"}}
	method, u, header, err := parseMeta(appendMeta(nil, "POST", "https://example.org/api/v1/estimate?x=1", hs))
	if err != nil {
		t.Fatal(err)
	}
	want := http.Header{"Content-Type": {"application/json"}, "If-None-Match": {`"a", W/"b"`}, "X-Empty": {"", "second"}, "X-Utf8": {"énergie"}}
	if method != "POST" || u != "https://example.org/api/v1/estimate?x=1" || !reflect.DeepEqual(header, want) {
		t.Errorf("parseMeta = %q %q %v, want POST, the URL and %v", method, u, header, want)
	}
	for _, bad := range []string{"", "GET", "GET\nhttps://x/\nname", "GET\nhttps://x/\nname\nvalue\nname2"} {
		if _, _, _, err := parseMeta([]byte(bad)); err == nil {
			t.Errorf("parseMeta(%q) accepted a truncated head", bad)
		}
	}
}

// TestHead checks the answer's head: status, the body's kind (text only
// when it is valid UTF-8) and length, and the headers, with line breaks in
// names and values turned into spaces so that they cannot split a field.
func TestHead(t *testing.T) {
	h := http.Header{"Content-Type": {"application/json"}, "X-Two": {"a", "b"}, "X-Bad": {"line\r\nbreak"}}
	for _, tt := range []struct {
		body []byte
		text bool
	}{{nil, true}, {[]byte(`{"a":"é"}`), true}, {[]byte{0xff, 'a'}, false}, {[]byte("\xef\xbb\xbf{}"), true}} {
		status, text, n, got, err := parseHead(string(appendHead(nil, 418, h, tt.body)))
		if err != nil {
			t.Fatal(err)
		}
		if status != 418 || text != tt.text || n != len(tt.body) {
			t.Errorf("body %q: head says %d, text %v, %d bytes; want 418, %v, %d", tt.body, status, text, n, tt.text, len(tt.body))
		}
		slices.SortFunc(got, func(a, b [2]string) int { return cmp.Compare(a[0]+"\n"+a[1], b[0]+"\n"+b[1]) })
		want := [][2]string{{"Content-Type", "application/json"}, {"X-Bad", "line  break"}, {"X-Two", "a"}, {"X-Two", "b"}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("headers %v, want %v", got, want)
		}
	}
}

// FuzzParseMeta checks that parseMeta never panics and that whatever it
// accepts, written again, reads the same.
func FuzzParseMeta(f *testing.F) {
	f.Add([]byte("GET\nhttps://x/\nhost\nx\n"))
	f.Add([]byte("POST\nhttps://x/a?b\ncontent-length\n12\ncontent-type\ntext/plain\n"))
	f.Add([]byte("\n\n\n\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		method, u, header, err := parseMeta(b)
		if err != nil {
			return
		}
		var hs [][2]string
		for _, k := range slices.Sorted(maps.Keys(header)) {
			for _, v := range header[k] {
				hs = append(hs, [2]string{k, v})
			}
		}
		m2, u2, h2, err := parseMeta(appendMeta(nil, method, u, hs))
		if err != nil || m2 != method || u2 != u || !reflect.DeepEqual(h2, header) {
			t.Errorf("parseMeta(%q) = %q %q %v; written again and read: %q %q %v (%v)", b, method, u, header, m2, u2, h2, err)
		}
	})
}

// appendMeta encodes a request's line and headers as the shim does (for
// tests; the shim writes the same in JavaScript).
func appendMeta(dst []byte, method, rawURL string, header [][2]string) []byte {
	dst = append(dst, method...)
	dst = append(dst, '\n')
	dst = append(dst, rawURL...)
	dst = append(dst, '\n')
	for _, h := range header {
		dst = append(dst, h[0]...)
		dst = append(dst, '\n')
		dst = append(dst, h[1]...)
		dst = append(dst, '\n')
	}
	return dst
}

// parseHead reads a head appendHead wrote (for tests; the shim reads it in
// JavaScript).
func parseHead(head string) (status int, text bool, bodyLen int, header [][2]string, err error) {
	f := strings.Split(head, "\n")
	if len(f) < 4 || f[len(f)-1] != "" || (len(f)-4)%2 != 0 {
		return 0, false, 0, nil, errors.New("head: wrong number of fields")
	}
	if status, err = strconv.Atoi(f[0]); err != nil {
		return 0, false, 0, nil, err
	}
	if bodyLen, err = strconv.Atoi(f[2]); err != nil {
		return 0, false, 0, nil, err
	}
	for i := 3; i+1 < len(f); i += 2 {
		header = append(header, [2]string{f[i], f[i+1]})
	}
	return status, f[1] == "t", bodyLen, header, nil
}
