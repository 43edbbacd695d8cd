package api_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

var fuzzMethods = []string{"GET", "POST", "HEAD", "OPTIONS", "PUT", "DELETE", "PATCH"}
var fuzzPaths = []string{"/api/v1/estimate", "/api/v1/distill", "/api/v1/hardware", "/api/v1/calibrations", "/api/v1/health", "/api/v1/openapi.json", "/api/v1/recommend", "/api/v1/distill/recommend"}

// FuzzHandler drives the handler with random methods, paths and bodies and
// checks that no input yields a 500 (the recover middleware's answer to a
// panic) and that every answer with a body is JSON, an ErrorBody from 400 up.
func FuzzHandler(f *testing.F) {
	req := exampleRequest(f)
	for _, seed := range []string{
		string(req), "", "{", "null", "[]", `"fsdp"`, "1e999", `{"training": {"tokens": NaN}}`,
		`{"model": {"layers": 1e300, "hidden": 1e300, "heads": 1, "ffn": 1, "vocab": 1}, "training": {"tokens": 1e16, "seq_len": 2097152, "batch_per_gpu": 65536, "precision": "fp32"}, "hardware": {"gpu": "h100", "count": 1e9}}`,
		`{"strategy": {"tensor": 1e308, "data": -1, "data_mode": "x"}, "hardware": {"gpu": "a100", "count": 8}}`,
		`{"site": {"pue": -1, "carbon_g_per_kwh": 1e308, "usd_per_kwh": 5e-324}}`,
		// Case variants and duplicate keys (issue 29).
		`{"MODEL": {"preset": "bert-base"}, "model": {"preset": "gpt2"}}`,
		`{"hardware": {"gpu": "a100", "count": 8, "Count": 4}, "hardware": {"gpu": "t4", "count": 1}}`,
		`{"training": {"to\u212Aens": 1e9}, "\u0074raining": {}}`,
	} {
		f.Add(uint8(1), uint8(0), "", []byte(seed))
	}
	for _, plan := range examplePlans(f) {
		f.Add(uint8(1), uint8(1), "", plan)
	}
	for _, seed := range []string{
		`{"options": [{"preset": "kd-1b", "students": 1e308, "serving": {"j_ref": 1e-300, "j_student": 5e-324}}]}`,
		`{"options": [{"regime": "kd", "stages_kwh": {"preprocess": 0, "teacher": 1e9, "student": 0, "eval": 0}, "share_teacher_with": "x"}]}`,
	} {
		f.Add(uint8(1), uint8(1), "", []byte(seed))
	}
	// The searches, within and over the work budget (issue 29).
	f.Add(uint8(1), uint8(6), "", []byte(`{"workload": {"model": {"preset": "bert-base"}, "training": {"tokens": 1e8, "seq_len": 128, "batch_per_gpu": 8}}, "candidates": [{"gpu": "t4", "max_count": 4}]}`))
	f.Add(uint8(1), uint8(6), "", []byte(`{"workload": {"model": {"preset": "bert-base"}, "training": {"tokens": 1e8, "seq_len": 128, "batch_per_gpu": 8}}, "candidates": [{"gpu": "h100", "max_count": 4096, "power_limits_w": [200, 250, 300, 350, 400, 450, 500, 550, 600, 650, 700, 700, 700, 700, 700, 700]}, {"gpu": "a100", "max_count": 4096}]}`))
	f.Add(uint8(1), uint8(7), "", []byte(`{"plan": {"options": [{"preset": "sft-1b"}]}, "deadline_s": -1}`))
	f.Add(uint8(0), uint8(3), "", []byte(nil))
	f.Add(uint8(3), uint8(2), "", []byte(nil))
	f.Add(uint8(0), uint8(9), "/api/v1/x%00", []byte(nil))
	h, _ := newTestHandler(f)
	f.Fuzz(func(t *testing.T, m, p uint8, path string, body []byte) {
		method := fuzzMethods[int(m)%len(fuzzMethods)]
		if int(p) < len(fuzzPaths) {
			path = fuzzPaths[p]
		}
		r := httptest.NewRequest("GET", "/", bytes.NewReader(body))
		r.Method = method
		r.URL.Path = path
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code == http.StatusInternalServerError {
			t.Fatalf("%s %q with body %q: 500 %s", method, path, body, w.Body)
		}
		if w.Body.Len() == 0 {
			if w.Code != http.StatusNoContent && w.Code != http.StatusNotModified && method != "HEAD" {
				t.Fatalf("%s %q: status %d with an empty body", method, path, w.Code)
			}
			return
		}
		if !json.Valid(w.Body.Bytes()) {
			t.Fatalf("%s %q: answer is not JSON: %q", method, path, w.Body)
		}
		if w.Code >= 400 {
			var e struct {
				Error struct{ Field, Message string }
			}
			if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || e.Error.Field == "" || e.Error.Message == "" {
				t.Fatalf("%s %q: %d answer %s is not an ErrorBody", method, path, w.Code, w.Body)
			}
		}
	})
}
