//go:build js && wasm

package keepalive

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

// Handler wraps next so that its answers reach JavaScript whole, as raw
// bodies, which keeps the program running (see the package comment). next
// must not stream: its answer is sent when it returns.
func Handler(next http.Handler) http.Handler {
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
