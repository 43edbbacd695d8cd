//go:build !(js && wasm)

package main

import "net/http"

// wholeBody returns next unchanged: natively, workers.Serve is a plain
// net/http server and streams answers itself.
func wholeBody(next http.Handler) http.Handler { return next }
