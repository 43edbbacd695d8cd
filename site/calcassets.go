package main

import (
	"embed"
	"io/fs"
)

// calcAssetsFS is the calculator's static files (site/assets: its script,
// stylesheet and embedding script), compiled into the site binary and
// copied to assets/.
//
//go:embed assets
var calcAssetsFS embed.FS

// calcAssets returns site/assets as a tree rooted at its files.
func calcAssets() fs.FS {
	sub, err := fs.Sub(calcAssetsFS, "assets")
	if err != nil {
		panic(err) // the pattern above guarantees the folder
	}
	return sub
}
