//go:build js && wasm

package keepalive

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/url"
	"syscall/js"
	"unsafe"

	"github.com/syumai/workers"
)

// Serve installs h as the handler of the exported functions below and sets
// binding.bodyLimit, then hands over to workers.Serve, which tells
// JavaScript the program is ready and keeps it running. The shim reads each
// request's body itself, at most bodyLimit bytes, writes the request into
// Go's memory (keepalive_in) and calls keepalive_serve once per request;
// the call runs h to its end and leaves the whole answer in Go's memory
// (keepalive_out), so no part of a request is left to a later JavaScript
// event (see the package comment). What crosses per request is described
// in wire.go.
func Serve(h http.Handler, bodyLimit int) {
	srv.h = h
	js.Global().Get("context").Get("binding").Set("bodyLimit", bodyLimit)
	workers.Serve(h)
}

// srv is the one server of the program: the exported functions reach it
// without any JavaScript value.
var srv server

// server holds what one request after another reuses. js/wasm runs Go on
// JavaScript's one thread and each call runs to its end, so one request at
// a time uses it.
type server struct {
	h   http.Handler
	in  []byte // the request's line, headers and body, written by the shim
	out []byte // the answer's head and body, or an error's text
	w   bufferedWriter
}

// keepaliveIn makes room for a request of n bytes and returns the address
// in linear memory where the shim writes it (0 for a negative n). The
// address stays valid until the next keepaliveIn; the shim views it
// through the memory's current buffer, which Go may replace when it grows
// the memory.
//
//go:wasmexport keepalive_in
func keepaliveIn(n int32) uint32 {
	if n < 0 {
		return 0
	}
	srv.in = grow(srv.in, max(int(n), 1))
	return addr(srv.in)
}

// keepaliveServe answers the request in the buffer of keepaliveIn. Its
// arguments: the length of the request's line and headers at the start of
// the buffer (wire.go), the length of the body that follows them there (-1
// for a request without a body), and the Content-Length (-1 when unknown;
// a JavaScript number, so a float64, exact for every safe integer).
// It leaves the answer's head and body at keepaliveOut and returns the
// head's length; for arguments it cannot read it returns -1 and leaves the
// error's text there instead.
//
//go:wasmexport keepalive_serve
func keepaliveServe(metaLen, bodyLen int32, contentLength float64) int32 {
	head, err := srv.serve(int(metaLen), int(bodyLen), int64(contentLength))
	if err != nil {
		srv.out = append(srv.out[:0], err.Error()...)
		return -1
	}
	return int32(head)
}

// keepaliveOut returns the address of the last answer (or error text) in
// linear memory; keepaliveOutLen its length in bytes.
//
//go:wasmexport keepalive_out
func keepaliveOut() uint32 {
	if len(srv.out) == 0 {
		return 0
	}
	return addr(srv.out)
}

// addr is the address of b's first byte in linear memory. WebAssembly
// hands a 32-bit result to JavaScript as a signed number, so the shim
// reads it with ">>> 0". Go's garbage collector does not move objects,
// and srv keeps b alive.
func addr(b []byte) uint32 { return uint32(uintptr(unsafe.Pointer(&b[0]))) }

//go:wasmexport keepalive_out_len
func keepaliveOutLen() int32 { return int32(len(srv.out)) }

// serve answers the request in s.in and returns the length of the
// answer's head in s.out.
func (s *server) serve(metaLen, bodyLen int, contentLength int64) (int, error) {
	if s.h == nil {
		return 0, errors.New("serve: called before keepalive.Serve")
	}
	n := metaLen + max(bodyLen, 0)
	if metaLen < 0 || n > len(s.in) {
		return 0, errors.New("serve: the request is longer than the buffer")
	}
	method, rawURL, header, err := parseMeta(s.in[:metaLen])
	if err != nil {
		return 0, err
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return 0, errors.New("serve: " + err.Error())
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
		r.Body = io.NopCloser(bytes.NewReader(s.in[metaLen:n]))
		r.ContentLength = contentLength
	}
	s.w = bufferedWriter{header: http.Header{}, body: s.w.body[:0]}
	s.h.ServeHTTP(&s.w, r)
	s.out = appendHead(s.out[:0], s.w.Status(), s.w.header, s.w.body)
	head := len(s.out)
	s.out = append(s.out, s.w.body...)
	return head, nil
}

// grow returns b resized to n bytes, reallocated only when too small.
func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n, max(n, 2*cap(b)))
	}
	return b[:n]
}
