// Command probe is a fixture of the end-to-end tests of shim/worker.mjs and
// package keepalive, served like the real worker:
//
//	GET  /count  how many requests this Go program has counted, so a test
//	             sees whether one program serves them all
//	POST /echo   the request body, read through the request's Body
//	GET  /heap   bytes of live heap after two garbage collections
//	GET  /exit   ends the program, as an unrecovered panic would
//	GET  /bytes?n=N&binary=1
//	             N bytes of text ("wattscale " repeated), or of bytes that
//	             are not UTF-8 with binary=1
//
// and anything else answers "ok" uncounted.
package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strconv"

	"github.com/wattscale/wattscale/wasm/worker/keepalive"
)

func main() {
	n := 0 // the handler runs on js/wasm's single thread
	keepalive.Serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/count":
			n++
			fmt.Fprint(w, n)
		case "/echo":
			io.Copy(w, r.Body)
		case "/heap":
			runtime.GC()
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			fmt.Fprint(w, m.HeapAlloc)
		case "/bytes":
			n, _ := strconv.Atoi(r.URL.Query().Get("n"))
			unit := []byte("wattscale ")
			if r.URL.Query().Get("binary") == "1" {
				unit = []byte{0xff, 0xfe, 0x80, 'w'}
			}
			w.Write(bytes.Repeat(unit, n/len(unit)+1)[:n])
		case "/exit":
			os.Exit(3)
		default:
			fmt.Fprint(w, "ok")
		}
	}), 1<<20)
}
