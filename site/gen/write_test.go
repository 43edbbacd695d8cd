package gen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "public")
	first := map[string][]byte{"index.html": []byte("a"), "old/index.html": []byte("b"), "static/site.css": []byte("c")}
	if err := Write(dir, first); err != nil {
		t.Fatal(err)
	}
	for name, want := range first {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(got) != string(want) {
			t.Errorf("%s = %q, %v; want %q", name, got, err, want)
		}
	}
	// An unchanged file keeps its modification time; a file the new build
	// does not write is removed with its empty folder.
	css := filepath.Join(dir, "static", "site.css")
	past := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(css, past, past); err != nil {
		t.Fatal(err)
	}
	second := map[string][]byte{"index.html": []byte("a2"), "static/site.css": []byte("c")}
	if err := Write(dir, second); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(css); err != nil || !st.ModTime().Equal(past) {
		t.Errorf("unchanged site.css was rewritten (mtime %v, want %v)", st.ModTime(), past)
	}
	if _, err := os.Stat(filepath.Join(dir, "old")); !os.IsNotExist(err) {
		t.Errorf("old/ of the previous build is still there: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "index.html")); string(got) != "a2" {
		t.Errorf("index.html = %q, want the new content", got)
	}
}

// TestWriteRefusesForeignFolder: a non-empty folder that no build wrote is
// left alone.
func TestWriteRefusesForeignFolder(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Write(dir, map[string][]byte{"index.html": []byte("a")})
	if err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("write into a foreign folder: %v, want a refusal", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "index.html")); !os.IsNotExist(err) {
		t.Errorf("write wrote into a foreign folder")
	}
}
