// Command wasmstart measures how fast the calculator's WebAssembly starts
// under Node (V8, the engine of Chromium): for each of -n cold starts, a
// fresh node process compiles calc.wasm, instantiates it and runs Go's
// main until the page's functions are ready, then asks for the first
// answer (render of the default form, the whole markup) and a second (a
// changed GPU count, the changed parts). It prints the median and the
// range of each step in ms, and the load average, which these times
// follow on a shared machine.
//
// V8 compiles a WebAssembly function when it is first called (lazy
// compilation, then tier-up), so the first answer includes compiling every
// function it runs: code size and the code run at start-up both count.
// It also counts the functions V8 compiled before the functions were
// ready and during each render, and their bytes of code
// (--trace-wasm-compilation-times): unlike the times, these do not move
// with the machine's load.
//
// Issue 31's goal is "from the wasm instance to the first answer" (the
// "first answer" column) at most 50 ms in the browser.
//
// Usage:
//
//	go run ./scripts/wasmstart [-n 7] [-gcflags all=-l] [./wasm/calc | calc.wasm]
//
// With a package path it builds it as the site ships it (-trimpath
// -ldflags="-s -w", -gcflags as site/gen/wasm.go gives calc.wasm:
// all=-l). Needs node on PATH.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// harness is the Node script: argv[2] the wasm, wasm_exec.js beside it.
const harness = `const fs = require("fs");
const path = require("path");
require(path.join(__dirname, "wasm_exec.js"));
const { performance } = require("perf_hooks");
(async () => {
  globalThis.wattscalePerf = {};
  let ready;
  const readyP = new Promise(r => (ready = r));
  globalThis.wattscaleReady = () => ready(performance.now());
  const bytes = fs.readFileSync(process.argv[2]);
  const go = new Go();
  const t0 = performance.now();
  const mod = await WebAssembly.compile(bytes);
  const t1 = performance.now();
  const inst = await WebAssembly.instantiate(mod, go.importObject);
  const t2 = performance.now();
  go.run(inst);
  const tReady = await readyP;
  console.log("MARK ready");
  const tMain = globalThis.wattscalePerf.goMainMs;
  const t3 = performance.now();
  const first = globalThis.wattscale.render({widths: [600, 600]});
  const t4 = performance.now();
  console.log("MARK first");
  globalThis.wattscale.render({form: first.form, changed: "count", value: "8", widths: [600, 600], parts: true});
  const t5 = performance.now();
  const html = first && (first.html || "");
  if (!html || html.length < 1000) { console.error("no markup in the first answer"); process.exit(1); }
  console.log("RESULT " + JSON.stringify({compile: t1 - t0, toMain: tMain - t2, toReady: tReady - t2, firstRender: t4 - t3, firstAnswer: t4 - t2, secondRender: t5 - t4}));
  process.exit(0);
})();
`

var steps = []struct{ key, label string }{
	{"compile", "compile (WebAssembly.compile)"},
	{"toMain", "instance -> Go main"},
	{"toReady", "instance -> functions ready"},
	{"firstRender", "first render (default form)"},
	{"firstAnswer", "instance -> first answer"},
	{"secondRender", "second render (count changed)"},
}

func main() {
	n := flag.Int("n", 7, "cold starts (each a new node process)")
	gcflags := flag.String("gcflags", "all=-l", "compiler flags for a package path (site/gen/wasm.go's for calc.wasm)")
	flag.Parse()
	target := "./wasm/calc"
	if flag.NArg() == 1 {
		target = flag.Arg(0)
	}
	if err := run(target, *n, *gcflags); err != nil {
		fmt.Fprintln(os.Stderr, "wasmstart:", err)
		os.Exit(1)
	}
}

func run(target string, n int, gcflags string) error {
	dir, err := os.MkdirTemp("", "wasmstart-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	wasm := target
	if !strings.HasSuffix(target, ".wasm") {
		wasm = filepath.Join(dir, "calc.wasm")
		args := []string{"build", "-trimpath", "-ldflags=-s -w"}
		if gcflags != "" {
			args = append(args, "-gcflags="+gcflags)
		}
		cmd := exec.Command("go", append(args, "-o", wasm, target)...)
		cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %v\n%s", target, err, out)
		}
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return err
	}
	execJS, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "wasm_exec.js"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "wasm_exec.js"), execJS, 0o644); err != nil {
		return err
	}
	script := filepath.Join(dir, "start.js")
	if err := os.WriteFile(script, []byte(harness), 0o644); err != nil {
		return err
	}
	times := map[string][]float64{}
	var first [3]compiledCode
	load := []string{loadAvg()}
	for i := 0; i < n; i++ {
		var stdout, stderr bytes.Buffer
		cmd := exec.Command("node", "--trace-wasm-compilation-times", script, wasm)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("node: %v\n%s", err, stderr.String())
		}
		r, compiled, err := parse(stdout.String())
		if err != nil {
			return err
		}
		for k, v := range r {
			times[k] = append(times[k], v)
		}
		if i == 0 {
			first = compiled
		}
	}
	load = append(load, loadAvg())
	st, _ := os.Stat(wasm)
	fmt.Printf("%s (%d bytes raw), %d cold starts under node %s; load average before %s, after %s\n", target, st.Size(), n, nodeVersion(), load[0], load[1])
	for _, s := range steps {
		v := times[s.key]
		sort.Float64s(v)
		fmt.Printf("  %-32s median %7.1f ms  (%.1f–%.1f)\n", s.label, v[len(v)/2], v[0], v[len(v)-1])
	}
	fmt.Printf("  WebAssembly code V8 compiled with Liftoff (lazily, on first call; the same every start):\n")
	for i, phase := range []string{"instance -> functions ready", "first render", "second render"} {
		fmt.Printf("  %-32s %5d functions, %8d bytes of code\n", phase, first[i].funcs, first[i].bytes)
	}
	return nil
}

// compiledCode counts the functions V8 compiled in one phase and the
// bytes of their WebAssembly bodies.
type compiledCode struct{ funcs, bytes int }

// parse reads one start's output: the RESULT line's times, and node's
// --trace-wasm-compilation-times lines ("Compiled function …#7 using
// Liftoff, took 0 ms and … bytes; bodysize 37 codesize 172") summed by
// phase, the MARK lines dividing them.
func parse(out string) (map[string]float64, [3]compiledCode, error) {
	var phases [3]compiledCode
	phase := 0
	var r map[string]float64
	// V8's background compiles print on their own thread: a line of the
	// script's may follow one of theirs without a line break.
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasSuffix(line, "MARK ready"):
			phase = 1
		case strings.HasSuffix(line, "MARK first"):
			phase = 2
		case strings.Contains(line, "RESULT {"):
			_, js, _ := strings.Cut(line, "RESULT ")
			if err := json.Unmarshal([]byte(js), &r); err != nil {
				return nil, phases, fmt.Errorf("node printed %q: %v", line, err)
			}
		case strings.HasPrefix(line, "Compiled function ") && strings.Contains(line, " using Liftoff"):
			if _, body, ok := strings.Cut(line, "bodysize "); ok {
				n, _ := strconv.Atoi(strings.Fields(body)[0])
				phases[phase].funcs++
				phases[phase].bytes += n
			}
		}
	}
	if r == nil {
		return nil, phases, fmt.Errorf("node printed no result:\n%s", out)
	}
	return r, phases, nil
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func nodeVersion() string {
	out, err := exec.Command("node", "--version").Output()
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(out))
}
