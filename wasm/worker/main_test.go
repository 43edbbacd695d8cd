package main

import (
	"net/http"
	"net/http/httptest"
	"runtime/debug"
	"testing"
)

func TestBuildVersion(t *testing.T) {
	setting := func(kv ...string) *debug.BuildInfo {
		info := &debug.BuildInfo{}
		for i := 0; i < len(kv); i += 2 {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return info
	}
	tests := []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"no build info", nil, "dev"},
		{"no revision", setting("GOOS", "js"), "dev"},
		{"clean", setting("vcs.revision", "2c9bf14aa1b2c3d4e5f60718293a4b5c6d7e8f90", "vcs.modified", "false"), "2c9bf14aa1b2"},
		{"modified", setting("vcs.revision", "2c9bf14aa1b2c3d4e5f60718293a4b5c6d7e8f90", "vcs.modified", "true"), "2c9bf14aa1b2-dirty"},
		{"short revision", setting("vcs.revision", "abc"), "abc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := buildVersion(tt.info); got != tt.want {
				t.Errorf("buildVersion = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestBufferedWriter checks that buffering an answer, as the js/wasm build
// does before handing it to JavaScript, keeps status, headers and body.
func TestBufferedWriter(t *testing.T) {
	h, err := newHandler()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ method, path string }{
		{"GET", "/api/v1/health"}, {"GET", "/nowhere"}, {"OPTIONS", "/api/v1/estimate"}, {"POST", "/api/v1/estimate"},
	} {
		direct := httptest.NewRecorder()
		h.ServeHTTP(direct, httptest.NewRequest(tt.method, tt.path, nil))
		b := &bufferedWriter{header: http.Header{}}
		h.ServeHTTP(b, httptest.NewRequest(tt.method, tt.path, nil))
		if b.Status() != direct.Code || string(b.body) != direct.Body.String() || b.header.Get("Content-Type") != direct.Header().Get("Content-Type") {
			t.Errorf("%s %s buffered: %d %q; direct: %d %q", tt.method, tt.path, b.Status(), b.body, direct.Code, direct.Body)
		}
	}
	var b bufferedWriter
	if b.Status() != http.StatusOK {
		t.Errorf("status of an empty answer = %d, want 200", b.Status())
	}
	b.WriteHeader(http.StatusTeapot)
	b.WriteHeader(http.StatusOK)
	b.Write([]byte("a"))
	b.Write([]byte("b"))
	if b.Status() != http.StatusTeapot || string(b.body) != "ab" {
		t.Errorf("after WriteHeader(418), WriteHeader(200), Write a, b: %d %q; want 418 \"ab\"", b.Status(), b.body)
	}
}
