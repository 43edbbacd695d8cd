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
// binding.setBuffer and binding.take, and then hands over to workers.Serve,
// which tells JavaScript the program is ready and keeps it running. The
// shim reads each request's body itself, at most bodyLimit bytes, and calls
// binding.serve once per request; the call runs h to its end and returns
// the whole answer, so no part of a request is left to a later JavaScript
// event (see the package comment). What crosses per request is described in
// wire.go.
func Serve(h http.Handler, bodyLimit int) {
	s := &server{h: h}
	binding := js.Global().Get("context").Get("binding")
	binding.Set("bodyLimit", bodyLimit)
	binding.Set("setBuffer", js.FuncOf(func(_ js.Value, args []js.Value) any {
		return s.setBuffer(args)
	}))
	binding.Set("serve", js.FuncOf(func(_ js.Value, args []js.Value) any {
		return s.serve(args)
	}))
	binding.Set("take", js.FuncOf(func(_ js.Value, args []js.Value) any {
		return s.take()
	}))
	workers.Serve(h)
}

// server holds what one request after another reuses. js/wasm runs Go on
// JavaScript's one thread and each call runs to its end, so one request at
// a time uses it.
type server struct {
	h      http.Handler
	buf    js.Value // the shim's buffer (a Uint8Array), both ways
	bufLen int
	in     []byte // the request's line, headers and body, copied from buf
	out    []byte // the answer's head and body, to be copied into buf
	head   int    // the length of the answer's head in out
	w      bufferedWriter
	// pending is set when out did not fit buf, until binding.take copies
	// it into a larger one.
	pending bool
}

// setBuffer takes the shim's buffer (args[0], a Uint8Array): the shim
// calls it once the program is ready and again whenever it grows the
// buffer.
func (s *server) setBuffer(args []js.Value) any {
	if len(args) != 1 {
		return jsError.New("setBuffer: want one Uint8Array")
	}
	s.buf, s.bufLen = args[0], args[0].Length()
	return nil
}

// serve answers one request. Its arguments are numbers: the length of the
// request's line and headers at the start of the shim's buffer (wire.go),
// the length of the body that follows them there (-1 for a request without
// a body), and the Content-Length (-1 when unknown). It writes the answer's
// head and body into the buffer and returns the head's length; when they
// do not fit, it returns minus their length instead, and the shim gives it
// a larger buffer and calls binding.take. It returns an Error for arguments
// it cannot read.
func (s *server) serve(args []js.Value) any {
	s.pending = false
	if len(args) != 3 {
		return jsError.New("serve: want 3 arguments")
	}
	metaLen, bodyLen := args[0].Int(), args[1].Int()
	n := metaLen + max(bodyLen, 0)
	if metaLen < 0 || n > s.bufLen {
		return jsError.New("serve: the request is longer than the buffer")
	}
	s.in = grow(s.in, n)
	js.CopyBytesToGo(s.in, s.buf)
	method, rawURL, header, err := parseMeta(s.in[:metaLen])
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
	if bodyLen >= 0 {
		// A fresh reader over the reused buffer: the handler has finished
		// with it when ServeHTTP returns.
		r.Body = io.NopCloser(bytes.NewReader(s.in[metaLen:]))
		r.ContentLength = int64(args[2].Int())
	}
	s.w = bufferedWriter{header: http.Header{}, body: s.w.body[:0]}
	s.h.ServeHTTP(&s.w, r)
	s.out = appendHead(s.out[:0], s.w.Status(), s.w.header, s.w.body)
	s.head = len(s.out)
	s.out = append(s.out, s.w.body...)
	if len(s.out) > s.bufLen {
		s.pending = true
		return -len(s.out)
	}
	js.CopyBytesToJS(s.buf, s.out)
	return s.head
}

// take copies the answer serve could not fit into the buffer the shim has
// since set, and returns the length of its head.
func (s *server) take() any {
	if !s.pending || len(s.out) > s.bufLen {
		return jsError.New("take: no answer waiting, or the buffer is still too small")
	}
	js.CopyBytesToJS(s.buf, s.out)
	s.pending = false
	return s.head
}

// grow returns b resized to n bytes, reallocated only when too small.
func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n, max(n, 2*cap(b)))
	}
	return b[:n]
}

var jsError = js.Global().Get("Error")
