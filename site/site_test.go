package main

import (
	"os"
	"path/filepath"
	"sync"

	"github.com/wattscale/wattscale/site/gen"
)

// testDataDir is where the Zeus trace is looked for by the tests: $DATA_DIR,
// else ../shared/data beside the repository.
func testDataDir() string {
	if d := os.Getenv("DATA_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "shared", "data")
}

// realBuild is one build of the repository's content tree with the
// calculator's assets but without WebAssembly, as the command passes them
// to the generator; shared by the tests that only read it.
var realBuild = sync.OnceValues(func() (map[string][]byte, error) {
	files, _, err := gen.Build(gen.Options{Content: os.DirFS(filepath.Join("..", "content")), Data: os.DirFS(testDataDir()), DataName: "DATA_DIR", Assets: calcAssets()})
	return files, err
})
