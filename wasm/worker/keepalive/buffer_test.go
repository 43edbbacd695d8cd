package keepalive

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/wasm/api"
)

// TestBufferedWriter checks that buffering an answer, as the js/wasm build
// does before handing it to JavaScript, keeps status, headers and body.
func TestBufferedWriter(t *testing.T) {
	cat, err := content.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	h, err := api.NewHandler(cat, api.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ method, path string }{
		{"GET", "/api/v1/health"}, {"GET", "/nowhere"}, {"OPTIONS", "/api/v1/estimate"}, {"POST", "/api/v1/estimate"},
	} {
		direct := httptest.NewRecorder()
		h.ServeHTTP(direct, httptest.NewRequest(tt.method, tt.path, nil))
		b := &bufferedWriter{header: http.Header{}}
		h.ServeHTTP(b, httptest.NewRequest(tt.method, tt.path, nil))
		if b.Status() != direct.Code || string(b.body) != direct.Body.String() || b.header.Get("Content-Type") != direct.Header().Get("Content-Type") {
			t.Errorf("%s %s buffered: %d %q; direct: %d %q", tt.method, tt.path, b.Status(), b.body, direct.Code, direct.Body)
		}
	}
	var b bufferedWriter
	if b.Status() != http.StatusOK {
		t.Errorf("status of an empty answer = %d, want 200", b.Status())
	}
	b.WriteHeader(http.StatusTeapot)
	b.WriteHeader(http.StatusOK)
	b.Write([]byte("a"))
	b.Write([]byte("b"))
	if b.Status() != http.StatusTeapot || string(b.body) != "ab" {
		t.Errorf("after WriteHeader(418), WriteHeader(200), Write a, b: %d %q; want 418 \"ab\"", b.Status(), b.body)
	}
}
