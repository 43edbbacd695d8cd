//go:build !(js && wasm)

package keepalive

import (
	"net/http"

	"github.com/syumai/workers"
)

// Serve runs workers.Serve(h): natively a plain net/http server on $PORT,
// which reads bodies and streams answers itself (bodyLimit is the API's
// own business there).
func Serve(h http.Handler, bodyLimit int) { workers.Serve(h) }
