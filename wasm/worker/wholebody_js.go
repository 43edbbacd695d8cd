//go:build js && wasm

package main

import (
	"net/http"
	"syscall/js"
)

// rawJSBodyWriter is implemented by syumai/workers' ResponseWriter: a body
// given this way becomes the JavaScript Response's body as it is.
type rawJSBodyWriter interface {
	WriteRawJSBody(body js.Value)
}

var uint8Array = js.Global().Get("Uint8Array")

// wholeBody lets one Go instance serve any number of requests.
//
// syumai/workers v0.31.0 assumes one Go instance per request: the first
// response body it streams to JavaScript closes a package-level channel
// when the stream ends, which makes workers.Serve return (and the program
// exit), and a second such close would panic. wholeBody buffers the answer
// (ours are small JSON documents) and passes it as a raw JavaScript body
// (a Uint8Array), so the package never builds a stream over the body, never
// closes that channel, and workers.Serve keeps serving. The requests still go
// through the package's own conversion of Request to *http.Request.
func wholeBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, ok := w.(rawJSBodyWriter)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		b := &bufferedWriter{header: w.Header()}
		next.ServeHTTP(b, r)
		w.WriteHeader(b.Status())
		arr := uint8Array.New(len(b.body))
		js.CopyBytesToJS(arr, b.body)
		raw.WriteRawJSBody(arr)
	})
}
