package api_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/distill"
)

// validator checks JSON values against the schemas of an OpenAPI 3.1
// document: the subset of JSON Schema the document uses ($ref, type,
// properties, required, additionalProperties, items, minItems, maxItems,
// enum, oneOf, minimum, exclusiveMinimum, maximum). A keyword it does not know is an error, so the document
// cannot use one that goes unchecked.
type validator struct {
	doc map[string]any
}

var knownKeywords = map[string]bool{
	"$ref": true, "type": true, "description": true, "properties": true, "required": true,
	"additionalProperties": true, "items": true, "minItems": true, "maxItems": true, "enum": true, "oneOf": true,
	"minimum": true, "exclusiveMinimum": true, "maximum": true,
}

func (v *validator) resolve(ref string) (map[string]any, error) {
	name, ok := strings.CutPrefix(ref, "#/components/schemas/")
	if !ok {
		return nil, fmt.Errorf("$ref %q is not a component", ref)
	}
	s, ok := v.doc["components"].(map[string]any)["schemas"].(map[string]any)[name].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("$ref %q does not resolve", ref)
	}
	return s, nil
}

// validate reports the first place where x does not match s; at is the
// JSON path of x, for the message.
func (v *validator) validate(s map[string]any, x any, at string) error {
	for k := range s {
		if !knownKeywords[k] {
			return fmt.Errorf("%s: schema keyword %q is not checked by this validator", at, k)
		}
	}
	if ref, ok := s["$ref"].(string); ok {
		rs, err := v.resolve(ref)
		if err != nil {
			return err
		}
		if err := v.validate(rs, x, at); err != nil {
			return err
		}
	}
	if t, ok := s["type"]; ok {
		var types []string
		switch t := t.(type) {
		case string:
			types = []string{t}
		case []any:
			for _, e := range t {
				types = append(types, e.(string))
			}
		}
		match := false
		for _, tn := range types {
			match = match || isType(x, tn)
		}
		if !match {
			return fmt.Errorf("%s: %s is not of type %v", at, brief(x), types)
		}
	}
	if enum, ok := s["enum"].([]any); ok {
		found := false
		for _, e := range enum {
			found = found || e == x
		}
		if !found {
			return fmt.Errorf("%s: %s is not one of %v", at, brief(x), enum)
		}
	}
	if one, ok := s["oneOf"].([]any); ok {
		n := 0
		var errs []string
		for _, o := range one {
			if err := v.validate(o.(map[string]any), x, at); err == nil {
				n++
			} else {
				errs = append(errs, err.Error())
			}
		}
		if n != 1 {
			return fmt.Errorf("%s: %s matches %d of oneOf's %d schemas, want 1 (%s)", at, brief(x), n, len(one), strings.Join(errs, "; "))
		}
	}
	switch x := x.(type) {
	case float64:
		if m, ok := s["minimum"].(float64); ok && x < m {
			return fmt.Errorf("%s: %g is below the minimum %g", at, x, m)
		}
		if m, ok := s["exclusiveMinimum"].(float64); ok && x <= m {
			return fmt.Errorf("%s: %g is not above %g", at, x, m)
		}
		if m, ok := s["maximum"].(float64); ok && x > m {
			return fmt.Errorf("%s: %g is above the maximum %g", at, x, m)
		}
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		for _, r := range asList(s["required"]) {
			if _, ok := x[r]; !ok {
				return fmt.Errorf("%s: required property %q is missing", at, r)
			}
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if ps, ok := props[k].(map[string]any); ok {
				if err := v.validate(ps, x[k], at+"."+k); err != nil {
					return err
				}
				continue
			}
			switch ap := s["additionalProperties"].(type) {
			case bool:
				if !ap {
					return fmt.Errorf("%s: property %q is not in the schema", at, k)
				}
			case map[string]any:
				if err := v.validate(ap, x[k], at+"."+k); err != nil {
					return err
				}
			}
		}
	case []any:
		if n, ok := s["minItems"].(float64); ok && float64(len(x)) < n {
			return fmt.Errorf("%s: %d items, want at least %g", at, len(x), n)
		}
		if n, ok := s["maxItems"].(float64); ok && float64(len(x)) > n {
			return fmt.Errorf("%s: %d items, want at most %g", at, len(x), n)
		}
		if is, ok := s["items"].(map[string]any); ok {
			for i, e := range x {
				if err := v.validate(is, e, at+"["+strconv.Itoa(i)+"]"); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func isType(x any, t string) bool {
	switch t {
	case "object":
		_, ok := x.(map[string]any)
		return ok
	case "array":
		_, ok := x.([]any)
		return ok
	case "string":
		_, ok := x.(string)
		return ok
	case "number":
		_, ok := x.(float64)
		return ok
	case "integer":
		f, ok := x.(float64)
		return ok && f == math.Trunc(f)
	case "boolean":
		_, ok := x.(bool)
		return ok
	case "null":
		return x == nil
	}
	return false
}

func asList(v any) []string {
	var out []string
	l, _ := v.([]any)
	for _, e := range l {
		out = append(out, e.(string))
	}
	return out
}

func brief(x any) string {
	b, _ := json.Marshal(x)
	if len(b) > 60 {
		b = append(b[:60], "..."...)
	}
	return string(b)
}

// schemaFor returns the schema of the answer with status to method on path,
// or the "default" answer's.
func (v *validator) schemaFor(path, method string, status int) (map[string]any, error) {
	op, ok := v.doc["paths"].(map[string]any)[path].(map[string]any)[strings.ToLower(method)].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("no operation %s %s in the document", method, path)
	}
	resps := op["responses"].(map[string]any)
	r, ok := resps[strconv.Itoa(status)].(map[string]any)
	if !ok {
		if r, ok = resps["default"].(map[string]any); !ok {
			return nil, fmt.Errorf("%s %s: no answer %d documented", method, path, status)
		}
	}
	c, ok := r["content"].(map[string]any)["application/json"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s %s %d: no application/json content documented", method, path, status)
	}
	return c["schema"].(map[string]any), nil
}

func (v *validator) requestSchema(path string) map[string]any {
	op := v.doc["paths"].(map[string]any)[path].(map[string]any)["post"].(map[string]any)
	return op["requestBody"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)
}

func loadValidator(t *testing.T) *validator {
	t.Helper()
	h, _ := newTestHandler(t)
	w := do(h, "GET", "/api/v1/openapi.json", nil, nil)
	var doc map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	return &validator{doc: doc}
}

// TestOpenAPIMatchesAnswers sends requests that produce every documented
// answer and validates each real answer against the document.
func TestOpenAPIMatchesAnswers(t *testing.T) {
	h, _ := newTestHandler(t)
	v := loadValidator(t)
	if v.doc["openapi"] != "3.1.0" {
		t.Fatalf("openapi = %v, want 3.1.0", v.doc["openapi"])
	}
	req := exampleRequest(t)
	hybrid := strings.Replace(string(req), `"strategy": "fsdp"`, `"strategy": {"tensor": 2, "data": 2, "data_mode": "fsdp"}`, 1)
	custom := strings.Replace(string(req), `{"preset": "bert-base"}`, `{"layers": 4, "hidden": 256, "heads": 4, "ffn": 1024, "vocab": 8000}`, 1)
	tests := []struct {
		method, path, body string
		status             int
	}{
		{"POST", "/api/v1/estimate", string(req), 200},
		{"POST", "/api/v1/estimate", hybrid, 200},
		{"POST", "/api/v1/estimate", custom, 200},
		{"POST", "/api/v1/estimate", `{"calibration": "zoubeirou2026-bert-pooled", ` + string(req[1:]), 200},
		{"POST", "/api/v1/estimate", `{`, 400},
		{"POST", "/api/v1/estimate", strings.Repeat(" ", 70000), 413},
		{"GET", "/api/v1/estimate", "", 405},
		{"POST", "/api/v1/distill", `{"options": [{"bad": 1}]}`, 400},
		{"POST", "/api/v1/recommend", string(exampleRecommend(t)), 200},
		{"POST", "/api/v1/recommend", strings.Replace(string(exampleRecommend(t)), `"deadline_s": 36000`, `"deadline_s": 10`, 1), 200},
		{"POST", "/api/v1/recommend", `{"workload": {"model": {"preset": "bert-base"}, "training": {"tokens": 1e8, "seq_len": 128, "batch_per_gpu": 8, "precision": "fp16"}}, "candidates": [{"gpu": "t4", "max_count": 2}]}`, 200},
		{"POST", "/api/v1/recommend", `{"candidates": []}`, 400},
		{"POST", "/api/v1/distill/recommend", string(examplePlanRecommend(t)), 200},
		{"POST", "/api/v1/distill/recommend", `{"plan": {"options": [{"preset": "sft-1b"}, {"preset": "kd-1b"}]}}`, 200},
		{"POST", "/api/v1/distill/recommend", `{"plan": {"options": [{"preset": "sft-1b"}]}, "candidates": [{"gpu": "h1000"}], "stagez": 1}`, 400},
		{"GET", "/api/v1/hardware", "", 200},
		{"GET", "/api/v1/calibrations", "", 200},
		{"GET", "/api/v1/health", "", 200},
		{"GET", "/api/v1/openapi.json", "", 200},
		{"PUT", "/api/v1/health", "", 405},
		{"GET", "/api/v1/none", "", 404},
	}
	for name, plan := range examplePlans(t) {
		tests = append(tests, struct {
			method, path, body string
			status             int
		}{"POST", "/api/v1/distill", string(plan), 200})
		if err := v.validate(v.requestSchema("/api/v1/distill"), decodeAny(t, plan), "$"); err != nil {
			t.Errorf("%s does not match the plan schema: %v", name, err)
		}
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s %s %d", tt.method, tt.path, tt.status), func(t *testing.T) {
			w := do(h, tt.method, tt.path, []byte(tt.body), nil)
			if w.Code != tt.status {
				t.Fatalf("status = %d %s, want %d", w.Code, w.Body, tt.status)
			}
			path, method := tt.path, tt.method
			if tt.status == 404 || tt.status == 405 {
				// Documented as the answers of the route's operations.
				path, method = "/api/v1/health", "GET"
			}
			s, err := v.schemaFor(path, method, tt.status)
			if err != nil {
				t.Fatal(err)
			}
			if err := v.validate(s, decodeAny(t, w.Body.Bytes()), "$"); err != nil {
				t.Errorf("answer does not match the document: %v", err)
			}
		})
	}
	if err := v.validate(v.requestSchema("/api/v1/distill/recommend"), decodeAny(t, examplePlanRecommend(t)), "$"); err != nil {
		t.Errorf("the plan recommend example does not match the request schema: %v", err)
	}
	if err := v.validate(v.requestSchema("/api/v1/recommend"), decodeAny(t, exampleRecommend(t)), "$"); err != nil {
		t.Errorf("the recommend example does not match the request schema: %v", err)
	}
	if err := v.validate(v.requestSchema("/api/v1/estimate"), decodeAny(t, []byte(hybrid)), "$"); err != nil {
		t.Errorf("a valid request does not match the request schema: %v", err)
	}
}

// TestOpenAPIRoutes checks that the document lists exactly the routes that
// answer, with the methods they accept.
func TestOpenAPIRoutes(t *testing.T) {
	h, _ := newTestHandler(t)
	v := loadValidator(t)
	paths := v.doc["paths"].(map[string]any)
	if len(paths) < 6 {
		t.Errorf("document lists %d paths, want at least 6", len(paths))
	}
	for path, item := range paths {
		for method := range item.(map[string]any) {
			m := strings.ToUpper(method)
			w := do(h, "OPTIONS", path, nil, map[string]string{"Access-Control-Request-Method": m})
			if w.Code != http.StatusNoContent || !strings.Contains(w.Header().Get("Allow"), m) {
				t.Errorf("OPTIONS %s = %d, Allow %q; want 204 allowing the documented %s", path, w.Code, w.Header().Get("Allow"), m)
			}
		}
	}
	for _, path := range []string{"/api/v1/estimate", "/api/v1/distill", "/api/v1/hardware", "/api/v1/calibrations", "/api/v1/health", "/api/v1/openapi.json"} {
		if _, ok := paths[path]; !ok {
			t.Errorf("route %s is not in the document", path)
		}
	}
	// Every $ref resolves.
	b, _ := json.Marshal(v.doc)
	for _, part := range strings.Split(string(b), `"$ref":"`)[1:] {
		ref := part[:strings.IndexByte(part, '"')]
		if _, err := v.resolve(ref); err != nil {
			t.Error(err)
		}
	}
}

// TestValidatorRejects makes sure the validator can fail: answers altered
// in each way it checks are rejected.
func TestValidatorRejects(t *testing.T) {
	h, _ := newTestHandler(t)
	v := loadValidator(t)
	s, err := v.schemaFor("/api/v1/estimate", "POST", 200)
	if err != nil {
		t.Fatal(err)
	}
	good := do(h, "POST", "/api/v1/estimate", exampleRequest(t), nil).Body.Bytes()
	if err := v.validate(s, decodeAny(t, good), "$"); err != nil {
		t.Fatalf("the unaltered answer fails: %v", err)
	}
	for name, alter := range map[string]func(m map[string]any){
		"extra property":       func(m map[string]any) { m["surprise"] = 1.0 },
		"missing required":     func(m map[string]any) { delete(m, "energy_kwh") },
		"wrong type":           func(m map[string]any) { m["energy_kwh"] = "0.1" },
		"short pair":           func(m map[string]any) { m["energy_interval_kwh"] = []any{1.0} },
		"fraction for integer": func(m map[string]any) { m["parallel"].(map[string]any)["gpus"] = 1.5 },
		"nested extra":         func(m map[string]any) { m["roofline"].(map[string]any)["x"] = true },
		"array item type":      func(m map[string]any) { m["warnings"] = []any{1.0} },
	} {
		m := decodeAny(t, good).(map[string]any)
		alter(m)
		if err := v.validate(s, m, "$"); err == nil {
			t.Errorf("%s: altered answer passes the validator", name)
		}
	}
	hs, _ := v.schemaFor("/api/v1/health", "GET", 200)
	bad := decodeAny(t, do(h, "GET", "/api/v1/health", nil, nil).Body.Bytes()).(map[string]any)
	bad["status"] = "down"
	if err := v.validate(hs, bad, "$"); err == nil {
		t.Errorf("health with status %q passes the enum", bad["status"])
	}
	rs := v.requestSchema("/api/v1/estimate")
	for _, body := range []string{`{"strategy": {"tensor": 2, "pipeline": 2}}`, `{"strategy": 3}`, `{"colour": 1}`, `{"training": {"tokens": "x"}}`} {
		if err := v.validate(rs, decodeAny(t, []byte(body)), "$"); err == nil {
			t.Errorf("request %s passes the request schema", body)
		}
	}
}

// TestOpenAPIDescribesEveryTableField walks the estimate request's schema
// to each path of model.RequestFields: every field is there, described in
// the table's words with its range, so that a new row of the table (such
// as training.state_bytes_per_param) reaches the API's description alone.
func TestOpenAPIDescribesEveryTableField(t *testing.T) {
	v := loadValidator(t)
	root := v.requestSchema("/api/v1/estimate")
	for _, f := range model.RequestFields {
		if f.Path == "" {
			continue
		}
		s := root
		for _, name := range strings.Split(f.Path, ".") {
			if ref, ok := s["$ref"].(string); ok {
				var err error
				if s, err = v.resolve(ref); err != nil {
					t.Fatal(err)
				}
			}
			if one, ok := s["oneOf"].([]any); ok { // strategy: a name or an object
				s = one[len(one)-1].(map[string]any)
			}
			p, ok := s["properties"].(map[string]any)[name].(map[string]any)
			if !ok {
				t.Errorf("%s: the request schema has no property %q", f.Path, name)
				s = nil
				break
			}
			s = p
		}
		if s == nil || f.Path == "strategy" {
			continue
		}
		d, _ := s["description"].(string)
		if !strings.HasPrefix(d, f.Help) {
			t.Errorf("%s: description %q does not start with the table's help %q", f.Path, d, f.Help)
		}
		if f.Bounds != nil && !strings.Contains(d, strings.TrimPrefix(f.Rule(), "must be ")) {
			t.Errorf("%s: description %q lacks the range %q", f.Path, d, f.Rule())
		}
	}
}

// TestOpenAPIDescribesEveryPlanField: every row of the plan's field table
// (distill.PlanFields) with a plan path is described in the OpenAPI
// document by its help text (the site rows by the estimate request's
// table, whose rows they copy).
func TestOpenAPIDescribesEveryPlanField(t *testing.T) {
	v := loadValidator(t)
	b, _ := json.Marshal(v.doc)
	doc := string(b)
	for _, f := range distill.PlanFields {
		if f.Path == "" || f.Help == "" {
			continue
		}
		h, _ := json.Marshal(f.Help)
		if !strings.Contains(doc, strings.Trim(string(h), `"`)) {
			t.Errorf("plan field %s (%s): its help %q is not in the OpenAPI document", f.Key, f.Path, f.Help)
		}
	}
}

// TestDocsStateBudget: the API page states the work budget and its units
// as the model counts them.
func TestDocsStateBudget(t *testing.T) {
	b, err := os.ReadFile("../../content/pages/api.md")
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	thousands := func(n int) string { return fmt.Sprintf("%d,%03d", n/1000, n%1000) }
	for _, want := range []string{
		"at most **" + thousands(model.DefaultWorkBudget) + " work units**",
		fmt.Sprintf("(GPU type × count × layout × power limit) | %d |", model.WorkPerConfig),
		fmt.Sprintf("(GPU type × count × layout) | %d |", model.WorkPerInferenceConfig),
		fmt.Sprintf("(its current configuration and its answer) | %d |", model.WorkPerSearch),
		fmt.Sprintf("on `distill` and `distill/recommend` | %d |", model.WorkPerEstimatedStage),
	} {
		if !strings.Contains(page, want) {
			t.Errorf("content/pages/api.md lacks %q", want)
		}
	}
}

// TestOpenAPIRequiredAndBounds: the request schemas carry the field
// table's required fields and bounds, and the document its servers and an
// empty security list (no route needs credentials), as linters ask.
func TestOpenAPIRequiredAndBounds(t *testing.T) {
	h, _ := newTestHandler(t)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/api/v1/openapi.json", nil))
	var doc struct {
		Servers    []struct{ URL string }
		Security   *[]any
		Components struct {
			Schemas map[string]struct {
				Required   []string
				Properties map[string]struct {
					Minimum, ExclusiveMinimum, Maximum *float64
				}
			}
		}
	}
	if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Servers) == 0 || doc.Security == nil || len(*doc.Security) != 0 {
		t.Errorf("servers %v, security %v; want a server and an empty security list", doc.Servers, doc.Security)
	}
	s := doc.Components.Schemas
	for name, want := range map[string][]string{
		"RequestInput": {"hardware", "strategy", "training"}, "TrainingSpecInput": {"batch_per_gpu", "seq_len"},
		"HardwareSpecInput": {"count", "gpu"}, "Plan": {"options"}, "RecommendRequest": {"workload"},
	} {
		if got := s[name].Required; !slices.Equal(got, want) {
			t.Errorf("%s required %v, want %v", name, got, want)
		}
	}
	for _, c := range []struct {
		schema, prop, path string
	}{{"HardwareSpecInput", "count", "hardware.count"}, {"TrainingSpecInput", "seq_len", "training.seq_len"}, {"SiteSpecInput", "pue", "site.pue"}} {
		f := model.RequestField(c.path)
		p := s[c.schema].Properties[c.prop]
		lo := p.Minimum
		if f.MinOpen {
			lo = p.ExclusiveMinimum
		}
		if lo == nil || p.Maximum == nil || *lo != f.Min || *p.Maximum != f.Max {
			t.Errorf("%s.%s: minimum %v, maximum %v; want the table's [%g, %g]", c.schema, c.prop, lo, p.Maximum, f.Min, f.Max)
		}
	}
}
