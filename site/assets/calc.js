/* wattscale calculator and planner: the page side.
 *
 * Contract with the page (site/templates): a mount element
 *   <div id="calc-root" data-mode="calculator"></div>   (or "planner", "embed")
 * and, by relative URLs, assets/calc.css, assets/wasm_exec.js and
 * assets/calc.js. Everything else is found next to this script, under the
 * name the mount element's data-assets JSON maps it to (the build gives
 * the wasm and scripts content-hashed names, calc.0123456789.wasm; without
 * data-assets the plain names below are used):
 *   calc.wasm        the Go calculator (wasm/calc), loaded on start
 *   calc-embed.js    window.WATTSCALE_WASM_GZ_B64 = base64(gzip(calc.wasm)),
 *                    loaded only when fetching calc.wasm fails (file://)
 *   planner.wasm     the calculator and the distillation planner
 *                    (wasm/planner), loaded instead of calc.wasm on the planner
 *   planner-embed.js window.WATTSCALE_PLANNER_WASM_GZ_B64, its file:// fallback
 *   fit.wasm         the refit (wasm/fit, gonum) and the Hugging Face import (wasm/hfapi), loaded only when asked for
 *   fit-embed.js     window.WATTSCALE_FIT_WASM_GZ_B64, its file:// fallback
 *
 * All model logic is Go: this file builds the form, sends the form as typed
 * (one JSON call per interaction: the estimate and the chart sweep
 * together), and draws the answer. No library, no network beyond the
 * files above, so it works offline and from file://.
 *
 * On a page with a prerendered estimate the page's head asks for the wasm
 * at low priority and this script compiles it after the first paint
 * (afterFirstPaint; site/templates/layout.html says why).
 */
(function () {
  'use strict';

  var script = document.currentScript;
  var BASE = script && script.src ? new URL('.', script.src).href : '';
  var SVGNS = 'http://www.w3.org/2000/svg';
  var perf = (window.wattscalePerf = window.wattscalePerf || {});
  var ASSETS = {};

  // asset is the name a file next to this script was written under.
  function asset(name) {
    return ASSETS[name] || name;
  }

  /* ---------- loading Go WebAssembly ---------- */

  function loadScript(src) {
    return new Promise(function (resolve, reject) {
      var s = document.createElement('script');
      s.src = src;
      s.onload = resolve;
      s.onerror = function () { reject(new Error('could not load ' + src)); };
      document.head.appendChild(s);
    });
  }

  function b64ToBytes(b64) {
    var bin = atob(b64);
    var out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }

  // tell shows a status message of a kind (error, warning, success or
  // info) in el: styled by kind, and announced at once (role alert) only
  // for an error.
  function tell(el, kind, text) {
    if (!el) return;
    el.textContent = text;
    el.dataset.kind = text ? kind : '';
    el.setAttribute('role', kind === 'error' && text ? 'alert' : 'status');
  }

  async function gunzip(bytes) {
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    return new Response(stream).arrayBuffer();
  }

  // asWasm is a fetched wasm as application/wasm, whatever type the host
  // gave it (a host that serves .wasm as application/octet-stream would
  // otherwise cost streaming compilation). A response that says
  // application/wasm already is taken as it is (perf.wasmResponse
  // 'as-served'): the browser keeps the code it compiles from a response
  // of the network, the HTTP cache or the service worker's copy, under its
  // address, and the next visit skips the compilation (Chromium's
  // WebAssembly code cache), which it cannot do for a response made in the
  // page ('retyped', 'inflated').
  function asWasm(r) {
    if (!r.ok) throw new Error('HTTP ' + r.status + ' for ' + r.url);
    if (r.url && /^application\/wasm\s*(;|$)/i.test(r.headers.get('Content-Type') || '')) {
      perf.wasmResponse = 'as-served';
      return r;
    }
    perf.wasmResponse = 'retyped';
    return new Response(r.body, { headers: { 'Content-Type': 'application/wasm' } });
  }

  // wasmFrom is the page's wasm as an application/wasm response for
  // streaming compilation. resp is the response to the wasm's own address:
  // taken as it is when the host compressed it in transit (Content-Encoding)
  // or when the service worker serves it from its copy. A host that
  // sends files as they are would send the whole raw file, four times the
  // gzip copy the build writes beside it, so that copy is fetched instead
  // and inflated in the page (DecompressionStream); whatever fails there
  // falls back to the raw response.
  async function wasmFrom(resp, url) {
    var r = await resp;
    perf.wasmResponseMs = performance.now();
    if (!r.ok) throw new Error('HTTP ' + r.status + ' for ' + r.url);
    var kept = navigator.serviceWorker && navigator.serviceWorker.controller; // the service worker's copy: no download
    if (kept || r.headers.get('Content-Encoding') || typeof DecompressionStream === 'undefined') return asWasm(r);
    var gz;
    try {
      gz = await fetch(url + '.gz');
      if (!gz.ok) throw new Error('HTTP ' + gz.status);
    } catch (e) {
      return asWasm(r);
    }
    r.body.cancel();
    perf.wasmGzip = 1;
    perf.wasmResponse = 'inflated';
    var reader = gz.body.getReader(), first = await reader.read();
    var head = first.value || new Uint8Array(0);
    var rest = new ReadableStream({
      start: function (c) { if (head.length) c.enqueue(head); if (first.done) c.close(); },
      pull: function (c) { return reader.read().then(function (x) { if (x.done) c.close(); else c.enqueue(x.value); }); },
      cancel: function (why) { return reader.cancel(why); }
    });
    // A host that adds Content-Encoding: gzip to a .gz file has had the
    // browser inflate it already: the bytes then start with wasm's magic,
    // not gzip's (1f 8b).
    var body = head[0] === 0x1f && head[1] === 0x8b ? rest.pipeThrough(new DecompressionStream('gzip')) : rest;
    return new Response(body, { headers: { 'Content-Type': 'application/wasm' } });
  }

  // keptWasm is the service worker's copy of a content-hashed wasm
  // (calc.0123456789.wasm: the same address is the same file), read by the
  // page from Cache Storage itself, or null. On a return visit this skips
  // the worker's fetch handler, through which the 2.8 MB body took two to
  // four times as long to arrive (BenchmarkOfflineRevisit), and the
  // response is one the browser can keep compiled code for.
  async function keptWasm(url, name) {
    if (asset(name) === name || !window.caches || !navigator.serviceWorker || !navigator.serviceWorker.controller) return null;
    try {
      var r = await caches.match(url);
      return r && r.ok && /^application\/wasm\s*(;|$)/i.test(r.headers.get('Content-Type') || '') ? r : null;
    } catch (e) {
      return null;
    }
  }

  // loadGo starts a Go wasm program. It tries streaming compilation, then
  // fetch().arrayBuffer() (hosts that serve .wasm with a wrong MIME type),
  // then the base64 gzip copy a classic script carries (file://, where
  // fetch is blocked). It resolves with the name of the path that worked
  // once the program has set window[o.global].
  async function loadGo(o) {
    if (typeof Go === 'undefined') await loadScript(BASE + asset('wasm_exec.js'));
    perf.wasmExecMs = performance.now();
    var url = BASE + asset(o.wasm);
    var go = new Go();
    var inst = null, how = '', errors = [];
    if (location.protocol !== 'file:' && BASE) {
      // The page's head may have asked for it already, at low priority
      // (window.wattscaleEarlyWasm, templates/layout.html): that response
      // is taken once.
      var early = window.wattscaleEarlyWasm, resp, kept = await keptWasm(url, o.wasm);
      if (early && early.name === o.wasm) { window.wattscaleEarlyWasm = null; resp = early.response; }
      if (kept) {
        if (resp) resp.then(function (r) { if (r.body) r.body.cancel(); }, function () {});
        resp = Promise.resolve(kept);
      } else if (!resp) resp = fetch(url);
      try {
        inst = (await WebAssembly.instantiateStreaming(wasmFrom(resp, url), go.importObject)).instance;
        how = 'streaming';
        if (kept) perf.wasmResponse = 'cache';
      } catch (e) {
        errors.push('streaming: ' + e.message);
      }
      if (!inst) {
        try {
          var r = await fetch(url);
          if (!r.ok) throw new Error('HTTP ' + r.status);
          inst = (await WebAssembly.instantiate(await r.arrayBuffer(), go.importObject)).instance;
          how = 'arraybuffer';
        } catch (e) {
          errors.push('arrayBuffer: ' + e.message);
        }
      }
    }
    if (!inst) {
      try {
        if (!window[o.embedGlobal]) await loadScript(BASE + asset(o.embedScript));
        var bytes = await gunzip(b64ToBytes(window[o.embedGlobal]));
        inst = (await WebAssembly.instantiate(bytes, go.importObject)).instance;
        how = 'embedded';
      } catch (e) {
        errors.push('embedded copy: ' + e.message);
        throw new Error('could not start ' + o.wasm + ' (' + errors.join('; ') + ')');
      }
    }
    perf.wasmInstantiatedMs = performance.now();
    var ready = new Promise(function (resolve) { window[o.readyHook] = resolve; });
    go.run(inst).then(function () {
      window[o.global] = undefined;
    });
    if (!window[o.global]) await ready;
    if (!window[o.global]) throw new Error(o.wasm + ' did not start' + (window.wattscaleError ? ': ' + window.wattscaleError : ''));
    return how;
  }

  function call(fn, arg) {
    var out = fn(JSON.stringify(arg));
    return JSON.parse(out);
  }

  /* ---------- formatting: Go's rules (model.ShortNum, site/format.go) ----------
   * The numbers on this page read as the generated pages and the command
   * line print them: the same thresholds, the same significant digits,
   * rounding half to even on the exact binary value (as strconv does), a
   * true minus sign. site/numbers_browser_test.go compares the two on a table. */

  var DASH = '—', MINUS = '−';

  // exactDec returns the exact decimal expansion of a > 0 as
  // {d: digits without leading or trailing zeros, e} with a = 0.d × 10^e, or
  // null below 1e-6, where Number.prototype.toFixed would lose digits (no
  // rounding tie can occur there at the precisions used here).
  function exactDec(a) {
    if (a < 1e-6) return null;
    var s = Number.isInteger(a) ? BigInt(a).toString() : a.toFixed(100);
    var dot = s.indexOf('.'), ip = dot < 0 ? s : s.slice(0, dot), fp = dot < 0 ? '' : s.slice(dot + 1);
    var all = (ip === '0' ? '' : ip) + fp, e = ip === '0' ? 0 : ip.length, i = 0;
    while (i < all.length && all[i] === '0') i++;
    return { d: all.slice(i).replace(/0+$/, ''), e: e - i };
  }
  // roundDec keeps the first k digits of x, rounding half to even.
  function roundDec(x, k) {
    if (k >= x.d.length) return x;
    if (k < 0) return { d: '', e: x.e };
    var keep = x.d.slice(0, k), rest = x.d.slice(k);
    var odd = keep.length > 0 && (+keep[keep.length - 1]) % 2 === 1;
    var up = rest[0] > '5' || (rest[0] === '5' && (/[1-9]/.test(rest.slice(1)) || odd));
    if (!up) return { d: keep.replace(/0+$/, ''), e: x.e };
    var arr = keep.split(''), i = arr.length - 1;
    while (i >= 0 && arr[i] === '9') { arr[i] = '0'; i--; }
    if (i < 0) return { d: ('1' + arr.join('')).replace(/0+$/, ''), e: x.e + 1 };
    arr[i] = String(+arr[i] + 1);
    return { d: arr.join('').replace(/0+$/, ''), e: x.e };
  }
  // fmtF is strconv.FormatFloat(a, 'f', dec, 64) for a ≥ 0.
  function fmtF(a, dec) {
    var x = a === 0 ? { d: '', e: 0 } : exactDec(a);
    if (!x) return a.toFixed(dec);
    var r = roundDec(x, x.e + dec), ip, fp;
    if (r.d === '') { ip = '0'; fp = ''; }
    else if (r.e <= 0) { ip = '0'; fp = '0'.repeat(-r.e) + r.d; }
    else if (r.d.length <= r.e) { ip = r.d + '0'.repeat(r.e - r.d.length); fp = ''; }
    else { ip = r.d.slice(0, r.e); fp = r.d.slice(r.e); }
    return dec > 0 ? ip + '.' + (fp + '0'.repeat(dec)).slice(0, dec) : ip;
  }
  // digitsOf rounds a > 0 to n significant digits: {d (trailing zeros
  // trimmed), e} with a ≈ 0.d × 10^e.
  function digitsOf(a, n) {
    var x = exactDec(a);
    if (!x) {
      var t = a.toExponential(n - 1).split('e');
      return { d: t[0].replace('.', '').replace(/0+$/, ''), e: +t[1] + 1 };
    }
    return roundDec(x, n);
  }
  // fmtE is the mantissa and exponent of strconv.FormatFloat(a, 'e', n-1, 64).
  function fmtE(a, n) {
    var r = digitsOf(a, n), d = (r.d + '0'.repeat(n)).slice(0, n);
    return [d[0] + (n > 1 ? '.' + d.slice(1) : ''), r.e - 1];
  }
  function sup(e) {
    var m = { '-': '⁻', '0': '⁰', '1': '¹', '2': '²', '3': '³', '4': '⁴', '5': '⁵', '6': '⁶', '7': '⁷', '8': '⁸', '9': '⁹' };
    return String(e).split('').map(function (c) { return m[c] || c; }).join('');
  }
  function signed(x, s) { return x < 0 || Object.is(x, -0) ? MINUS + s : s; }

  // sig is site/format.go's sig: n significant digits, without an exponent
  // for magnitudes from 1e-4 to below 1e6, else "1.23 × 10⁷".
  function sig(x, n) {
    n = n || 3;
    if (!isFinite(x)) return DASH;
    if (x === 0) return '0';
    var a = Math.abs(x);
    if (a >= 1e-4 && a < 1e6) return signed(x, fmtF(a, Math.max(0, n - 1 - Math.floor(Math.log10(a)))));
    var m = fmtE(a, n);
    return signed(x, m[0] + ' × 10' + sup(m[1]));
  }
  // fixedDec is site/format.go's fixed: d decimals, a true minus sign.
  function fixedDec(x, d) { return isFinite(x) ? signed(x, fmtF(Math.abs(x), d)) : DASH; }
  // trimZeros drops trailing decimal zeros ("2.00" → "2").
  function trimZeros(s) {
    if (s.indexOf('.') < 0 || s.indexOf('×') >= 0) return s;
    return s.replace(/0+$/, '').replace(/\.$/, '');
  }
  // groupInt writes the digits of a whole number with thousands commas.
  function groupInt(s) { return s.replace(/\B(?=(\d{3})+(?!\d))/g, ','); }
  // grouped is site/format.go's grouped: a whole number (half away from
  // zero), thousands separated.
  function grouped(x) {
    var s = groupInt(fmtF(Math.floor(Math.abs(x) + 0.5), 0));
    return x < 0 ? MINUS + s : s;
  }
  // fmtKWh, fmtCount, fmtDuration are site/format.go's functions of the same name.
  function fmtKWh(x) {
    if (!isFinite(x)) return DASH;
    return Math.abs(x) >= 100 ? grouped(x) + ' kWh' : sig(x, 4) + ' kWh';
  }
  function fmtCount(x) {
    if (!isFinite(x)) return DASH;
    var us = [[1e12, ' T'], [1e9, ' B'], [1e6, ' M'], [1e3, ' k']];
    for (var i = 0; i < us.length; i++) if (Math.abs(x) >= us[i][0]) return trimZeros(sig(x / us[i][0], 3)) + us[i][1];
    return trimZeros(sig(x, 3));
  }
  function fmtDuration(s) {
    if (!isFinite(s)) return DASH;
    if (s < 120) return trimZeros(sig(s, 3)) + ' s';
    if (s < 2 * 3600) return trimZeros(sig(s / 60, 3)) + ' min';
    if (s < 72 * 3600) return trimZeros(sig(s / 3600, 3)) + ' h';
    return trimZeros(sig(s / 86400, 3)) + ' days';
  }
  // shortNum is model.ShortNum, the form of numbers inside messages: whole
  // numbers below a million exactly, others as strconv's %.3g.
  function shortNum(x) {
    if (isNaN(x)) return 'NaN';
    if (!isFinite(x)) return x > 0 ? '+Inf' : '-Inf';
    var neg = x < 0 || Object.is(x, -0) ? '-' : '', a = Math.abs(x);
    if (Number.isInteger(x) && a < 1e6) return neg + fmtF(a, 0);
    if (a === 0) return neg + '0';
    var r = digitsOf(a, 3), nd = r.d.length, dp = r.e, eprec = 3;
    if (eprec > nd && nd >= dp) eprec = nd;
    var exp = dp - 1;
    if (exp < -4 || exp >= eprec) {
      var m = r.d[0] + (nd > 1 ? '.' + r.d.slice(1) : ''), ae = Math.abs(exp);
      return neg + m + 'e' + (exp < 0 ? '-' : '+') + (ae < 10 ? '0' : '') + ae;
    }
    return neg + fmtF(a, Math.max((3 > dp ? nd : 3) - dp, 0));
  }
  var fmt = { sig: sig, fixed: fixedDec, trimZeros: trimZeros, grouped: grouped, fmtKWh: fmtKWh, fmtCount: fmtCount, fmtDuration: fmtDuration, shortNum: shortNum };

  // energy in kWh -> [number, unit]
  function energyParts(kwh) {
    var a = Math.abs(kwh);
    if (a < 1) return [sig(kwh * 1000), 'Wh'];
    if (a < 1e4) return [sig(kwh), 'kWh'];
    if (a < 1e7) return [sig(kwh / 1000), 'MWh'];
    return [sig(kwh / 1e6), 'GWh'];
  }
  function energyText(kwh) { var p = energyParts(kwh); return p[0] + ' ' + p[1]; }
  function massParts(kg) {
    var a = Math.abs(kg);
    if (a < 1) return [sig(kg * 1000), 'g CO₂e'];
    if (a < 1000) return [sig(kg), 'kg CO₂e'];
    return [sig(kg / 1000), 't CO₂e'];
  }
  function massText(kg) { var p = massParts(kg); return p[0] + ' ' + p[1]; }
  function timeText(s) { return fmtDuration(s); }
  function powerText(w) { return w < 1e4 ? sig(w) + ' W' : sig(w / 1000) + ' kW'; }
  function usd(x) {
    if (!isFinite(x)) return DASH;
    if (Math.abs(x) < 1 || Math.abs(x) >= 1e6) return '$' + sig(x);
    var s = fmtF(Math.abs(x), 2).split('.');
    return signed(x, '$' + groupInt(s[0]) + '.' + s[1]);
  }
  function paramsText(n) {
    if (n >= 1e9) return sig(n / 1e9) + ' B';
    return sig(n / 1e6) + ' M';
  }

  /* ---------- small DOM helpers ---------- */

  function el(tag, attrs, kids) {
    var e = document.createElement(tag);
    if (attrs) for (var k in attrs) {
      var v = attrs[k];
      if (v === null || v === undefined || v === false) continue;
      if (k === 'text') e.textContent = v;
      else if (k === 'html') e.innerHTML = v;
      else if (k === 'class') e.className = v;
      else e.setAttribute(k, v === true ? '' : v);
    }
    (kids || []).forEach(function (c) { if (c) e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c); });
    return e;
  }
  // setText sets an element's text, touching nothing when it is already
  // that text (the prerendered page's nodes stay as they are).
  function setText(e, s) {
    s = String(s);
    var c = e.firstChild;
    if (c && c.nodeType === 3 && !c.nextSibling) { if (c.data !== s) c.data = s; }
    else if (e.textContent !== s) e.textContent = s;
  }

  // setHTML makes an element's content the markup html by changing only
  // what differs (morph): the nodes already there are kept, so that the
  // takeover of a prerendered calculator and each recompute restyle only
  // what changed, not a freshly parsed subtree.
  function setHTML(e, html) {
    var t = document.createElement('template');
    t.innerHTML = html;
    morphChildren(e, t.content, null, false);
  }

  // sameNode says whether a kept node a can stand for the new node b:
  // both text, or elements with the same name and the same id, or form
  // key (a field whose class says it is in error stays the same field:
  // its input keeps its focus and caret), or, with neither, class.
  function sameNode(a, b) {
    if (a.nodeType !== b.nodeType) return false;
    if (a.nodeType !== 1) return true;
    if (a.nodeName !== b.nodeName) return false;
    var id = b.getAttribute('id'), key = b.getAttribute('data-key');
    if (id !== null || a.getAttribute('id') !== null) return a.getAttribute('id') === id;
    if (key !== null || a.getAttribute('data-key') !== null) return a.getAttribute('data-key') === key;
    return a.getAttribute('class') === b.getAttribute('class');
  }

  // morphChildren makes live's children those of fresh: each new child
  // takes the place of the first kept child that can stand for it (the
  // live children skipped on the way are removed) and is morphed into it;
  // a child with no counterpart is moved in. map, when given, records
  // new element → the live element kept in its place. With filled set, a
  // new element with no content keeps the live one's: the build's empty
  // slots that render then fills (the numbers, cards, charts) keep the
  // prerendered content until render morphs it.
  function morphChildren(live, fresh, map, filled) {
    var kids = Array.prototype.slice.call(fresh.childNodes), lc = live.firstChild;
    for (var i = 0; i < kids.length; i++) {
      var fc = kids[i], m = lc;
      while (m && !sameNode(m, fc)) m = m.nextSibling;
      if (!m) { live.insertBefore(fc, lc); continue; }
      while (lc !== m) { var gone = lc; lc = lc.nextSibling; live.removeChild(gone); }
      morphNode(m, fc, map, filled);
      lc = m.nextSibling;
    }
    while (lc) { var n = lc.nextSibling; live.removeChild(lc); lc = n; }
  }

  // morphNode makes live (a node sameNode matched) look as fresh: its text,
  // attributes and children. A form control's value and checked state and
  // an option's selection are properties, set by fill: their attributes
  // (the prerendered defaults) stay, as does a details element the
  // visitor opened.
  var KEEP_ATTR = { INPUT: { value: 1, checked: 1 }, OPTION: { selected: 1 }, DETAILS: { open: 1 } };
  function morphNode(live, fresh, map, filled) {
    if (live.nodeType !== 1) { if (live.data !== fresh.data) live.data = fresh.data; return; }
    if (map) map.set(fresh, live);
    var keep = KEEP_ATTR[live.nodeName] || {}, a, i;
    for (i = live.attributes.length - 1; i >= 0; i--) {
      a = live.attributes[i];
      if (!keep[a.name] && !fresh.hasAttribute(a.name)) live.removeAttribute(a.name);
    }
    for (i = 0; i < fresh.attributes.length; i++) {
      a = fresh.attributes[i];
      if (live.getAttribute(a.name) !== a.value) live.setAttribute(a.name, a.value);
    }
    // (A node marked data-js keeps its content: the script fills it.)
    if (!(filled && !fresh.firstChild) && !fresh.hasAttribute('data-js')) morphChildren(live, fresh, map, filled);
  }

  // takeOver makes the children of live (a prerendered page's) those of
  // fresh (what build made) by morphChildren, the build's empty slots
  // keeping the prerendered content, and returns kept: the live node that
  // stands for a node of fresh. The calculator's and the planner's build
  // adopt a prerendered page so.
  function takeOver(live, fresh) {
    var map = new Map();
    morphChildren(live, fresh, map, true);
    return function (n) { return map.get(n) || n; };
  }
  // keepInputs points a form's inputs (a node or a list of radios per key)
  // at the nodes kept in their place.
  function keepInputs(inputs, kept) {
    for (var k in inputs) inputs[k] = Array.isArray(inputs[k]) ? inputs[k].map(kept) : kept(inputs[k]);
  }
  // regionSelect is the grid regions' select: each with its intensity,
  // then a custom intensity.
  function regionSelect(regions) {
    return select(regions.map(function (r) {
      return { value: r.id, text: r.name + ' — ' + sig(r.carbon_g_per_kwh) + ' g/kWh' };
    }).concat([{ value: 'custom', text: 'Custom intensity' }]));
  }

  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) { return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]; });
  }

  async function copyText(text, btn) {
    var ok = false;
    try {
      if (navigator.clipboard && window.isSecureContext) { await navigator.clipboard.writeText(text); ok = true; }
    } catch (e) { ok = false; }
    if (!ok) {
      var ta = el('textarea', { class: 'offscreen', 'aria-hidden': 'true', tabindex: '-1' });
      ta.value = text;
      document.body.appendChild(ta);
      ta.select();
      try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
      ta.remove();
    }
    var old = btn.dataset.label || btn.textContent;
    btn.dataset.label = old;
    btn.textContent = ok ? 'Copied' : 'Select and copy by hand';
    setTimeout(function () { btn.textContent = old; }, 1600);
  }

  /* ---------- charts (hand-written SVG) ----------
   * Every chart goes through scale (one axis helper) and frame (grid, ticks,
   * axes, labels). The viewBox is the chart's width in CSS pixels, so the
   * stylesheet's one text size (13 px) is the size people see, on a phone
   * as on a desktop; charts are redrawn when their width changes. */

  function niceStep(span, n) {
    var raw = span / n, p = Math.pow(10, Math.floor(Math.log10(raw))), f = raw / p;
    return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * p;
  }
  // scale maps [min, max] onto pixels [a, b] and picks ticks. o.log: a log
  // scale, ticks at 1-2-5 per decade (fewer on wide spans) or at powers of
  // two (o.base2); otherwise linear with round steps, the ends widened to
  // them. o.ticks replaces the ticks. Returns {map, ticks, min, max}.
  function scale(min, max, a, b, o) {
    o = o || {};
    var ticks = [], map, lo, hi;
    if (o.log) {
      var lmin = Math.log(min), lmax = Math.log(max);
      if (lmax - lmin < 1e-9) { lmin -= 0.5; lmax += 0.5; }
      map = function (v) { return a + (Math.log(v) - lmin) / (lmax - lmin) * (b - a); };
      lo = Math.exp(lmin); hi = Math.exp(lmax);
      if (o.base2) {
        for (var v = 1; v <= max * 1.0001; v *= 2) if (v >= min / 1.0001) ticks.push(v);
      } else {
        var e0 = Math.floor(Math.log10(min)), e1 = Math.ceil(Math.log10(max));
        var mults = e1 - e0 <= 2 ? [1, 2, 5] : e1 - e0 <= 4 ? [1, 3] : [1];
        for (var e = e0; e <= e1; e++) mults.forEach(function (m) {
          var t = m * Math.pow(10, e);
          if (t >= min * 0.999 && t <= max * 1.001) ticks.push(+t.toPrecision(12));
        });
        if (ticks.length < 2) ticks = [min, max];
      }
    } else {
      var step = niceStep(max - min || 1, Math.max(2, Math.min(6, Math.round(Math.abs(b - a) / 70))));
      lo = Math.floor(min / step) * step; hi = Math.ceil(max / step) * step;
      if (hi === lo) hi = lo + step;
      for (var t = lo; t <= hi + step / 2; t += step) ticks.push(+t.toPrecision(12));
      map = function (v) { return a + (v - lo) / (hi - lo) * (b - a); };
    }
    if (o.ticks) ticks = o.ticks;
    return { map: map, ticks: ticks, min: lo, max: hi };
  }

  // chartWidth is the width to draw a chart in: its box's, within reason.
  function chartWidth(box) {
    return clampChart(box && box.clientWidth);
  }
  // clampChart is a chart's width for a box w pixels wide (560 when unknown).
  function clampChart(w) {
    return Math.round(Math.max(280, Math.min(760, w || 560)));
  }

  // frame draws a chart's grid, ticks, axes and axis labels and returns the
  // SVG parts with the two scales. o: {id, title, desc, width, height,
  // left, role (default img; group when the chart holds controls), cls,
  // x: {min, max, log, base2, ticks, fmt, label}, y: {...}}.
  function frame(o) {
    var W = o.width || 560, H = o.height || 300, L = o.left || 64, R = 16, T = 16, B = 50;
    var xa = scale(o.x.min, o.x.max, L, W - R, o.x), ya = scale(o.y.min, o.y.max, H - B, T, o.y);
    var fx = o.x.fmt || function (v) { return sig(v, 2); }, fy = o.y.fmt || function (v) { return sig(v, 2); };
    var out = ['<svg viewBox="0 0 ' + W + ' ' + H + '" width="' + W + '" height="' + H + '" role="' + (o.role || 'img') + '" aria-labelledby="' + o.id + '-t' + (o.desc ? ' ' + o.id + '-d' : '') + '" class="chart' + (o.cls ? ' ' + o.cls : '') + '" id="' + o.id + '">',
      '<title id="' + o.id + '-t">' + esc(o.title) + '</title>' + (o.desc ? '<desc id="' + o.id + '-d">' + esc(o.desc) + '</desc>' : '')];
    ya.ticks.forEach(function (t) {
      var y = ya.map(t).toFixed(1);
      out.push('<line class="grid" x1="' + L + '" x2="' + (W - R) + '" y1="' + y + '" y2="' + y + '"/>');
      out.push('<text class="tick" x="' + (L - 6) + '" y="' + y + '" dy="0.32em" text-anchor="end">' + esc(fy(t)) + '</text>');
    });
    // Thin out x labels that would overlap (about 7 px per character).
    var lastEnd = -Infinity;
    xa.ticks.forEach(function (t) {
      var x = xa.map(t), label = fx(t), half = label.length * 3.6;
      out.push('<line class="grid" y1="' + T + '" y2="' + (H - B) + '" x1="' + x.toFixed(1) + '" x2="' + x.toFixed(1) + '"/>');
      if (x - half < lastEnd + 6) return;
      lastEnd = x + half;
      out.push('<text class="tick" y="' + (H - B + 18) + '" x="' + x.toFixed(1) + '" text-anchor="middle">' + esc(label) + '</text>');
    });
    out.push('<line class="axis" x1="' + L + '" x2="' + (W - R) + '" y1="' + (H - B) + '" y2="' + (H - B) + '"/>');
    out.push('<line class="axis" x1="' + L + '" x2="' + L + '" y1="' + T + '" y2="' + (H - B) + '"/>');
    out.push('<text class="label" x="' + ((L + W - R) / 2) + '" y="' + (H - 10) + '" text-anchor="middle">' + esc(o.x.label) + '</text>');
    out.push('<text class="label" transform="translate(15 ' + ((T + H - B) / 2) + ') rotate(-90)" text-anchor="middle">' + esc(o.y.label) + '</text>');
    return { out: out, xa: xa, ya: ya, W: W, H: H, L: L, R: R, T: T, B: B };
  }

  // lineChart draws series of [x, y] points. o: {id, title, desc, width,
  // series:[{name, key, pts}], xLabel, yLabel, fmtY, fmtX, mark:{x, y, label}, xBase2}
  function lineChart(o) {
    var xs = [], ys = [];
    o.series.forEach(function (s) { s.pts.forEach(function (p) { xs.push(p[0]); ys.push(p[1]); }); });
    if (o.mark) { xs.push(o.mark.x); ys.push(o.mark.y); }
    if (!xs.length) return '<p class="muted">No feasible configuration to chart.</p>';
    var xmin = Math.min.apply(null, xs), xmax = Math.max.apply(null, xs);
    var ymin = Math.min.apply(null, ys), ymax = Math.max.apply(null, ys);
    var ylog = ymax / ymin > 8;
    var f = frame({ id: o.id, title: o.title, desc: o.desc, width: o.width,
      x: { min: xmin, max: xmax, log: true, base2: o.xBase2, fmt: o.fmtX || String, label: o.xLabel },
      y: ylog ? { min: ymin, max: ymax, log: true, fmt: o.fmtY, label: o.yLabel + ' (log scale)' } : { min: 0, max: ymax * 1.05, fmt: o.fmtY, label: o.yLabel } });
    var out = f.out, xa = f.xa, ya = f.ya;
    o.series.forEach(function (s) {
      if (!s.pts.length) return;
      var d = s.pts.map(function (p, i) { return (i ? 'L' : 'M') + xa.map(p[0]).toFixed(1) + ' ' + ya.map(p[1]).toFixed(1); }).join('');
      out.push('<path class="line s-' + s.key + '" d="' + d + '"/>');
      if (s.pts.length === 1) out.push('<circle class="dot s-' + s.key + '" r="4" cx="' + xa.map(s.pts[0][0]).toFixed(1) + '" cy="' + ya.map(s.pts[0][1]).toFixed(1) + '"/>');
    });
    if (o.mark) {
      var mx = xa.map(o.mark.x), my = ya.map(o.mark.y);
      out.push('<circle class="mark" r="6" cx="' + mx.toFixed(1) + '" cy="' + my.toFixed(1) + '"/>');
      var anchor = mx > f.W - 150 ? 'end' : 'start', dx = anchor === 'end' ? -10 : 10;
      out.push('<text class="mark-label" x="' + (mx + dx).toFixed(1) + '" y="' + (my - 10).toFixed(1) + '" text-anchor="' + anchor + '">' + esc(o.mark.label) + '</text>');
    }
    out.push('</svg>');
    return out.join('');
  }

  // legend lists series; an entry with a note (a strategy that does not
  // fit, say) is struck through and says why.
  function legend(series) {
    return '<ul class="legend">' + series.map(function (s) {
      return '<li' + (s.note ? ' class="absent" data-absent="' + esc(s.key) + '"' : '') + '><span class="swatch ' + (s.cls || 's-' + s.key) + '" aria-hidden="true"></span>' + esc(s.name) +
        (s.note ? ' <span class="why">' + esc(s.note) + '</span>' : '') + '</li>';
    }).join('') + '</ul>';
  }

  /* ---------- the calculator ---------- */

  // applies reports whether a row of the field table (meta.fields, from
  // model.RequestFields) matters for the form state s: its "when" names the
  // form key and value it depends on.
  function applies(f, s) {
    var w = f.when;
    if (!w) return true;
    var v = s[w.key] == null ? '' : s[w.key];
    if (w.in) return w.in.indexOf(v) >= 0;
    return (v === (w.value || '')) !== !!w.not;
  }

  // followRegion keeps the grid region and the carbon intensity of a form
  // being edited in step, as calcapi's Region.Apply reads them: choosing a
  // region fills in its intensity; typing another intensity makes the
  // region "custom". Used by the calculator and the planner.
  function followRegion(self, st, k, v) {
    var regions = self.meta.regions;
    if (k === 'region') {
      var r = regions.filter(function (x) { return x.id === v; })[0];
      if (r) { st.carbon = String(r.carbon_g_per_kwh); self.inputs.carbon.value = st.carbon; }
    } else if (k === 'carbon') {
      var cur = regions.filter(function (x) { return x.id === st.region; })[0];
      if (cur && String(cur.carbon_g_per_kwh) !== v.trim()) { st.region = 'custom'; self.inputs.region.value = 'custom'; }
    }
  }

  /* ---------- the calculator ----------
   * Go draws it (wasm/calcapi/view, through calc.wasm's render): the form
   * with its values, hints and messages, and the estimate. This keeps the
   * form state, hands it to Go on each input, puts the markup in place by
   * morphing the nodes already there (setHTML's morph), and keeps the
   * address, the local storage and the events. */

  function Calculator(root, api, opts) {
    this.root = root;
    this.fitBytes = root.getAttribute('data-fit-bytes') || '';
    this.api = api;
    this.embed = !!opts.embed;
    this.state = formState(root);
    this.out = null; // the last answer (RenderOutput)
    this.last = null; // the last one that estimated
    var q = new URLSearchParams(location.search), self = this, linked = '';
    q.forEach(function (v, k) { if (k in self.state) self.state[k] = v; });
    // A link with a grid region but no intensity takes the region's figure.
    if (q.has('region') && !q.has('carbon') && 'carbon' in this.state) { this.state.carbon = ''; linked = 'region'; }
    if (opts.carry) Object.assign(this.state, opts.carry);
    this.linked = linked;
    // Without a prerendered form Go starts from the default form, and the
    // link's values go over it then (update).
    this.needsURL = !Object.keys(this.state).length && q.toString() !== '';
    this.wire();
    this.loadOwn();
    if (!this.embed) { this.buildHF(); this.buildRefit(); }
  }

  // formState is the form as the page shows it: every named control of
  // the calculator, by name.
  function formState(root) {
    var s = {};
    Array.prototype.forEach.call(root.querySelectorAll('.calc-layout [name]'), function (c) {
      if (c.type === 'radio') { if (c.checked || !(c.name in s)) s[c.name] = c.checked ? c.value : (s[c.name] || ''); }
      else if (c.type === 'checkbox') s[c.name] = c.checked ? '1' : '';
      else s[c.name] = c.value;
    });
    return s;
  }

  /* The user's own calibrations: fitted on this page, kept in this
   * browser's local storage, added to the calculator's catalog by Go
   * (calcapi.AddCalibration), listed as "yours". */
  // A calibration that failed its fit checks is used only when the user
  // said so (the report's "use it anyway"): its name is kept in accept.
  var OWN_KEY = 'wattscale-own-calibrations', ACCEPT_KEY = 'wattscale-own-accepted';
  function stored(key) {
    try { var v = JSON.parse(localStorage.getItem(key) || '[]'); return Array.isArray(v) ? v : []; } catch (e) { return []; }
  }
  Calculator.prototype.loadOwn = function () {
    var cals = stored(OWN_KEY);
    if (!cals.length || !this.api || !this.api.addCalibration) return null;
    var res = this.api.addCalibration(JSON.stringify({ calibrations: cals, accept: stored(ACCEPT_KEY) }));
    return res.error || null;
  };
  // useOwn adds a calibration the user just fitted and selects it; anyway
  // says they chose it although it failed its checks.
  Calculator.prototype.useOwn = function (cal, anyway) {
    var cals = stored(OWN_KEY).filter(function (c) { return c.name !== cal.name; });
    var accept = stored(ACCEPT_KEY).filter(function (n) { return n !== cal.name; });
    cals.push(cal);
    var add = function () {
      if (anyway) accept.push(cal.name);
      return this.api.addCalibration(JSON.stringify({ calibrations: cals, accept: accept }));
    }.bind(this);
    var res = add();
    if (res.error && res.error.code === 'calibration.shipped_name') {
      if (anyway) accept.pop();
      cal = Object.assign({}, cal, { name: cal.name + '-yours' });
      cals[cals.length - 1] = cal;
      res = add();
    }
    if (res.error) return res.error.say || res.error.message;
    try { localStorage.setItem(OWN_KEY, JSON.stringify(cals)); localStorage.setItem(ACCEPT_KEY, JSON.stringify(accept)); } catch (e) { /* private mode: kept for this visit only */ }
    this.state.cal = cal.name;
    this.update('cal');
    return '';
  };

  Calculator.prototype.query = function () { return this.out ? this.out.query : location.search.slice(1); };
  Calculator.prototype.shareURL = function () {
    var u = new URL(location.href);
    u.search = this.query();
    u.hash = '';
    return u.href;
  };

  // wire listens once on the mount element: the form's inputs, the
  // recommender's points, the copy buttons, and the window's width.
  Calculator.prototype.wire = function () {
    var self = this, root = this.root;
    var onInput = function (e) { self.onInput(e); };
    root.addEventListener('input', onInput);
    root.addEventListener('change', onInput);
    root.addEventListener('submit', function (e) { if (e.target.closest('.calc-form')) e.preventDefault(); });
    var pick = function (e) {
      var g = e.target.closest && e.target.closest('.cheaper-out [data-pareto]');
      if (!g) return;
      if (e.type === 'keydown' && /^Arrow/.test(e.key)) {
        var step = e.key === 'ArrowLeft' || e.key === 'ArrowDown' ? -1 : 1;
        var next = root.querySelector('.cheaper-out [data-pareto="' + (+g.getAttribute('data-pareto') + step) + '"]');
        if (next) {
          e.preventDefault();
          g.setAttribute('tabindex', '-1');
          next.setAttribute('tabindex', '0');
          next.focus();
        }
        return;
      }
      if (e.type === 'keydown' && e.key !== 'Enter' && e.key !== ' ') return;
      e.preventDefault();
      self.loadConfig(g);
    };
    root.addEventListener('click', pick);
    root.addEventListener('keydown', pick);
    root.addEventListener('click', function (e) {
      var b = e.target.closest && e.target.closest('.share [data-copy]');
      if (!b) return;
      var what = b.getAttribute('data-copy');
      var text = what === 'url' ? self.shareURL() : (root.querySelector('#snip-' + what) || {}).textContent || '';
      copyText(text, b);
    });
    var tid = 0;
    window.addEventListener('resize', function () {
      clearTimeout(tid);
      tid = setTimeout(function () {
        var ce = root.querySelector('.chart-e');
        if (self.out && ce && ce.clientWidth !== self.chartW) self.update('');
      }, 150);
    });
  };

  Calculator.prototype.onInput = function (e) {
    var t = e.target, k = t.name;
    if (!k || !(k in this.state) || !t.closest('.calc-layout')) return;
    var v = t.type === 'checkbox' ? (t.checked ? '1' : '') : t.value;
    if (t.type === 'radio' && !t.checked) return;
    if (this.state[k] === v) return;
    var t0 = performance.now();
    this.state[k] = v;
    this.update(k);
    perf.lastInputMs = performance.now() - t0;
  };

  // update has Go draw the form state (changed: the input the user just
  // changed) and puts it in place.
  Calculator.prototype.update = function (changed) {
    if (!this.api) return null;
    var root = this.root, ce = root.querySelector('.chart-e'), ct = root.querySelector('.chart-t');
    var empty = root.querySelector('.results.empty');
    var widths = empty || !ce ? {} : { e: ce.clientWidth, t: ct ? ct.clientWidth : 0 };
    var t0 = performance.now();
    var live = root.querySelector('.calc-layout');
    // The form state goes to Go as a query string, the answer comes back
    // as an object (view.CalcFuncs: no JSON on either side).
    var out = this.api.render(new URLSearchParams(this.state).toString(), changed || this.linked, widths.e || 0, widths.t || 0, this.embed, !!live);
    this.linked = '';
    perf.lastEstimateCallMs = performance.now() - t0;
    var t = document.createElement('template'), seen = this.parts || (this.parts = {});
    if (out.parts) {
      // Only the parts whose markup changed are parsed and morphed.
      out.parts.forEach(function (p) {
        if (seen[p.key] === p.html) return;
        var n = live.querySelector('[data-part="' + p.key + '"]');
        t.innerHTML = p.html;
        if (n && t.content.firstElementChild) morphNode(n, t.content.firstElementChild, null, false);
        seen[p.key] = p.html;
      });
    } else if (out.html) {
      t.innerHTML = out.html;
      var fresh = t.content.querySelector('.calc-layout');
      if (live && fresh) morphNode(live, fresh, null, false);
      else root.insertBefore(t.content, root.firstChild);
    } else return out;
    this.out = out;
    this.state = out.form;
    if (this.needsURL) {
      this.needsURL = false;
      var st = this.state;
      new URLSearchParams(location.search).forEach(function (v, k) { if (k in st) st[k] = v; });
      return this.update(changed || 'model');
    }
    this.fill();
    if (root.dataset.state !== out.state) root.dataset.state = out.state;
    this.chartW = widths.e || (root.querySelector('.chart-e') || {}).clientWidth;
    if (changed) history.replaceState(null, '', '?' + out.query + location.hash);
    perf.sweepPoints = root.querySelectorAll('.chart-e path.line').length;
    if (out.state !== 'ok') return out;
    this.last = out;
    var u = root.querySelector('#share-url');
    if (u && u.value !== this.shareURL()) u.value = this.shareURL();
    if (this.embed) {
      var a = root.querySelector('.open-full');
      if (a) a.href = new URL('../index.html?' + out.query, BASE).href;
      this.tellParent(out.post);
    } else this.adviseLater();
    return out;
  };

  // adviseLater has Go draw the recommender's panel (view.Advice, the
  // search: tens of milliseconds) once the figures of this render have
  // been painted, so that an input's answer never waits for it; edits
  // made meanwhile are drawn by the one call that follows them.
  Calculator.prototype.adviseLater = function () {
    if (this.advising) return;
    this.advising = true;
    var self = this;
    requestAnimationFrame(function () {
      setTimeout(function () {
        self.advising = false;
        try { self.advise(); } catch (e) {
          var co = self.root.querySelector('.cheaper-out');
          if (co) co.innerHTML = '<p class="err">Could not search cheaper configurations: ' + esc(e.message) + '</p>';
        }
      }, 0);
    });
  };

  // advise puts Go's panel for the form state into .cheaper-out. A
  // deadline or an objective in error is shown beside its input.
  Calculator.prototype.advise = function () {
    var co = this.root.querySelector('.cheaper-out');
    if (!co || !this.api || !this.api.advise || !this.out || this.out.state !== 'ok') return;
    var t0 = performance.now();
    var html = this.api.advise(new URLSearchParams(this.state).toString(), co.clientWidth || 0);
    perf.lastRecommendMs = performance.now() - t0;
    setHTML(co, html);
    var bad = co.querySelector('[data-input]'), f = bad && this.root.querySelector('.calc-layout [data-key="' + bad.getAttribute('data-input') + '"]');
    if (f) {
      f.classList.add('invalid');
      setText(f.querySelector('.err'), bad.getAttribute('data-msg'));
    }
  };

  // fill sets each control's value and checked state (properties, which
  // the morph leaves alone) from the state Go answered with.
  Calculator.prototype.fill = function () {
    var s = this.state;
    Array.prototype.forEach.call(this.root.querySelectorAll('.calc-layout [name]'), function (c) {
      var v = s[c.name] == null ? '' : s[c.name];
      if (c.type === 'radio') { if (c.checked !== (c.value === v)) c.checked = c.value === v; }
      else if (c.type === 'checkbox') { var on = v === '1' || v === 'true' || v === 'on'; if (c.checked !== on) c.checked = on; }
      else if (c.value !== v) c.value = v;
    });
  };

  // tellParent reports each estimate and the content height to the page
  // that embeds this one (assets/embed.js listens). The figures are what the
  // page shows anyway, so any origin may read them.
  Calculator.prototype.tellParent = function (post) {
    if (window.parent === window || !post) return;
    window.parent.postMessage(Object.assign({ type: 'wattscale:estimate', url: new URL('../index.html?' + this.query(), BASE).href }, post), '*');
    if (!this.resizeObs && window.ResizeObserver) {
      this.resizeObs = new ResizeObserver(function () {
        window.parent.postMessage({ type: 'wattscale:resize', height: document.documentElement.offsetHeight }, '*');
      });
      this.resizeObs.observe(document.body);
    }
  };

  // loadConfig puts the configuration of a point of the recommender's
  // front (g: its data-load, the form values Go wrote) into the form,
  // estimates it and records it in the address (so the chosen point
  // round-trips through a shared link).
  Calculator.prototype.loadConfig = function (g) {
    var s = this.state;
    new URLSearchParams(g.getAttribute('data-load') || '').forEach(function (v, k) { s[k] = v; });
    var said = g.getAttribute('data-loaded');
    this.update('gpu');
    tell(this.root.querySelector('.results .status'), 'success', said);
    var e = this.root.querySelector('#energy');
    if (e) e.closest('.results').scrollIntoView({ block: 'start' });
  };


  /* ---------- form helpers (the planner's; the calculator's form is Go's) ---------- */

  // labelled builds one labelled control with its hint and error slot
  // (hint null: none; '': one the page fills in later).
  function labelled(self, key, label, control, hint) {
    var id = 'f-' + key;
    control.id = id;
    control.name = key;
    var hintId = id + '-hint', errId = id + '-err';
    control.setAttribute('aria-describedby', (hint !== null ? hintId + ' ' : '') + errId);
    self.inputs[key] = control;
    return el('div', { class: 'field', 'data-key': key }, [
      el('label', { for: id, text: label }),
      control,
      hint !== null ? el('p', { class: 'hint', id: hintId, text: hint || '' }) : null,
      el('p', { class: 'err', id: errId, 'aria-live': 'polite' })
    ]);
  }

  // say is the form's words for the value v of the table row f (as Go's
  // model.Field.Text).
  function say(f, v) { return f.say && f.say[v] != null ? f.say[v] : v === '' ? 'Default' : v; }

  // control builds the input of a row of the field table: a select of its
  // choices (an enum) or of the values it offers, in the table's words; or
  // a text field with the keyboard of its kind.
  function control(f) {
    var vs = f.kind === 'enum' ? f.choices : f.offer;
    if (vs) return select(vs.map(function (v) { return { value: v, text: say(f, v) }; }));
    return textInput(f.kind === 'int' ? 'numeric' : f.kind === 'number' ? 'decimal' : 'text');
  }

  function textInput(mode, list) {
    var i = el('input', { type: 'text', inputmode: mode || 'decimal', autocomplete: 'off', spellcheck: 'false' });
    if (list) i.setAttribute('list', list);
    return i;
  }

  function select(options) {
    var s = el('select');
    options.forEach(function (o) {
      if (o.group) {
        var g = el('optgroup', { label: o.group });
        o.options.forEach(function (x) { g.appendChild(el('option', { value: x.value, text: x.text })); });
        s.appendChild(g);
      } else s.appendChild(el('option', { value: o.value, text: o.text }));
    });
    return s;
  }

  // fieldset builds one fieldset of a form's layout (Meta.layout,
  // PlannerMeta.layout: wasm/calcapi's layout.go, which wasm/calcapi/view
  // draws too): its legend, its items (a field by draw[item.control] or
  // input(key); a block of items as a grid row, hidden with data-group
  // while none of its fields applies) and its note.
  function fieldset(sec, draw, input) {
    var items = function (list) {
      var out = [];
      (list || []).forEach(function (it) { out = out.concat(item(it)); });
      return out;
    };
    var item = function (it) {
      if (it.key) return draw[it.control] ? draw[it.control](it.key) : input(it.key);
      var kids = items(it.items);
      if (!it.grid && !it.toggle) return kids;
      var a = {};
      if (it.grid) a['class'] = it.grid;
      if (it.toggle) a['data-group'] = '';
      return el('div', a, kids);
    };
    var kids = [el('legend', { text: sec.legend })].concat(items(sec.items));
    if (sec.note) kids.push(el('p', { class: 'hint', text: sec.note }));
    return el('fieldset', {}, kids);
  }

  // staleText is the banner over figures kept from a previous answer: the
  // fields to fix, by label, and that what is shown is not the answer.
  function staleText(labels, what) {
    var q = labels.map(function (l) { return '“' + l + '”'; });
    var names = q.length > 1 ? q.slice(0, -1).join(', ') + ' and ' + q[q.length - 1] : q[0];
    return (names ? 'Fix ' + names + ' to update the ' + what + '. ' : '') + 'The figures below are the previous ' + what + ', dimmed: not an answer for the form as it is now.';
  }

  function strategyText(st) {
    if (typeof st === 'string') return st === 'single' ? 'single GPU' : st.toUpperCase();
    return 'tensor ' + st.tensor + ' × ' + (st.data_mode || 'fsdp').toUpperCase() + ' ' + st.data;
  }
  function configText(c, gpus) {
    var g = (gpus || []).filter(function (x) { return x.id === c.hardware.gpu; })[0];
    return c.hardware.count + ' × ' + (g ? g.name : c.hardware.gpu) + ', ' + strategyText(c.strategy) + ', ' + c.hardware.power_limit_w + ' W limit';
  }

  /* ---------- the distillation planner ---------- */

  // STAGES: a stage's name in the plan and its row key.
  var STAGES = [['preprocess', 'pre'], ['teacher', 'teacher'], ['student', 'student'], ['eval', 'eval']];

  // (The planner's panels use setHTML too, defined above with the
  // calculator's: one keyed morph for both.)

  // Planner draws the planner into root. opts.adopt: root holds the
  // prerendered planner, which the first build patches in place.
  function Planner(root, api, meta, opts) {
    this.root = root;
    this.adopt = !!(opts && opts.adopt);
    this.api = api;
    this.meta = meta;
    this.pm = JSON.parse(api.plannerMeta());
    // The planner's field table (calcapi.PlanFormFields): "oK.x" keys are
    // each option row's, written o1.x, o2.x, … in the form and the link.
    var PF = this.PF = {};
    this.pm.fields.forEach(function (f) { PF[f.key] = f; });
    var keyRe = new RegExp('^(' + this.pm.fields.map(function (f) {
      return f.key.replace(/[.]/g, '\\.').replace(/^oK\\\./, 'o\\d+\\.');
    }).join('|') + ')$');
    this.state = Object.assign({}, this.pm.default_form);
    this.inputs = {};
    this.last = null;
    var q = new URLSearchParams(location.search), self = this, any = false, rowsGiven = false;
    q.forEach(function (v, k) {
      if (keyRe.test(k)) {
        if (!any) { self.clearRows(); any = true; }
        if (k === 'rows' || /^o\d+\./.test(k)) rowsGiven = true;
        self.state[k] = v;
      }
    });
    // A hand-written link may name a ready-made plan alone (?set=all).
    if (any && !rowsGiven && this.state.set) this.loadSet(this.state.set);
    this.build();
    this.update();
    var tid = 0;
    window.addEventListener('resize', function () {
      clearTimeout(tid);
      tid = setTimeout(function () {
        var box = self.results.querySelector('.stages');
        if (self.last && box && box.clientWidth !== self.chartW) self.renderCharts(self.last.result);
      }, 150);
    });
  }

  Planner.prototype.clearRows = function () {
    for (var k in this.state) if (/^o\d+\./.test(k)) delete this.state[k];
  };
  Planner.prototype.rows = function () { var n = parseInt(this.state.rows, 10); return n > 0 && n <= this.pm.max_rows ? n : 0; };
  Planner.prototype.preset = function (name) { return this.pm.presets.filter(function (p) { return p.name === name; })[0]; };
  // rowKeys are a row's keys after "oK.": the measured stages and, for an
  // estimated student stage (smode "estimate"), the calculator's form keys
  // of its training request ("s.KEY", calcapi.StudentKeys).
  Planner.prototype.rowKeys = function () {
    return this.pm.fields.filter(function (f) { return f.key.indexOf('oK.') === 0; }).map(function (f) { return f.key.slice(3); });
  };
  // rowState is row o's inputs keyed as the table ("oK.x"), for its "when".
  Planner.prototype.rowState = function (o) {
    var st = this.state, out = {};
    for (var k in st) if (k.indexOf(o) === 0) out['oK.' + k.slice(o.length)] = st[k];
    return out;
  };
  // studentState is row o's student request as the calculator's form keys.
  Planner.prototype.studentState = function (o) {
    var st = this.state, sub = {};
    this.pm.student_keys.forEach(function (k) { sub[k] = st[o + 's.' + k] == null ? '' : st[o + 's.' + k]; });
    return sub;
  };
  // studentForm is row o's student request as estimating it starts from:
  // its own inputs once it has a model, else the paper's setup for its
  // preset or regime (call it before the row stops being a preset row).
  Planner.prototype.studentForm = function (o) {
    var st = this.state, sub = this.studentState(o);
    return sub.model ? sub : Object.assign({}, this.pm.student_forms[st[o + 'preset'] || ''] || this.pm.student_forms[(st[o + 'regime'] || 'sft') + '-1b'] || this.pm.student_forms['']);
  };
  // estimated reports whether row o's student stage is estimated.
  Planner.prototype.estimated = function (o) { return !this.state[o + 'preset'] && this.state[o + 'smode'] === 'estimate'; };
  // ownRow makes a preset row the user's own, keeping the preset's numbers.
  Planner.prototype.ownRow = function (o, p) {
    var st = this.state;
    st[o + 'preset'] = '';
    st[o + 'name'] = p.name + ' (mine)'; st[o + 'regime'] = p.regime; st[o + 'q'] = p.quality != null ? String(p.quality) : '';
    STAGES.forEach(function (s) { var x = p.stages_kwh[s[0]]; st[o + s[1]] = x != null ? String(x) : ''; });
    st.set = 'custom';
  };

  // loadSet starts from a ready-made plan; "My own numbers" (and a name the
  // planner does not know) opens on an editable example that evaluates:
  // the paper's 1B pair as the user's own numbers (calcapi.CustomPlanForm).
  Planner.prototype.loadSet = function (set) {
    this.clearRows();
    var names = this.pm.sets[set], st = this.state;
    if (!names) {
      var c = this.pm.custom_form;
      for (var k in c) if (k === 'rows' || /^o\d+\./.test(k)) st[k] = c[k];
      st.set = 'custom';
      return;
    }
    st.rows = String(names.length);
    names.forEach(function (n, i) { st['o' + (i + 1) + '.preset'] = n; });
  };

  Planner.prototype.query = function () {
    // The plan's keys in the table's order (the search settings only when
    // set), then each row's that apply (a preset row: its preset and
    // baseline; an estimated student: its training inputs).
    var q = new URLSearchParams(), st = this.state, n = this.rows(), fields = this.pm.fields;
    fields.forEach(function (f) {
      if (f.key.indexOf('oK.') === 0) return;
      if (f.group !== 'recommend' || st[f.key]) q.set(f.key, st[f.key] == null ? '' : st[f.key]);
    });
    for (var i = 1; i <= n; i++) {
      var o = 'o' + i + '.', rs = this.rowState(o), est = this.estimated(o), preset = !!st[o + 'preset'];
      fields.forEach(function (f) {
        if (f.key.indexOf('oK.') !== 0) return;
        var k = o + f.key.slice(3), v = st[k];
        if (v == null || v === '' || !applies(f, rs)) return;
        if (preset ? f.key !== 'oK.preset' && f.key !== 'oK.baseline' : f.group === 'student' && !est) return;
        q.set(k, v);
      });
    }
    return q.toString();
  };

  // tfield builds the field of a key ("o2.x": row oK.x's) with the label,
  // hint and control (unless c is given) of its row of the planner's field
  // table; hint, when given, overrides the table's.
  Planner.prototype.tfield = function (key, c, hint) {
    var f = this.PF[key.replace(/^o\d+\./, 'oK.')];
    return labelled(this, key, f.label, c || control(f), hint !== undefined ? hint : (f.hint || null));
  };

  Planner.prototype.build = function () {
    var self = this, m = this.meta, pm = this.pm;
    this.F = {};
    m.fields.forEach(function (f) { self.F[f.key] = f; });
    this.inputs = {};
    this.root.classList.add('wattscale', 'planner');
    var form = el('form', { class: 'calc-form', novalidate: true, 'aria-label': 'Distillation plan' });
    form.appendChild(el('a', { href: '#plan-results', class: 'btn skip-results', text: 'Jump to the result ↓' }));
    var tf = function (k) { return self.tfield(k); };
    var draw = { regions: function (k) { return self.tfield(k, regionSelect(m.regions)); } };
    pm.layout.forEach(function (sec) {
      if (!sec.rows) { form.appendChild(fieldset(sec, draw, tf)); return; }
      for (var i = 1; i <= self.rows(); i++) form.appendChild(self.buildRow(i));
      form.appendChild(el('p', {}, [el('button', { type: 'button', class: 'btn', 'data-add': '1', text: '+ Add an option' })]));
    });
    form.appendChild(el('p', { class: 'err form-err', 'aria-live': 'polite' }));

    var res = el('section', { class: 'results', 'aria-label': 'Plan result', id: 'plan-results', tabindex: '-1' });
    res.innerHTML = '<div class="status" role="status" aria-live="polite"></div>' +
      '<h2 class="h first">Options side by side</h2><div class="options"></div>' +
      '<h2 class="h">Energy by stage</h2><div class="stages"></div>' +
      '<section class="stage-rec-box" aria-labelledby="stage-rec-h"><h2 class="h" id="stage-rec-h">Cheaper hardware per stage</h2><p class="muted small">Each estimated GPU stage searched on its own over GPU type × count × layout (and power limit for training), as the calculator\'s “Cheaper ways to run this”, keeping a training stage’s tokens and sequences per optimizer step; teacher and student may end up on different hardware.</p><div class="stage-rec"></div></section>' +
      '<h2 class="h">Energy per student against reuse</h2><p class="muted small">Per-student energy Ē(N) = E_teacher/N + E_student of each distilled option; the dashed line is its direct-SFT baseline\'s student stage. Distillation pays off right of N*.</p><div class="curve"></div>' +
      '<h2 class="h">Energy and quality</h2><p class="muted small">One-off pipeline energy against quality Q (student score ÷ teacher score); the dashed line joins the Pareto-efficient options.</p><div class="plane"></div>' +
      '<div class="tstar"></div><div class="advice-box"></div><div class="pnotes"></div>';
    var layout = el('div', { class: 'plan-layout' }, [form, res]), live = this.adopt && this.root.querySelector('.plan-layout');
    this.adopt = false;
    if (live) {
      // The prerendered planner: patch it and use its nodes, as the
      // calculator's build does. Its results keep their nodes until
      // render patches each part.
      keepInputs(this.inputs, takeOver(live, layout));
      layout = live;
    } else {
      this.root.innerHTML = '';
      this.root.appendChild(layout);
    }
    this.wire(layout.querySelector('form'), layout.querySelector('#plan-results'));
    this.fill();
    this.buildHF();
  };

  // buildHF adds the "Paste from Hugging Face" box (hfBox, as the
  // calculator's) once, after the plan, with a choice of the option whose
  // student stage the files describe; that stage is then estimated.
  Planner.prototype.buildHF = function () {
    var self = this, pick = this.hfPick;
    if (!pick) {
      pick = this.hfPick = el('div', { class: 'field' }, [el('label', { for: 'hf-row', text: 'Option to fill' }), select([])]);
      pick.querySelector('select').id = 'hf-row';
      this.hfSec = hfBox({ where: 'the chosen option\'s estimated student stage', pick: pick, form: function () { return self.studentForm('o' + self.hfRow() + '.'); }, take: function (vals) { return self.takeHF(vals); } });
    }
    var c = pick.querySelector('select'), was = c.value;
    c.innerHTML = '';
    for (var i = 1; i <= this.rows(); i++) {
      var o = 'o' + i + '.';
      c.appendChild(el('option', { value: String(i), text: 'Option ' + i + ': ' + (this.state[o + 'preset'] || this.state[o + 'name'] || '') }));
    }
    c.value = was && +was <= this.rows() ? was : '1';
    this.root.appendChild(this.hfSec);
  };
  Planner.prototype.hfRow = function () { return +this.hfPick.querySelector('select').value || 1; };

  // takeHF puts the files' calculator form values into the chosen option's
  // estimated student stage (a preset row becomes the user's own) and
  // returns the keys the stage does not take.
  Planner.prototype.takeHF = function (vals) {
    var st = this.state, o = 'o' + this.hfRow() + '.', sub = this.studentForm(o), PF = this.PF, left = [];
    if (st[o + 'preset']) this.ownRow(o, this.preset(st[o + 'preset']));
    st[o + 'smode'] = 'estimate';
    for (var k in sub) st[o + 's.' + k] = sub[k];
    for (k in vals) {
      var f = PF['oK.s.' + k];
      if (!f) { left.push(k); continue; }
      st[o + 's.' + k] = vals[k] === '1' && f.offer ? 'on' : vals[k]; // a checkbox's value as the row's select of default, on, off
    }
    this.rebuild();
    return left;
  };

  // wire listens to the form and the results the page shows.
  Planner.prototype.wire = function (form, res) {
    var self = this, pm = this.pm;
    this.form = form;
    this.formErr = form.querySelector('.form-err');
    this.results = res;
    form.addEventListener('submit', function (e) { e.preventDefault(); });
    form.addEventListener('input', function (e) { self.onInput(e); });
    form.addEventListener('change', function (e) { self.onInput(e); });
    form.addEventListener('click', function (e) {
      if (e.target.closest('[data-add]')) {
        var r = self.rows() + 1;
        if (r > pm.max_rows) return;
        self.state.rows = String(r);
        var o = 'o' + r + '.';
        self.state[o + 'name'] = 'option ' + r; self.state[o + 'regime'] = 'kd';
        self.state.set = 'custom';
        self.rebuild('o' + r + '.name');
        return;
      }
      var b = e.target.closest('[data-remove]');
      if (!b) return;
      self.removeRow(parseInt(b.getAttribute('data-remove'), 10));
    });
    res.addEventListener('click', function (e) {
      var b = e.target.closest('[data-use]');
      if (b) self.useConfig(self.recStages[+b.getAttribute('data-use')]);
    });
  };

  Planner.prototype.buildRow = function (i) {
    var self = this, o = 'o' + i + '.', st = this.state, PF = this.PF, m = this.meta;
    var tf = function (k) { return self.tfield(o + k); };
    var fs = el('fieldset', { class: 'row-opt', 'data-row': i }, [el('legend', { text: 'Option ' + i })]);
    var presets = [{ value: '', text: 'My own numbers' }].concat(this.pm.presets.map(function (p) { return { value: p.name, text: p.name + ' — ' + say(PF['oK.regime'], p.regime) + ', ' + p.student }; }));
    fs.appendChild(this.tfield(o + 'preset', select(presets), ''));
    fs.appendChild(el('div', { class: 'grid2' }, ['name', 'regime'].map(tf)));
    var stg = el('div', { class: 'grid2' }, STAGES.map(function (s) { return tf(s[1]); }));
    stg.children[1].setAttribute('data-teacher', '1');
    fs.appendChild(stg);
    fs.appendChild(tf('smode'));
    // The estimated student's inputs: rows of the calculator's field table
    // (the student's model and GPU: a select of the catalogue's).
    fs.appendChild(el('div', { class: 'grid2 student-est', 'data-student-est': '1' }, this.pm.student_keys.map(function (k) {
      var c = k === 'model' ? select(m.presets.map(function (p) { return { value: p.name, text: p.name }; }).concat([{ value: 'custom', text: 'custom shape' }])) :
        k === 'gpu' ? select(m.gpus.map(function (g) { return { value: g.id, text: g.name }; })) : null;
      var node = self.tfield(o + 's.' + k, c);
      node.setAttribute('data-skey', k);
      return node;
    })));
    var sfts = [];
    for (var j = 1; j <= this.rows(); j++) {
      var reg = st['o' + j + '.preset'] ? (this.preset(st['o' + j + '.preset']) || {}).regime : st['o' + j + '.regime'];
      if (reg === 'sft') sfts.push(st['o' + j + '.preset'] || st['o' + j + '.name']);
    }
    var bl = this.tfield(o + 'baseline', select([{ value: '', text: 'The plan\'s direct-SFT option' }].concat(sfts.map(function (n) { return { value: n, text: n }; }))));
    bl.setAttribute('data-distilled', '1');
    fs.appendChild(el('div', { class: 'grid2' }, [tf('q'), bl]));
    if (this.rows() > 1) fs.appendChild(el('button', { type: 'button', class: 'btn small', 'data-remove': String(i), text: 'Remove option ' + i }));
    return fs;
  };

  Planner.prototype.fill = function () {
    var st = this.state, self = this;
    for (var k in this.inputs) {
      var c = this.inputs[k], v = st[k] == null ? '' : st[k];
      var mm = /^o(\d+)\.(.*)$/.exec(k);
      if (mm && mm[2] !== 'preset' && mm[2] !== 'baseline' && st['o' + mm[1] + '.preset']) {
        // A preset row shows the paper's numbers.
        var p = this.preset(st['o' + mm[1] + '.preset']);
        if (p) v = mm[2] === 'smode' || mm[2].indexOf('s.') === 0 ? '' : mm[2] === 'name' ? p.name : mm[2] === 'regime' ? p.regime : mm[2] === 'q' ? (p.quality != null ? String(p.quality) : '') :
          (function () { var key = { pre: 'preprocess', teacher: 'teacher', student: 'student', eval: 'eval' }[mm[2]]; var x = p.stages_kwh[key]; return x != null ? String(x) : ''; })();
      }
      var has = function (x) { return Array.prototype.some.call(c.options, function (o) { return o.value === x; }); };
      if (c.tagName === 'SELECT' && v === '' && !has('')) {
        // An optional choice the link leaves out shows the value the model
        // then uses (the table's default, when it is one of the choices).
        var f = this.PF[k.replace(/^o\d+\./, 'oK.')];
        if (f && f.optional && has(f.default || '')) v = f.default;
      }
      if (c.tagName === 'SELECT' && v !== '' && !has(v)) c.appendChild(el('option', { value: v, text: v + ' (not a known choice)' }));
      c.value = v;
    }
    for (var i = 1; i <= this.rows(); i++) {
      var o = 'o' + i + '.';
      var pr = st[o + 'preset'] ? this.preset(st[o + 'preset']) : null;
      var regime = pr ? pr.regime : st[o + 'regime'];
      var row = this.root.querySelector('[data-row="' + i + '"]');
      if (!row) continue;
      row.querySelector('[data-teacher]').hidden = regime === 'sft';
      this.toggleStudent(i);
      row.querySelector('[data-distilled]').hidden = regime === 'sft';
      var hint = row.querySelector('#f-o' + i + '\\.preset-hint');
      if (hint) hint.textContent = pr ? (pr.teacher_work ? 'teacher: ' + pr.teacher_work + '; ' : '') + 'published total ' + pr.total_kwh + ' kWh' + (pr.stages_kwh.student == null ? ' (no stage split published)' : '') : 'stage energies you measured, kWh';
    }
  };

  // toggleStudent shows row i's student inputs that apply: the measured
  // kWh, or the estimate's inputs by the field table's "when".
  Planner.prototype.toggleStudent = function (i) {
    var o = 'o' + i + '.', row = this.root.querySelector('[data-row="' + i + '"]'), F = this.F;
    if (!row) return;
    var est = this.estimated(o), sub = this.studentState(o);
    row.querySelector('.field[data-key="' + o + 'student"]').hidden = est;
    row.querySelector('[data-student-est]').hidden = !est;
    Array.prototype.forEach.call(row.querySelectorAll('[data-skey]'), function (n) { n.hidden = !applies(F[n.getAttribute('data-skey')], sub); });
  };

  Planner.prototype.rebuild = function (focusKey) {
    var scroll = window.scrollY;
    this.build();
    this.update();
    history.replaceState(null, '', '?' + this.query() + location.hash);
    window.scrollTo(0, scroll);
    if (focusKey && this.inputs[focusKey]) this.inputs[focusKey].focus();
  };

  Planner.prototype.removeRow = function (r) {
    var st = this.state, n = this.rows(), keys = this.rowKeys();
    for (var i = r; i < n; i++) keys.forEach(function (k) { st['o' + i + '.' + k] = st['o' + (i + 1) + '.' + k]; });
    keys.forEach(function (k) { delete st['o' + n + '.' + k]; });
    st.rows = String(n - 1);
    st.set = 'custom';
    this.rebuild();
  };

  Planner.prototype.onInput = function (e) {
    var t = e.target, k = t.name;
    if (!k || !(k in this.inputs)) return;
    var v = t.value;
    if (this.state[k] === v && k.indexOf('.') < 0) return;
    var st = this.state;
    if (k === 'set') { if (v === st.set) return; st.set = v; this.loadSet(v); this.rebuild('set'); return; }
    var mm = /^o(\d+)\.(.*)$/.exec(k);
    if (mm) {
      var o = 'o' + mm[1] + '.';
      if (mm[2] === 'preset') {
        if (st[k] === v) return;
        var was = st[k] ? this.preset(st[k]) : null;
        st[k] = v;
        if (!v && was) { // keep the preset's numbers as the start of the user's own
          st[o + 'name'] = was.name + ' (mine)'; st[o + 'regime'] = was.regime; st[o + 'q'] = was.quality != null ? String(was.quality) : '';
          STAGES.forEach(function (s) { var x = was.stages_kwh[s[0]]; st[o + s[1]] = x != null ? String(x) : ''; });
        }
        st.set = 'custom';
        this.rebuild(k);
        return;
      }
      if (mm[2] === 'smode') {
        // Estimating the student: a preset row becomes the user's own, and
        // the estimate opens on the paper's setup for that pipeline.
        var from = st[o + 'preset'] || '', sf = this.studentForm(o);
        if (from) this.ownRow(o, this.preset(from));
        st[k] = v;
        if (v === 'estimate') for (var sk in sf) st[o + 's.' + sk] = sf[sk];
        this.rebuild(k);
        return;
      }
      if (mm[2] !== 'baseline' && st[o + 'preset']) {
        // Editing a number of a preset row makes it the user's own.
        this.ownRow(o, this.preset(st[o + 'preset']));
        st[k] = v;
        this.inputs.set.value = 'custom';
        this.inputs[o + 'preset'].value = '';
        this.inputs[o + 'name'].value = st[o + 'name'];
        this.update();
        this.fill();
        history.replaceState(null, '', '?' + this.query() + location.hash);
        return;
      }
      if (mm[2] === 'regime' || mm[2] === 'name') { st[k] = v; this.rebuild(k); return; }
    }
    if (st[k] === v) return;
    st[k] = v;
    followRegion(this, st, k, v);
    if (mm && mm[2].indexOf('s.') === 0) this.toggleStudent(+mm[1]);
    this.update();
    history.replaceState(null, '', '?' + this.query() + location.hash);
  };

  Planner.prototype.clearErrors = function () {
    var root = this.root;
    Array.prototype.forEach.call(root.querySelectorAll('.field.invalid'), function (f) { f.classList.remove('invalid'); });
    Array.prototype.forEach.call(root.querySelectorAll('[aria-invalid]'), function (c) { c.removeAttribute('aria-invalid'); });
    Array.prototype.forEach.call(root.querySelectorAll('.calc-form .err'), function (p) { setText(p, ''); });
  };
  // showError puts one error beside its input, in the form's words
  // (err.say; the JSON path stays for the command line and the API).
  Planner.prototype.showError = function (err) {
    var key = err.input, ctl = key && this.inputs[key];
    var typed = ctl && !Array.isArray(ctl) && ctl.type !== 'checkbox' && ctl.tagName !== 'SELECT' ? ctl.value : null;
    var msg = (err.say || err.message) + (typed !== null && typed.trim() !== '' ? ' (you entered “' + typed + '”)' : err.value ? ' (got ' + err.value + ')' : '');
    if (ctl && !Array.isArray(ctl)) {
      var f = ctl.closest('.field');
      f.classList.add('invalid');
      ctl.setAttribute('aria-invalid', 'true');
      var label = f.querySelector('label').textContent;
      f.querySelector('.err').textContent = msg.charAt(0).toUpperCase() + msg.slice(1);
      // The field may be in a hidden group (a URL can carry anything): say so.
      if (ctl.offsetParent === null) this.formErr.textContent = (this.formErr.textContent ? this.formErr.textContent + ' ' : '') + label + ': ' + msg;
      return label;
    }
    this.formErr.textContent = msg.charAt(0).toUpperCase() + msg.slice(1);
    return null;
  };

  Planner.prototype.update = function () {
    var out = call(this.api.distill, { form: this.state });
    this.render(out);
    return out;
  };

  Planner.prototype.render = function (out) {
    this.clearErrors();
    this.formErr.textContent = '';
    var res = this.results, status = res.querySelector('.status');
    if (out.error) {
      var label = this.showError(out.error);
      var where = label ? 'Check “' + label + '”: ' : '';
      res.classList.add('stale');
      if (!this.last) res.classList.add('empty');
      tell(status, 'error', this.last ? staleText(label ? [label] : [], 'plan') : where + (out.error.say || out.error.message));
      this.root.dataset.state = 'error';
      return;
    }
    res.classList.remove('stale', 'empty');
    status.textContent = '';
    this.root.dataset.state = 'ok';
    this.last = out;
    var r = out.result;
    try { this.renderStageRec(); } catch (e) {
      var sr = res.querySelector('.stage-rec');
      if (sr) setHTML(sr, '<p class="err">Could not search cheaper hardware: ' + esc(e.message) + '</p>');
    }
    this.renderOptions(r, out.best_per_student, out.n_star_text);
    this.renderCharts(r);
    var ts = r.options.filter(function (o) { return o.t_star_tokens != null; });
    setHTML(res.querySelector('.tstar'), ts.length ? '<h2 class="h">Serving threshold T*</h2><ul>' + ts.map(function (o) {
      return '<li data-tstar="' + o.t_star_tokens + '"><strong>' + esc(o.name) + '</strong>: ' + esc(sig(o.t_star_tokens)) + ' served tokens repay its ' + esc(energyText(o.extra_train_kwh)) + ' of extra training energy.</li>';
    }).join('') + '</ul>' : '');
    setHTML(res.querySelector('.advice-box'), r.advice.length ? '<h2 class="h">What the numbers say</h2><ul class="advice">' + r.advice.map(function (a) { return '<li>' + esc(a) + '</li>'; }).join('') + '</ul>' : '');
    // (the warnings in the form's words: calcapi's Say of each coded one)
    var s = r.site, warns = out.warnings_say || [];
    setHTML(res.querySelector('.pnotes'),
      (warns.length ? '<div class="warnings" role="note"><h3>Warnings</h3><ul>' + warns.map(function (w) { return '<li>' + esc(w) + '</li>'; }).join('') + '</ul></div>' : '') +
      '<p class="muted small">Whole plan: ' + esc(energyText(r.plan_total_kwh)) + ', ' + esc(massText(r.plan_co2e_kg)) + ' and ' + esc(usd(r.plan_cost_usd)) + ' at PUE ' + esc(sig(s.pue)) + ', ' + esc(sig(s.carbon_g_per_kwh)) + ' g CO₂e/kWh' + (s.region ? ' (' + esc(s.region) + ')' : '') + ' and $' + esc(sig(s.usd_per_kwh)) + '/kWh. ' +
      'Preset stage energies: ' + esc(this.pm.citation) + '.</p>' +
      (r.assumptions.length ? '<details class="assumptions"><summary>Assumptions used (' + r.assumptions.length + ')</summary><ul>' + r.assumptions.map(function (w) { return '<li>' + esc(w) + '</li>'; }).join('') + '</ul></details>' : ''));
  };

  // renderStageRec runs the recommender on each estimated stage of the plan
  // (calcapi.DistillRecommend, as `site recommend -plan`) and lists, per
  // searched stage, the user's configuration and the best, with a button
  // that loads a student stage's best into its option.
  Planner.prototype.renderStageRec = function () {
    var box = this.results.querySelector('.stage-rec');
    this.recStages = [];
    if (!box || !this.api.distillRecommend) return;
    var any = false;
    for (var i = 1; i <= this.rows(); i++) if (this.estimated('o' + i + '.')) any = true;
    if (!any) {
      setHTML(box, '<p class="muted">Measured and published stage energies have no configuration to change. Set an option’s “Student stage” to “Estimated from its training setup” to search GPU type, count, layout and power limit for it.</p>');
      return;
    }
    var t0 = performance.now();
    var out = call(this.api.distillRecommend, { form: this.state });
    perf.lastPlanRecommendMs = performance.now() - t0;
    if (out.error) {
      if (out.error.input === 'deadline' || out.error.input === 'minimise') this.showError(out.error);
      setHTML(box, '<p class="muted">' + esc(out.error.say || out.error.message) + '</p>');
      return;
    }
    var r = out.result, obj = { energy: 'energy', co2e: 'CO₂e', cost: 'electricity cost', time: 'time' };
    var stageGPUs = this.meta.gpus;
    var done = r.stages.filter(function (s) { return !s.reason; }), skipped = r.stages.filter(function (s) { return s.reason; });
    this.recStages = done;
    var html = '<p class="stage-rec-total" data-before="' + r.plan_total_kwh + '" data-after="' + r.plan_total_best_kwh + '">Whole plan: ' + esc(energyText(r.plan_total_kwh)) + ' as planned, ' +
      esc(energyText(r.plan_total_best_kwh)) + ' with every searched stage at its best' + (r.saving.energy_kwh > 0 ? ' (' + esc(Math.round(r.saving.energy_pct * 10) / 10 + ' %') + ' less)' : '') + '.</p><ul class="stage-recs">';
    done.forEach(function (s, j) {
      var b = s.best, c = s.current, row = +/^options\[(\d+)\]/.exec(s.path)[1] + 1;
      html += '<li data-stage-rec="' + esc(s.path) + '"' + (b ? ' data-best-kwh="' + b.energy_kwh + '"' : '') + (c ? ' data-current-kwh="' + c.energy_kwh + '"' : '') + '><strong>' + esc(s.option) + ', ' + esc(s.stage) + '</strong>: ' +
        (c ? 'yours ' + esc(configText(c, stageGPUs)) + ': ' + esc(energyText(c.energy_kwh)) + ', ' + esc(timeText(c.time_s)) + '. ' : '') +
        (b ? (s.meets_deadline ? 'Least ' + esc(obj[s.minimise] || s.minimise) + (s.deadline_s ? ' within the deadline' : '') : 'Nothing meets the deadline; fastest') + ': ' + esc(configText(b, stageGPUs)) + ': ' + esc(energyText(b.energy_kwh)) + ', ' + esc(timeText(b.time_s)) +
          (s.saving && s.saving.energy_kwh > 0 ? ' (' + esc(energyText(s.saving.energy_kwh)) + ', ' + esc(Math.round(s.saving.energy_pct) + ' %') + ' less)' : '') + '. ' +
          (s.stage === 'student' ? '<button type="button" class="btn small" data-use="' + j + '">Use it for option ' + row + '</button>' : '') : esc((s.warnings || []).join(' '))) +
        (b && s.warnings && s.warnings.length ? '<br><span class="muted small">' + esc(s.warnings.join(' ')) + '</span>' : '') + '</li>';
    });
    html += '</ul>';
    // Stages not searched, grouped by why.
    var why = {}, order = [];
    skipped.forEach(function (s) {
      if (!why[s.reason]) { why[s.reason] = []; order.push(s.reason); }
      why[s.reason].push(s.option + ' ' + s.stage);
    });
    if (order.length) html += '<div class="muted small stage-rec-skipped"><p>Not searched:</p><ul>' + order.map(function (r) { return '<li>' + esc(why[r].join(', ')) + ': ' + esc(r) + '.</li>'; }).join('') + '</ul></div>';
    setHTML(box, html);
  };

  // useConfig puts a student stage's recommended hardware into its option.
  Planner.prototype.useConfig = function (s) {
    if (!s || !s.best) return;
    var c = s.best, o = 'o' + (+/^options\[(\d+)\]/.exec(s.path)[1] + 1) + '.', st = this.state;
    st[o + 's.gpu'] = c.hardware.gpu;
    st[o + 's.count'] = String(c.hardware.count);
    st[o + 's.power'] = String(c.hardware.power_limit_w);
    // the micro-batch and accumulation that hold the stage's global batch
    if (c.batch_per_gpu) {
      st[o + 's.batch'] = String(c.batch_per_gpu);
      st[o + 's.accum'] = c.gradient_accumulation > 1 ? String(c.gradient_accumulation) : '';
    }
    if (typeof c.strategy === 'string') st[o + 's.strategy'] = c.strategy;
    else { st[o + 's.strategy'] = 'hybrid'; st[o + 's.tensor'] = String(c.strategy.tensor); st[o + 's.data_mode'] = c.strategy.data_mode || 'fsdp'; }
    this.fill();
    this.update();
    history.replaceState(null, '', '?' + this.query() + location.hash);
  };

  Planner.prototype.renderCharts = function (r) {
    this.renderStages(r);
    this.renderCurve(r);
    this.renderPlane(r);
    this.chartW = this.results.querySelector('.stages').clientWidth;
  };

  // renderOptions shows one card per option; bestName (calcapi's
  // BestPerStudent: options with a stage split only) gets the badge.
  Planner.prototype.renderOptions = function (r, bestName, nstar) {
    var regime = this.PF['oK.regime'], best = r.options.filter(function (o) { return o.name === bestName; })[0] || null;
    setHTML(this.results.querySelector('.options'), r.options.map(function (o) {
      var ns = '<span class="nstar">' + esc((nstar || {})[o.name] || '') + '</span>';
      return '<div class="option' + (o === best ? ' best' : '') + '" data-option="' + esc(o.name) + '"' + (o.n_star != null ? ' data-nstar="' + o.n_star + '"' : '') + ' data-oneoff="' + o.one_off_kwh + '" data-student="' + o.student_kwh + '">' +
        '<h3>' + esc(o.name) + '</h3><span class="sub">' + esc(say(regime, o.regime)) + ' · ' + esc(o.source) + '</span>' +
        '<span class="v">' + esc(energyText(o.one_off_kwh)) + '</span><span class="sub">one-off pipeline' + (o.regime !== 'sft' ? '; ' + esc(energyText(o.kwh_per_student)) + ' per student at N = ' + o.students : '') + '</span>' +
        '<span class="sub">' + esc(massText(o.co2e_kg)) + ' · ' + esc(usd(o.cost_usd)) + (o.quality != null ? ' · Q ' + esc(sig(o.quality, 2)) : '') + (o.j_per_token ? ' · ' + esc(sig(o.j_per_token)) + ' J/token' : '') + '</span>' +
        (o.regime !== 'sft' ? '<p class="small">' + ns + (o.baseline ? ' (against ' + esc(o.baseline) + ')' : '') + '</p>' : '') +
        (o.stages.length && o.stages[0].stage === 'unsplit' ? '<p class="small muted">Total only: no stage split published, so not ranked per student.</p>' : '') +
        (o === best ? '<p class="small"><strong>Lowest energy per student</strong></p>' : '') + '</div>';
    }).join(''));
  };

  Planner.prototype.renderStages = function (r) {
    var box = this.results.querySelector('.stages');
    var W = chartWidth(box), rowH = 32, L = Math.min(150, Math.round(W * 0.3)), R = 86, H = r.options.length * rowH + 10;
    var max = Math.max.apply(null, r.options.map(function (o) { return o.one_off_kwh; })) || 1;
    var xa = scale(0, max, L, W - R, { ticks: [] });
    var maxChars = Math.floor((L - 8) / 7.2);
    var out = ['<svg class="chart" viewBox="0 0 ' + W + ' ' + H + '" width="' + W + '" height="' + H + '" role="img" aria-label="' + esc('Energy by stage of each option: ' + r.options.map(function (o) { return o.name + ' ' + energyText(o.one_off_kwh); }).join('; ')) + '">'];
    var present = {};
    r.options.forEach(function (o, i) {
      var y = 5 + i * rowH, x = L;
      out.push('<text class="bar-label" x="' + (L - 8) + '" y="' + (y + 16) + '" text-anchor="end">' + esc(o.name.length > maxChars ? o.name.slice(0, maxChars - 1) + '…' : o.name) + '</text>');
      o.stages.forEach(function (s) {
        var e = s.source === 'shared' ? 0 : s.energy_kwh;
        if (s.stage === 'teacher' && o.teacher_shared_with) e = o.one_off_kwh - o.total_kwh;
        var w = xa.map(e) - L;
        if (w <= 0) return;
        present[s.stage] = true;
        out.push('<rect class="st-' + esc(s.stage) + '" x="' + x.toFixed(1) + '" y="' + y + '" width="' + w.toFixed(1) + '" height="' + (rowH - 10) + '"><title>' + esc((s.stage === 'unsplit' ? 'total, no stage split published' : s.stage) + ': ' + energyText(e)) + '</title></rect>');
        x += w;
      });
      out.push('<text class="bar-label" x="' + (x + 6).toFixed(1) + '" y="' + (y + 16) + '">' + esc(energyText(o.one_off_kwh)) + '</text>');
    });
    out.push('</svg>');
    var items = [['prerun', 'Prerun'], ['preprocess', 'Preprocess'], ['teacher', 'Teacher'], ['student', 'Student'], ['eval', 'Evaluation'], ['unsplit', 'Total only (no stage split published)']];
    setHTML(box, out.join('') + legend(items.filter(function (s) { return present[s[0]]; }).map(function (s) {
      return { key: s[0], name: s[1], cls: 'st-' + s[0] + ' block' };
    })));
  };

  Planner.prototype.renderCurve = function (r) {
    var dist = r.options.filter(function (o) { return o.curve && o.curve.length; });
    var box = this.results.querySelector('.curve');
    if (!dist.length) { setHTML(box, '<p class="muted">No distilled option: nothing to amortise.</p>'); return; }
    var ys = [];
    dist.forEach(function (o) { o.curve.forEach(function (p) { ys.push(p.kwh_per_student); }); if (o.baseline_student_kwh != null) ys.push(o.baseline_student_kwh); });
    var f = frame({ id: 'curve', width: chartWidth(box), left: 60,
      title: 'Energy per student against the number of students: ' + dist.map(function (o) { return o.name + (o.n_star != null ? ' breaks even at N* = ' + sig(o.n_star) : ' does not break even'); }).join('; '),
      x: { min: 1, max: 50, log: true, ticks: [1, 2, 5, 10, 20, 50], fmt: String, label: 'Students sharing the teacher stage (N)' },
      y: { min: 0, max: Math.max.apply(null, ys) * 1.05, label: 'kWh per student' } });
    var out = f.out, xa = f.xa, ya = f.ya, W = f.W, L = f.L, R = f.R, T = f.T, H = f.H, B = f.B;
    var keys = ['ddp', 'tp', 'fsdp', 'hybrid', 'single'];
    var legendItems = [];
    dist.forEach(function (o, i) {
      var key = keys[i % keys.length];
      var d = o.curve.map(function (p, j) { return (j ? 'L' : 'M') + xa.map(p.n).toFixed(1) + ' ' + ya.map(p.kwh_per_student).toFixed(1); }).join('');
      out.push('<path class="line s-' + key + '" d="' + d + '"/>');
      if (o.baseline_student_kwh != null) {
        var by = ya.map(o.baseline_student_kwh).toFixed(1);
        out.push('<line class="line s-' + key + '" stroke-dasharray="6 4" x1="' + L + '" x2="' + (W - R) + '" y1="' + by + '" y2="' + by + '"/>');
      }
      if (o.n_star != null && o.n_star >= 1 && o.n_star <= 50) {
        var nx = xa.map(o.n_star).toFixed(1), ny = ya.map(o.baseline_student_kwh).toFixed(1);
        out.push('<line class="nstar" x1="' + nx + '" x2="' + nx + '" y1="' + T + '" y2="' + (H - B) + '"/><circle class="mark" r="5" cx="' + nx + '" cy="' + ny + '"/>');
        var right = +nx > (L + W - R) / 2;
        out.push('<text class="mark-label" x="' + (+nx + (right ? -6 : 6)) + '" y="' + (T + 14 + i * 18) + '" text-anchor="' + (right ? 'end' : 'start') + '">N* = ' + esc(sig(o.n_star)) + ' (' + esc(o.name) + ')</text>');
      }
      legendItems.push({ key: key, name: o.name + (o.baseline ? ' (dashed: ' + o.baseline + ' student)' : '') });
    });
    out.push('</svg>');
    setHTML(box, out.join('') + legend(legendItems));
  };

  Planner.prototype.renderPlane = function (r) {
    var pts = r.options.filter(function (o) { return o.quality != null; });
    var box = this.results.querySelector('.plane');
    if (!pts.length) { setHTML(box, '<p class="muted">No option has a quality score: give Q to place options on the plane.</p>'); return; }
    var xs = pts.map(function (o) { return o.one_off_kwh; }), qs = pts.map(function (o) { return o.quality; });
    var f = frame({ id: 'plane', width: chartWidth(box), left: 60,
      title: 'Energy–quality plane. Pareto-efficient: ' + r.pareto.map(function (p) { return p.name; }).join(', ') + '. Dominated: ' + (r.dominated.map(function (d) { return d.name; }).join(', ') || 'none'),
      x: { min: 0, max: Math.max.apply(null, xs) * 1.1, label: 'One-off pipeline energy (kWh)' },
      y: { min: Math.max(0, Math.min.apply(null, qs) - 0.05), max: Math.min(1.05, Math.max.apply(null, qs) + 0.05), label: 'Quality Q (0 to 1)' } });
    var out = f.out, xa = f.xa, ya = f.ya, W = f.W;
    var par = r.pareto.slice().sort(function (a, b) { return a.energy_kwh - b.energy_kwh; });
    if (par.length > 1) {
      var d = '';
      par.forEach(function (p, i) {
        var x = xa.map(p.energy_kwh).toFixed(1), y = ya.map(p.quality).toFixed(1);
        if (!i) d += 'M' + x + ' ' + y; else d += 'H' + x + 'V' + y;
      });
      out.push('<path class="front" d="' + d + '"/>');
    }
    var onFront = {};
    r.pareto.forEach(function (p) { onFront[p.name] = true; });
    pts.forEach(function (o) {
      var x = xa.map(o.one_off_kwh), y = ya.map(o.quality);
      var key = { sft: 'single', kd: 'ddp', synthetic: 'tp' }[o.regime] || 'fsdp';
      out.push('<circle class="pt s-' + key + '" style="fill:var(--s-' + key + ')" r="' + (onFront[o.name] ? 7 : 5) + '" cx="' + x.toFixed(1) + '" cy="' + y.toFixed(1) + '"/>');
      var anchor = x > W - 140 ? 'end' : 'start';
      out.push('<text class="mark-label" x="' + (x + (anchor === 'end' ? -10 : 10)).toFixed(1) + '" y="' + (y + 4).toFixed(1) + '" text-anchor="' + anchor + '">' + esc(o.name) + (onFront[o.name] ? '' : ' (dominated)') + '</text>');
    });
    out.push('</svg>');
    setHTML(box, out.join('') + legend([{ key: 'single', name: 'Direct SFT' }, { key: 'ddp', name: 'Logit KD' }, { key: 'tp', name: 'Synthetic-data SFT' }]));
  };

  /* ---------- refit (fit.wasm, loaded on demand) ---------- */

  var fitLoading = null;
  function loadFit() {
    if (!fitLoading) {
      fitLoading = loadGo({ wasm: 'fit.wasm', embedScript: 'fit-embed.js', embedGlobal: 'WATTSCALE_FIT_WASM_GZ_B64', global: 'wattscale_fit', readyHook: 'wattscaleFitReady' })
        .catch(function (e) { fitLoading = null; throw e; });
    }
    return fitLoading;
  }

  // FIT_WORKER runs fit.wasm off the page's thread, so a fit of several
  // seconds never freezes the form; cancelling terminates it.
  var FIT_WORKER = [
    'self.onmessage = async function (e) {',
    '  var d = e.data;',
    '  try {',
    '    if (!self.wattscale_fit) {',
    '      importScripts(d.base + d.exec);',
    '      var go = new Go(), inst;',
    '      var ready = new Promise(function (r) { self.wattscaleFitReady = r; });',
    '      try { inst = (await WebAssembly.instantiateStreaming(fetch(d.base + d.wasm), go.importObject)).instance; }',
    '      catch (x) { var r = await fetch(d.base + d.wasm); if (!r.ok) throw new Error("HTTP " + r.status); inst = (await WebAssembly.instantiate(await r.arrayBuffer(), go.importObject)).instance; }',
    '      go.run(inst);',
    '      if (!self.wattscale_fit) await ready;',
    '    }',
    '    self.postMessage({ stage: "fitting" });',
    '    self.postMessage({ out: self.wattscale_fit.fit(d.arg) });',
    '  } catch (err) { self.postMessage({ error: String(err && err.message || err) }); }',
    '};'].join('\n');

  /* ---------- Paste from Hugging Face (fit.wasm's hf, loaded on demand) ---------- */

  // hfBox is the box that takes a run's Hugging Face files (the model's
  // config.json, the trainer's arguments, PEFT's adapter_config.json),
  // pasted or dropped, reads them with wasm/hfapi (in fit.wasm: the readers
  // are too large for calc.wasm) and lists what it took from which file.
  // The calculator and the planner share it: host.where says in words what
  // the files fill, host.pick is a control put before the text (the
  // planner's option) or null, host.form() is the calculator form the
  // files are read against (its GPU count, layout and model), and
  // host.take(values) puts the values into the page and returns the keys
  // it could not take.
  function hfBox(host) {
    var sec = el('section', { class: 'hf-import', 'aria-labelledby': 'hf-h' });
    if (!BASE && !window.WATTSCALE_FIT_WASM_GZ_B64) {
      sec.innerHTML = '<h2 id="hf-h">Paste from Hugging Face</h2><p>Reading Hugging Face files is not part of this single-file copy. Use it on the full site, or run <code>go run ./site estimate -hf-config config.json -hf-args training_args.json -peft adapter_config.json</code>.</p>';
      return sec;
    }
    sec.innerHTML =
      '<h2 id="hf-h">Paste from Hugging Face</h2>' +
      '<p>Paste or drop the files your run is described by: the model\'s <code>config.json</code>, the trainer\'s arguments as JSON (<code>TrainingArguments</code> or TRL names) and PEFT\'s <code>adapter_config.json</code> (with a QLoRA run\'s <code>BitsAndBytesConfig</code> keys). They fill ' + esc(host.where) + '; a field you type afterwards wins. Nothing leaves this page.</p>' +
      '<div class="field"><label for="hf-text">Files (one or more JSON objects)</label><textarea id="hf-text" rows="5" spellcheck="false"></textarea></div>' +
      '<div class="hf-btns"><button type="button" class="btn primary" id="hf-go">Fill the form</button></div>' +
      '<div class="hf-status" role="status" aria-live="polite"></div><div class="hf-out"></div>';
    var text = sec.querySelector('#hf-text'), go = function () { hfImport(sec, host); };
    if (host.pick) sec.insertBefore(host.pick, text.parentNode);
    text.addEventListener('dragover', function (e) { e.preventDefault(); });
    text.addEventListener('drop', function (e) {
      var files = Array.prototype.slice.call((e.dataTransfer && e.dataTransfer.files) || []);
      if (!files.length) return;
      e.preventDefault();
      Promise.all(files.map(function (f) { return f.text(); })).then(function (ts) { text.value = ts.join('\n'); go(); });
    });
    text.addEventListener('paste', function () { setTimeout(go, 0); });
    sec.querySelector('#hf-go').addEventListener('click', go);
    return sec;
  }

  // hfImport reads the box's files (wasm/hfapi.Import) into host's form
  // and lists what each key gave.
  function hfImport(sec, host) {
    var text = sec.querySelector('#hf-text').value, st = sec.querySelector('.hf-status'), out = sec.querySelector('.hf-out');
    if (!text.trim()) return Promise.resolve();
    tell(st, 'info', 'Reading the files…');
    return loadFit().then(function () {
      var res = call(window.wattscale_fit.hf, { files: [text], form: host.form() });
      if (res.error) {
        tell(st, 'error', res.error.text || res.error.message);
        out.innerHTML = '';
        return;
      }
      var keys = Object.keys(res.form || {}), left = host.take(res.form || {}), took = res.took || [];
      tell(st, left.length ? 'warning' : 'success', 'Filled ' + (keys.length - left.length) + ' fields from ' + took.length + ' keys.' + (left.length ? ' Not taken here: ' + left.join(', ') + '.' : ''));
      var rows = took.map(function (t) {
        return '<tr><td><code>' + esc(t.file) + '</code></td><td><code>' + esc(t.key) + '</code></td><td><code>' + esc(t.value) + '</code></td><td>' +
          (t.field ? '<code>' + esc(t.field) + '</code>' : '') + '</td><td>' + esc(t.use) + (t.note ? ' (' + esc(t.note) + ')' : '') + '</td></tr>';
      });
      out.innerHTML = '<div class="hf-scroll" tabindex="0" role="region" aria-label="What each key gave"><table class="hf-took small"><caption>What each key gave</caption><thead><tr><th scope="col">File</th><th scope="col">Key</th><th scope="col">Value</th><th scope="col">Field</th><th scope="col">Use</th></tr></thead><tbody>' +
        rows.join('') + '</tbody></table></div>' + (res.notes || []).map(function (n) { return '<p class="small">' + esc(n) + '</p>'; }).join('');
    }).catch(function (e) { tell(st, 'error', 'Could not start the importer: ' + (e && e.message || e)); });
  }

  // buildHF adds the box; the files fill the whole form.
  Calculator.prototype.buildHF = function () {
    var self = this;
    this.root.appendChild(hfBox({ where: 'the form above', pick: null, form: function () { return self.state; }, take: function (vals) {
      for (var k in vals) self.state[k] = vals[k];
      self.fill();
      self.update();
      history.replaceState(null, '', '?' + self.query() + location.hash);
      return [];
    } }));
  };

  Calculator.prototype.buildRefit = function () {
    var self = this;
    var sec = el('section', { class: 'refit', 'aria-labelledby': 'refit-h' });
    if (!BASE && !window.WATTSCALE_FIT_WASM_GZ_B64) {
      // The single-file offline copy carries the calculator only.
      sec.innerHTML = '<h2 id="refit-h">Refit the law to your own measurements</h2><p>The refit is not part of this single-file copy. Use it on the full site, or run <code>go run ./site fit -data FILE.csv</code>.</p>';
      this.root.appendChild(sec);
      return;
    }
    sec.innerHTML =
      '<h2 id="refit-h">Refit the law to your own measurements</h2>' +
      '<p>Upload runs you measured, one row per run, in the project\'s CSV schema (columns <code>model</code> or the shape, <code>gpu</code>, <code>count</code>, <code>strategy</code>, <code>seq_len</code>, <code>batch_per_gpu</code>, <code>tokens</code>, <code>precision</code>, <code>energy_kwh</code>, <code>duration_s</code>, and for the paper\'s specification <code>eta</code>, each multi-GPU run\'s measured efficiency T₁/(N·T<sub>N</sub>), and <code>group</code>; the Zeus power trace also works). ' +
      'The fit runs in this page, in the background, with a separate module loaded only now' + fitSize(this.fitBytes) + '; nothing is uploaded anywhere.</p>' +
      '<p class="small">No measurements yet? <a class="sample-dl" href="#" download="wattscale-sample-synthetic.csv">Download a sample CSV</a> or <button type="button" class="btn small" id="refit-sample">put it in the box</button>. ' +
      '<span class="muted">Its rows are synthetic, not measurements: BERT-base and BERT-large runs on V100s computed from the paper\'s published law (calibration ' + esc('zoubeirou2026-bert-pooled') + ', Zoubeirou a Mayaki 2026, arXiv 2606.23546) with 10 % noise and each run\'s parallel efficiency in its eta column, so a law fit gives the law\'s coefficients back within about two standard errors; the roofline fit, another model, fails its checks on it.</span></p>' +
      '<div class="refit-in"><div class="field"><label for="refit-file">Measurement CSV file</label><input type="file" id="refit-file" accept=".csv,text/csv"></div>' +
      '<div class="field"><label for="refit-text">or paste the CSV</label><textarea id="refit-text" rows="4" spellcheck="false"></textarea></div>' +
      '<div class="field"><label for="refit-kind">Fit</label><select id="refit-kind"><option value="law">Log-linear law, hardware terms</option><option value="paper">Paper\'s spec. (measured η)</option><option value="roofline">Roofline model</option></select></div>' +
      '<div class="field wide"><label for="refit-cc">A CodeCarbon emissions.csv? The requests describing its rows (JSON: {"request": …} or {"projects": {"NAME": …}}; empty for a measurement CSV)</label><textarea id="refit-cc" rows="3" spellcheck="false"></textarea></div>' +
      '<div class="field"><label for="refit-scope">CodeCarbon energy</label><select id="refit-scope"><option value="gpu">gpu_energy: the GPUs</option><option value="total">energy_consumed: GPUs, CPU and RAM</option></select></div>' +
      '<div class="refit-btns"><button type="button" class="btn primary" id="refit-go">Fit</button> <button type="button" class="btn" id="refit-cancel" hidden>Cancel</button></div></div>' +
      '<div class="refit-progress" hidden><progress aria-label="Fitting"></progress> <span class="refit-elapsed"></span></div>' +
      '<div class="refit-status" role="status" aria-live="polite"></div><div class="refit-out"></div>';
    this.root.appendChild(sec);
    var file = sec.querySelector('#refit-file'), text = sec.querySelector('#refit-text');
    file.addEventListener('change', function () {
      var f = file.files[0];
      if (!f) return;
      f.text().then(function (t) { text.value = t; self.refitName = f.name; });
    });
    var sample = function () { return self.api ? self.api.sampleCSV() : ''; };
    sec.querySelector('.sample-dl').addEventListener('click', function (e) {
      var a = e.currentTarget;
      if (a.dataset.ready) return;
      a.href = URL.createObjectURL(new Blob([sample()], { type: 'text/csv' }));
      a.dataset.ready = '1';
    });
    sec.querySelector('#refit-sample').addEventListener('click', function () {
      text.value = sample();
      self.refitName = 'wattscale-sample-synthetic.csv';
      file.value = '';
    });
    sec.querySelector('#refit-go').addEventListener('click', function () { self.refit(); });
    sec.querySelector('#refit-cancel').addEventListener('click', function () { self.cancelRefit('Cancelled: the form is as it was.'); });
  };

  // fitSize states fit.wasm's size as the build wrote it: bytes is the
  // mount element's data-fit-bytes, "RAW GZIP" in bytes (gzip -9), set by
  // the generator from the built file; nothing when the build has no fit.wasm.
  function fitSize(bytes) {
    var b = bytes.split(' ').map(Number);
    if (!(b[0] > 0)) return '';
    var mb = function (n) { return (n / 1e6).toFixed(1); };
    var gz = b[1] > 0 ? ', ' + mb(b[1]) + ' MB compressed' : '';
    return ' (<span class="fit-size" data-raw-mb="' + mb(b[0]) + '"' + (gz ? ' data-gzip-mb="' + mb(b[1]) + '"' : '') + '>fit.wasm: ' + mb(b[0]) + ' MB' + gz + '</span>)';
  }

  Calculator.prototype.cancelRefit = function (msg) {
    var sec = this.root.querySelector('.refit');
    if (this.fitWorker) { this.fitWorker.terminate(); this.fitWorker = null; }
    clearInterval(this.fitTimer);
    sec.querySelector('.refit-progress').hidden = true;
    sec.querySelector('#refit-cancel').hidden = true;
    sec.querySelector('#refit-go').disabled = false;
    if (msg) { sec.querySelector('.refit-status').textContent = msg; sec.dataset.state = 'cancelled'; }
  };

  // runFit fits in a Web Worker where the page is served over HTTP(S), and
  // on the page's own thread from file:// (where a worker cannot load the
  // module).
  Calculator.prototype.runFit = function (arg, onStage) {
    var self = this;
    if (location.protocol === 'file:' || !BASE || typeof Worker === 'undefined') {
      return loadFit().then(function (how) {
        onStage('fitting', how);
        return new Promise(function (r) { setTimeout(r, 30); });
      }).then(function () { return call(window.wattscale_fit.fit, arg); });
    }
    return new Promise(function (resolve, reject) {
      if (!self.fitWorker) self.fitWorker = new Worker(URL.createObjectURL(new Blob([FIT_WORKER], { type: 'text/javascript' })));
      var w = self.fitWorker;
      w.onmessage = function (e) {
        if (e.data.stage) onStage(e.data.stage, 'worker');
        else if (e.data.error) reject(new Error(e.data.error));
        else resolve(JSON.parse(e.data.out));
      };
      w.onerror = function (e) { reject(new Error(e.message || 'the fitting worker failed')); };
      w.postMessage({ base: BASE, exec: asset('wasm_exec.js'), wasm: asset('fit.wasm'), arg: JSON.stringify(arg) });
    });
  };

  Calculator.prototype.refit = async function () {
    var self = this;
    var sec = this.root.querySelector('.refit'), st = sec.querySelector('.refit-status'), out = sec.querySelector('.refit-out');
    var csv = sec.querySelector('#refit-text').value;
    var f = sec.querySelector('#refit-file').files[0];
    if (!csv.trim() && f) csv = await f.text();
    if (!csv.trim()) { tell(st, 'warning', 'Choose a CSV file or paste one first.'); return; }
    var arg = { csv: csv, name: this.refitName || (f && f.name) || 'pasted.csv', kind: sec.querySelector('#refit-kind').value };
    var cc = sec.querySelector('#refit-cc').value.trim();
    if (cc) {
      try { arg.codecarbon = JSON.parse(cc); } catch (e) { tell(st, 'error', 'The CodeCarbon requests are not JSON: ' + e.message); sec.dataset.state = 'error'; return; }
      arg.scope = sec.querySelector('#refit-scope').value;
    }
    var rows = csv.trim().split('\n').length - 1;
    var prog = sec.querySelector('.refit-progress'), elapsed = sec.querySelector('.refit-elapsed');
    var t0 = performance.now(), stage = 'Loading the fitting module';
    prog.hidden = false;
    sec.querySelector('#refit-cancel').hidden = false;
    sec.querySelector('#refit-go').disabled = true;
    sec.dataset.state = 'loading';
    tell(st, 'info', stage + '…');
    var tick = function () { elapsed.textContent = stage + ': ' + Math.round((performance.now() - t0) / 1000) + ' s (the form stays usable)'; };
    tick();
    this.fitTimer = setInterval(tick, 500);
    var kind = sec.querySelector('#refit-kind').value;
    var res;
    try {
      res = await this.runFit(arg, function (s, how) {
        sec.dataset.wasmSource = how;
        sec.dataset.state = 'fitting';
        stage = 'Fitting ' + rows + ' rows (' + (kind === 'roofline' ? 'roofline model, a few seconds' : 'log-linear law') + ')';
        tell(st, 'info', stage + '…');
        tick();
      });
    } catch (e) {
      if (sec.dataset.state === 'cancelled') return;
      this.cancelRefit('');
      tell(st, 'error', 'The fitting module could not run: ' + e.message);
      sec.dataset.state = 'error';
      return;
    }
    if (sec.dataset.state === 'cancelled') return;
    this.cancelRefit('');
    if (res.error) {
      tell(st, 'error', 'The fit failed: ' + res.error.text);
      out.innerHTML = '';
      sec.dataset.state = 'error';
      return;
    }
    var failed = (res.checks || []).length > 0;
    tell(st, failed ? 'warning' : 'success', 'Fitted ' + res.calibration.name + ' on ' + res.rows + ' rows in ' + fmtDuration((performance.now() - t0) / 1000) + (failed ? '; it failed its checks (below).' : '.'));
    out.innerHTML = res.html;
    sec.dataset.state = 'done';
    sec.dataset.checks = failed ? 'failed' : 'passed';
    var blob = new Blob([JSON.stringify(res.calibration, null, 2) + '\n'], { type: 'application/json' });
    var a = out.querySelector('.dl');
    a.href = URL.createObjectURL(blob);
    var use = out.querySelector('.use-cal'), anyway = out.querySelector('.use-anyway');
    if (anyway) anyway.addEventListener('change', function () { use.disabled = !anyway.checked; });
    use.addEventListener('click', function (e) {
      var err = self.useOwn(res.calibration, failed);
      var note = out.querySelector('.use-note');
      note.textContent = err ? 'Could not use it: ' + err : 'The calculator above now uses ' + self.state.cal + ' (yours, kept in this browser' + (failed ? ', marked as failing its checks' : '') + '; choose it again under Calibration any time).';
      if (!err) self.root.querySelector('#f-cal').scrollIntoView({ block: 'center' });
    });
  };

  /* ---------- start ---------- */

  // typedValues returns the form values the visitor changed in the
  // prerendered calculator (the generator writes the default estimate into
  // the page; wasm/calcapi/view) before the WebAssembly took over.
  function typedValues(root) {
    var out = {};
    Array.prototype.forEach.call(root.querySelectorAll('.calc-form input[name], .calc-form select[name]'), function (c) {
      if (c.type === 'radio') { if (c.checked && !c.defaultChecked) out[c.name] = c.value; }
      else if (c.type === 'checkbox') { if (c.checked !== c.defaultChecked) out[c.name] = c.checked ? '1' : ''; }
      else if (c.tagName === 'SELECT') { var o = c.options[c.selectedIndex]; if (o && !o.defaultSelected) out[c.name] = c.value; }
      else if (c.value !== c.defaultValue) out[c.name] = c.value;
    });
    return out;
  }

  async function start(root) {
    perf.startMs = performance.now();
    var mode = root.getAttribute('data-mode') || 'calculator';
    // A prerendered calculator stays as it is (numbers, charts, a form
    // that takes input) until the WebAssembly redraws it in place.
    var pre = root.getAttribute('data-prerendered') === '1';
    root.setAttribute('aria-busy', 'true');
    if (!pre) root.innerHTML = '<p class="loading">Loading the calculator…</p>';
    var how;
    // A site built from another content tree hands the WebAssembly that
    // tree's calibrations (site/build.go); it reads them when it starts.
    var cals = root.getAttribute('data-calibrations');
    if (cals) window.wattscaleCalibrations = cals;
    // What the visitor typed into the prerendered form before the
    // WebAssembly answered: kept, and applied over a link's values.
    var carry = null;
    // The wasm's compilation begins at once, on the browser's compiler
    // threads.
    var loading = loadGo(mode === 'planner' ?
      { wasm: 'planner.wasm', embedScript: 'planner-embed.js', embedGlobal: 'WATTSCALE_PLANNER_WASM_GZ_B64', global: 'wattscale', readyHook: 'wattscaleReady' } :
      { wasm: 'calc.wasm', embedScript: 'calc-embed.js', embedGlobal: 'WATTSCALE_WASM_GZ_B64', global: 'wattscale', readyHook: 'wattscaleReady' });
    loading.catch(function () { /* reported below */ });
    try {
      how = await loading;
    } catch (e) {
      var msg = '<p class="fatal" role="alert">The ' + (mode === 'planner' ? 'planner' : 'calculator') + ' could not start: ' + esc(e.message) +
        (pre ? '. The numbers below are the default ' + (mode === 'planner' ? 'plan' : 'estimate') + ', computed when the site was built.' : '') + '</p>';
      unpending(root);
      if (pre) root.insertAdjacentHTML('afterbegin', msg);
      else root.innerHTML = msg;
      root.removeAttribute('aria-busy');
      return;
    }
    root.dataset.wasmSource = how;
    if (how === 'streaming' && perf.wasmResponse) root.dataset.wasmResponse = perf.wasmResponse;
    perf.goReadyMs = performance.now();
    var app;
    if (mode === 'planner') {
      // (The calculator needs no catalogue: Go draws its form.)
      var meta = JSON.parse(window.wattscale.meta());
      perf.metaMs = performance.now();
      // The prerendered plan is patched in place; what the visitor typed
      // into it meanwhile goes through the planner's own input handling.
      var typed = pre ? typedValues(root) : {};
      // (A select the generator left blank, an estimated student's input
      // on a preset row, shows its first option without being typed.)
      Object.keys(typed).forEach(function (k) {
        var c = root.querySelector('.calc-form [name="' + k + '"]');
        if (c && c.tagName === 'SELECT' && c.selectedIndex === 0 && !Array.prototype.some.call(c.options, function (o) { return o.defaultSelected; })) delete typed[k];
      });
      app = new Planner(root, window.wattscale, meta, { adopt: pre });
      root.removeAttribute('data-linked');
      Object.keys(typed).forEach(function (k) {
        var c = app.inputs[k];
        if (!c) return;
        c.value = typed[k];
        app.onInput({ target: c });
      });
    } else {
      carry = pre ? typedValues(root) : null;
      app = new Calculator(root, window.wattscale, { embed: mode === 'embed' || root.getAttribute('data-embed') === '1', carry: carry });
      perf.calculatorMs = performance.now();
      app.update(carry && Object.keys(carry).length ? Object.keys(carry)[0] : '');
      unpending(root);
      perf.firstEstimateCallMs = perf.lastEstimateCallMs;
      root.removeAttribute('data-linked');
    }
    root.removeAttribute('aria-busy');
    root.dataset.ready = '1';
    perf.firstEstimateMs = performance.now();
    // The rest of the page is laid out once this estimate has been
    // painted (calc.css: data-settled), not in the frame that shows it.
    requestAnimationFrame(function () { setTimeout(function () { root.dataset.settled = '1'; }, 0); });
    window.wattscaleApp = app;
    if (mode !== 'embed') registerServiceWorker();
  }

  // registerServiceWorker installs sw.js (written by the generator next to
  // the site's index.html), which keeps the calculator, the planner and
  // their files for visits without a network. Not from file:// (no service
  // workers there) and not in the embedded calculator, which lives in
  // other sites' pages.
  function registerServiceWorker() {
    if (!('serviceWorker' in navigator) || !BASE || !/^https?:$/.test(location.protocol) || window.parent !== window) return;
    var root = new URL('../', BASE);
    navigator.serviceWorker.register(new URL('sw.js', root).href, { scope: root.href }).then(function (reg) {
      perf.serviceWorker = 'registered';
      return reg;
    }, function (e) {
      perf.serviceWorker = 'failed: ' + e.message;
    });
  }

  window.WattscaleInternals = { fmt: fmt, el: el, esc: esc, sig: sig, energyText: energyText, energyParts: energyParts, lineChart: lineChart, legend: legend, copyText: copyText, call: call, timeText: timeText, massText: massText, usd: usd, powerText: powerText, paramsText: paramsText };

  // afterFirstPaint calls f once the page has painted a frame: the
  // WebAssembly's compilation (megabytes, on the page's own thread and the
  // machine's cores) starts after the prerendered estimate is on screen,
  // not in the tasks that parse, lay out and paint it; its download began
  // in the page's head. A tab that is not shown paints no frames: there a
  // timer starts it.
  function afterFirstPaint(f) {
    var done = false;
    function once() { if (!done) { done = true; f(); } }
    requestAnimationFrame(function () { setTimeout(once, 0); });
    setTimeout(once, 1000);
  }

  // pending marks the calculator's figures as the previous estimate while
  // an edit waits for the WebAssembly (root[data-pending], calc.css): the
  // prerendered or last figures stay, dimmed and labelled, and the status
  // line says the change is on its way. The first answer (start) reflects
  // every edit and clears it. Not once the WebAssembly has answered, nor
  // in the planner.
  var PENDING_TEXT = 'Your change is computed as soon as the calculator has loaded: the figures below are the previous estimate.';
  function pending(root) {
    if (root.dataset.ready === '1' || root.getAttribute('data-mode') === 'planner') return;
    var status = root.querySelector('.results .status');
    if (!status) return;
    root.dataset.pending = '1';
    // What was typed goes into the address at once (a reload or a shared
    // link keeps it); the estimate follows when Go answers.
    var q = new URLSearchParams(location.search), typed = typedValues(root);
    Object.keys(typed).forEach(function (k) { q.set(k, typed[k]); });
    history.replaceState(null, '', '?' + q.toString() + location.hash);
    if (status.textContent !== PENDING_TEXT) status.textContent = PENDING_TEXT;
  }

  function unpending(root) {
    if (!root.hasAttribute('data-pending')) return;
    root.removeAttribute('data-pending');
    var status = root.querySelector('.results .status');
    if (status && status.textContent === PENDING_TEXT) status.textContent = '';
  }

  function boot() {
    var root = document.getElementById('calc-root');
    if (!root) return;
    // Edits made before the WebAssembly answers: those made before this
    // script ran (the form is in the page's HTML) and those to come.
    if (root.getAttribute('data-prerendered') === '1') {
      var edited = function (e) { if (e.target && e.target.closest && e.target.closest('.calc-form')) pending(root); };
      root.addEventListener('input', edited);
      root.addEventListener('change', edited);
      if (Object.keys(typedValues(root)).length) pending(root);
    }
    try {
      ASSETS = JSON.parse(root.getAttribute('data-assets') || '{}');
    } catch (e) {
      ASSETS = {};
    }
    if (root.getAttribute('data-prerendered') === '1') afterFirstPaint(function () { start(root); });
    else start(root);
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', boot);
  else boot();
})();
