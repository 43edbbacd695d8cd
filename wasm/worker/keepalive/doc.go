// Package keepalive lets one Go program, started once per Workers isolate,
// serve every request of that isolate through github.com/syumai/workers.
//
// syumai/workers v0.31.0 assumes one Go program per request: the first
// response body it streams to JavaScript closes a package-level channel
// when the stream ends, which makes workers.Serve return (and the program
// exit), and a second such close would panic. Handler buffers each answer
// (ours are small JSON documents) and passes it as a raw JavaScript body (a
// Uint8Array), so the package never builds a stream over the body, never
// closes that channel, and workers.Serve keeps serving. Requests still go
// through the package's own conversion of Request to *http.Request, except
// for the body: the package's reader leaks a JavaScript callback on every
// read, harmless when each program serves one request but a steady leak (and
// ever longer garbage collections) in a program that serves thousands, so
// Handler reads the same JavaScript stream with a reader that releases them.
//
// The JavaScript half is wasm/worker/shim/worker.mjs, which starts the
// program once per isolate and hands it every request. Natively Handler
// returns its argument: there workers.Serve is a plain net/http server.
package keepalive
