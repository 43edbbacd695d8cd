package keepalive

import (
	"bytes"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"
)

// What crosses between the shim and Go, per request, is kept to one call
// with three numbers and no JavaScript object: every call from Go into
// JavaScript costs about a microsecond, every JavaScript object Go is
// handed costs a reference and a finalizer, and every string Go reads
// from JavaScript a fresh Uint8Array (TextEncoder), whose backing store
// waits for V8's next full collection. Both ways go through Go's linear
// memory: the shim writes the request where keepalive_in says (a buffer
// Go reuses and grows) and reads the answer where keepalive_out says.
//
// The request: its line and headers as one UTF-8 text (parseMeta reads
// it), followed by its body:
//
//	METHOD \n URL \n NAME \n VALUE \n NAME \n VALUE \n ... BODY
//
// Header names and values from the Fetch API hold no line feed.
//
// The answer: its head (appendHead writes it), followed by its body:
//
//	STATUS \n KIND \n BODY-LENGTH \n NAME \n VALUE \n ... BODY
//
// keepalive_serve returns the head's length. KIND is "t" when the body is
// UTF-8 text, which the shim hands to its Response as a string (workerd
// copies it into its own buffer, freed with the answer, so no ArrayBuffer
// per request is left to the garbage collector), and "b" otherwise (the
// shim copies the bytes into a new Uint8Array).

// parseMeta reads the request line and headers the shim encoded.
func parseMeta(b []byte) (method, rawURL string, header http.Header, err error) {
	next := func() (string, bool) {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return "", false
		}
		s := string(b[:i])
		b = b[i+1:]
		return s, true
	}
	var ok bool
	if method, ok = next(); !ok {
		return "", "", nil, errors.New("serve: no method in the request's head")
	}
	if rawURL, ok = next(); !ok {
		return "", "", nil, errors.New("serve: no URL in the request's head")
	}
	header = http.Header{}
	for len(b) > 0 {
		name, ok := next()
		if !ok {
			return "", "", nil, errors.New("serve: a header name without a value in the request's head")
		}
		value, ok := next()
		if !ok {
			return "", "", nil, errors.New("serve: a header name without a value in the request's head")
		}
		header.Add(name, value)
	}
	return method, rawURL, header, nil
}

// newlineToSpace replaces line breaks in header names and values, as
// net/http does when it writes a header, so that they cannot end a field
// of the answer's head early.
var newlineToSpace = strings.NewReplacer("\n", " ", "\r", " ")

// appendHead writes the answer's head: status, body kind, body length and
// the headers.
func appendHead(dst []byte, status int, header http.Header, body []byte) []byte {
	dst = strconv.AppendInt(dst, int64(status), 10)
	if utf8.Valid(body) {
		dst = append(dst, "\nt\n"...)
	} else {
		dst = append(dst, "\nb\n"...)
	}
	dst = strconv.AppendInt(dst, int64(len(body)), 10)
	dst = append(dst, '\n')
	for k, vs := range header {
		for _, v := range vs {
			dst = append(dst, newlineToSpace.Replace(k)...)
			dst = append(dst, '\n')
			dst = append(dst, newlineToSpace.Replace(v)...)
			dst = append(dst, '\n')
		}
	}
	return dst
}
