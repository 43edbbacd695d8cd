package main

// End-to-end tests in a real Workers runtime: the worker is built with
// GOOS=js GOARCH=wasm exactly as "make worker" does, served by workerd on a
// loopback socket, and driven over HTTP. They skip when workerd is missing
// (npm ci --prefix wasm/worker installs it) unless WATTSCALE_REQUIRE_E2E=1.

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// e2eVersion is the version both the wasm build and the in-process handler
// report, so that their answers can be compared byte for byte.
const e2eVersion = "e2e"

// client bounds every request of the tests, so that a hung runtime fails
// them instead of stalling them.
var client = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{IdleConnTimeout: idleConnTimeout}}

// idleConnTimeout is how long the tests' clients keep an idle connection:
// workerd closes a keep-alive connection after about 5 s idle, and a POST
// sent on a connection the server is closing fails (with EOF or a reset)
// and is not retried, so the clients drop theirs well before.
const idleConnTimeout = 2 * time.Second

// findWorkerd returns the workerd binary: $WORKERD, the one npm installed
// under wasm/worker (or at the repository root), or one on $PATH. The platform package's binary comes
// first: node_modules/.bin/workerd may be a Node wrapper, and killing the
// wrapper would leave workerd running.
func findWorkerd(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("WORKERD"); p != "" {
		return p
	}
	platform := map[string]string{"amd64": "64", "arm64": "arm64"}[runtime.GOARCH]
	for _, rel := range []string{
		"node_modules/@cloudflare/workerd-" + runtime.GOOS + "-" + platform + "/bin/workerd",
		"node_modules/.bin/workerd",
		"../../node_modules/@cloudflare/workerd-" + runtime.GOOS + "-" + platform + "/bin/workerd",
		"../../node_modules/.bin/workerd",
	} {
		if p, err := filepath.Abs(rel); err == nil {
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
	}
	if p, err := exec.LookPath("workerd"); err == nil {
		return p
	}
	msg := "workerd not found (run: npm ci --prefix wasm/worker, or set WORKERD)"
	if os.Getenv("WATTSCALE_REQUIRE_E2E") == "1" {
		t.Fatal(msg + "; WATTSCALE_REQUIRE_E2E=1 forbids skipping")
	}
	t.Skip(msg)
	return ""
}

// built is a worker built once for the package's tests.
type built struct {
	once    sync.Once
	dir     string // holds workerd.capnp and build/
	err     error
	raw, gz int // app.wasm size, bytes: raw and gzip -9
}

var (
	build      built // the worker, ./
	probeBuild built // the fixture testdata/probe
)

func TestMain(m *testing.M) {
	code := m.Run()
	for _, b := range []*built{&build, &probeBuild} {
		if b.dir != "" {
			os.RemoveAll(b.dir)
		}
	}
	if siteCLIDir != "" {
		os.RemoveAll(siteCLIDir)
	}
	os.Exit(code)
}

// buildWorker builds into a temporary folder what "make worker" builds into
// wasm/worker/build: syumai/workers' generated JavaScript, shim/worker.mjs
// over its worker.mjs, and the js/wasm program.
func buildWorker(t testing.TB) string {
	t.Helper()
	return build.get(t, ".")
}

// get builds the program pkg as a worker, once.
func (b *built) get(t testing.TB, pkg string) string {
	t.Helper()
	b.once.Do(func() {
		b.dir, b.err = os.MkdirTemp("", "wattscale-worker-")
		if b.err == nil {
			b.raw, b.gz, b.err = buildInto(b.dir, pkg)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.dir
}

func buildInto(dir, pkg string) (raw, gz int, err error) {
	out := filepath.Join(dir, "build")
	run := func(env []string, name string, args ...string) error {
		cmd := exec.Command(name, args...)
		cmd.Env = append(os.Environ(), env...)
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, b)
		}
		return nil
	}
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if err := run(nil, gobin, "run", "github.com/syumai/workers/cmd/workers-assets-gen", "-mode=go", "-o", out); err != nil {
		return 0, 0, err
	}
	if err := copyFile(filepath.Join(out, "worker.mjs"), "shim/worker.mjs"); err != nil {
		return 0, 0, err
	}
	if err := copyFile(filepath.Join(dir, "workerd.capnp"), "workerd.capnp"); err != nil {
		return 0, 0, err
	}
	wasm := filepath.Join(out, "app.wasm")
	if err := run([]string{"GOOS=js", "GOARCH=wasm"}, gobin, "build", "-trimpath",
		"-ldflags=-s -w -X main.version="+e2eVersion, "-o", wasm, pkg); err != nil {
		return 0, 0, err
	}
	b, err := os.ReadFile(wasm)
	if err != nil {
		return 0, 0, err
	}
	var zb bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&zb, gzip.BestCompression)
	zw.Write(b)
	zw.Close()
	return len(b), zb.Len(), nil
}

func copyFile(dst, src string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}

// startWorkerd serves the built worker with workerd on a free loopback port
// (the listening socket is handed over as descriptor 3, so there is no race
// for the port), waits until it answers, and stops it at the end of the test.
// It returns the base URL.
func startWorkerd(t testing.TB) string {
	t.Helper()
	bin := findWorkerd(t)
	return serveWorkerd(t, bin, buildWorker(t), "/api/v1/health")
}

// serveWorkerd runs workerd bin on the worker built in dir and waits until
// GET ready answers 200.
func serveWorkerd(t testing.TB, bin, dir, ready string) string {
	t.Helper()
	return runWorkerd(t, bin, dir, ready, false).base
}

// workerdProc is a running workerd.
type workerdProc struct {
	base      string // http://127.0.0.1:PORT
	inspector string // ADDR of its inspector, when asked for
	pid       int
}

// runWorkerd runs workerd bin on the worker built in dir, with its
// inspector on a free loopback port when inspect is set, and waits until
// GET ready answers 200.
func runWorkerd(t testing.TB, bin, dir, ready string, inspect bool) workerdProc {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f, err := ln.(*net.TCPListener).File()
	if err != nil {
		t.Fatal(err)
	}
	p := workerdProc{base: "http://" + ln.Addr().String()}
	ln.Close() // f keeps the socket open and listening
	args := []string{"serve", filepath.Join(dir, "workerd.capnp"), "--socket-fd=http=3"}
	if inspect {
		// workerd takes no descriptor for the inspector: pick a free port.
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		p.inspector = l.Addr().String()
		l.Close()
		args = append(args, "--inspector-addr="+p.inspector)
	}
	var logs bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.ExtraFiles = []*os.File{f}
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	p.pid = cmd.Process.Pid
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("workerd output:\n%s", logs.String())
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("workerd exited while starting: %v\n%s", err, logs.String())
		default:
		}
		start := time.Now()
		res, err := client.Get(p.base + ready)
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				t.Logf("workerd ready; first request (starts the Go instance) took %v", time.Since(start).Round(time.Millisecond))
				return p
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("workerd did not answer GET %s within 30 s: %v\n%s", ready, err, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// rssBytes is the resident memory of process pid (Linux /proc).
func rssBytes(pid int) (int64, error) { return procStatus(pid, "VmRSS") }

// procStatus reads a memory figure of process pid, in bytes, from
// /proc/PID/status: VmRSS (resident now) or VmHWM (the most it has been).
func procStatus(pid int, key string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, key+":"); ok {
			var kb int64
			if _, err := fmt.Sscan(rest, &kb); err != nil {
				return 0, err
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", key, pid)
}

// loadAverage is the machine's load average over the last minute (Linux
// /proc/loadavg), or -1 when unknown: latency and CPU figures depend on it.
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	var l float64
	if err != nil {
		return -1
	}
	if _, err := fmt.Sscan(string(b), &l); err != nil {
		return -1
	}
	return l
}

// cpuTime is the CPU time, user and system, that process pid has used
// (Linux /proc, in clock ticks of 10 ms).
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the command name, which is in parentheses: state is
	// the first, utime the 12th and stime the 13th.
	_, rest, ok := strings.Cut(string(b), ") ")
	f := strings.Fields(rest)
	if !ok || len(f) < 13 {
		return 0, fmt.Errorf("cannot read /proc/%d/stat", pid)
	}
	var ut, st int64
	if _, err := fmt.Sscan(f[11]+" "+f[12], &ut, &st); err != nil {
		return 0, err
	}
	return time.Duration(ut+st) * 10 * time.Millisecond, nil
}

// TestShimReusesAndRestarts checks the instance reuse itself, with the
// fixture testdata/probe behind the same shim and package keepalive:
// one Go program serves request after request (its count goes on), and when
// the program ends, that request gets a 500 JSON answer from the shim and
// the next one a fresh program (its count starts again).
func TestShimReusesAndRestarts(t *testing.T) {
	bin := findWorkerd(t)
	base := serveWorkerd(t, bin, probeBuild.get(t, "./testdata/probe"), "/ready")
	get := func(path string) (int, string) {
		t.Helper()
		res, err := client.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		return res.StatusCode, string(b)
	}
	for _, want := range []string{"1", "2", "3"} {
		if code, got := get("/count"); code != 200 || got != want {
			t.Fatalf("GET /count = %d %q, want 200 %q: one program should serve every request", code, got, want)
		}
	}
	code, body := get("/exit")
	var e struct {
		Error struct{ Field, Message string }
	}
	if code != http.StatusInternalServerError || json.Unmarshal([]byte(body), &e) != nil || e.Error.Field != "(server)" {
		t.Errorf("GET /exit = %d %q, want 500 with an ErrorBody from the shim", code, body)
	}
	for _, want := range []string{"1", "2"} {
		if code, got := get("/count"); code != 200 || got != want {
			t.Fatalf("after the exit, GET /count = %d %q, want 200 %q from a fresh program", code, got, want)
		}
	}
}

// TestShimCarriesBytes checks that answers and bodies cross the shim and
// package keepalive byte for byte: first answers over 64 KiB to small
// requests (the probe's /bytes; Go grows its answer buffer, and its
// memory, inside the call, and the shim reads them from there), text and bytes
// that are not UTF-8, each followed by a small one; then bodies echoed by
// the probe's /echo: text (handed to the Response as a string), text that
// starts with a UTF-8 byte-order mark (which a default TextDecoder would
// drop), bytes that are not UTF-8 (handed over as bytes), and bodies larger
// than the buffer, which grow it before the call.
func TestShimCarriesBytes(t *testing.T) {
	bin := findWorkerd(t)
	base := serveWorkerd(t, bin, probeBuild.get(t, "./testdata/probe"), "/ready")
	// First answers over 64 KiB to small requests, so that Go's answer
	// buffer grows apart from its request buffer (later, larger request
	// bodies grow the request buffer before the call).
	for _, tt := range []struct {
		query string
		want  []byte
	}{
		{"n=200000", bytes.Repeat([]byte("wattscale "), 20000)},
		{"n=10", []byte("wattscale ")},
		{"n=400000&binary=1", bytes.Repeat([]byte{0xff, 0xfe, 0x80, 'w'}, 100000)},
		{"n=3&binary=1", []byte{0xff, 0xfe, 0x80}},
	} {
		res, err := client.Get(base + "/bytes?" + tt.query)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || res.StatusCode != http.StatusOK || !bytes.Equal(b, tt.want) {
			t.Errorf("GET /bytes?%s = %d, %d bytes (%v), differing at byte %d from the %d wanted", tt.query, res.StatusCode, len(b), err, firstDiff(b, tt.want), len(tt.want))
		}
	}
	binary := make([]byte, 1000)
	for i := range binary {
		binary[i] = byte(i * 7) // 0x80, 0xff, ... with no UTF-8 framing
	}
	for _, tt := range []struct {
		name string
		body []byte
	}{
		{"text", []byte(`{"wattscale": "énergie, 電力"}`)},
		{"byte-order mark", []byte("\ufeff{\"a\": 1}")},
		{"not UTF-8", binary},
		{"text over 64 KiB", bytes.Repeat([]byte("wattscale "), 20000)},
		{"small after large", []byte("ok")},
		{"not UTF-8 over 64 KiB", bytes.Repeat(binary, 150)},
		{"not UTF-8 after large", binary[:10]},
	} {
		res, err := client.Post(base+"/echo", "application/octet-stream", bytes.NewReader(tt.body))
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || res.StatusCode != http.StatusOK || !bytes.Equal(b, tt.body) {
			t.Errorf("%s: POST /echo of %d bytes = %d, %d bytes (%v), differing at byte %d", tt.name, len(tt.body), res.StatusCode, len(b), err, firstDiff(b, tt.body))
		}
	}
}

// firstDiff is the index of the first byte where a and b differ.
func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestKeepaliveDoesNotLeak sends request bodies to one long-lived program
// and checks that its live heap stays flat: syumai/workers' own body reader
// leaves a callback registered on every read, about 400 bytes per request,
// which package keepalive's reader does not.
func TestKeepaliveDoesNotLeak(t *testing.T) {
	bin := findWorkerd(t)
	base := serveWorkerd(t, bin, probeBuild.get(t, "./testdata/probe"), "/ready")
	body := bytes.Repeat([]byte("wattscale "), 100)
	echo := func(n int) {
		t.Helper()
		for range n {
			res, err := client.Post(base+"/echo", "text/plain", bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(res.Body)
			res.Body.Close()
			if err != nil || !bytes.Equal(b, body) {
				t.Fatalf("POST /echo = %d bytes (%v), want the %d bytes sent", len(b), err, len(body))
			}
		}
	}
	heap := func() int {
		t.Helper()
		res, err := client.Get(base + "/heap")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var n int
		if _, err := fmt.Fscan(res.Body, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	echo(200) // warm up: caches and pools reach their size
	before := heap()
	const requests = 2000
	echo(requests)
	after := heap()
	t.Logf("live heap %d bytes before, %d after %d requests", before, after, requests)
	if grown := after - before; grown > 100*requests/2 { // a leak of 400 B/request grows it 800 kB
		t.Errorf("live heap grew by %d bytes over %d requests (%d per request): a leak", grown, requests, grown/requests)
	}
}

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

// loadResult summarises a load run.
type loadResult struct {
	n, errors int
	slow      int // answered after more than slowAfter
	// newConns counts the connections dialled inside the measured window:
	// 0 when every connection was opened before it (openConnections) and
	// none was closed during it; slowDialled, the slow requests that
	// dialled one.
	newConns, slowDialled int
	// overtaken is the most requests written after one request and
	// answered before it: 0 for a server that answers first come, first
	// served. A request that waits while thousands of later ones are
	// answered is starved, not queued.
	overtaken     int
	p50, p99, max time.Duration
	rps           float64
	// ran and waited are the time workerd's main thread (its event loop,
	// which runs the isolate) spent on a CPU and waiting for one while
	// runnable, over the measured window (/proc/PID/task/PID/schedstat;
	// both 0 when unknown): on the shared machine a slow request is
	// mostly workerd waiting for a CPU.
	ran, waited time.Duration
	// setup is the opening of the connections before the window: how
	// long it took, and its longest first answer (not in the figures
	// above).
	setup, setupMax time.Duration
	firstErr        error
}

// load sends n POST /api/v1/estimate requests from conc workers over
// keep-alive connections to p and checks each answer against want. The
// conc connections are opened and each used once before the measured
// window (openConnections); load also counts any connection dialled
// inside it. Latency is timed from the call to the answer's end.
func load(p workerdProc, body, want []byte, n, conc int) loadResult {
	return loadWith(p, body, want, n, conc, true)
}

// loadWith is load, with the connections opened before the window
// (preopen) or by the workers as they need them, inside it.
func loadWith(p workerdProc, body, want []byte, n, conc int, preopen bool) loadResult {
	client := &http.Client{
		Timeout:   10 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: conc, MaxConnsPerHost: conc, IdleConnTimeout: idleConnTimeout},
	}
	defer client.CloseIdleConnections()
	var r loadResult
	if preopen {
		r.setup, r.setupMax, r.firstErr = openConnections(client, p.base, body, want, conc)
		if r.firstErr != nil {
			r.n, r.errors = n, n
			return r
		}
	}
	lat := make([]time.Duration, n)
	wrote := make([]time.Duration, n) // since start: request written, first byte of its answer
	first := make([]time.Duration, n)
	errs := make([]error, n)
	var dials atomic.Int64
	dialled := make([]bool, n)
	next := make(chan int)
	var wg sync.WaitGroup
	ran0, waited0, schedErr := schedstat(p.pid)
	start := time.Now()
	for range conc {
		wg.Go(func() {
			for i := range next {
				t0 := time.Now()
				trace := &httptrace.ClientTrace{
					ConnectStart:         func(string, string) { dials.Add(1); dialled[i] = true },
					WroteRequest:         func(httptrace.WroteRequestInfo) { wrote[i] = time.Since(start) },
					GotFirstResponseByte: func() { first[i] = time.Since(start) },
				}
				errs[i] = post(client, httptrace.WithClientTrace(context.Background(), trace), p.base, body, want)
				lat[i] = time.Since(t0)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	elapsed := time.Since(start)
	if ran1, waited1, err := schedstat(p.pid); err == nil && schedErr == nil {
		r.ran, r.waited = ran1-ran0, waited1-waited0
	}
	r.n, r.rps, r.newConns = n, float64(n)/elapsed.Seconds(), int(dials.Load())
	for _, err := range errs {
		if err != nil {
			r.errors++
			if r.firstErr == nil {
				r.firstErr = err
			}
		}
	}
	for i, l := range lat {
		if l > slowAfter {
			r.slow++
			if dialled[i] {
				r.slowDialled++
			}
		}
	}
	if r.errors == 0 {
		r.overtaken = mostOvertaken(wrote, first)
	}
	slices.Sort(lat)
	r.p50, r.p99, r.max = lat[n/2], lat[n*99/100], lat[n-1]
	return r
}

// post sends one estimate and checks the answer.
func post(client *http.Client, ctx context.Context, base string, body, want []byte) error {
	req, err := http.NewRequestWithContext(ctx, "POST", base+"/api/v1/estimate", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := client.Do(req)
	if err != nil {
		return err
	}
	b, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err == nil && (res.StatusCode != http.StatusOK || !bytes.Equal(b, want)) {
		err = fmt.Errorf("answer %d %q", res.StatusCode, clipBytes(b))
	}
	return err
}

// openConnections opens conc keep-alive connections in client's pool and
// sends one estimate on each, all at once: each request holds the
// connection it got until every one has its own, so none is shared and
// conc are dialled. It returns how long that took and the longest of the
// answers. A load run measures after it: when the 64 connections of the
// concurrency-64 run were dialled by its first requests, inside the
// window, workerd answered some of the requests on them only after
// thousands of later requests on the other connections (one waited 5.2 s
// while 661 later ones were answered, another 3.4 s behind 1,768), their
// bytes unread in workerd's sockets all along (/proc/net/tcp), with no
// SYN sent again, no listen queue overflow and no drop (nstat); with the
// connections opened first, the most a request was overtaken by was
// about two rounds of the 64.
func openConnections(client *http.Client, base string, body, want []byte, conc int) (took, longest time.Duration, err error) {
	var (
		mu  sync.Mutex
		got int
		all = make(chan struct{})
		wg  sync.WaitGroup
	)
	start := time.Now()
	for range conc {
		wg.Go(func() {
			t0 := time.Now()
			trace := &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) {
				mu.Lock()
				if got++; got == conc {
					close(all)
				}
				mu.Unlock()
				select {
				case <-all:
				case <-time.After(10 * time.Second):
				}
			}}
			e := post(client, httptrace.WithClientTrace(context.Background(), trace), base, body, want)
			mu.Lock()
			defer mu.Unlock()
			longest = max(longest, time.Since(t0))
			if e != nil && err == nil {
				err = fmt.Errorf("opening %d connections: %w", conc, e)
			}
		})
	}
	wg.Wait()
	return time.Since(start), longest, err
}

// mostOvertaken is the most requests written after one request and
// answered (first byte) before it, given each request's times: 0 when
// every request was answered in the order written.
func mostOvertaken(wrote, first []time.Duration) int {
	n := len(wrote)
	byWrote := make([]int, n)
	for i := range byWrote {
		byWrote[i] = i
	}
	slices.SortStableFunc(byWrote, func(a, b int) int { return cmp.Compare(wrote[a], wrote[b]) })
	// rank[i]: how many answers came strictly before request i's.
	sorted := slices.Clone(first)
	slices.Sort(sorted)
	rank := make([]int, n)
	for i, f := range first {
		rank[i], _ = slices.BinarySearch(sorted, f)
	}
	// Walk from the last written, counting (Fenwick tree over ranks) the
	// answers of requests written strictly later that came strictly
	// earlier; requests written at the same time are counted together.
	tree := make([]int, n+1)
	most := 0
	for hi := n; hi > 0; {
		lo := hi - 1
		for lo > 0 && wrote[byWrote[lo-1]] == wrote[byWrote[hi-1]] {
			lo--
		}
		for _, i := range byWrote[lo:hi] {
			c := 0
			for j := rank[i]; j > 0; j -= j & -j {
				c += tree[j]
			}
			most = max(most, c)
		}
		for _, i := range byWrote[lo:hi] {
			for j := rank[i] + 1; j <= n; j += j & -j {
				tree[j]++
			}
		}
		hi = lo
	}
	return most
}

// schedstat is the time workerd's main thread (pid's thread pid) has
// spent on a CPU and waiting for one while runnable (Linux
// /proc/PID/task/PID/schedstat, in nanoseconds).
func schedstat(pid int) (ran, waited time.Duration, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/schedstat", pid, pid))
	if err != nil {
		return 0, 0, err
	}
	var r, w int64
	if _, err := fmt.Sscan(string(b), &r, &w); err != nil {
		return 0, 0, err
	}
	return time.Duration(r), time.Duration(w), nil
}

// referenceEstimate is workerd's answer to the example request, checked
// against the native handler's; every answer under load must equal it byte
// for byte.
func referenceEstimate(t testing.TB, base string) (body, want []byte) {
	t.Helper()
	version = e2eVersion
	h, err := newHandler()
	if err != nil {
		t.Fatal(err)
	}
	body = readExample(t)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("POST", "/api/v1/estimate", bytes.NewReader(body)))
	res, err := client.Post(base+"/api/v1/estimate", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	want, err = io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK || w.Code != http.StatusOK {
		t.Fatalf("estimate: workerd %d %s (%v), native %d", res.StatusCode, want, err, w.Code)
	}
	var g, n any
	if json.Unmarshal(want, &g) != nil || json.Unmarshal(w.Body.Bytes(), &n) != nil || len(diffJSON(g, n, "$", maxULP)) > 0 {
		t.Fatalf("workerd's estimate %s differs from the native handler's %s", want, w.Body)
	}
	return body, want
}

// slowAfter is the longest a request may take under load: an isolate that
// serves one warm estimate in about a millisecond has no reason to keep
// one waiting for a second, even behind 63 others.
const slowAfter = time.Second

// Load test size in CI: 2,000 requests at concurrency 16 and 500 at 64,
// after 1,200 not measured that warm the program up (V8 compiles hot wasm
// functions a second time, optimised, once they have run a while) and
// bring the heap to its working size.
const loadN, loadConc, warmN = 2000, 16, 1200

// benchWarmN is the benchmarks' warm-up before the one-connection rounds:
// after warmN, workerd's CPU per request still fell from round to round
// (0.79, 0.72, 0.68 ms; 0.76, 0.69, 0.64 ms), V8 still compiling the hot
// wasm functions with its optimising tier.
var benchWarmN = envInt("WATTSCALE_BENCH_WARM", 10000)

// envInt is the integer in environment variable name, or def.
func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// check fails t if r has a failed request.
func (r loadResult) check(t testing.TB, what string) {
	t.Helper()
	if r.errors > 0 {
		t.Errorf("%s: %d of %d requests failed; first: %v", what, r.errors, r.n, r.firstErr)
	}
}

// checkSlow fails t if r has a request slower than slowAfter. Only the
// benchmark asks this: a test's timing depends on the machine's load.
func (r loadResult) checkSlow(t testing.TB, what string) {
	t.Helper()
	if r.slow > 0 {
		t.Errorf("%s: %d of %d requests took over %v (the longest %v; %d of them dialled a connection; the most overtaken request by %d later ones; workerd's thread ran %v and waited %v for a CPU)",
			what, r.slow, r.n, slowAfter, r.max, r.slowDialled, r.overtaken, r.ran.Round(time.Millisecond), r.waited.Round(time.Millisecond))
	}
}

func (r loadResult) String() string {
	s := fmt.Sprintf("%d requests: p50 %v, p99 %v, max %v, %.0f requests/s, %d failed, %d over %v, most overtaken %d, %d connections dialled in the window",
		r.n, r.p50, r.p99, r.max, r.rps, r.errors, r.slow, slowAfter, r.overtaken, r.newConns)
	if r.slowDialled > 0 {
		s += fmt.Sprintf(" (by %d of the requests over %v)", r.slowDialled, slowAfter)
	}
	if r.ran > 0 {
		s += fmt.Sprintf("; workerd's thread ran %v, waited %v for a CPU", r.ran.Round(time.Millisecond), r.waited.Round(time.Millisecond))
	}
	if r.setup > 0 {
		s += fmt.Sprintf("; connections opened before it in %v (longest first answer %v)", r.setup.Round(time.Millisecond), r.setupMax.Round(time.Millisecond))
	}
	return s
}

// memory is the isolate's V8 heap after a full collection (used, and held
// by V8), and workerd's resident memory before that collection, after it
// and at its highest so far; after the collection, where that memory is
// (split) and, when gdb is installed, what workerd's tcmalloc says of it
// (tcErr says why not).
type memory struct {
	heap, heapTotal     int64
	rssBefore, rss, hwm int64
	split               rssSplit
	tc                  tcmallocStats
	tcErr               error
}

// measureMemory reads p's memory; tcmalloc's figures only with withTCMalloc
// (gdb stops workerd for a second or two to read them).
func measureMemory(t testing.TB, p workerdProc, withTCMalloc bool) memory {
	t.Helper()
	var m memory
	var err error
	if m.rssBefore, err = rssBytes(p.pid); err != nil {
		t.Fatal(err)
	}
	if m.heap, m.heapTotal, err = heapAfterGC(p.inspector); err != nil {
		t.Fatalf("V8 heap through the inspector: %v", err)
	}
	if m.rss, err = rssBytes(p.pid); err != nil {
		t.Fatal(err)
	}
	if m.hwm, err = procStatus(p.pid, "VmHWM"); err != nil {
		t.Fatal(err)
	}
	if m.split, err = splitRSS(p.pid); err != nil {
		t.Fatal(err)
	}
	m.tcErr = errors.New("tcmalloc's figures not asked for")
	if withTCMalloc {
		m.tc, _, m.tcErr = readTCMalloc(p.pid)
	}
	return m
}

func (m memory) String() string {
	s := fmt.Sprintf("V8 heap %.2f MB (V8 holds %.2f MB), RSS %.1f MB before the collection, %.1f MB after (highest %.1f MB): %v",
		float64(m.heap)/1e6, float64(m.heapTotal)/1e6, float64(m.rssBefore)/1e6, float64(m.rss)/1e6, float64(m.hwm)/1e6, m.split)
	if m.tcErr == nil {
		s += "; " + m.tc.String()
	}
	return s
}

// grown is how much b exceeds a, as a fraction of a.
func grown(a, b int64) float64 { return float64(b-a) / float64(a) }

// TestWorkerdLoad sends 2,000 estimates at concurrency 16 and 500 at 64 to
// one isolate in workerd and requires every one to succeed with the right
// answer and the isolate's V8 heap (after a full collection) to grow by
// less than 100 bytes per request: before the shim served each request in its own event, up to 0.3 %
// of requests failed with EOF or a closed connection, and the heap grew by
// about 0.7 KB per request. Latency is logged, not asserted (it depends on
// the machine's load); "make bench-worker" runs the long version with the
// one-second limit (BenchmarkWorkerd).
func TestWorkerdLoad(t *testing.T) {
	p := runWorkerd(t, findWorkerd(t), buildWorker(t), "/api/v1/health", true)
	body, want := referenceEstimate(t, p.base)
	load(p, body, want, warmN, loadConc).check(t, "warm-up")
	before := measureMemory(t, p, false)
	r := load(p, body, want, loadN, loadConc)
	r.check(t, "concurrency 16")
	r64 := load(p, body, want, loadN/4, 64)
	r64.check(t, "concurrency 64")
	after := measureMemory(t, p, false)
	t.Logf("concurrency 16: %v", r)
	t.Logf("concurrency 64: %v", r64)
	t.Logf("V8 heap %d -> %d bytes, workerd RSS %d -> %d bytes; app.wasm %d bytes, %d gzip",
		before.heap, after.heap, before.rss, after.rss, build.raw, build.gz)
	t.Logf("workerd RSS after the load: %v", after.split)
	// The split finds each region BenchmarkWorkerd reports on, and
	// accounts for the whole resident memory (smaps and status are read
	// a moment apart, with workerd idle).
	if sp := after.split; sp.malloc == 0 || sp.cage == 0 || sp.wasm == 0 || sp.files == 0 {
		t.Errorf("/proc/%d/smaps: a region not found (tcmalloc's 1 GiB reservations, V8's cage, the wasm memory's reservation, workerd's binary): %v", p.pid, sp)
	} else if d := sp.total() - after.rss; d < -after.rss/50 || d > after.rss/50 {
		t.Errorf("the split of workerd's RSS adds up to %d bytes, VmRSS says %d", sp.total(), after.rss)
	}
	// Go's linear memory is the Worker's own: its heap reaches its
	// working size in the warm-up and stays there.
	if g := grown(before.split.wasm, after.split.wasm); g > 0.10 {
		t.Errorf("Go's linear memory (resident) grew %.1f %% over %d requests (%d -> %d bytes)", 100*g, r.n+r64.n, before.split.wasm, after.split.wasm)
	}
	// The leak this guards against kept 500-700 bytes per request; 100
	// bytes per request is above the noise of one heap reading (about
	// 100 KB on a heap of 0.8 MB).
	if n := int64(r.n + r64.n); after.heap-before.heap > 100*n {
		t.Errorf("V8 heap grew by %d bytes over %d requests (%d -> %d bytes, %d per request): something keeps JavaScript objects of each request alive",
			after.heap-before.heap, n, before.heap, after.heap, (after.heap-before.heap)/n)
	}
}

// BenchmarkWorkerd is the Worker's load and cost report (run it once, with
// -benchtime 1x; "make bench-worker"):
//
//   - one connection, one request at a time (three rounds of 2,000
//     estimates, and their medians): p50 and p99 latency, and workerd's
//     CPU time per request; the goals are a p50
//     under 1 ms, a p99 under 3 ms and under 1 ms of CPU per warm request
//     (issue 17). They depend on the machine's load, so the load average
//     is printed with them. They run on a workerd of their own after
//     benchWarmN requests (10,000; WATTSCALE_BENCH_WARM sets it);
//   - on a second workerd, after 7,200 requests of warm-up (soakWarmUp,
//     as the control gets), 180,000 estimates at concurrency 16 in batches of 10,000, then
//     5,000 at 64, on the same isolate: none may fail or take over a
//     second. Each run opens its connections before it is timed
//     (openConnections, which says why); 5,000 more at 64 with the
//     connections dialled inside the window are printed, not checked. One
//     isolate runs one request at a time, so latency here is mostly
//     queueing: at concurrency 16 a request waits for about 15 others;
//     each run prints the time workerd's main thread waited for a CPU,
//     which on a loaded machine is most of the rest;
//   - memory, after a full collection (forced through the inspector), at
//     10,000, 60,000, 120,000 and 180,000 requests, and where it is
//     (/proc/PID/smaps split by region: tcmalloc's heap, V8's cage, the
//     wasm memory's reservation, JIT code, files, other; and, when gdb is
//     installed, tcmalloc's own figures, read from the running workerd).
//     Checked, as the Worker's own: the V8 heap in use within 10 % over
//     each span (the heap V8 holds within 1 MiB), Go's linear memory
//     (resident) within 10 % from 10,000 to 180,000, and the native
//     memory in use (tcmalloc's "in use by application", which holds
//     every native object that JavaScript keeps alive) within 10 % from
//     10,000 to 60,000 and to 180,000.
//     Printed, not checked: issue 15's "workerd RSS within 10 % from
//     10,000 to 60,000", for ours and for a trivial JavaScript worker
//     (testdata/jsworker) under the same load, with the regions it moved
//     in. It is not met by either, and the growth is workerd's: it is
//     all in tcmalloc's free lists. workerd runs V8's major collections
//     rarely under load (its cage grows to 19-91 MB of garbage before a
//     forced collection brings it back to 1.1 MB), the native objects
//     of the requests that garbage held (5-103 MB) are freed together
//     when it is collected, and workerd's tcmalloc keeps what is freed
//     (its page: 0 pages released to the system since startup), so RSS
//     follows the highest such peak so far and climbs for 200,000
//     requests and more, for the trivial worker as for ours, while the
//     native memory in use after a collection stays flat;
//   - the size of app.wasm, raw and gzip -9 (Cloudflare's limit applies to
//     the compressed upload: 3 MB on the free plan).
func BenchmarkWorkerd(b *testing.B) {
	bin := findWorkerd(b)
	lp := runWorkerd(b, bin, buildWorker(b), "/api/v1/health", false)
	body, want := referenceEstimate(b, lp.base)
	for b.Loop() {
		// The one-connection rounds on a workerd of their own, warmed up
		// until V8 has optimised the hot code (benchWarmN), so that the
		// load run below starts from the same count as the control's.
		load(lp, body, want, benchWarmN, loadConc).check(b, "warm-up")
		c1p50, c1p99, cpu, loadAvg := oneConnection(b, lp, body, want)

		p := runWorkerd(b, bin, buildWorker(b), "/api/v1/health", true)
		soakWarmUp(b, p, body, want)
		s := soak(b, p, body, want, 18, 1, 6, 12, 18)
		at10k, at60k, at120k, at180k := s.mem[1], s.mem[6], s.mem[12], s.mem[18]
		r64 := load(p, body, want, 5000, 64)
		r64.check(b, "concurrency 64")
		r64.checkSlow(b, "concurrency 64")
		b.Logf("concurrency 64: %v", r64)
		// The same with the 64 connections dialled by the first requests,
		// inside the window, as the load test did before: printed, not
		// checked (see openConnections).
		cold := loadWith(p, body, want, 5000, 64, false)
		cold.check(b, "concurrency 64, connections opened in the window")
		b.Logf("concurrency 64, the connections dialled inside the window (not checked): %v", cold)

		// The control: a trivial JavaScript worker in the same workerd
		// under the same load.
		cp := runWorkerd(b, bin, "testdata/jsworker", "/", true)
		cwant := mustPost(b, cp.base, body)
		soakWarmUp(b, cp, body, cwant)
		c := soak(b, cp, body, cwant, 6, 1, 6)
		c10k, c60k := c.mem[1], c.mem[6]
		reportRSS(b, at10k, at60k, c10k, c60k)
		for _, span := range []struct {
			name string
			a, b memory
		}{{"10,000 and 60,000", at10k, at60k}, {"60,000 and 120,000", at60k, at120k}, {"120,000 and 180,000", at120k, at180k}} {
			if g := grown(span.a.heap, span.b.heap); g > 0.10 {
				b.Errorf("V8 heap in use grew %.1f %% between %s requests (%d -> %d bytes)", 100*g, span.name, span.a.heap, span.b.heap)
			}
			if d := span.b.heapTotal - span.a.heapTotal; d > max(span.a.heapTotal/10, 1<<20) {
				b.Errorf("V8 heap held grew by %d bytes between %s requests (%d -> %d bytes)", d, span.name, span.a.heapTotal, span.b.heapTotal)
			}
		}
		// What is the Worker's own besides the V8 heap: Go's linear
		// memory, and the native memory in use (tcmalloc's, free lists
		// excluded), which holds every native object of V8 and workerd
		// that JavaScript keeps alive. Either growing would be a leak.
		if g := grown(at10k.split.wasm, at180k.split.wasm); g > 0.10 {
			b.Errorf("Go's linear memory (resident) grew %.1f %% between 10,000 and 180,000 requests (%d -> %d bytes)", 100*g, at10k.split.wasm, at180k.split.wasm)
		}
		if at10k.tcErr != nil {
			b.Logf("native memory in use not checked: %v", at10k.tcErr)
		} else {
			for _, span := range []struct {
				name string
				a, b memory
			}{{"10,000 and 60,000", at10k, at60k}, {"10,000 and 180,000", at10k, at180k}} {
				if g := grown(span.a.tc.inUse, span.b.tc.inUse); g > 0.10 {
					b.Errorf("native memory in use (tcmalloc) grew %.1f %% between %s requests (%d -> %d bytes, %d per request): a leak",
						100*g, span.name, span.a.tc.inUse, span.b.tc.inUse, (span.b.tc.inUse-span.a.tc.inUse)/50000)
				}
			}
		}
		b.ReportMetric(float64(c1p50.Microseconds())/1000, "p50-c1-ms")
		b.ReportMetric(float64(c1p99.Microseconds())/1000, "p99-c1-ms")
		b.ReportMetric(float64(cpu.Microseconds())/1000, "cpu-ms/req")
		b.ReportMetric(loadAvg, "loadavg")
		b.ReportMetric(float64(s.last.p50.Microseconds())/1000, "p50-c16-ms")
		b.ReportMetric(float64(s.last.p99.Microseconds())/1000, "p99-c16-ms")
		b.ReportMetric(float64(s.all.max.Microseconds())/1000, "max-c16-ms")
		b.ReportMetric(s.last.rps, "req/s-c16")
		b.ReportMetric(float64(r64.p99.Microseconds())/1000, "p99-c64-ms")
		b.ReportMetric(float64(r64.max.Microseconds())/1000, "max-c64-ms")
		b.ReportMetric(float64(r64.overtaken), "overtaken-c64")
		b.ReportMetric(float64(cold.max.Microseconds())/1000, "max-c64-dialled-in-window-ms")
		b.ReportMetric(float64(cold.overtaken), "overtaken-c64-dialled-in-window")
		b.ReportMetric(float64(at10k.heap), "heap-10k-B")
		b.ReportMetric(float64(at60k.heap), "heap-60k-B")
		b.ReportMetric(float64(at120k.heap), "heap-120k-B")
		b.ReportMetric(float64(at10k.rss), "rss-10k-B")
		b.ReportMetric(float64(at60k.rss), "rss-60k-B")
		b.ReportMetric(float64(at120k.rss), "rss-120k-B")
		b.ReportMetric(float64(at180k.rss), "rss-180k-B")
		b.ReportMetric(float64(at180k.heap), "heap-180k-B")
		b.ReportMetric(float64(at180k.heapTotal), "heap-held-180k-B")
		b.ReportMetric(float64(c10k.rss), "js-rss-10k-B")
		b.ReportMetric(float64(c60k.rss), "js-rss-60k-B")
		b.ReportMetric(100*grown(at10k.rss, at60k.rss), "rss-10k-60k-%")
		b.ReportMetric(100*grown(c10k.rss, c60k.rss), "js-rss-10k-60k-%")
		b.ReportMetric(float64(at10k.split.wasm), "wasm-rss-10k-B")
		b.ReportMetric(float64(at180k.split.wasm), "wasm-rss-180k-B")
		if at10k.tcErr == nil {
			b.ReportMetric(float64(at10k.tc.inUse), "native-in-use-10k-B")
			b.ReportMetric(float64(at60k.tc.inUse), "native-in-use-60k-B")
			b.ReportMetric(float64(at180k.tc.inUse), "native-in-use-180k-B")
		}
		b.ReportMetric(float64(s.all.errors+r64.errors+cold.errors), "failed")
		b.ReportMetric(float64(s.all.slow+r64.slow), "over-1s")
	}
	b.ReportMetric(float64(build.raw), "wasm-bytes")
	b.ReportMetric(float64(build.gz), "wasm-gzip-bytes")
}

// reportRSS prints issue 15's criterion for workerd's resident memory
// (within 10 % from 10,000 to 60,000 requests, after a full collection)
// for the Worker and for the trivial JavaScript worker under the same
// load, and which regions the change is in. It is printed, not checked:
// see BenchmarkWorkerd's comment.
func reportRSS(b *testing.B, a, z, ca, cz memory) {
	b.Helper()
	verdict := func(a, z memory) string {
		if grown(a.rss, z.rss) <= 0.10 {
			return "met"
		}
		return "NOT MET"
	}
	delta := func(a, z memory) string {
		mb := func(x, y int64) float64 { return float64(y-x) / 1e6 }
		s := fmt.Sprintf("malloc heap %+.1f, V8 cage %+.1f, wasm memory %+.1f, JIT code %+.1f, files %+.1f, other %+.1f MB",
			mb(a.split.malloc, z.split.malloc), mb(a.split.cage, z.split.cage), mb(a.split.wasm, z.split.wasm),
			mb(a.split.code, z.split.code), mb(a.split.files, z.split.files), mb(a.split.other, z.split.other))
		if a.tcErr == nil && z.tcErr == nil {
			s += fmt.Sprintf("; tcmalloc: in use %+.1f MB, free lists %+.1f MB, given back %+.1f MB",
				mb(a.tc.inUse, z.tc.inUse), mb(a.tc.free, z.tc.free), mb(a.tc.released, z.tc.released))
		}
		return s
	}
	b.Logf("issue 15, workerd RSS within 10 %% from 10,000 to 60,000 requests: the Worker %s, %+.1f %% (%.1f -> %.1f MB; %s); a trivial JavaScript worker %s, %+.1f %% (%.1f -> %.1f MB; %s)",
		verdict(a, z), 100*grown(a.rss, z.rss), float64(a.rss)/1e6, float64(z.rss)/1e6, delta(a, z),
		verdict(ca, cz), 100*grown(ca.rss, cz.rss), float64(ca.rss)/1e6, float64(cz.rss)/1e6, delta(ca, cz))
	if a.tcErr != nil {
		b.Log(a.tcErr)
	}
}

// oneConnection sends three rounds of 2,000 estimates to p one at a time,
// each printed, and returns the medians of their p50 and p99 latencies and
// of workerd's CPU time per request, with the load average before them;
// it prints them beside issue 17's goals (under 1 ms, 3 ms and 1 ms).
func oneConnection(b *testing.B, p workerdProc, body, want []byte) (p50, p99, cpu time.Duration, loadAvg float64) {
	b.Helper()
	loadAvg = loadAverage()
	// Three rounds of 2,000, each logged; the metrics are their
	// medians, which a burst of load on a shared machine moves less.
	var p50s, p99s, cpus []time.Duration
	for round := 1; round <= 3; round++ {
		cpu0, err := cpuTime(p.pid)
		if err != nil {
			b.Fatal(err)
		}
		one := load(p, body, want, 2000, 1)
		cpu1, err := cpuTime(p.pid)
		if err != nil {
			b.Fatal(err)
		}
		one.check(b, "one at a time")
		one.checkSlow(b, "one at a time")
		cpu := (cpu1 - cpu0) / time.Duration(one.n)
		b.Logf("one connection, round %d: %v; workerd CPU %v per request; load average %.2f", round, one, cpu, loadAverage())
		p50s, p99s, cpus = append(p50s, one.p50), append(p99s, one.p99), append(cpus, cpu)
	}
	median := func(d []time.Duration) time.Duration { slices.Sort(d); return d[len(d)/2] }
	p50, p99, cpu = median(p50s), median(p99s), median(cpus)
	goal := func(d, limit time.Duration) string {
		if d < limit {
			return "met"
		}
		return "NOT MET"
	}
	b.Logf("one connection, medians of 3 rounds (issue 17's goals): p50 %v (under 1 ms: %s), p99 %v (under 3 ms: %s), workerd CPU %v per request (under 1 ms: %s); load average %.2f before, on %d CPUs",
		p50, goal(p50, time.Millisecond), p99, goal(p99, 3*time.Millisecond), cpu, goal(cpu, time.Millisecond), loadAvg, runtime.NumCPU())
	return p50, p99, cpu, loadAvg
}

// BenchmarkWorkerdLatency is BenchmarkWorkerd's first part alone, the
// one-connection latency and CPU per request (issue 17's goals), to
// measure them again in a quiet moment without the long load run:
//
//	go test -run '^$' -bench '^BenchmarkWorkerdLatency$' -benchtime 1x ./wasm/worker
func BenchmarkWorkerdLatency(b *testing.B) {
	p := runWorkerd(b, findWorkerd(b), buildWorker(b), "/api/v1/health", false)
	body, want := referenceEstimate(b, p.base)
	latencyRounds(b, p, body, want)
}

// latencyRounds warms p up and reports its one-connection p50, p99, CPU
// per request and the load average, once per benchmark iteration.
func latencyRounds(b *testing.B, p workerdProc, body, want []byte) {
	for b.Loop() {
		load(p, body, want, benchWarmN, loadConc).check(b, "warm-up")
		p50, p99, cpu, loadAvg := oneConnection(b, p, body, want)
		b.ReportMetric(float64(p50.Microseconds())/1000, "p50-c1-ms")
		b.ReportMetric(float64(p99.Microseconds())/1000, "p99-c1-ms")
		b.ReportMetric(float64(cpu.Microseconds())/1000, "cpu-ms/req")
		b.ReportMetric(loadAvg, "loadavg")
	}
}

// BenchmarkWorkerdLatencyFloor is BenchmarkWorkerdLatency's measure for
// the trivial JavaScript worker of the load test's control
// (testdata/jsworker: it reads the body and answers a constant 4.4 KB
// text) in the same workerd: what a request costs before any of
// wattscale's code runs, on this machine. Its figures are a floor under
// the goals, not checked against them.
func BenchmarkWorkerdLatencyFloor(b *testing.B) {
	p := runWorkerd(b, findWorkerd(b), "testdata/jsworker", "/", false)
	body := readExample(b)
	latencyRounds(b, p, body, mustPost(b, p.base, body))
}

// soakWarmUp is what a workerd gets before the load run (soak), the
// Worker's as the control's: warmN estimates at concurrency 16 and 6,000
// one at a time, the requests the load run's workerd served before it
// when it also served the one-connection rounds. Without the 6,000 (after
// 17,200 requests at concurrency 16 alone) the V8 heap was 0.69 MB and
// reached its working size, 0.75-0.76 MB, only by 60,000 requests of the
// load run, which the 10 % check counted as growth; with them it was
// 0.76, 0.75, 0.75 and 0.75 MB at 10,000, 60,000, 120,000 and 180,000.
func soakWarmUp(b *testing.B, p workerdProc, body, want []byte) {
	b.Helper()
	load(p, body, want, warmN, loadConc).check(b, "warm-up")
	load(p, body, want, 6000, 1).check(b, "warm-up, one at a time")
}

// soakResult is a long run on one isolate.
type soakResult struct {
	all  loadResult     // failed and slow requests and the longest, over all batches
	last loadResult     // the last batch
	mem  map[int]memory // after batch i
}

// soak sends batches of 10,000 estimates at concurrency 16 to p, checking
// every answer (and, in a benchmark, that none takes over a second), and
// measures memory after the batches listed in at.
func soak(b *testing.B, p workerdProc, body, want []byte, batches int, at ...int) soakResult {
	b.Helper()
	const batch = 10000
	s := soakResult{mem: map[int]memory{}}
	for i := 1; i <= batches; i++ {
		r := load(p, body, want, batch, 16)
		what := fmt.Sprintf("%s, concurrency 16, requests %d-%d", p.base, (i-1)*batch+1, i*batch)
		r.check(b, what)
		r.checkSlow(b, what)
		s.all.n += r.n
		s.all.errors += r.errors
		s.all.slow += r.slow
		s.all.max = max(s.all.max, r.max)
		s.last = r
		line := fmt.Sprintf("%s, batch %d: %v", p.base, i, r)
		if slices.Contains(at, i) {
			s.mem[i] = measureMemory(b, p, true)
			line += fmt.Sprintf("; after %d requests: %v", i*batch, s.mem[i])
		}
		b.Log(line)
	}
	return s
}

// mustPost is the answer to POST base/api/v1/estimate with body.
func mustPost(t testing.TB, base string, body []byte) []byte {
	t.Helper()
	res, err := client.Post(base+"/api/v1/estimate", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("POST %s/api/v1/estimate: %d (%v)", base, res.StatusCode, err)
	}
	return b
}

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

// TestMostOvertaken checks the fairness count of the load runs against a
// direct count over every pair, on hand-made and random timings.
func TestMostOvertaken(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		d := make([]time.Duration, len(v))
		for i, x := range v {
			d[i] = time.Duration(x) * time.Millisecond
		}
		return d
	}
	for _, c := range []struct {
		wrote, first []time.Duration
		want         int
	}{
		{ms(1, 2, 3), ms(4, 5, 6), 0},       // in order
		{ms(1, 2, 3), ms(9, 5, 6), 2},       // the first overtaken by both
		{ms(1, 2, 3, 4), ms(5, 9, 6, 7), 2}, // the second by the last two
		{ms(3, 1, 2), ms(4, 5, 6), 1},       // written last, answered first
		{ms(1, 1, 1), ms(3, 2, 1), 0},       // written together: no one later
	} {
		if got := mostOvertaken(c.wrote, c.first); got != c.want {
			t.Errorf("mostOvertaken(%v, %v) = %d, want %d", c.wrote, c.first, got, c.want)
		}
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		n := 1 + rnd.IntN(200)
		w, f := make([]time.Duration, n), make([]time.Duration, n)
		for i := range n {
			w[i] = time.Duration(rnd.IntN(50))
			f[i] = w[i] + time.Duration(1+rnd.IntN(100))
		}
		want := 0
		for i := range n {
			c := 0
			for j := range n {
				if w[j] > w[i] && f[j] < f[i] {
					c++
				}
			}
			want = max(want, c)
		}
		if got := mostOvertaken(w, f); got != want {
			t.Fatalf("mostOvertaken over %d random requests = %d, a direct count %d", n, got, want)
		}
	}
}
