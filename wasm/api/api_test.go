package api_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/distill"
	"github.com/wattscale/wattscale/wasm/api"
)

var (
	handlerOnce sync.Once
	testHandler http.Handler
	testCatalog *model.Catalog
	handlerErr  error
)

// newTestHandler builds the handler over the real embedded catalog, once.
func newTestHandler(t testing.TB) (http.Handler, *model.Catalog) {
	t.Helper()
	handlerOnce.Do(func() {
		testCatalog, handlerErr = content.Catalog()
		if handlerErr == nil {
			testHandler, handlerErr = api.NewHandler(testCatalog, api.Options{Version: "test"})
		}
	})
	if handlerErr != nil {
		t.Fatal(handlerErr)
	}
	return testHandler, testCatalog
}

func exampleRequest(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("../../content/examples/request.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// do sends one request to h and returns the recorded answer.
func do(h http.Handler, method, path string, body []byte, header map[string]string) *httptest.ResponseRecorder {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req := httptest.NewRequest(method, path, r)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

// errorOf decodes an error answer strictly.
func errorOf(t *testing.T, b []byte) api.ErrorDetail {
	t.Helper()
	var e api.ErrorBody
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		t.Fatalf("error body %q is not an ErrorBody: %v", b, err)
	}
	if e.Error.Field == "" || e.Error.Message == "" {
		t.Errorf("error body %s lacks a field or a message", b)
	}
	return e.Error
}

func TestErrors(t *testing.T) {
	h, _ := newTestHandler(t)
	big := append([]byte(`{"site": {"region": "`), bytes.Repeat([]byte("x"), model.MaxRequestBytes)...)
	big = append(big, `"}}`...)
	tests := []struct {
		name, method, path, body string
		status                   int
		field, inMessage         string // want; inMessage is a substring of the message
		allow                    string // want Allow header ("" = none)
	}{
		{"empty body", "POST", "/api/v1/estimate", "", 400, "(body)", "empty", ""},
		{"malformed JSON", "POST", "/api/v1/estimate", `{"model": {`, 400, "(body)", "not valid JSON", ""},
		{"not JSON at all", "POST", "/api/v1/estimate", `hello`, 400, "(body)", "not valid JSON", ""},
		{"unknown field", "POST", "/api/v1/estimate", `{"model": {"preset": "bert-base"}, "colour": 3}`, 400, "colour", "not a known field", ""},
		// model.DecodeExact names an unknown nested field with its full path
		// (model.CheckKeys; encoding/json does not report the path).
		{"unknown nested field", "POST", "/api/v1/estimate", `{"training": {"steps": 3}}`, 400, "training.steps", "not a known field", ""},
		{"wrong type", "POST", "/api/v1/estimate", `{"training": {"tokens": "lots"}}`, 400, "training.tokens", "number", ""},
		{"array for object", "POST", "/api/v1/estimate", `[1, 2]`, 400, "(body)", "object", ""},
		{"NaN", "POST", "/api/v1/estimate", `{"training": {"tokens": NaN}}`, 400, "(body)", "not valid JSON", ""},
		{"Infinity", "POST", "/api/v1/estimate", `{"training": {"tokens": Infinity}}`, 400, "(body)", "not valid JSON", ""},
		{"overflow to Inf", "POST", "/api/v1/estimate", `{"training": {"tokens": 1e999}}`, 400, "training.tokens", "number", ""},
		{"out of range", "POST", "/api/v1/estimate", strings.Replace(string(exampleRequest(t)), `"batch_per_gpu": 32`, `"batch_per_gpu": 0`, 1), 400, "training.batch_per_gpu", "got 0", ""},
		{"fractional count", "POST", "/api/v1/estimate", strings.Replace(string(exampleRequest(t)), `"count": 4`, `"count": 2.5`, 1), 400, "hardware.count", "got 2.5", ""},
		{"unknown GPU", "POST", "/api/v1/estimate", strings.Replace(string(exampleRequest(t)), `a100-sxm4-80gb`, `h1000`, 1), 400, "hardware.gpu", `got "h1000"`, ""},
		{"trailing data", "POST", "/api/v1/estimate", string(exampleRequest(t)) + "{}", 400, "(body)", "after it", ""},
		{"too large", "POST", "/api/v1/estimate", string(big), 413, "(body)", "at most 65536 bytes", ""},
		{"plan: empty body", "POST", "/api/v1/distill", "", 400, "(body)", "empty", ""},
		{"plan: malformed JSON", "POST", "/api/v1/distill", `{"options": [`, 400, "(body)", "JSON", ""},
		{"plan: unknown deep field", "POST", "/api/v1/distill", `{"options": [{"student": {"training": {"steps": 1}}}]}`, 400, "options[0].student.training.steps", "not a known field", ""},
		{"plan: wrong type", "POST", "/api/v1/distill", `{"options": [{"regime": "kd", "quality": "high"}]}`, 400, "options[0].quality", "number", ""},
		{"plan: NaN", "POST", "/api/v1/distill", `{"options": [{"quality": NaN}]}`, 400, "(body)", "not valid JSON", ""},
		{"plan: Inf", "POST", "/api/v1/distill", `{"options": [{"total_kwh": -1e999}]}`, 400, "options[0].total_kwh", "number", ""},
		{"plan: out of range", "POST", "/api/v1/distill", `{"options": [{"preset": "kd-1b", "students": 0.5}]}`, 400, "options[0].students", "got 0.5", ""},
		{"plan: no options", "POST", "/api/v1/distill", `{"options": []}`, 400, "options", "at least one", ""},
		{"plan: unknown preset", "POST", "/api/v1/distill", `{"options": [{"preset": "nope"}]}`, 400, "options[0].preset", `got "nope"`, ""},
		{"plan: too large", "POST", "/api/v1/distill", string(big), 413, "(body)", "at most 65536 bytes", ""},
		{"plan: GET", "GET", "/api/v1/distill", "", 405, "(method)", "use POST", "POST, OPTIONS"},
		{"GET on a POST route", "GET", "/api/v1/estimate", "", 405, "(method)", "use POST", "POST, OPTIONS"},
		{"POST on a GET route", "POST", "/api/v1/hardware", "{}", 405, "(method)", "use GET", "GET, HEAD, OPTIONS"},
		{"DELETE", "DELETE", "/api/v1/health", "", 405, "(method)", "DELETE", "GET, HEAD, OPTIONS"},
		{"unknown route", "GET", "/api/v1/nothing", "", 404, "(path)", "/api/v1/nothing", ""},
		{"root", "GET", "/", "", 404, "(path)", "openapi.json", ""},
		{"trailing slash", "POST", "/api/v1/estimate/", "{}", 404, "(path)", "no route", ""},
		{"other version", "GET", "/api/v2/health", "", 404, "(path)", "no route", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := do(h, tt.method, tt.path, []byte(tt.body), nil)
			if w.Code != tt.status {
				t.Fatalf("%s %s = %d %s, want %d", tt.method, tt.path, w.Code, w.Body, tt.status)
			}
			if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type = %q, want application/json", ct)
			}
			e := errorOf(t, w.Body.Bytes())
			if e.Field != tt.field || !strings.Contains(e.Message, tt.inMessage) {
				t.Errorf("error = %+v, want field %q and a message containing %q", e, tt.field, tt.inMessage)
			}
			if got := w.Header().Get("Allow"); got != tt.allow {
				t.Errorf("Allow = %q, want %q", got, tt.allow)
			}
			if got := w.Header().Get("Access-Control-Allow-Origin"); got != "*" {
				t.Errorf("Access-Control-Allow-Origin = %q, want *", got)
			}
			if got := w.Header().Get("Cache-Control"); got != "no-store" {
				t.Errorf("Cache-Control = %q, want no-store", got)
			}
		})
	}
}

// chunked is a body of unknown length (ContentLength -1), as a client
// streaming without Content-Length sends.
type chunked struct{ r io.Reader }

func (c chunked) Read(p []byte) (int, error) { return c.r.Read(p) }

// TestShortBody: a body that ends before its Content-Length (net/http's
// server reads it as io.ErrUnexpectedEOF) is a 400 on (body), not a 500.
func TestShortBody(t *testing.T) {
	h, _ := newTestHandler(t)
	body := `{"model": {"preset": "bert-base"}}`
	req := httptest.NewRequest("POST", "/api/v1/estimate", io.MultiReader(strings.NewReader(body), iotest.ErrReader(io.ErrUnexpectedEOF)))
	req.ContentLength = int64(len(body) + 100)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	var e api.ErrorBody
	if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || w.Code != http.StatusBadRequest || e.Error.Field != "(body)" || !strings.Contains(e.Error.Message, "could not be read") {
		t.Errorf("a body short of its Content-Length: %d %s, want 400 on (body)", w.Code, w.Body)
	}
}

func TestTooLargeWithoutLength(t *testing.T) {
	h, _ := newTestHandler(t)
	req := httptest.NewRequest("POST", "/api/v1/estimate", chunked{bytes.NewReader(make([]byte, model.MaxRequestBytes+1))})
	req.ContentLength = -1
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusRequestEntityTooLarge {
		t.Fatalf("status = %d %s, want 413", w.Code, w.Body)
	}
	errorOf(t, w.Body.Bytes())

	// Exactly the limit is read, and then judged as JSON.
	body := append(exampleRequest(t), bytes.Repeat([]byte(" "), model.MaxRequestBytes-len(exampleRequest(t)))...)
	req = httptest.NewRequest("POST", "/api/v1/estimate", chunked{bytes.NewReader(body)})
	req.ContentLength = -1
	w = httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusOK {
		t.Errorf("body of exactly %d bytes: status = %d %s, want 200", len(body), w.Code, w.Body)
	}
}

func TestEstimate(t *testing.T) {
	h, cat := newTestHandler(t)
	body := exampleRequest(t)
	w := do(h, "POST", "/api/v1/estimate", body, map[string]string{"Content-Type": "application/json"})
	if w.Code != http.StatusOK {
		t.Fatalf("status = %d %s, want 200", w.Code, w.Body)
	}
	req, err := model.ParseRequest(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := cat.Estimate(req)
	if err != nil {
		t.Fatal(err)
	}
	got, want := decodeAny(t, w.Body.Bytes()), decodeAny(t, mustMarshal(t, resp))
	if !reflect.DeepEqual(got, want) {
		t.Errorf("POST /api/v1/estimate =\n%s\nwant Catalog.Estimate's\n%s", w.Body, mustMarshal(t, resp))
	}
	// A text/plain body (a CORS "simple request", no preflight) is accepted too.
	w = do(h, "POST", "/api/v1/estimate", body, map[string]string{"Content-Type": "text/plain"})
	if w.Code != http.StatusOK {
		t.Errorf("text/plain body: status = %d, want 200", w.Code)
	}
}

func examplePlans(t testing.TB) map[string][]byte {
	t.Helper()
	names, err := filepath.Glob("../../content/examples/plan-*.json")
	if err != nil || len(names) == 0 {
		t.Fatalf("no example plans: %v", err)
	}
	plans := map[string][]byte{}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		plans[filepath.Base(n)] = b
	}
	return plans
}

func TestDistill(t *testing.T) {
	h, cat := newTestHandler(t)
	for name, body := range examplePlans(t) {
		t.Run(name, func(t *testing.T) {
			w := do(h, "POST", "/api/v1/distill", body, nil)
			if w.Code != http.StatusOK {
				t.Fatalf("status = %d %s, want 200", w.Code, w.Body)
			}
			plan, err := distill.ParsePlan(bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			res, err := distill.Evaluate(cat, plan)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := decodeAny(t, w.Body.Bytes()), decodeAny(t, mustMarshal(t, res)); !reflect.DeepEqual(got, want) {
				t.Errorf("POST /api/v1/distill =\n%s\nwant distill.Evaluate's\n%s", w.Body, mustMarshal(t, res))
			}
		})
	}
}

func exampleRecommend(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "content", "examples", "recommend.json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRecommend: the route answers what Catalog.Recommend gives, and names
// the field of a bad request.
func TestRecommend(t *testing.T) {
	h, cat := newTestHandler(t)
	body := exampleRecommend(t)
	w := do(h, "POST", "/api/v1/recommend", body, nil)
	if w.Code != http.StatusOK {
		t.Fatalf("status = %d %s, want 200", w.Code, w.Body)
	}
	req, err := model.ParseRecommendRequest(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	res, err := cat.Recommend(req)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := decodeAny(t, w.Body.Bytes()), decodeAny(t, mustMarshal(t, res)); !reflect.DeepEqual(got, want) {
		t.Errorf("POST /api/v1/recommend differs from Catalog.Recommend")
	}
	for _, tc := range []struct{ body, field string }{
		{`{"workload": {"model": {"preset": "bert-base"}, "training": {"tokens": 1e8, "seq_len": 128, "batch_per_gpu": 8, "precision": "fp16"}}, "candidates": [{"gpu": "h1000"}]}`, "candidates[0].gpu"},
		{`{"workload": {"model": {"preset": "bert-base"}, "training": {"tokens": 1e8, "seq_len": 128, "batch_per_gpu": 8, "precision": "fp16"}}, "candidates": [{"gpu": "a100", "power_limits_w": [10]}]}`, "candidates[0].power_limits_w[0]"},
	} {
		w := do(h, "POST", "/api/v1/recommend", []byte(tc.body), nil)
		var e struct {
			Error struct{ Field string } `json:"error"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || w.Code != 400 || e.Error.Field != tc.field {
			t.Errorf("POST %s: %d %s, want 400 naming %s", tc.body, w.Code, w.Body, tc.field)
		}
	}
}

func examplePlanRecommend(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "content", "examples", "recommend-plan.json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDistillRecommend: the per-stage route answers what distill.Recommend
// gives, and names the field of a bad request by its path, the stage's
// override included.
func TestDistillRecommend(t *testing.T) {
	h, cat := newTestHandler(t)
	body := examplePlanRecommend(t)
	w := do(h, "POST", "/api/v1/distill/recommend", body, nil)
	if w.Code != http.StatusOK {
		t.Fatalf("status = %d %s, want 200", w.Code, w.Body)
	}
	req, err := distill.ParseRecommendRequest(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	res, err := distill.Recommend(cat, req)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := decodeAny(t, w.Body.Bytes()), decodeAny(t, mustMarshal(t, res)); !reflect.DeepEqual(got, want) {
		t.Errorf("POST /api/v1/distill/recommend differs from distill.Recommend")
	}
	plan := `{"options": [{"name": "kd", "regime": "kd", "stages_kwh": {"preprocess": 0.4, "student": 5, "eval": 0.3}, "teacher": {"model": {"preset": "olmo-2-32b"}, "hardware": {"gpu": "h100-sxm5", "count": 1}, "tokens": 1e7, "seq_len": 1024}}]}`
	for _, tc := range []struct{ body, field string }{
		{`{"plan": ` + plan + `, "candidates": [{"gpu": "h1000"}]}`, "candidates[0].gpu"},
		{`{"plan": ` + plan + `, "stages": [{"option": "kd", "stage": "teacher", "candidates": [{"gpu": "a100", "max_count": -2}]}]}`, "stages[0].candidates[0].max_count"},
		{`{"plan": {"options": [{"preset": "kd-1b", "teacher": {}}]}}`, "plan.options[0].teacher"},
	} {
		w := do(h, "POST", "/api/v1/distill/recommend", []byte(tc.body), nil)
		var e struct {
			Error struct{ Field string } `json:"error"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || w.Code != 400 || e.Error.Field != tc.field {
			t.Errorf("POST %s: %d %s, want 400 naming %s", tc.body, w.Code, w.Body, tc.field)
		}
	}
}

func TestGetRoutes(t *testing.T) {
	h, cat := newTestHandler(t)
	t.Run("hardware", func(t *testing.T) {
		var got api.HardwareList
		getJSON(t, h, "/api/v1/hardware", &got)
		if !reflect.DeepEqual(got.GPUs, cat.Hardware.GPUs) {
			t.Errorf("GET hardware lists %d GPUs, want the catalog's %d, equal", len(got.GPUs), len(cat.Hardware.GPUs))
		}
	})
	t.Run("calibrations", func(t *testing.T) {
		var got api.CalibrationList
		getJSON(t, h, "/api/v1/calibrations", &got)
		if got.Default != cat.Default || len(got.Calibrations) != len(cat.Calibrations) {
			t.Fatalf("GET calibrations = default %q, %d calibrations; want %q, %d", got.Default, len(got.Calibrations), cat.Default, len(cat.Calibrations))
		}
		for i, c := range got.Calibrations {
			if c.Provenance.Data == "" || c.Provenance.Method == "" {
				t.Errorf("calibration %s: provenance missing: %+v", c.Name, c.Provenance)
			}
			if !reflect.DeepEqual(c, cat.Calibrations[i]) {
				t.Errorf("calibration %s differs from the catalog's", c.Name)
			}
		}
	})
	t.Run("health", func(t *testing.T) {
		var got api.Health
		getJSON(t, h, "/api/v1/health", &got)
		if got.Status != "ok" || got.Version != "test" || got.APIVersion != model.APIVersion || got.DefaultCalibration != cat.Default {
			t.Errorf("GET health = %+v", got)
		}
		if len(got.Calibrations) != len(cat.Calibrations) {
			t.Fatalf("health lists %d calibrations, want %d", len(got.Calibrations), len(cat.Calibrations))
		}
		for i, c := range got.Calibrations {
			if want := cat.Calibrations[i]; c.Name != want.Name || c.Version != want.Version || c.Kind != want.Kind {
				t.Errorf("health calibration %d = %+v, want %s %s %s", i, c, want.Name, want.Version, want.Kind)
			}
		}
	})
	t.Run("openapi", func(t *testing.T) {
		var got map[string]any
		getJSON(t, h, "/api/v1/openapi.json", &got)
		if got["openapi"] != "3.1.0" {
			t.Errorf("openapi = %v, want 3.1.0", got["openapi"])
		}
	})
	t.Run("HEAD", func(t *testing.T) {
		w := do(h, "HEAD", "/api/v1/hardware", nil, nil)
		if w.Code != http.StatusOK || w.Body.Len() != 0 || w.Header().Get("Content-Length") == "0" {
			t.Errorf("HEAD = %d with %d body bytes, Content-Length %q; want 200, none, the GET's length", w.Code, w.Body.Len(), w.Header().Get("Content-Length"))
		}
	})
}

func getJSON(t *testing.T, h http.Handler, path string, v any) {
	t.Helper()
	w := do(h, "GET", path, nil, nil)
	if w.Code != http.StatusOK {
		t.Fatalf("GET %s = %d %s", path, w.Code, w.Body)
	}
	dec := json.NewDecoder(w.Body)
	if _, ok := v.(*map[string]any); !ok {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
}

func TestCORS(t *testing.T) {
	h, _ := newTestHandler(t)
	for path, method := range map[string]string{
		"/api/v1/estimate": "POST", "/api/v1/distill": "POST", "/api/v1/hardware": "GET", "/api/v1/calibrations": "GET",
		"/api/v1/health": "GET", "/api/v1/openapi.json": "GET",
	} {
		t.Run(path, func(t *testing.T) {
			w := do(h, "OPTIONS", path, nil, map[string]string{
				"Origin": "https://docs.example.org", "Access-Control-Request-Method": method,
				"Access-Control-Request-Headers": "content-type",
			})
			hd := w.Header()
			if w.Code != http.StatusNoContent || w.Body.Len() != 0 {
				t.Errorf("preflight = %d with body %q, want 204 and none", w.Code, w.Body)
			}
			if hd.Get("Access-Control-Allow-Origin") != "*" ||
				!strings.Contains(hd.Get("Access-Control-Allow-Methods"), method) ||
				!strings.EqualFold(hd.Get("Access-Control-Allow-Headers"), "content-type") ||
				hd.Get("Access-Control-Max-Age") == "" ||
				!strings.Contains(hd.Get("Allow"), method) {
				t.Errorf("preflight headers = %v", hd)
			}
			var body []byte
			switch path {
			case "/api/v1/estimate":
				body = exampleRequest(t)
			case "/api/v1/distill":
				body = examplePlans(t)["plan-measured.json"]
			}
			w = do(h, method, path, body, map[string]string{"Origin": "https://docs.example.org"})
			if w.Code != http.StatusOK || w.Header().Get("Access-Control-Allow-Origin") != "*" {
				t.Errorf("%s with Origin = %d, Access-Control-Allow-Origin %q; want 200, *", method, w.Code, w.Header().Get("Access-Control-Allow-Origin"))
			}
		})
	}
	w := do(h, "OPTIONS", "/api/v1/unknown", nil, map[string]string{"Access-Control-Request-Method": "GET"})
	if w.Code != http.StatusNotFound || w.Header().Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("preflight of an unknown route = %d, Allow-Origin %q; want 404, *", w.Code, w.Header().Get("Access-Control-Allow-Origin"))
	}
}

func TestCaching(t *testing.T) {
	h, _ := newTestHandler(t)
	for path, cache := range map[string]string{
		"/api/v1/hardware":     "public, max-age=3600",
		"/api/v1/calibrations": "public, max-age=3600",
		"/api/v1/openapi.json": "public, max-age=3600",
		"/api/v1/health":       "no-cache",
	} {
		t.Run(path, func(t *testing.T) {
			w := do(h, "GET", path, nil, nil)
			tag := w.Header().Get("ETag")
			if got := w.Header().Get("Cache-Control"); got != cache {
				t.Errorf("Cache-Control = %q, want %q", got, cache)
			}
			if len(tag) < 3 || tag[0] != '"' || tag[len(tag)-1] != '"' {
				t.Fatalf("ETag = %q, want a quoted tag", tag)
			}
			// A list split into several header values, as syumai/workers
			// delivers it, matches too.
			req := httptest.NewRequest("GET", path, nil)
			req.Header.Add("If-None-Match", `"other"`)
			req.Header.Add("If-None-Match", " "+tag)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusNotModified {
				t.Errorf("If-None-Match in two header values: status %d, want 304", rec.Code)
			}
			for inm, want := range map[string]int{
				tag: 304, "W/" + tag: 304, `"other", ` + tag: 304, "*": 304,
				`"other"`: 200, "": 200,
			} {
				w := do(h, "GET", path, nil, map[string]string{"If-None-Match": inm})
				if w.Code != want {
					t.Errorf("If-None-Match %q: status %d, want %d", inm, w.Code, want)
				}
				if want == 304 && (w.Body.Len() != 0 || w.Header().Get("ETag") != tag || w.Header().Get("Cache-Control") != cache) {
					t.Errorf("304 answer: body %q, ETag %q, Cache-Control %q", w.Body, w.Header().Get("ETag"), w.Header().Get("Cache-Control"))
				}
			}
		})
	}
	w := do(h, "POST", "/api/v1/estimate", exampleRequest(t), nil)
	if got := w.Header().Get("Cache-Control"); got != "no-store" {
		t.Errorf("POST estimate Cache-Control = %q, want no-store", got)
	}
	w = do(h, "POST", "/api/v1/distill", examplePlans(t)["plan-measured.json"], nil)
	if got := w.Header().Get("Cache-Control"); got != "no-store" || w.Code != http.StatusOK {
		t.Errorf("POST distill: %d, Cache-Control = %q, want 200, no-store", w.Code, got)
	}
	h2, err := api.NewHandler(testCatalog, api.Options{MaxAgeS: 60})
	if err != nil {
		t.Fatal(err)
	}
	if got := do(h2, "GET", "/api/v1/hardware", nil, nil).Header().Get("Cache-Control"); got != "public, max-age=60" {
		t.Errorf("MaxAgeS 60: Cache-Control = %q", got)
	}
}

func decodeAny(t testing.TB, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%v in %s", err, b)
	}
	return v
}

func mustMarshal(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func BenchmarkDistill(b *testing.B) {
	h, _ := newTestHandler(b)
	body := examplePlans(b)["plan-paper-estimated.json"]
	for b.Loop() {
		w := do(h, "POST", "/api/v1/distill", body, nil)
		if w.Code != http.StatusOK {
			b.Fatal(w.Code)
		}
	}
}

func BenchmarkEstimate(b *testing.B) {
	h, _ := newTestHandler(b)
	body := exampleRequest(b)
	for b.Loop() {
		w := do(h, "POST", "/api/v1/estimate", body, nil)
		if w.Code != http.StatusOK {
			b.Fatal(w.Code)
		}
	}
}

// TestMaxAnswer: an answer longer than Options.MaxAnswerBytes is refused
// with a 400 naming its size and the limit, never sent.
func TestMaxAnswer(t *testing.T) {
	cat, err := content.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	h, err := api.NewHandler(cat, api.Options{MaxAnswerBytes: 2000})
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("POST", "/api/v1/estimate", bytes.NewReader(exampleRequest(t))))
	var e api.ErrorBody
	if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || w.Code != http.StatusBadRequest || !strings.Contains(e.Error.Message, "more than the 2000 one may be") {
		t.Errorf("an estimate over a 2,000-byte answer limit: %d %s", w.Code, w.Body)
	}
}

// TestEstimateFromHFFiles posts the Llama-3-8B QLoRA example of
// content/examples as one request carrying its three Hugging Face files:
// the API answers what the command line answers, and says what it took.
func TestEstimateFromHFFiles(t *testing.T) {
	h, _ := newTestHandler(t)
	dir := "../../content/examples/hf-llama-3-8b-qlora/"
	read := func(name string) string {
		b, err := os.ReadFile(dir + name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	body := `{"model": {"hf_config": ` + read("config.json") + `}, "training": {"dataset_tokens": 5.0e7, "hf_args": ` + read("training_args.json") + `, "peft": ` + read("adapter_config.json") + `},
		"hardware": {"gpu": "a100-sxm4-80gb", "count": 1}, "strategy": "single"}`
	w := do(h, "POST", "/api/v1/estimate", []byte(body), map[string]string{"Content-Type": "application/json"})
	if w.Code != http.StatusOK {
		t.Fatalf("status = %d %s, want 200", w.Code, w.Body)
	}
	var resp model.Response
	if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil {
		t.Fatal(err)
	}
	if resp.Training.Method != model.MethodQLoRA || resp.Training.Rank != 64 || resp.Inputs.BatchPerGPU != 4 || len(resp.Inputs.Imported) == 0 {
		t.Errorf("method %q rank %d batch %d, %d keys imported; want qlora, 64, 4 and the keys listed", resp.Training.Method, resp.Training.Rank, resp.Inputs.BatchPerGPU, len(resp.Inputs.Imported))
	}
	// A misspelt trainer argument is a 400 naming it.
	bad := strings.Replace(body, `"per_device_train_batch_size"`, `"per_device_train_bach_size"`, 1)
	w = do(h, "POST", "/api/v1/estimate", []byte(bad), map[string]string{"Content-Type": "application/json"})
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "training.hf_args.per_device_train_bach_size") {
		t.Errorf("misspelt argument: status %d %s, want 400 naming training.hf_args.per_device_train_bach_size", w.Code, w.Body)
	}
}
