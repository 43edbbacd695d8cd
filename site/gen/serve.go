package gen

import (
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
)

// siteTypes are the media types the site needs, set explicitly so that
// they do not depend on the system's MIME tables (.wasm must be
// application/wasm for streaming compilation).
var siteTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".wasm": "application/wasm",
	".svg":  "image/svg+xml",
	".json": "application/json",
	".csv":  "text/csv; charset=utf-8",
}

// FileServer serves dir with the site's media types. A compressible file
// with a NAME.br or NAME.gz copy beside it (what Compress writes) is
// sent in the best encoding the request's Accept-Encoding allows, with
// Content-Encoding, Vary: Accept-Encoding and the file's own media type.
// Content-hashed assets (assets/calc.0123456789.wasm) may be cached for a
// year; everything else is revalidated (a rebuild shows at the next
// reload).
func FileServer(dir string) http.Handler {
	files := http.FileServer(http.Dir(dir))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		name := r.URL.Path
		if strings.HasSuffix(name, "/") {
			name += "index.html"
		}
		ext := strings.ToLower(path.Ext(name))
		if t, ok := siteTypes[ext]; ok {
			h.Set("Content-Type", t)
		}
		if isHashed(name) {
			h.Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			h.Set("Cache-Control", "no-cache")
		}
		h.Set("X-Content-Type-Options", "nosniff")
		if !compressible[ext] || r.Method != http.MethodGet && r.Method != http.MethodHead {
			files.ServeHTTP(w, r)
			return
		}
		h.Add("Vary", "Accept-Encoding")
		for _, enc := range acceptedEncodings(r.Header.Get("Accept-Encoding")) {
			f, err := http.Dir(dir).Open(name + encodingExt[enc])
			if err != nil {
				continue
			}
			defer f.Close()
			fi, err := f.Stat()
			if err != nil || fi.IsDir() {
				continue
			}
			h.Set("Content-Encoding", enc)
			// ServeContent with the plain name: its media type, its
			// conditional requests; the bytes are the encoded copy's.
			http.ServeContent(w, r, name, fi.ModTime(), f)
			return
		}
		files.ServeHTTP(w, r)
	})
}

// encodingExt is the file suffix of each content coding site build writes.
var encodingExt = map[string]string{"br": ".br", "gzip": ".gz"}

// acceptedEncodings are the codings of encodingExt that an Accept-Encoding
// header allows (q > 0), brotli first (the smaller). "*" allows both;
// "identity" is always possible and not listed.
func acceptedEncodings(header string) []string {
	q := map[string]float64{}
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		coding = strings.ToLower(strings.TrimSpace(coding))
		if coding == "" {
			continue
		}
		v := 1.0
		for _, p := range strings.Split(params, ";") {
			k, val, ok := strings.Cut(strings.TrimSpace(p), "=")
			if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
				f, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
				if err != nil || f < 0 || f > 1 {
					f = 0
				}
				v = f
			}
		}
		q[coding] = v
	}
	var out []string
	for _, enc := range []string{"br", "gzip"} {
		v, ok := q[enc]
		if !ok {
			v, ok = q["*"]
		}
		if ok && v > 0 {
			out = append(out, enc)
		}
	}
	return out
}

// isHashed says whether a path names a content-hashed asset
// (NAME.0123456789.EXT, see fingerprint).
func isHashed(name string) bool {
	base := path.Base(name)
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	i := strings.LastIndexByte(stem, '.')
	if i < 0 || len(stem)-i-1 != hashLen {
		return false
	}
	for _, c := range stem[i+1:] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func init() {
	for ext, t := range siteTypes {
		mime.AddExtensionType(ext, t)
	}
}
