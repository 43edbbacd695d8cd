package gen

import (
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// The repository's own trees, which the tests build as the command does.

// testDataDir is where the Zeus trace is looked for by the tests: $DATA_DIR,
// else ../shared/data beside the repository.
func testDataDir() string {
	if d := os.Getenv("DATA_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "shared", "data")
}

// realOptions builds the repository's content tree with the calculator's
// assets but without compiling WebAssembly (the e2e tests and make serve do).
func realOptions() Options {
	return Options{Content: os.DirFS(filepath.Join("..", "..", "content")), Data: os.DirFS(testDataDir()), DataName: "DATA_DIR", Assets: calcAssets()}
}

// calcAssets is site/assets, the calculator's static files, which the
// command compiles into its binary and passes as Options.Assets.
func calcAssets() fs.FS {
	return os.DirFS(filepath.Join("..", "assets"))
}

// realBuild is one build of realOptions, shared by the tests that only
// read it (each real build refits the validation table's holdouts).
var realBuild = sync.OnceValues(func() (map[string][]byte, error) {
	files, _, err := Build(realOptions())
	return files, err
})
