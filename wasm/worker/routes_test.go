package main

// The routes in workerd: each example request's answer, the ETag list,
// and the same numbers as the command line.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

// answer is what the tests compare between workerd and the native handler.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// comparedHeaders are the headers the handler sets; workerd's own (Date,
// Transfer-Encoding, ...) are not compared.
var comparedHeaders = []string{
	"Content-Type", "Allow", "Cache-Control", "ETag", "X-Content-Type-Options",
	"Access-Control-Allow-Origin", "Access-Control-Allow-Methods", "Access-Control-Allow-Headers",
	"Access-Control-Max-Age", "Access-Control-Expose-Headers",
}

type e2eCase struct {
	name, method, path string
	body               []byte
	header             map[string]string
	chunked            bool // send the body without Content-Length
	status             int
}

func e2eCases(t testing.TB) []e2eCase {
	req := readExample(t)
	sub := func(old, new string) []byte { return bytes.Replace(req, []byte(old), []byte(new), 1) }
	big := bytes.Repeat([]byte(" "), 70000)
	plan, err := os.ReadFile("../../content/examples/plan-paper-estimated.json")
	if err != nil {
		t.Fatal(err)
	}
	planRec, err := os.ReadFile("../../content/examples/recommend-plan.json")
	if err != nil {
		t.Fatal(err)
	}
	return []e2eCase{
		{name: "estimate", method: "POST", path: "/api/v1/estimate", body: req, status: 200},
		{name: "estimate text/plain", method: "POST", path: "/api/v1/estimate", body: req, header: map[string]string{"Content-Type": "text/plain"}, status: 200},
		{name: "estimate chunked", method: "POST", path: "/api/v1/estimate", body: req, chunked: true, status: 200},
		{name: "distill", method: "POST", path: "/api/v1/distill", body: plan, status: 200},
		{name: "distill: unknown deep field", method: "POST", path: "/api/v1/distill", body: []byte(`{"options": [{"student": {"training": {"steps": 1}}}]}`), status: 400},
		{name: "distill: out of range", method: "POST", path: "/api/v1/distill", body: []byte(`{"options": [{"preset": "kd-1b", "students": 0.5}]}`), status: 400},
		{name: "distill: too large", method: "POST", path: "/api/v1/distill", body: big, status: 413},
		{name: "distill: wrong method", method: "PUT", path: "/api/v1/distill", status: 405},
		{name: "distill/recommend", method: "POST", path: "/api/v1/distill/recommend", body: planRec, status: 200},
		{name: "distill/recommend: bad stage candidate", method: "POST", path: "/api/v1/distill/recommend", body: bytes.Replace(planRec, []byte(`[{"gpu": "h100-sxm5", "max_count": 4}]`), []byte(`[{"gpu": "h100-sxm5-8gb"}]`), 1), status: 400},
		{name: "hardware", method: "GET", path: "/api/v1/hardware", status: 200},
		{name: "calibrations", method: "GET", path: "/api/v1/calibrations", status: 200},
		{name: "health", method: "GET", path: "/api/v1/health", status: 200},
		{name: "openapi", method: "GET", path: "/api/v1/openapi.json", status: 200},
		{name: "HEAD", method: "HEAD", path: "/api/v1/hardware", status: 200},
		{name: "not modified", method: "GET", path: "/api/v1/hardware", header: map[string]string{"If-None-Match": "*"}, status: 304},
		{name: "preflight", method: "OPTIONS", path: "/api/v1/estimate", header: map[string]string{
			"Origin": "https://docs.example.org", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"}, status: 204},
		{name: "empty body", method: "POST", path: "/api/v1/estimate", status: 400},
		{name: "malformed JSON", method: "POST", path: "/api/v1/estimate", body: []byte(`{"model": {`), status: 400},
		{name: "unknown field", method: "POST", path: "/api/v1/estimate", body: []byte(`{"colour": 1}`), status: 400},
		{name: "wrong type", method: "POST", path: "/api/v1/estimate", body: []byte(`{"training": {"tokens": "lots"}}`), status: 400},
		{name: "NaN", method: "POST", path: "/api/v1/estimate", body: []byte(`{"training": {"tokens": NaN}}`), status: 400},
		{name: "Inf", method: "POST", path: "/api/v1/estimate", body: []byte(`{"training": {"tokens": 1e999}}`), status: 400},
		{name: "out of range", method: "POST", path: "/api/v1/estimate", body: sub(`"batch_per_gpu": 32`, `"batch_per_gpu": 0`), status: 400},
		{name: "too large", method: "POST", path: "/api/v1/estimate", body: big, status: 413},
		{name: "too large chunked", method: "POST", path: "/api/v1/estimate", body: big, chunked: true, status: 413},
		{name: "wrong method", method: "GET", path: "/api/v1/estimate", status: 405},
		{name: "wrong method on GET route", method: "DELETE", path: "/api/v1/health", status: 405},
		{name: "unknown route", method: "GET", path: "/api/v1/nothing", status: 404},
		{name: "root", method: "GET", path: "/", status: 404},
	}
}

func readExample(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("../../content/examples/request.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (c e2eCase) request(ctx context.Context, base string) (*http.Request, error) {
	var body io.Reader
	if c.body != nil {
		body = bytes.NewReader(c.body)
		if c.chunked {
			body = io.MultiReader(body) // hides the length: sent chunked
		}
	}
	req, err := http.NewRequestWithContext(ctx, c.method, base+c.path, body)
	if err != nil {
		return nil, err
	}
	for k, v := range c.header {
		req.Header.Set(k, v)
	}
	return req, nil
}

// TestWorkerd sends every route and error class to the worker in workerd
// and checks that each answer is the native handler's (status, headers the
// handler sets, body byte for byte): the js/wasm build, syumai/workers'
// request conversion and the shim change nothing.
func TestWorkerd(t *testing.T) {
	base := startWorkerd(t)
	version = e2eVersion
	native, err := newHandler()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range e2eCases(t) {
		t.Run(c.name, func(t *testing.T) {
			req, err := c.request(context.Background(), base)
			if err != nil {
				t.Fatal(err)
			}
			res, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(res.Body)
			res.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			got := answer{res.StatusCode, res.Header, body}

			nreq := httptest.NewRequest(c.method, c.path, bytes.NewReader(c.body))
			for k, v := range c.header {
				nreq.Header.Set(k, v)
			}
			if c.chunked {
				nreq.ContentLength = -1
			}
			w := httptest.NewRecorder()
			native.ServeHTTP(w, nreq)
			want := answer{w.Code, w.Header(), w.Body.Bytes()}

			if got.status != c.status {
				t.Errorf("workerd: %s %s = %d %s, want %d", c.method, c.path, got.status, body, c.status)
			}
			same := bytes.Equal(got.body, want.body)
			if !same && c.method == "POST" && got.status == http.StatusOK {
				// Numbers may differ in the last bits (see maxULP).
				var g, w any
				same = json.Unmarshal(got.body, &g) == nil && json.Unmarshal(want.body, &w) == nil && len(diffJSON(g, w, "$", maxULP)) == 0
			}
			if got.status != want.status || !same {
				t.Errorf("workerd answered %d %q\nnative handler %d %q", got.status, clipBytes(got.body), want.status, clipBytes(want.body))
			}
			for _, h := range comparedHeaders {
				if g, w := got.header.Get(h), want.header.Get(h); g != w {
					t.Errorf("header %s: workerd %q, native %q", h, g, w)
				}
			}
			if c.method != "HEAD" && c.status != 204 && c.status != 304 {
				if !json.Valid(got.body) {
					t.Errorf("answer is not JSON: %q", clipBytes(got.body))
				}
			}
		})
	}
}

// TestWorkerdETagList checks an If-None-Match list through workerd (where
// syumai/workers splits header lists at commas).
func TestWorkerdETagList(t *testing.T) {
	base := startWorkerd(t)
	res, err := client.Get(base + "/api/v1/calibrations")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	tag := res.Header.Get("ETag")
	if tag == "" {
		t.Fatal("no ETag")
	}
	for inm, want := range map[string]int{`"other", ` + tag: 304, `"other", "more"`: 200, tag: 304} {
		req, _ := http.NewRequest("GET", base+"/api/v1/calibrations", nil)
		req.Header.Set("If-None-Match", inm)
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != want {
			t.Errorf("If-None-Match %s: status %d, want %d", inm, res.StatusCode, want)
		}
	}
}

func clipBytes(b []byte) []byte {
	if len(b) > 300 {
		return append(b[:300:300], "..."...)
	}
	return b
}

// TestWorkerdMatchesCommandLine checks that POST /api/v1/estimate in workerd
// returns what "go run ./site estimate" prints for the same request
// (compared as parsed JSON values, numbers to maxULP), for requests that take
// different paths through the model, and the same error for a request the
// model rejects.
func TestWorkerdMatchesCommandLine(t *testing.T) {
	base := startWorkerd(t)
	req := readExample(t)
	sub := func(b []byte, pairs ...string) []byte {
		for i := 0; i < len(pairs); i += 2 {
			if !bytes.Contains(b, []byte(pairs[i])) {
				t.Fatalf("example request has no %q", pairs[i])
			}
			b = bytes.Replace(b, []byte(pairs[i]), []byte(pairs[i+1]), 1)
		}
		return b
	}
	requests := []struct {
		name string
		body []byte
	}{
		{"example (fsdp, roofline)", req},
		{"hybrid", sub(req, `"strategy": "fsdp"`, `"strategy": {"tensor": 2, "data": 2, "data_mode": "fsdp"}`)},
		{"custom shape on one GPU", sub(req, `{"preset": "bert-base"}`, `{"layers": 6, "hidden": 512, "heads": 8, "ffn": 2048, "vocab": 32000, "glu": true}`, `"count": 4`, `"count": 1`, `"strategy": "fsdp"`, `"strategy": "single"`)},
		{"loglinear calibration", append([]byte(`{"calibration": "zoubeirou2026-bert-pooled",`), req[1:]...)},
		{"llama on 8 h100", sub(req, `"preset": "bert-base"`, `"preset": "llama-2-7b"`, "a100-sxm4-80gb", "h100", `"count": 4`, `"count": 8`, `"fp16"`, `"bf16"`)},
		{"rejected: 70b does not fit", sub(req, `"preset": "bert-base"`, `"preset": "llama-2-70b"`, "a100-sxm4-80gb", "h100", `"count": 4`, `"count": 8`)},
	}
	for _, r := range requests {
		t.Run(r.name, func(t *testing.T) { compareWithCommandLine(t, base, "estimate", r.body) })
	}
}

// TestWorkerdDistillMatchesCommandLine does the same for POST
// /api/v1/distill and "go run ./site distill", with every example plan and
// a rejected one.
func TestWorkerdDistillMatchesCommandLine(t *testing.T) {
	base := startWorkerd(t)
	names, err := filepath.Glob("../../content/examples/plan-*.json")
	if err != nil || len(names) == 0 {
		t.Fatalf("no example plans: %v", err)
	}
	for _, n := range names {
		body, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(n), func(t *testing.T) { compareWithCommandLine(t, base, "distill", body) })
	}
	t.Run("rejected: fractional students", func(t *testing.T) {
		compareWithCommandLine(t, base, "distill", []byte(`{"options": [{"preset": "kd-1b", "students": 0.5}]}`))
	})
}

// compareWithCommandLine sends body to POST /api/v1/<cmd> in workerd and to
// "go run ./site <cmd>" and checks that the answers agree: the same JSON
// (numbers to maxULP) on success, the same words on a rejected input (a 400
// and the command line's one line on stderr).
func compareWithCommandLine(t *testing.T, base, cmdName string, body []byte) {
	t.Helper()
	exe, err := siteCLI()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, cmdName)
	cmd.Dir = "../.."
	cmd.Stdin = bytes.NewReader(body)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cli, cliErr := cmd.Output()
	res, err := client.Post(base+"/api/v1/"+cmdName, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	api, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	var ee *exec.ExitError
	if errors.As(cliErr, &ee) && ee.ExitCode() == 1 {
		// A user error: one line on stderr, the same words as the 400.
		var e struct {
			Error struct{ Field, Message string }
		}
		if res.StatusCode != http.StatusBadRequest || json.Unmarshal(api, &e) != nil {
			t.Fatalf("command line failed (%s) but the API answered %d %s", stderr.String(), res.StatusCode, api)
		}
		got := "wattscale " + cmdName + ": " + e.Error.Field + ": " + e.Error.Message
		want, _, _ := strings.Cut(stderr.String(), "\n")
		if got != want {
			t.Errorf("API error %q\nwant the command line's %q", got, want)
		}
		return
	}
	if cliErr != nil {
		t.Fatalf("site %s: %v\n%s", cmdName, cliErr, stderr.String())
	}
	if res.StatusCode != http.StatusOK {
		t.Fatalf("POST /api/v1/%s = %d %s", cmdName, res.StatusCode, api)
	}
	var got, want any
	if err := json.Unmarshal(api, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(cli, &want); err != nil {
		t.Fatal(err)
	}
	if d := diffJSON(got, want, "$", maxULP); len(d) > 0 {
		t.Errorf("workerd answer differs from go run ./site %s:\n%s", cmdName, strings.Join(d, "\n"))
	}
	t.Logf("largest difference: %d ULP", maxULPDiff(got, want))
}

// siteCLI is the command line (what "go run ./site" runs), built once into
// siteCLIDir for the package's tests rather than by a go run for every
// comparison.
var siteCLIDir string

var siteCLI = sync.OnceValues(func() (string, error) {
	var err error
	if siteCLIDir, err = os.MkdirTemp("", "wattscale-worker-cli-"); err != nil {
		return "", err
	}
	exe := filepath.Join(siteCLIDir, "wattscale")
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", exe, "./site")
	cmd.Dir = "../.."
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./site: %v\n%s", err, b)
	}
	return exe, nil
})

// maxULP is how far, in units in the last place, a number computed in
// js/wasm may lie from the native command line's. math.Exp and math.Log are
// assembly on amd64 (using FMA where the CPU has it) and pure Go on wasm, so
// their results may differ in the last bit (1 ULP measured); a difference of
// two such numbers, such as the parallel overhead E_N − E_1, magnifies that
// (4 ULP measured). 64 ULP, a relative 1.4e-14, allows a 30-fold
// magnification and still catches any real divergence. Everything else
// (keys, strings, booleans, lengths) must be equal.
const maxULP = 64

// diffJSON lists the differences between two decoded JSON values: keys,
// lengths, strings and booleans exactly, numbers within maxULP units in the
// last place.
func diffJSON(got, want any, at string, maxULP uint64) []string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: got %v, want an object", at, got)}
		}
		var d []string
		for k := range w {
			if _, ok := g[k]; !ok {
				d = append(d, fmt.Sprintf("%s.%s: missing", at, k))
			}
		}
		for k, gv := range g {
			wv, ok := w[k]
			if !ok {
				d = append(d, fmt.Sprintf("%s.%s: unexpected", at, k))
				continue
			}
			d = append(d, diffJSON(gv, wv, at+"."+k, maxULP)...)
		}
		slices.Sort(d)
		return d
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return []string{fmt.Sprintf("%s: got %v, want %v", at, got, want)}
		}
		var d []string
		for i := range w {
			d = append(d, diffJSON(g[i], w[i], fmt.Sprintf("%s[%d]", at, i), maxULP)...)
		}
		return d
	case float64:
		g, ok := got.(float64)
		if !ok || ulps(g, w) > maxULP {
			return []string{fmt.Sprintf("%s: got %v, want %v", at, got, want)}
		}
		return nil
	}
	if got != want {
		return []string{fmt.Sprintf("%s: got %v, want %v", at, got, want)}
	}
	return nil
}

// ulps is the distance between a and b in units in the last place; the
// maximum for numbers of opposite signs or NaN.
func ulps(a, b float64) uint64 {
	if a == b {
		return 0
	}
	if math.IsNaN(a) || math.IsNaN(b) || math.Signbit(a) != math.Signbit(b) {
		return math.MaxUint64
	}
	x, y := math.Float64bits(math.Abs(a)), math.Float64bits(math.Abs(b))
	if x > y {
		return x - y
	}
	return y - x
}

// maxULPDiff is the largest ulps between corresponding numbers of two JSON
// values of the same shape.
func maxULPDiff(got, want any) uint64 {
	var m uint64
	switch w := want.(type) {
	case map[string]any:
		g, _ := got.(map[string]any)
		for k := range w {
			m = max(m, maxULPDiff(g[k], w[k]))
		}
	case []any:
		g, _ := got.([]any)
		for i := range min(len(g), len(w)) {
			m = max(m, maxULPDiff(g[i], w[i]))
		}
	case float64:
		if g, ok := got.(float64); ok {
			m = ulps(g, w)
		}
	}
	return m
}
