//go:build js && wasm

package keepalive

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"syscall/js"

	"github.com/syumai/workers"
)

// Serve installs h as binding.serve for the shim, with binding.bodyLimit,
// and then hands over to workers.Serve, which tells JavaScript the program
// is ready and keeps it running. The shim reads each request's body itself,
// at most bodyLimit bytes, and calls binding.serve once per request; the
// call runs h to its end and returns the whole answer, so no part of a
// request is left to a later JavaScript event (see the package comment).
func Serve(h http.Handler, bodyLimit int) {
	binding := js.Global().Get("context").Get("binding")
	binding.Set("bodyLimit", bodyLimit)
	binding.Set("serve", js.FuncOf(func(_ js.Value, args []js.Value) any {
		return serve(h, args)
	}))
	workers.Serve(h)
}

// serve answers one request: args are the method, the URL, the headers as
// a flat array [name, value, name, value, ...], the body (a Uint8Array, or
// null for none) and the Content-Length (-1 when unknown). It returns
// [status, flat headers, body (a Uint8Array)], or an Error.
func serve(h http.Handler, args []js.Value) any {
	if len(args) != 5 {
		return js.Global().Get("Error").New("serve: want 5 arguments")
	}
	u, err := url.Parse(args[1].String())
	if err != nil {
		return js.Global().Get("Error").New("serve: " + err.Error())
	}
	header := http.Header{}
	flat := args[2]
	for i, n := 0, flat.Length(); i+1 < n; i += 2 {
		header.Add(flat.Index(i).String(), flat.Index(i+1).String())
	}
	var body []byte
	if b := args[3]; !b.IsNull() && !b.IsUndefined() {
		body = make([]byte, b.Get("byteLength").Int())
		js.CopyBytesToGo(body, b)
	}
	r := &http.Request{
		Method:        args[0].String(),
		URL:           u,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        header,
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(args[4].Int()),
		Host:          u.Host,
		RequestURI:    u.RequestURI(),
	}
	if args[3].IsNull() {
		r.Body = http.NoBody
		r.ContentLength = 0
	}
	w := &bufferedWriter{header: http.Header{}}
	h.ServeHTTP(w, r)
	out := make([]any, 0, 2*len(w.header))
	for k, vs := range w.header {
		for _, v := range vs {
			out = append(out, k, v)
		}
	}
	arr := uint8Array.New(len(w.body))
	js.CopyBytesToJS(arr, w.body)
	return js.ValueOf([]any{w.Status(), out, arr})
}

var uint8Array = js.Global().Get("Uint8Array")
