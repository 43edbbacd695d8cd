package main

// The worker's HTTP shim in workerd: connections reused and restarted,
// bodies carried byte for byte, keep-alive connections not leaked.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
)

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
