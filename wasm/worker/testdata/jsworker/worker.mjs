// A trivial JavaScript worker, the control of BenchmarkWorkerd: it reads
// the request body and answers with a constant JSON text about as long as
// an estimate, so that workerd's own memory and CPU under the benchmark's
// load can be told from the Go worker's.
const answer = JSON.stringify({ note: "wattscale benchmark control", padding: "x".repeat(4400) }) + "\n";

export default {
  async fetch(req) {
    await req.arrayBuffer();
    return new Response(answer, {
      headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" },
    });
  },
};
