/* wattscale service worker, written by the site generator (site/sw.go)
 * next to the site's index.html; site/assets/calc.js registers it over
 * http(s) on the calculator and planner pages (not from file://, not in
 * the embedded calculator).
 *
 * It keeps the calculator, the planner and their files for visits without
 * a network. VERSION hashes the files it keeps, so a new build of the site
 * is a new service worker: the browser installs it on the next visit, it
 * takes over at once and deletes the previous build's copies.
 *
 * Pages come from the network when there is one (a new build shows at
 * once) and from the copy when there is none; the other files from the
 * copy first. Everything else of this site that the pages fetch (the
 * refit's fit.wasm, say) is kept the first time it is fetched.
 */
'use strict';
var VERSION = '{{VERSION}}';
var CACHE = 'wattscale-' + VERSION;
var FILES = {{FILES}};

self.addEventListener('install', function (e) {
  e.waitUntil(caches.open(CACHE).then(function (c) {
    // Pages and unhashed files from the network; content-hashed files
    // (name.0123456789.ext never changes) may come from the HTTP cache, so
    // the calc.wasm the page has just downloaded is not fetched again.
    return c.addAll(FILES.map(function (f) { return new Request(f, { cache: /\.[0-9a-f]{10}\.[a-z]+$/.test(f) ? 'default' : 'reload' }); }))
      .then(function () { return Promise.all(FILES.filter(function (f) { return /\.wasm$/.test(f); }).map(function (f) { return wasmTyped(c, f); })); });
  }).then(function () { return self.skipWaiting(); }));
});

// wasmTyped stores the copy of a wasm file as application/wasm when the
// host gave it another type: the page then compiles it straight from the
// copy (streaming, and the browser may keep the compiled code for the next
// visit) instead of retyping it in a response of its own.
function wasmTyped(c, f) {
  return c.match(f).then(function (r) {
    if (!r || /^application\/wasm\s*(;|$)/i.test(r.headers.get('Content-Type') || '')) return;
    return r.blob().then(function (b) {
      return c.put(f, new Response(b, { headers: { 'Content-Type': 'application/wasm' } }));
    });
  });
}

self.addEventListener('activate', function (e) {
  e.waitUntil(caches.keys().then(function (keys) {
    return Promise.all(keys.filter(function (k) { return k.indexOf('wattscale-') === 0 && k !== CACHE; })
      .map(function (k) { return caches.delete(k); }));
  }).then(function () { return self.clients.claim(); }));
});

// page finds a page in the copy: the address without its query (the
// calculator's state), a folder as its index.html and the other way round.
function page(c, url) {
  var u = new URL(url);
  u.search = '';
  u.hash = '';
  var alt = new URL(u.href);
  if (/\/$/.test(alt.pathname)) alt.pathname += 'index.html';
  else alt.pathname = alt.pathname.replace(/index\.html$/, '');
  return c.match(u.href).then(function (r) { return r || c.match(alt.href); });
}

self.addEventListener('fetch', function (e) {
  var req = e.request;
  if (req.method !== 'GET' || new URL(req.url).origin !== self.location.origin) return;
  if (req.mode === 'navigate') {
    e.respondWith(fetch(req).catch(function (err) {
      return caches.open(CACHE).then(function (c) { return page(c, req.url); }).then(function (r) {
        if (r) return r;
        throw err;
      });
    }));
    return;
  }
  e.respondWith(caches.open(CACHE).then(function (c) {
    return c.match(req, { ignoreSearch: true }).then(function (hit) {
      return hit || fetch(req).then(function (res) {
        if (res.ok && res.type === 'basic') c.put(req, res.clone());
        return res;
      });
    });
  }));
});
