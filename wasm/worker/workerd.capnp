# workerd configuration for running the Worker locally (make worker-run), and
# for the end-to-end tests, which copy it next to their own build and pass
# the listening socket with --socket-fd http=3. Paths are relative to this
# file; "make worker" writes build/.
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker) ],
  sockets = [ (name = "http", address = "127.0.0.1:8788", http = (), service = "main") ],
);

const worker :Workerd.Worker = (
  modules = [
    (name = "worker.mjs", esModule = embed "build/worker.mjs"),
    (name = "runtime.mjs", esModule = embed "build/runtime.mjs"),
    (name = "wasm_exec.js", esModule = embed "build/wasm_exec.js"),
    (name = "app.wasm", wasm = embed "build/app.wasm"),
  ],
  compatibilityDate = "2026-04-01",
);
