# workerd configuration of the trivial JavaScript worker that
# BenchmarkWorkerd runs as its control, with the same compatibility date as
# the Worker's own (../../workerd.capnp).
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker) ],
  sockets = [ (name = "http", address = "127.0.0.1:8789", http = (), service = "main") ],
);

const worker :Workerd.Worker = (
  modules = [ (name = "worker.mjs", esModule = embed "worker.mjs") ],
  compatibilityDate = "2026-04-01",
);
