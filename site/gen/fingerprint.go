package gen

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path"
	"strings"
)

// hashedAssets are the calculator's files served under a content-hashed
// name (assets/calc.0123456789.wasm), so that a host can let browsers
// cache them for a year: a new build that changes one changes its name.
// assets/embed.js keeps its name (other sites link to it) and so do the
// pages, the data files and static/.
var hashedAssets = []string{
	"assets/calc.css", "assets/calc.js", "assets/wasm_exec.js",
	"assets/calc.wasm", "assets/calc-embed.js", "assets/planner.wasm", "assets/planner-embed.js",
	"assets/fit.wasm", "assets/fit-embed.js",
}

// hashLen is how many hex digits of the SHA-256 a hashed name carries.
const hashLen = 10

// hashedName is name with the first hashLen hex digits of data's SHA-256
// before its extension: assets/calc.wasm → assets/calc.0123456789.wasm.
func hashedName(name string, data []byte) string {
	sum := sha256.Sum256(data)
	ext := path.Ext(name)
	return strings.TrimSuffix(name, ext) + "." + hex.EncodeToString(sum[:])[:hashLen] + ext
}

// fingerprint renames the hashedAssets present in assets to their hashed
// names, in place, and returns the map from each plain name to the name
// it is written under (the plain name for every other asset).
func fingerprint(assets map[string][]byte) map[string]string {
	names := map[string]string{}
	for name := range assets {
		names[name] = name
	}
	for _, name := range hashedAssets {
		b, ok := assets[name]
		if !ok {
			continue
		}
		h := hashedName(name, b)
		delete(assets, name)
		assets[h] = b
		names[name] = h
	}
	return names
}

// assetManifestName is the file that maps the calculator's plain asset
// names to the names this build wrote them under, for tools that read a
// built site (scripts/offline) and for the calculator itself.
const assetManifestName = "assets/manifest.json"

// assetManifest is assets/manifest.json: {"calc.wasm": "calc.0123456789.wasm", …}
// for the files in assets/ (names relative to that folder), in key order.
func assetManifest(names map[string]string) []byte {
	b, _ := json.MarshalIndent(assetMap(names), "", "  ") // a map of strings always marshals
	return append(b, '\n')
}

// assetMap is names restricted to assets/, relative to that folder.
func assetMap(names map[string]string) map[string]string {
	m := map[string]string{}
	for plain, written := range names {
		if strings.HasPrefix(plain, "assets/") {
			m[strings.TrimPrefix(plain, "assets/")] = strings.TrimPrefix(written, "assets/")
		}
	}
	return m
}

// hostHeadersName is the headers file that Netlify, Cloudflare Pages and
// Cloudflare Workers static assets read from the site's root.
const hostHeadersName = "_headers"

// hostHeaders is that file: a year of caching for each content-hashed
// asset of this build, by its exact path (the other files of assets/, such
// as embed.js, keep the host's default).
func hostHeaders(names map[string]string) []byte {
	var b strings.Builder
	b.WriteString("# Written by go run ./site build for Netlify, Cloudflare Pages and Cloudflare\n")
	b.WriteString("# Workers static assets: content-hashed files never change, so browsers may keep them.\n")
	for _, plain := range hashedAssets {
		if n, ok := names[plain]; ok && n != plain {
			b.WriteString("/" + n + "\n  Cache-Control: public, max-age=31536000, immutable\n")
		}
	}
	return []byte(b.String())
}
