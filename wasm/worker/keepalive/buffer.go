package keepalive

import "net/http"

// bufferedWriter is an http.ResponseWriter that keeps the whole answer in
// memory, so that it can be handed to JavaScript in one piece.
type bufferedWriter struct {
	header http.Header
	status int // 0 until WriteHeader or Write
	body   []byte
}

// Header returns the header map that will be sent.
func (b *bufferedWriter) Header() http.Header { return b.header }

// WriteHeader records the status; later calls are ignored, as net/http does.
func (b *bufferedWriter) WriteHeader(status int) {
	if b.status == 0 {
		b.status = status
	}
}

// Write appends p to the body, sending 200 if no status was written.
func (b *bufferedWriter) Write(p []byte) (int, error) {
	b.WriteHeader(http.StatusOK)
	b.body = append(b.body, p...)
	return len(p), nil
}

// Status is the status written, or 200 when the handler wrote nothing.
func (b *bufferedWriter) Status() int {
	if b.status == 0 {
		return http.StatusOK
	}
	return b.status
}
