// wattscale's Worker entry point, used instead of the worker.mjs that
// syumai/workers' workers-assets-gen writes (the build copies this file over
// it; wasm_exec.js and runtime.mjs are the generated ones).
//
// Why: the generated worker.mjs instantiates a new Go program for every
// request, which costs about 24 ms wall and 37 ms CPU per request, more than
// the 10 ms CPU of Cloudflare's free plan. Here the Go program is started
// once per isolate, on its first request, and every later request is handed
// to the same running http.Handler. The shim reads each request's body here,
// in the request's own event, and then calls keepalive_serve (a WebAssembly
// export of package keepalive, wasm/worker/keepalive), which runs the
// handler to its end inside that one call and leaves the whole answer in
// Go's memory; the Response is
// built here. Nothing of a request is left to a later JavaScript event, so
// no Go goroutine resumes in, and no Response is created by, another
// request's event, which under concurrency stalled or dropped requests (see
// the package's comment). A warm request costs the handler and one call
// (under a millisecond).
//
// Alternatives not taken: pooling several pre-started instances (the same
// start-up cost, only moved); syumai/workers' own binding.handleRequest (its
// promise-based body reading and answer resume Go from other requests'
// events); racing each request against the program's exit promise (a
// promise that never settles keeps every reaction attached to it, and so
// every answer: the V8 heap grew by about 1 KB per request).
//
// Trade-offs: the runtime context (env, ctx) the Go side sees is the one of
// the request that started the instance; the API uses no bindings and no
// waitUntil, so nothing depends on it. If the program ever exits (a crash),
// the request that sees it gets a 500 JSON answer and the next request starts
// a fresh instance.
import "./wasm_exec.js";
import { createRuntimeContext } from "./runtime.mjs";
import mod from "./app.wasm";

// syumai/workers' Go code calls this global (as the generated worker.mjs defines it).
globalThis.tryCatch = (fn) => {
  try {
    return { result: fn() };
  } catch (e) {
    return { error: e };
  }
};

// drainLimit bounds what is read and thrown away of a body over the limit,
// as the API's handler does natively: reading on lets the client, still
// sending, receive the 413 instead of a reset connection.
const drainLimit = 256 << 10;

// running is the started program, { go, binding }, or undefined before the
// first request and after the program exits.
let running;

// start starts the Go program and returns it once it is ready to serve.
// It is synchronous on purpose: Go's main runs inside go.run's first,
// synchronous step until workers.Serve blocks, and calls the ready import on
// the way. Requests arriving while an asynchronous start was under way
// would all have waited on a promise settled in the first request's event,
// which workerd resolves late or drops with the connection (15 of the
// first 1,200 requests at concurrency 16 failed that way).
function start(env, ctx) {
  const go = new Go();
  const binding = {};
  let ready = false;
  const instance = new WebAssembly.Instance(mod, {
    ...go.importObject,
    workers: {
      ready: () => {
        ready = true;
      },
    },
  });
  go.run(instance, createRuntimeContext({ env, ctx, binding })).catch(() => {});
  if (go.exited || !ready) {
    throw new Error(go.exited ? "the Go program exited while starting" : "the Go program did not get ready");
  }
  const exports = instance.exports;
  if (typeof exports.keepalive_serve !== "function" || typeof binding.bodyLimit !== "number") {
    throw new Error("the Go program does not export keepalive_serve or did not call keepalive.Serve");
  }
  return { go, binding, exports };
}

// readBody reads a request body stream: at most limit bytes are kept, and
// past that up to drainLimit more are read and dropped before the stream
// is cancelled.
async function readBody(stream, limit) {
  const reader = stream.getReader();
  const chunks = [];
  let kept = 0;
  let seen = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) {
      break;
    }
    seen += value.byteLength;
    if (kept < limit) {
      const part = value.byteLength > limit - kept ? value.subarray(0, limit - kept) : value;
      chunks.push(part);
      kept += part.byteLength;
    }
    if (seen > limit + drainLimit) {
      await reader.cancel();
      break;
    }
  }
  if (chunks.length === 1) {
    return chunks[0];
  }
  const body = new Uint8Array(kept);
  let at = 0;
  for (const c of chunks) {
    body.set(c, at);
    at += c.byteLength;
  }
  return body;
}

// nullBody lists the statuses whose Response must not have a body.
const nullBody = new Set([101, 204, 205, 304]);

// unreadable answers a request whose body could not be read.
function unreadable(err, length) {
  const why = Number.isSafeInteger(length) ? `; it ended before its Content-Length of ${length} bytes` : "";
  const msg = String(err && err.message ? err.message : err).replace(/\.$/, "");
  return jsonError(400, "(body)", `could not be read: ${msg}${why}`);
}

function failure(err) {
  return jsonError(500, "(server)", `internal error: ${err && err.message ? err.message : err}`);
}

function jsonError(status, field, message) {
  const body = { error: { field, message } };
  return new Response(JSON.stringify(body) + "\n", {
    status,
    headers: {
      "content-type": "application/json; charset=utf-8",
      "access-control-allow-origin": "*",
      "cache-control": "no-store",
    },
  });
}

// What crosses into Go per request (wasm/worker/keepalive/wire.go): the
// request's line and headers as one UTF-8 text followed by its body,
// written straight into Go's linear memory where keepalive_in says, and
// three numbers; keepalive_serve leaves the answer's head and body in Go's
// memory (keepalive_out, keepalive_out_len) and returns the head's length.
// The calls are WebAssembly exports (//go:wasmexport), so a request makes
// no syscall/js event and hands Go no JavaScript object, and it leaves no
// ArrayBuffer of ours for the garbage collector but its body's. Views of
// the memory are made after each call into Go, which may grow it (and so
// replace its buffer).
const encoder = new TextEncoder();
// ignoreBOM: a body that starts with a byte-order mark keeps it.
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

// encodeRequest writes method, URL, headers and body into Go's memory and
// returns the length of the first three.
function encodeRequest(exports, req, body) {
  let meta = req.method + "\n" + req.url + "\n";
  for (const [name, value] of req.headers) {
    meta += name + "\n" + value + "\n";
  }
  const bodyLen = body === null ? 0 : body.byteLength;
  // UTF-8 takes at most three bytes per UTF-16 code unit.
  const room = 3 * meta.length + bodyLen;
  const at = exports.keepalive_in(room) >>> 0;
  const view = new Uint8Array(exports.mem.buffer, at, room);
  const { written } = encoder.encodeInto(meta, view);
  if (body !== null) {
    view.set(body, written);
  }
  return written;
}

// answer builds the Response from what keepalive_serve left in Go's memory
// (its head is headLen bytes long), or throws the error it left there for
// a negative headLen.
function answer(exports, headLen) {
  const out = new Uint8Array(exports.mem.buffer, exports.keepalive_out() >>> 0, exports.keepalive_out_len());
  if (headLen < 0) {
    throw new Error(decoder.decode(out));
  }
  const f = decoder.decode(out.subarray(0, headLen)).split("\n");
  const status = Number(f[0]);
  const text = f[1] === "t";
  const end = headLen + Number(f[2]);
  // A Headers object: the pairs passed as an array measured slower in a
  // V8 profile of this function (Response 7.5 % of the samples, against
  // 3.8 %).
  const headers = new Headers();
  for (let i = 3; i + 1 < f.length; i += 2) {
    headers.append(f[i], f[i + 1]);
  }
  if (nullBody.has(status)) {
    return new Response(null, { status, headers });
  }
  const body = text ? decoder.decode(out.subarray(headLen, end)) : out.slice(headLen, end);
  return new Response(body, { status, headers });
}

async function fetch(req, env, ctx) {
  let program;
  try {
    if (running === undefined) {
      running = start(env, ctx);
    }
    program = running;
    const length = Number.parseInt(req.headers.get("content-length") ?? "", 10);
    let body = null;
    if (req.body !== null) {
      // A body of a known length within the limit is read in one piece,
      // into a buffer of its size; others chunk by chunk (readBody). A
      // body that cannot be read (it ends before its Content-Length: the
      // client stopped sending) is the request's fault: 400, as the Go
      // handler answers a body it cannot read.
      try {
        body =
          Number.isSafeInteger(length) && length >= 0 && length <= program.binding.bodyLimit
            ? new Uint8Array(await req.arrayBuffer())
            : await readBody(req.body, program.binding.bodyLimit);
      } catch (err) {
        return unreadable(err, length);
      }
    }
    if (program.go.exited) {
      throw new Error("the Go program exited");
    }
    const metaLen = encodeRequest(program.exports, req, body);
    const headLen = program.exports.keepalive_serve(
      metaLen,
      body === null ? -1 : body.byteLength,
      Number.isSafeInteger(length) ? length : -1,
    );
    if (program.go.exited) {
      throw new Error("the Go program exited");
    }
    return answer(program.exports, headLen);
  } catch (err) {
    // An ended program is replaced on the next request; an error of this
    // request alone keeps the running program.
    if (program === undefined || (running === program && program.go.exited)) {
      running = undefined;
    }
    return failure(err);
  }
}

export default { fetch };
