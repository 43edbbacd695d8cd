package main

// End-to-end tests in a real Workers runtime: the worker is built with
// GOOS=js GOARCH=wasm exactly as "make worker" does, served by workerd on a
// loopback socket, and driven over HTTP. They skip when workerd is missing
// (npm ci --prefix wasm/worker installs it) unless WATTSCALE_REQUIRE_E2E=1.

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
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
