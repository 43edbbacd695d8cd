package gen

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/andybalholm/brotli"
)

// compressible are the extensions of the files that get a .br and a .gz
// copy beside them: every text format the site writes, and WebAssembly.
var compressible = map[string]bool{
	".html": true, ".css": true, ".js": true, ".wasm": true, ".svg": true,
	".json": true, ".csv": true, ".md": true, ".txt": true,
}

// Compression is how hard Compress works: a name (the -compress flag's
// value) and the brotli and gzip levels. The zero value compresses
// nothing.
type Compression struct {
	Name   string
	Brotli int // brotli quality, 0–11
	Gzip   int // gzip level, 1–9
}

// The compression levels. Brotli's quality 11 takes about a minute for
// the 4.5 MB calculator wasm in pure Go (quality 9: 7 s, 13 % larger), so
// a build takes it from the cache after the first time; CompressFast is
// for builds that only run on localhost (site serve, the browser tests).
var (
	CompressBest = Compression{"best", 11, gzip.BestCompression}
	CompressFast = Compression{"fast", 5, 6}
	CompressNone = Compression{"none", 0, 0}
)

// ParseCompression returns the level named s: best, fast or none.
func ParseCompression(s string) (Compression, error) {
	for _, c := range []Compression{CompressBest, CompressFast, CompressNone} {
		if s == c.Name {
			return c, nil
		}
	}
	return Compression{}, fmt.Errorf("-compress %q: want best, fast or none", s)
}

// cacheAbove is the size from which compressed copies are cached (smaller
// files compress in milliseconds).
const cacheAbove = 256 << 10

// DirCache is a CacheFunc backed by the folder dir ("" = no cache), the
// folder WasmOptions.CacheDir names for compiled WebAssembly.
func DirCache(dir string) CacheFunc {
	return func(name string, make func() ([]byte, error)) ([]byte, error) {
		return cached(dir, "compressed-"+name, make)
	}
}

// CacheFunc returns the bytes stored under name, or makes and stores them.
// A nil CacheFunc makes them every time.
type CacheFunc func(name string, make func() ([]byte, error)) ([]byte, error)

// Compress adds NAME.br and NAME.gz beside every compressible file of
// files (in place), each only when it is smaller than the file itself, so
// that a server can send the smallest encoding a browser accepts. The
// outputs are deterministic (no name or time in the gzip header) and, with
// a cache, computed once per content and level. Files are compressed on
// every core.
func Compress(files map[string][]byte, c Compression, cache CacheFunc) error {
	if c.Gzip <= 0 { // none, or the zero value
		return nil
	}
	if cache == nil {
		cache = func(_ string, make func() ([]byte, error)) ([]byte, error) { return make() }
	}
	type job struct {
		name, enc string
		data      []byte
	}
	var jobs []job
	for _, name := range sortedKeys(files) {
		if compressible[strings.ToLower(path.Ext(name))] {
			jobs = append(jobs, job{name, "br", files[name]}, job{name, "gz", files[name]})
		}
	}
	// Largest first, so that the big wasm files do not start last.
	slices.SortStableFunc(jobs, func(a, b job) int { return len(b.data) - len(a.data) })
	out := make([][]byte, len(jobs))
	errs := make([]error, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				j := jobs[i]
				sum := sha256.Sum256(j.data)
				key := fmt.Sprintf("%s-%s%d", hex.EncodeToString(sum[:16]), j.enc, c.level(j.enc))
				mk := func() ([]byte, error) { return encode(j.data, j.enc, c) }
				if len(j.data) < cacheAbove {
					out[i], errs[i] = mk()
				} else {
					out[i], errs[i] = cache(key, mk)
				}
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, j := range jobs {
		if errs[i] != nil {
			return fmt.Errorf("compressing %s: %w", j.name, errs[i])
		}
		if len(out[i]) < len(j.data) {
			files[j.name+"."+j.enc] = out[i]
		}
	}
	return nil
}

func (c Compression) level(enc string) int {
	if enc == "br" {
		return c.Brotli
	}
	return c.Gzip
}

// encode compresses b with brotli ("br") or gzip ("gz").
func encode(b []byte, enc string, c Compression) ([]byte, error) {
	var buf bytes.Buffer
	switch enc {
	case "br":
		w := brotli.NewWriterOptions(&buf, brotli.WriterOptions{Quality: c.Brotli, LGWin: 22})
		if _, err := w.Write(b); err != nil {
			return nil, err
		}
		if err := w.Close(); err != nil {
			return nil, err
		}
	case "gz":
		w, err := gzip.NewWriterLevel(&buf, c.Gzip)
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(b); err != nil {
			return nil, err
		}
		if err := w.Close(); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("unknown encoding %q", enc)
	}
	return buf.Bytes(), nil
}
