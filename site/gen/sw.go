package gen

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"path"
	"sort"
	"strings"
)

// swTemplate is the service worker; serviceWorker fills in its version and
// the files it keeps.
//
//go:embed sw.js
var swTemplate string

// serviceWorker writes sw.js for the site's files: it keeps the calculator
// and planner pages (given as output paths, kept under their folder
// address, "./" and "planner/", which is how a static host serves them)
// and the stylesheets, scripts, images and the calculator's wasm under
// static/ and assets/, but not the file:// copies of the wasm (*-embed.js),
// the refit's fit.wasm (fetched only when asked for, and kept then) or
// precompressed siblings (.br, .gz). Its version is a hash of the kept
// files, so that each build that changes one is a new service worker.
func serviceWorker(files map[string][]byte, pages []string) []byte {
	var keep []string
	for name := range files {
		if !strings.HasPrefix(name, "assets/") && !strings.HasPrefix(name, "static/") {
			continue
		}
		base := path.Base(name)
		if strings.Contains(base, "embed") || strings.HasPrefix(base, "fit.") || strings.HasSuffix(base, ".br") || strings.HasSuffix(base, ".gz") {
			continue
		}
		keep = append(keep, name)
	}
	sort.Strings(keep)
	h := sha256.New()
	var urls []string
	for _, p := range pages {
		if _, ok := files[p]; !ok {
			continue
		}
		h.Write([]byte(p + "\x00"))
		h.Write(files[p])
		u := strings.TrimSuffix(p, "index.html")
		if u == "" {
			u = "./"
		}
		urls = append(urls, u)
	}
	for _, name := range keep {
		h.Write([]byte(name + "\x00"))
		h.Write(files[name])
		urls = append(urls, name)
	}
	list, _ := json.Marshal(urls)
	s := strings.Replace(swTemplate, "{{VERSION}}", hex.EncodeToString(h.Sum(nil))[:16], 1)
	s = strings.Replace(s, "{{FILES}}", string(list), 1)
	return []byte(s)
}

// calcPages are the output paths of the calculator and planner pages.
func calcPages(ps []Page) []string {
	var out []string
	for _, p := range ps {
		if t := p.Meta.Template; t == "calculator" || t == "planner" {
			out = append(out, p.OutPath())
		}
	}
	return out
}
