// Package keepalive lets one Go program, started once per Workers isolate,
// serve every request of that isolate, each request in one synchronous call.
//
// syumai/workers v0.31.0 assumes one Go program per request: its
// binding.handleRequest answers with a promise, reads the request body
// through JavaScript promises from a goroutine, and ends the program after
// the first streamed answer. In a program that serves every request of an
// isolate this goes wrong under concurrency. js/wasm Go runs all its
// goroutines on JavaScript's one thread, and a goroutine that waits for a
// JavaScript promise (a body read) resumes in whatever JavaScript call next
// enters Go, often another request's. workerd binds each request's I/O
// objects (its Response, its streams, its timers) to the request whose event
// created them; a Response built, or a promise settled, from another
// request's event stalls until that request lets it run, or is dropped
// with the connection when that request ends. Measured on the pinned
// workerd at concurrency 16: about 0.3 % of requests waited 1–8 s and up to
// 32 of 10,000 failed with EOF or "server closed idle connection", with
// nothing in workerd's log; a trivial JavaScript worker had neither.
//
// Serve removes the cause: the shim (wasm/worker/shim/worker.mjs) reads the
// body in the request's own event (at most bodyLimit bytes), writes the
// request into Go's linear memory and calls keepalive_serve, a WebAssembly
// export (//go:wasmexport), which runs the handler to its end inside that
// call (the handler waits for nothing in JavaScript) and leaves status,
// headers and body in Go's memory; the shim builds the Response itself.
// Each request crosses in one call with three numbers (wire.go): no
// syscall/js event, no JavaScript object made or handed over per request
// on Go's side, and none of ours with a backing store left for V8's
// garbage collector. No goroutine outlives the call and no promise crosses
// requests. (Before the exports, the call was a js.FuncOf on binding with
// a buffer the shim owned: the event's bookkeeping, its Value reads and
// writes and the copies in and out cost 10–20 % of workerd's CPU per
// estimate, measured in interleaved runs of BenchmarkWorkerdLatency.)
//
// workers.Serve still starts the program (it tells JavaScript it is ready,
// then blocks); its handleRequest is not used. Natively Serve is
// workers.Serve: a plain net/http server.
package keepalive
