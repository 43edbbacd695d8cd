//go:build !(js && wasm)

package keepalive

import "net/http"

// Handler returns next unchanged: natively, workers.Serve is a plain
// net/http server and streams answers itself.
func Handler(next http.Handler) http.Handler { return next }
