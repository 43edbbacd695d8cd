/* wattscale: the page's WebAssembly, asked for while the page is parsed.
 *
 * The site generator (site/gen, headScript) puts this file, without this
 * comment, inline in the head of the pages with a prerendered calculator or
 * plan, on a <script data-wasm="assets/calc.HASH.wasm" data-name="calc.wasm">.
 * It holds the one rule for which copy of a WebAssembly file the pages
 * take (response, below) and defines window.wattscaleCompile, which
 * site/assets/calc.js uses for fit.wasm too. For the page's own module it
 * sets window.wattscaleEarlyWasm = {name, module | response} at once:
 *   - on a return visit (a service worker controls the page), the module
 *     compiled from the worker's copy while the page is parsed and painted;
 *   - otherwise the response to compile, which calc.js compiles after the
 *     first paint: the download runs meanwhile, compiling waits.
 * Issue 31: on a host that sends files as they are, the gzip copy is now
 * asked for as soon as the first response's headers show no
 * Content-Encoding. calc.js used to ask for it after the first paint, while
 * the raw file (5 MB) downloaded.
 */
(function () {
  'use strict';
  var perf = (window.wattscalePerf = window.wattscalePerf || {});
  var WASM_TYPE = /^application\/wasm\s*(;|$)/i;

  // kept says whether a service worker controls the page (asked each
  // time: the worker installed on a first visit may take over later).
  function kept() {
    var sw = navigator.serviceWorker;
    return !!(sw && sw.controller);
  }

  // typed is a fetched wasm typed application/wasm, for streaming
  // compilation. One typed so already is taken as it is: the browser keeps
  // the code compiled from it (not from a response made in the page).
  function typed(r) {
    if (r.url && WASM_TYPE.test(r.headers.get('Content-Type') || '')) {
      perf.wasmResponse = 'as-served';
      return r;
    }
    perf.wasmResponse = 'retyped';
    return new Response(r.body, { headers: { 'Content-Type': 'application/wasm' } });
  }

  // inflated is the wasm in a gzip copy's response. A host that adds
  // Content-Encoding: gzip to a .gz file has had the browser inflate it:
  // the bytes then start with wasm's magic, not 1f 8b.
  function inflated(gz) {
    var reader = gz.body.getReader();
    return reader.read().then(function (first) {
      var head = first.value || new Uint8Array(0);
      var rest = new ReadableStream({
        start: function (c) { if (head.length) c.enqueue(head); if (first.done) c.close(); },
        pull: function (c) { return reader.read().then(function (x) { if (x.done) c.close(); else c.enqueue(x.value); }); },
        cancel: function (why) { return reader.cancel(why); }
      });
      var body = head[0] === 0x1f && head[1] === 0x8b ? rest.pipeThrough(new DecompressionStream('gzip')) : rest;
      return new Response(body, { headers: { 'Content-Type': 'application/wasm' } });
    });
  }

  // response is the wasm at url as a response: the service worker's copy
  // when one controls the page; else the response when the host compressed
  // it in transit; else the gzip copy beside it (a fifth of the size),
  // inflated in the page, asked for as soon as the first response's
  // headers show it uncompressed; else the first response.
  function response(url, init) {
    var controlled = kept();
    var cached = controlled && window.caches ? caches.match(url).catch(function () { return null; }) : Promise.resolve(null);
    return cached.then(function (c) {
      if (c && c.ok && WASM_TYPE.test(c.headers.get('Content-Type') || '')) {
        perf.wasmResponse = 'cache';
        return c;
      }
      return fetch(url, init).then(function (r) {
        perf.wasmResponseMs = performance.now();
        if (!r.ok) throw new Error('HTTP ' + r.status + ' for ' + r.url);
        if (controlled || r.headers.get('Content-Encoding') || typeof DecompressionStream === 'undefined') return typed(r);
        return fetch(url + '.gz', init).then(function (gz) {
          if (!gz.ok) return typed(r);
          r.body.cancel().catch(function () {});
          perf.wasmGzip = 1;
          perf.wasmResponse = 'inflated';
          return inflated(gz);
        }, function () { return typed(r); });
      });
    });
  }

  // wattscaleCompile compiles the WebAssembly at url (init: fetch's
  // options) as its bytes arrive.
  window.wattscaleCompile = function (url, init) {
    return response(url, init).then(function (r) { return WebAssembly.compileStreaming(r); });
  };

  var s = document.currentScript;
  if (location.protocol === 'file:' || !s || !s.dataset.wasm || !WebAssembly.compileStreaming) return;
  var early = (window.wattscaleEarlyWasm = { name: s.dataset.name });
  if (kept()) {
    early.module = window.wattscaleCompile(s.dataset.wasm);
    early.module.catch(function () {});
  } else {
    early.response = response(s.dataset.wasm, { priority: 'low' });
    early.response.catch(function () {});
  }
})();
