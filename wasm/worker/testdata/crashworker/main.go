// Command crashworker is a fixture of the end-to-end test of
// shim/worker.mjs and package keepalive: served like the real worker, GET
// /count answers how many requests this Go program has counted (so a test
// sees whether one program serves them all), GET /exit ends the program as
// an unrecovered panic would, and anything else answers "ok" uncounted.
package main

import (
	"fmt"
	"net/http"
	"os"

	"github.com/syumai/workers"
	"github.com/wattscale/wattscale/wasm/worker/keepalive"
)

func main() {
	n := 0 // the handler runs on js/wasm's single thread
	workers.Serve(keepalive.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/count":
			n++
			fmt.Fprint(w, n)
		case "/exit":
			os.Exit(3)
		default:
			fmt.Fprint(w, "ok")
		}
	})))
}
