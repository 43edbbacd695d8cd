package main

import (
	"strings"
	"testing"
)

// TestRun: a skipped test is listed with its reason and counted, a failed
// test's output is printed, a build failure counts as a failure.
func TestRun(t *testing.T) {
	in := `{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"output","Package":"p","Test":"TestA","Output":"    a_test.go:9: workerd not found (run: npm ci --prefix wasm/worker)\n"}
{"Action":"output","Package":"p","Test":"TestA","Output":"--- SKIP: TestA (0.00s)\n"}
{"Action":"skip","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestB","Output":"    b_test.go:3: got 2, want 3\n"}
{"Action":"fail","Package":"p","Test":"TestB"}
{"Action":"fail","Package":"p","Elapsed":1.5}
{"Action":"pass","Package":"q","Elapsed":0.2}
{"ImportPath":"r [r.test]","Action":"build-output","Output":"r/x.go:1: syntax error\n"}
{"ImportPath":"r [r.test]","Action":"build-fail"}
`
	var b strings.Builder
	s, err := run(strings.NewReader(in), &b)
	if err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		"SKIP p TestA: a_test.go:9: workerd not found (run: npm ci --prefix wasm/worker)",
		"b_test.go:3: got 2, want 3", "FAIL p 1.5s", "ok   q 0.2s", "r/x.go:1: syntax error", "FAIL r [r.test] [build failed]",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	if s.skipped != 1 || s.failed != 3 {
		t.Errorf("skipped %d, failed %d; want 1 and 3 (TestB, p, r)", s.skipped, s.failed)
	}
}

// TestRunLongLine: an event line at the limit is read; one byte over it is
// an error naming the limit, not a summary that stops there in silence.
func TestRunLongLine(t *testing.T) {
	event := func(n int) string {
		head := `{"Action":"output","Package":"p","Test":"TestA","Output":"`
		tail := "\"}\n"
		return head + strings.Repeat("x", n-len(head)-len(tail)) + tail // n bytes with the line feed
	}
	var out strings.Builder
	if _, err := run(strings.NewReader(event(maxLine)), &out); err != nil {
		t.Errorf("a line of %d bytes: %v", maxLine, err)
	}
	_, err := run(strings.NewReader(event(maxLine+1)), &out)
	if err == nil || !strings.Contains(err.Error(), "67108864 bytes") {
		t.Errorf("a line of %d bytes: %v, want an error naming the limit", maxLine+1, err)
	}
}
