package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/wasm/api"
)

// TestBodyRulesSameEverywhere sends the same bodies to the command line's
// standard input (run) and to the API's handler: both accept the same
// ones (a UTF-8 byte-order mark is dropped, as the CSV readers drop one) and
// refuse the others with the same field and words: over 64 KiB (also when
// what lies past the limit is only spaces and garbage), data after the
// JSON value, a number beyond float64.
func TestBodyRulesSameEverywhere(t *testing.T) {
	cat, err := content.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	h, err := api.NewHandler(cat, api.Options{})
	if err != nil {
		t.Fatal(err)
	}
	req, err := os.ReadFile("../content/examples/request.json")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := os.ReadFile("../content/examples/plan-measured.json")
	if err != nil {
		t.Fatal(err)
	}
	pad := func(b []byte, n int, tail string) []byte {
		return append(append(append([]byte{}, b...), bytes.Repeat([]byte(" "), n)...), tail...)
	}
	bom := func(b []byte) []byte { return append([]byte("\ufeff"), b...) }
	for _, c := range []struct {
		name, cmd string
		body      []byte
		want      string // "" = accepted; else the error line's words after "wattscale CMD: "
	}{
		{"estimate", "estimate", req, ""},
		{"estimate with a byte-order mark", "estimate", bom(req), ""},
		{"plan with a byte-order mark", "distill", bom(plan), ""},
		{"70 KB of spaces and garbage after", "estimate", pad(req, 70000, "garbage"), "(body): must be at most 65536 bytes, got more"},
		{"70 KB of spaces after", "estimate", pad(req, 70000, ""), "(body): must be at most 65536 bytes, got more"},
		{"plan over the limit", "distill", pad(plan, 70000, ""), "(body): must be at most 65536 bytes, got more"},
		{"data after the object", "estimate", pad(req, 1, "{}"), "(body): must hold exactly one JSON object; found data after it"},
		{"garbage after the plan", "distill", pad(plan, 1, "x"), "(body): must hold exactly one JSON object; found data after it"},
		{"1e400", "estimate", bytes.Replace(req, []byte("2.0e8"), []byte("1e400"), 1), "training.tokens: must be a finite number; this one is beyond ±1.8e308, got 1e400"},
		{"two byte-order marks", "estimate", bom(bom(req)), "(body): is not valid JSON at byte 1: invalid character 'ï' looking for beginning of value"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run([]string{c.cmd}, bytes.NewReader(c.body), &out, &errb)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest("POST", "/api/v1/"+c.cmd, bytes.NewReader(c.body)))
			if c.want == "" {
				if code != 0 || w.Code != http.StatusOK {
					t.Fatalf("command line exit %d (%s), API %d %s; want both accepted", code, errb.String(), w.Code, w.Body)
				}
				return
			}
			if line := strings.TrimSpace(errb.String()); code != 1 || line != "wattscale "+c.cmd+": "+c.want {
				t.Errorf("command line: exit %d, %q; want exit 1, %q", code, line, "wattscale "+c.cmd+": "+c.want)
			}
			var e api.ErrorBody
			if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || w.Code/100 != 4 {
				t.Fatalf("API: %d %s; want a 4xx error body", w.Code, w.Body)
			}
			if got := e.Error.Field + ": " + e.Error.Message; got != c.want {
				t.Errorf("API: %q; want %q", got, c.want)
			}
		})
	}
	// The model's own reader says the same.
	if _, err := model.ParseRequest(bytes.NewReader(pad(req, 70000, ""))); err == nil || err.Error() != "(body): must be at most 65536 bytes, got more" {
		t.Errorf("model.ParseRequest of a long body: %v", err)
	}
}

// TestExtraArgumentsRefused: a positional argument after any command's
// flags is an error naming it, not ignored.
func TestExtraArgumentsRefused(t *testing.T) {
	for _, c := range commands() {
		var out, errb bytes.Buffer
		code := run([]string{c.name, "stray.json"}, strings.NewReader("{}"), &out, &errb)
		if code != 1 || !strings.Contains(errb.String(), `unexpected argument "stray.json"`) {
			t.Errorf("%s stray.json: exit %d, %q; want exit 1 naming the argument", c.name, code, errb.String())
		}
	}
}
