// wattscale's Worker entry point, used instead of the worker.mjs that
// syumai/workers' workers-assets-gen writes (the build copies this file over
// it; wasm_exec.js and runtime.mjs are the generated ones).
//
// Why: the generated worker.mjs instantiates a new Go program for every
// request, which costs about 24 ms wall and 37 ms CPU per request, more than
// the 10 ms CPU of Cloudflare's free plan. Here the Go program is started
// once per isolate, on its first request, and every later request is handed
// to the same running http.Handler through the function the package installs
// on the binding (binding.handleRequest), which runs each request in its own
// goroutine, so concurrent requests interleave. A warm request then costs
// the request conversion and the handler only (about a millisecond).
//
// The Go side makes this possible: syumai/workers v0.31.0 ends the program
// after the first streamed response, so package keepalive
// (wasm/worker/keepalive) hands it whole answers as raw JavaScript bodies,
// which never end it (see there).
//
// Alternatives not taken: pooling several pre-started instances (the same
// start-up cost, only moved); writing our own Go<->JavaScript request bridge
// (more code to own, and the package would no longer be what serves); a
// linkname into the package to reset its done channel (fragile).
//
// Trade-offs: the runtime context (env, ctx) the Go side sees is the one of
// the request that started the instance; the API uses no bindings and no
// waitUntil, so nothing depends on it. If the program ever exits (a crash),
// the request that sees it gets a 500 JSON answer and the next request starts
// a fresh instance.
import "./wasm_exec.js";
import { createRuntimeContext, loadModule } from "./runtime.mjs";

// syumai/workers' Go code calls this global (as the generated worker.mjs defines it).
globalThis.tryCatch = (fn) => {
  try {
    return { result: fn() };
  } catch (e) {
    return { error: e };
  }
};

const EXITED = Symbol("exited");

// running is the promise of the started program, { go, binding, exit }, or
// undefined before the first request and after the program exits.
let running;

async function start(env, ctx) {
  const mod = await loadModule();
  const go = new Go();
  const binding = {};
  let ready;
  const readyPromise = new Promise((resolve) => {
    ready = resolve;
  });
  const instance = new WebAssembly.Instance(mod, {
    ...go.importObject,
    workers: { ready: () => ready() },
  });
  const exit = go.run(instance, createRuntimeContext({ env, ctx, binding })).then(() => EXITED);
  if ((await Promise.race([readyPromise, exit])) === EXITED) {
    throw new Error("the Go program exited while starting");
  }
  return { go, binding, exit };
}

function failure(err) {
  const body = { error: { field: "(server)", message: `internal error: ${err && err.message ? err.message : err}` } };
  return new Response(JSON.stringify(body) + "\n", {
    status: 500,
    headers: {
      "content-type": "application/json; charset=utf-8",
      "access-control-allow-origin": "*",
      "cache-control": "no-store",
    },
  });
}

async function fetch(req, env, ctx) {
  if (running === undefined) {
    running = start(env, ctx);
  }
  const current = running;
  let program;
  try {
    program = await current;
    const res = await Promise.race([program.binding.handleRequest(req), program.exit]);
    if (res === EXITED) {
      throw new Error("the Go program exited");
    }
    return res;
  } catch (err) {
    // A failed start or an ended program is replaced on the next request;
    // an error of this request alone keeps the running program.
    if (running === current && (program === undefined || program.go.exited)) {
      running = undefined;
    }
    return failure(err);
  }
}

export default { fetch };
