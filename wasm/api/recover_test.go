package api

import (
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/content"
)

// TestInternalErrors replaces the estimate route's logic with failures that
// no input reaches today, and checks that each becomes a 500 ErrorBody
// rather than a crash or a broken answer.
func TestInternalErrors(t *testing.T) {
	cat, err := content.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	hh, err := NewHandler(cat, Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := hh.(*handler)
	rt := h.routes[Prefix+"estimate"]
	for name, post := range map[string]func([]byte) (any, error){
		"panic":            func([]byte) (any, error) { panic("boom") },
		"nil map panic":    func([]byte) (any, error) { var m map[string]int; m["x"] = 1; return nil, nil },
		"plain error":      func([]byte) (any, error) { return nil, errors.New("disk on fire") },
		"NaN in an answer": func([]byte) (any, error) { return struct{ X float64 }{math.NaN()}, nil },
	} {
		t.Run(name, func(t *testing.T) {
			rt.post = post
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest("POST", Prefix+"estimate", strings.NewReader("{}")))
			if w.Code != http.StatusInternalServerError {
				t.Fatalf("status = %d, want 500", w.Code)
			}
			var e ErrorBody
			if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || e.Error.Field != "(server)" || !strings.HasPrefix(e.Error.Message, "internal error") {
				t.Errorf("body = %s (%v), want an ErrorBody for (server)", w.Body, err)
			}
			if w.Header().Get("Access-Control-Allow-Origin") != "*" {
				t.Errorf("500 answer lacks CORS")
			}
		})
	}
}

func TestOpenAPIRejectsUndescribableTypes(t *testing.T) {
	type withBytes struct {
		B []byte `json:"b"`
	}
	type withIntKeys struct {
		M map[int]string `json:"m"`
	}
	type withStringOpt struct {
		N int `json:"n,string"`
	}
	type withMarshaler struct {
		T json.RawMessage `json:"t"`
	}
	for _, v := range []any{withBytes{}, withIntKeys{}, withStringOpt{}, withMarshaler{}, struct{ C chan int }{}} {
		rt := &route{path: "/x", method: "GET", opID: "x", out: reflect.TypeOf(v)}
		if _, err := openAPI([]*route{rt}, "test"); err == nil {
			t.Errorf("openAPI accepted %T, which it cannot describe", v)
		}
	}
}
