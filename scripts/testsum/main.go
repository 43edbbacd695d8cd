// Command testsum reads `go test -json` on standard input and prints what a
// person needs from it: each package's result, the output of every failed
// test, one line for every skipped test with the reason it gave, and a
// count of skips at the end. It exits 1 when a test or a build failed,
// and also when a test skipped and WATTSCALE_REQUIRE_E2E=1 (CI, where
// every test must run).
//
//	go test -count=1 -json ./... | go run ./scripts/testsum
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	Elapsed    float64
	ImportPath string
}

// summary is what run found.
type summary struct {
	failed, skipped int
}

func main() {
	s, err := run(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsum:", err)
		os.Exit(2)
	}
	require := os.Getenv("WATTSCALE_REQUIRE_E2E") == "1"
	fmt.Printf("%d test(s) skipped%s\n", s.skipped, map[bool]string{true: " (WATTSCALE_REQUIRE_E2E=1: a skip is a failure)", false: ""}[require && s.skipped > 0])
	if s.failed > 0 || (require && s.skipped > 0) {
		os.Exit(1)
	}
}

// run reads the events of r and writes the summary to w as it goes: each
// package's result and each failure's output when they arrive, the
// skipped tests at the end.
func run(r io.Reader, w io.Writer) (summary, error) {
	var s summary
	say := func(lines ...string) {
		for _, l := range lines {
			fmt.Fprintln(w, l)
		}
	}
	out := map[string][]string{} // package/test -> its output
	var skips []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), maxLine)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
			// not an event: a build error printed by go test itself
			say(string(line))
			continue
		}
		key := e.Package + " " + e.Test
		switch e.Action {
		case "output":
			out[key] = append(out[key], strings.TrimRight(e.Output, "\n"))
		case "build-output":
			say(strings.TrimRight(e.Output, "\n"))
		case "build-fail":
			s.failed++
			say("FAIL " + e.ImportPath + " [build failed]")
		case "fail":
			s.failed++
			if e.Test == "" {
				say(fmt.Sprintf("FAIL %s %.1fs", e.Package, e.Elapsed))
			} else {
				say(out[key]...)
			}
		case "skip":
			if e.Test == "" {
				continue // a package without test files
			}
			s.skipped++
			skips = append(skips, fmt.Sprintf("SKIP %s %s: %s", e.Package, e.Test, reason(out[key])))
		case "pass":
			if e.Test == "" {
				say(fmt.Sprintf("ok   %s %.1fs", e.Package, e.Elapsed))
			}
		}
	}
	sort.Strings(skips)
	say(skips...)
	if err := sc.Err(); err != nil {
		return s, fmt.Errorf("reading go test -json (a line may be at most %d bytes with its line feed): %w", maxLine, err)
	}
	return s, nil
}

// maxLine bounds a line of go test -json, one event, with its line feed; a
// longer one stops the summary with an error naming the limit.
const maxLine = 1 << 26

// reason is what a skipped test said: its output without the run and
// skip headers, on one line.
func reason(lines []string) string {
	var keep []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- SKIP") {
			continue
		}
		keep = append(keep, t)
	}
	if len(keep) == 0 {
		return "(no reason given)"
	}
	return strings.Join(keep, " ")
}
