//go:build js && wasm

package keepalive

import (
	"fmt"
	"io"
	"net/http"
	"syscall/js"
)

// rawJSBodyWriter is implemented by syumai/workers' ResponseWriter: a body
// given this way becomes the JavaScript Response's body as it is.
type rawJSBodyWriter interface {
	WriteRawJSBody(body js.Value)
}

// rawJSBodyGetter is implemented by syumai/workers' request body: the
// JavaScript ReadableStream under it.
type rawJSBodyGetter interface {
	GetRawJSBody() js.Value
}

var uint8Array = js.Global().Get("Uint8Array")

// Handler wraps next so that its answers reach JavaScript whole, as raw
// bodies, which keeps the program running, and so that request bodies are
// read without leaking (see the package comment). next must not stream: its
// answer is sent when it returns.
func Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, ok := w.(rawJSBodyWriter)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		if g, ok := r.Body.(rawJSBodyGetter); ok {
			r.Body = &streamBody{stream: g.GetRawJSBody()}
		}
		b := &bufferedWriter{header: w.Header()}
		next.ServeHTTP(b, r)
		r.Body.Close()
		w.WriteHeader(b.Status())
		arr := uint8Array.New(len(b.body))
		js.CopyBytesToJS(arr, b.body)
		raw.WriteRawJSBody(arr)
	})
}

// streamBody reads a JavaScript ReadableStream. Unlike syumai/workers'
// reader, whose every Read leaves one of its two promise callbacks
// registered forever (about 400 bytes per request that a long-lived program
// never gets back), it releases both callbacks of each read.
type streamBody struct {
	stream js.Value
	reader js.Value // the stream's reader, from the first Read on
	buf    []byte   // the unread rest of the last chunk
	err    error    // io.EOF once the stream is done
}

// Read copies the next bytes of the stream into p.
func (s *streamBody) Read(p []byte) (int, error) {
	for len(s.buf) == 0 {
		if s.err != nil {
			return 0, s.err
		}
		if s.reader.IsUndefined() {
			s.reader = s.stream.Call("getReader")
		}
		res, err := await(s.reader.Call("read"))
		switch {
		case err != nil:
			s.err = err
		case res.Get("done").Bool():
			s.err = io.EOF
		default:
			chunk := res.Get("value")
			s.buf = make([]byte, chunk.Get("byteLength").Int())
			js.CopyBytesToGo(s.buf, chunk)
		}
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	return n, nil
}

// Close cancels what was not read of the stream.
func (s *streamBody) Close() error {
	if s.err == nil {
		s.err = io.ErrClosedPipe
		if s.reader.IsUndefined() {
			s.stream.Call("cancel")
		} else {
			s.reader.Call("cancel")
		}
	}
	return nil
}

// await waits for promise p and releases both of its callbacks.
func await(p js.Value) (js.Value, error) {
	type settled struct {
		v   js.Value
		err error
	}
	ch := make(chan settled, 1)
	then := js.FuncOf(func(_ js.Value, args []js.Value) any {
		ch <- settled{v: args[0]}
		return nil
	})
	catch := js.FuncOf(func(_ js.Value, args []js.Value) any {
		ch <- settled{err: fmt.Errorf("reading the request body: %s", args[0].Call("toString").String())}
		return nil
	})
	p.Call("then", then, catch)
	s := <-ch
	then.Release()
	catch.Release()
	return s.v, s.err
}
