// Command worker is wattscale's Cloudflare Worker: the JSON API of package
// api (wasm/api), served by github.com/syumai/workers.
//
// Build it with "make worker" (GOOS=js GOARCH=wasm plus the JavaScript
// around it, in wasm/worker/build), run it locally with workerd
// ("make worker-run") and deploy it with wrangler (wrangler.jsonc); the
// README's Worker section has the commands. Built natively, workers.Serve is
// a plain HTTP server on $PORT (default 9900).
//
// The JavaScript entry point is shim/worker.mjs, not the worker.mjs that
// syumai/workers generates: it starts this program once per isolate and
// hands every request to the same running handler through package
// keepalive, one synchronous call per request.
package main

import (
	"fmt"
	"net/http"
	"os"
	"runtime/debug"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/wasm/api"
	"github.com/wattscale/wattscale/wasm/worker/keepalive"
)

func main() {
	h, err := newHandler()
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(1)
	}
	keepalive.Serve(h, model.MaxRequestBytes+1)
}

// newHandler builds the API over the embedded catalog.
func newHandler() (http.Handler, error) {
	cat, err := content.Catalog()
	if err != nil {
		return nil, err
	}
	v := version
	if v == "" {
		info, _ := debug.ReadBuildInfo()
		v = buildVersion(info)
	}
	return api.NewHandler(cat, api.Options{Version: v})
}

// version names the build when set with -ldflags "-X main.version=...", as
// "make worker" does (GOFLAGS may hold -buildvcs=false, which leaves the
// build information without a revision).
var version string

// buildVersion names the build by its VCS revision (12 hex digits, with
// "-dirty" for uncommitted changes), or "dev" when the build has none.
func buildVersion(info *debug.BuildInfo) string {
	if info == nil {
		return "dev"
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev == "" {
		return "dev"
	}
	return rev[:min(12, len(rev))] + dirty
}
