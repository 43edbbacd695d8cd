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

// Serve installs h as binding.serve for the shim, with binding.bodyLimit
// and binding.take, and then hands over to workers.Serve, which tells
// JavaScript the program is ready and keeps it running. The shim reads each
// request's body itself, at most bodyLimit bytes, and calls binding.serve
// once per request; the call runs h to its end and returns the whole
// answer, so no part of a request is left to a later JavaScript event (see
// the package comment). What crosses per request is described in wire.go.
func Serve(h http.Handler, bodyLimit int) {
	s := &server{h: h}
	binding := js.Global().Get("context").Get("binding")
	binding.Set("bodyLimit", bodyLimit)
	binding.Set("serve", js.FuncOf(func(_ js.Value, args []js.Value) any {
		return s.serve(args)
	}))
	binding.Set("take", js.FuncOf(func(_ js.Value, args []js.Value) any {
		return s.take(args)
	}))
	workers.Serve(h)
}

// server holds what one request after another reuses. js/wasm runs Go on
// JavaScript's one thread and each call runs to its end, so one request at
// a time uses it.
type server struct {
	h    http.Handler
	meta []byte // the request's line and headers, copied from JavaScript
	body []byte // the request's body
	head []byte // the answer's head
	w    bufferedWriter
	// pending is the answer's body when it did not fit the shim's buffer,
	// until binding.take copies it into a larger one.
	pending []byte
}

// serve answers one request. args are the shim's reused buffer holding the
// request's line and headers (wire.go) and their length in bytes, the body
// (a Uint8Array, or null for none) and its length, the Content-Length (-1
// when unknown), and the shim's reused buffer for the answer's body. It
// returns the answer's head (wire.go), having copied the body into that
// buffer when it fits; when it does not, the shim calls binding.take with a
// buffer of the body's length. It returns an Error for arguments it cannot
// read.
func (s *server) serve(args []js.Value) any {
	s.pending = nil
	if len(args) != 6 {
		return jsError.New("serve: want 6 arguments")
	}
	n := args[1].Int()
	s.meta = grow(s.meta, n)
	if js.CopyBytesToGo(s.meta, args[0]) != n {
		return jsError.New("serve: the request's head is shorter than its length")
	}
	method, rawURL, header, err := parseMeta(s.meta)
	if err != nil {
		return jsError.New(err.Error())
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return jsError.New("serve: " + err.Error())
	}
	r := &http.Request{
		Method:        method,
		URL:           u,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        header,
		Body:          http.NoBody,
		ContentLength: 0,
		Host:          u.Host,
		RequestURI:    u.RequestURI(),
	}
	if b := args[2]; !b.IsNull() && !b.IsUndefined() {
		n := args[3].Int()
		s.body = grow(s.body, n)
		if js.CopyBytesToGo(s.body, b) != n {
			return jsError.New("serve: the request's body is shorter than its length")
		}
		// A fresh reader over the reused buffer: the handler has finished
		// with it when ServeHTTP returns.
		r.Body = io.NopCloser(bytes.NewReader(s.body))
		r.ContentLength = int64(args[4].Int())
	}
	s.w = bufferedWriter{header: http.Header{}, body: s.w.body[:0]}
	s.h.ServeHTTP(&s.w, r)
	body := s.w.body
	s.head = appendHead(s.head[:0], s.w.Status(), s.w.header, body)
	if len(body) > 0 && js.CopyBytesToJS(args[5], body) < len(body) {
		s.pending = body
	}
	return string(s.head)
}

// take copies the body of the answer serve could not fit into args[0], a
// Uint8Array at least as long, and returns its length.
func (s *server) take(args []js.Value) any {
	if len(args) != 1 || s.pending == nil {
		return jsError.New("take: no answer waiting, or not one buffer")
	}
	n := js.CopyBytesToJS(args[0], s.pending)
	s.pending = nil
	return n
}

// grow returns b resized to n bytes, reallocated only when too small.
func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n, max(n, 2*cap(b)))
	}
	return b[:n]
}

var jsError = js.Global().Get("Error")
