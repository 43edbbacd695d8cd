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
    morphChildren(e, t.content);
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
  // a child with no counterpart is moved in.
  function morphChildren(live, fresh) {
    var kids = Array.prototype.slice.call(fresh.childNodes), lc = live.firstChild;
    for (var i = 0; i < kids.length; i++) {
      var fc = kids[i], m = lc;
      while (m && !sameNode(m, fc)) m = m.nextSibling;
      if (!m) { live.insertBefore(fc, lc); continue; }
      while (lc !== m) { var gone = lc; lc = lc.nextSibling; live.removeChild(gone); }
      morphNode(m, fc);
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
  function morphNode(live, fresh) {
    if (live.nodeType !== 1) { if (live.data !== fresh.data) live.data = fresh.data; return; }
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
    if (!fresh.hasAttribute('data-js')) morphChildren(live, fresh);
  }

  // place puts Go's answer out (RenderOutput, PlanRenderOutput) into the
  // page: only the parts whose markup changed (seen: the markup of each
  // part as last placed) are parsed and morphed into live, the element
  // matching sel; without live the whole markup goes in at the top of
  // root. False when the answer has no markup.
  function place(root, live, out, seen, sel) {
    var t = document.createElement('template');
    if (out.parts) {
      out.parts.forEach(function (p) {
        if (seen[p.key] === p.html) return;
        var n = live.querySelector('[data-part="' + p.key + '"]');
        t.innerHTML = p.html;
        if (n && t.content.firstElementChild) morphNode(n, t.content.firstElementChild);
        seen[p.key] = p.html;
      });
    } else if (out.html) {
      t.innerHTML = out.html;
      var fresh = t.content.querySelector(sel);
      if (live && fresh) morphNode(live, fresh);
      else root.insertBefore(t.content, root.firstChild);
    } else return false;
    return true;
  }

  // fill sets each control's value and checked state (properties, which
  // the morph leaves alone) from the values s Go answered with.
  function fill(controls, s) {
    Array.prototype.forEach.call(controls, function (c) {
      var v = s[c.name] == null ? '' : s[c.name];
      if (c.type === 'radio') { if (c.checked !== (c.value === v)) c.checked = c.value === v; }
      else if (c.type === 'checkbox') { var on = v === '1' || v === 'true' || v === 'on'; if (c.checked !== on) c.checked = on; }
      else if (c.value !== v) c.value = v;
    });
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
    if (!place(root, live, out, this.parts || (this.parts = {}), '.calc-layout')) return out;
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

  // fill: the calculator's controls from the state Go answered with.
  Calculator.prototype.fill = function () { fill(this.root.querySelectorAll('.calc-layout [name]'), this.state); };

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

  /* ---------- the distillation planner ----------
   * Go draws it (wasm/calcapi/view, through planner.wasm's render) and
   * keeps its rules (a ready-made plan fills the rows, editing a preset row
   * makes it the user's own, rows added and removed, a searched
   * configuration or Hugging Face files loaded into a row). This reports
   * each change with the state Go last answered, and puts the markup in
   * place as the calculator's. */

  function Planner(root, wasm) {
    this.root = root;
    this.wasm = wasm;
    this.state = null; // the form as Go last answered it
    var self = this;
    root.classList.add('wattscale', 'planner');
    var onInput = function (e) { self.onInput(e); };
    root.addEventListener('input', onInput);
    root.addEventListener('change', onInput);
    root.addEventListener('submit', function (e) { if (e.target.closest('.calc-form')) e.preventDefault(); });
    root.addEventListener('click', function (e) {
      var b = e.target.closest && e.target.closest('.plan-layout [data-add], .plan-layout [data-remove], .plan-layout [data-use]');
      if (!b) return;
      if (b.hasAttribute('data-add')) self.update({ action: 'add' });
      else if (b.hasAttribute('data-remove')) self.update({ action: 'remove', row: +b.getAttribute('data-remove') });
      else self.update({ action: 'use', row: +b.getAttribute('data-use') });
    });
    var tid = 0;
    window.addEventListener('resize', function () {
      clearTimeout(tid);
      tid = setTimeout(function () { if (self.width() !== self.chartW) self.update({}); }, 150);
    });
    this.update({ link: location.search });
    this.buildHF();
  }

  // width is the width of the charts' box (0 before the first layout).
  Planner.prototype.width = function () {
    var b = this.root.querySelector('.plan-layout .stages');
    return b ? b.clientWidth : 0;
  };

  Planner.prototype.onInput = function (e) {
    var t = e.target, k = t.name;
    if (!k || !this.state || !t.closest('.plan-layout') || this.show[k] === t.value) return;
    this.update({ changed: k, value: t.value });
  };

  // update has Go apply the change o to the form and draw the result.
  Planner.prototype.update = function (o) {
    var root = this.root, live = root.querySelector('.plan-layout');
    o.form = this.state;
    o.width = this.width();
    o.parts = !!live;
    var t0 = performance.now();
    var out = call(this.wasm.render, o);
    perf.lastPlanMs = performance.now() - t0;
    place(root, live, out, this.parts || (this.parts = {}), '.plan-layout');
    this.out = out;
    this.state = out.form;
    this.show = out.show;
    fill(root.querySelectorAll('.plan-layout [name]'), out.show);
    if (root.dataset.state !== out.state) root.dataset.state = out.state;
    this.chartW = this.width();
    if (o.changed || o.action) history.replaceState(null, '', '?' + out.query + location.hash);
    var f = out.focus && document.getElementById('f-' + out.focus);
    if (f) f.focus();
    if (this.hfPick) this.hfRows();
    return out;
  };

  // buildHF adds the "Paste from Hugging Face" box (hfBox, as the
  // calculator's) after the plan, with a choice of the option whose
  // student stage the files describe; that stage is then estimated.
  Planner.prototype.buildHF = function () {
    var self = this;
    this.hfPick = el('div', { class: 'field' }, [el('label', { for: 'hf-row', text: 'Option to fill' }), el('select', { id: 'hf-row' })]);
    this.hfRows();
    this.root.appendChild(hfBox({ where: 'the chosen option\'s estimated student stage', pick: this.hfPick,
      form: function () { return self.out.hf[self.hfRow() - 1]; },
      take: function (vals) { return self.update({ action: 'hf', row: self.hfRow(), values: vals }).left || []; } }));
  };
  Planner.prototype.hfRow = function () { return +this.hfPick.querySelector('select').value || 1; };
  Planner.prototype.hfRows = function () {
    var c = this.hfPick.querySelector('select'), was = c.value;
    setHTML(c, this.out.hf_options);
    c.value = was && +was <= this.out.hf.length ? was : '1';
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
      // The prerendered plan is morphed in place; what the visitor typed
      // into it meanwhile is then handed to Go as changes.
      var typed = pre ? typedValues(root) : {};
      // (A select the generator left blank, an estimated student's input
      // on a preset row, shows its first option without being typed.)
      Object.keys(typed).forEach(function (k) {
        var c = root.querySelector('.calc-form [name="' + k + '"]');
        if (c && c.tagName === 'SELECT' && c.selectedIndex === 0 && !Array.prototype.some.call(c.options, function (o) { return o.defaultSelected; })) delete typed[k];
      });
      app = new Planner(root, window.wattscale);
      root.removeAttribute('data-linked');
      Object.keys(typed).forEach(function (k) { app.update({ changed: k, value: typed[k] }); });
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

  window.WattscaleInternals = { fmt: fmt, el: el, esc: esc, sig: sig, energyText: energyText, energyParts: energyParts, copyText: copyText, call: call, timeText: timeText, massText: massText, usd: usd, powerText: powerText, paramsText: paramsText };

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
