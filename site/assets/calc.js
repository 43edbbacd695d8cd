/* wattscale calculator and planner: the page side.
 *
 * The page (site/gen/templates) has a mount element <div id="calc-root"
 * data-mode="calculator|planner|embed">, assets/calc.css and
 * assets/wasm_exec.js. Next to this script, under the names the mount's
 * data-assets maps them to: calc.wasm or planner.wasm (started at once),
 * fit.wasm (the refit and the Hugging Face import, when asked for), and
 * each one's NAME-embed.js (base64 of its gzip: the file:// fallback).
 *
 * Go draws everything (wasm/calcapi/view). This file hands Go the form
 * state on each input and morphs its markup into the nodes already there
 * (a prerendered page is taken over in place); it keeps the address, the
 * local storage, the events and the loading of the WebAssembly. No library
 * and no network beyond these files: it works offline and from file://.
 */
(function () {
  'use strict';

  var script = document.currentScript;
  var BASE = script && script.src ? new URL('.', script.src).href : '';
  var perf = (window.wattscalePerf = window.wattscalePerf || {});
  var ASSETS = {};
  var WASM_TYPE = /^application\/wasm\s*(;|$)/i;
  var modules = {}; // the compiled WebAssembly modules by name (loadGo)

  // asset is the name a file next to this script was written under.
  function asset(name) { return ASSETS[name] || name; }

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

  // inflateB64 is the bytes of a base64 gzip stream (an embed script's).
  function inflateB64(b64) {
    var bin = atob(b64), bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))).arrayBuffer();
  }

  // asWasm is a fetched wasm typed application/wasm, for streaming
  // compilation. One typed so already is taken as it is: the browser keeps
  // the code compiled from it (not from a response made in the page).
  function asWasm(r) {
    if (!r.ok) throw new Error('HTTP ' + r.status + ' for ' + r.url);
    if (r.url && WASM_TYPE.test(r.headers.get('Content-Type') || '')) {
      perf.wasmResponse = 'as-served';
      return r;
    }
    perf.wasmResponse = 'retyped';
    return new Response(r.body, { headers: { 'Content-Type': 'application/wasm' } });
  }

  // wasmFrom is the wasm as a response: resp when compressed in transit or
  // kept by the service worker, else the gzip copy beside it (a quarter of
  // the size) inflated in the page; resp when that fails.
  async function wasmFrom(resp, url) {
    var r = await resp;
    perf.wasmResponseMs = performance.now();
    if (!r.ok) throw new Error('HTTP ' + r.status + ' for ' + r.url);
    var kept = navigator.serviceWorker && navigator.serviceWorker.controller;
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
    // browser inflate it: the bytes then start with wasm's magic, not 1f 8b.
    var body = head[0] === 0x1f && head[1] === 0x8b ? rest.pipeThrough(new DecompressionStream('gzip')) : rest;
    return new Response(body, { headers: { 'Content-Type': 'application/wasm' } });
  }

  // keptWasm is the service worker's copy of a content-hashed wasm, read
  // from Cache Storage directly (BenchmarkOfflineRevisit), or null.
  async function keptWasm(url, name) {
    if (asset(name) === name || !window.caches || !navigator.serviceWorker || !navigator.serviceWorker.controller) return null;
    try {
      var r = await caches.match(url);
      return r && r.ok && WASM_TYPE.test(r.headers.get('Content-Type') || '') ? r : null;
    } catch (e) {
      return null;
    }
  }

  // loadGo starts the Go program o.wasm by streaming compilation, else
  // fetch().arrayBuffer(), else o.embedScript's copy (file://), and
  // resolves with the way that worked once it has set window[o.global].
  async function loadGo(o) {
    if (typeof Go === 'undefined') await loadScript(BASE + asset('wasm_exec.js'));
    perf.wasmExecMs = performance.now();
    var url = BASE + asset(o.wasm), go = new Go(), inst = null, mod = null, how = '', errors = [];
    if (location.protocol !== 'file:' && BASE) {
      // The page's head may have fetched it already, or on a return visit
      // compiled the service worker's copy (templates/layout.html).
      var early = window.wattscaleEarlyWasm, resp, kept;
      if (early && early.name === o.wasm) { window.wattscaleEarlyWasm = null; resp = early.response; mod = early.module; }
      try {
        if (mod && (mod = await mod)) {
          inst = await WebAssembly.instantiate(mod, go.importObject);
          how = 'streaming';
          perf.wasmResponse = 'cache';
          perf.wasmEarly = 1;
        }
      } catch (e) {
        errors.push('compiled early: ' + e.message);
      }
    }
    if (!inst && location.protocol !== 'file:' && BASE) {
      kept = await keptWasm(url, o.wasm);
      if (kept) {
        if (resp) resp.then(function (r) { if (r.body) r.body.cancel(); }, function () {});
        resp = Promise.resolve(kept);
      } else if (!resp) resp = fetch(url);
      try {
        ({ instance: inst, module: mod } = await WebAssembly.instantiateStreaming(wasmFrom(resp, url), go.importObject));
        how = 'streaming';
        if (kept) perf.wasmResponse = 'cache';
      } catch (e) {
        errors.push('streaming: ' + e.message);
      }
      if (!inst) {
        try {
          var r = await fetch(url);
          if (!r.ok) throw new Error('HTTP ' + r.status);
          ({ instance: inst, module: mod } = await WebAssembly.instantiate(await r.arrayBuffer(), go.importObject));
          how = 'arraybuffer';
        } catch (e) {
          errors.push('arrayBuffer: ' + e.message);
        }
      }
    }
    if (!inst) {
      try {
        if (!window[o.embedGlobal]) await loadScript(BASE + asset(o.embedScript));
        ({ instance: inst, module: mod } = await WebAssembly.instantiate(await inflateB64(window[o.embedGlobal]), go.importObject));
        how = 'embedded';
      } catch (e) {
        errors.push('embedded copy: ' + e.message);
        throw new Error('could not start ' + o.wasm + ' (' + errors.join('; ') + ')');
      }
    }
    perf.wasmInstantiatedMs = performance.now();
    modules[o.wasm] = mod;
    var ready = new Promise(function (resolve) { window[o.readyHook] = resolve; });
    go.run(inst).then(function () { window[o.global] = undefined; });
    if (!window[o.global]) await ready;
    if (!window[o.global]) throw new Error(o.wasm + ' did not start' + (window.wattscaleError ? ': ' + window.wattscaleError : ''));
    return how;
  }

  function call(fn, arg) { return JSON.parse(fn(JSON.stringify(arg))); }

  /* ---------- putting Go's markup in place ---------- */

  // tell shows a status message of a kind (error, warning, success, info),
  // announced at once only for an error.
  function tell(el, kind, text) {
    if (!el) return;
    el.textContent = text;
    el.dataset.kind = text ? kind : '';
    el.setAttribute('role', kind === 'error' && text ? 'alert' : 'status');
  }

  function para(cls, text) {
    var p = document.createElement('p');
    p.className = cls;
    p.textContent = text;
    return p;
  }

  // setHTML morphs e's content into html: the nodes already there are
  // kept, so a takeover and each recompute restyle only what changed.
  function setHTML(e, html) {
    var t = document.createElement('template');
    t.innerHTML = html;
    morphChildren(e, t.content);
  }

  // sameNode says whether a kept node a can stand for the new node b: same
  // name and id, or form key (a field in error keeps its input's focus and
  // caret), or, with neither, class.
  function sameNode(a, b) {
    if (a.nodeType !== b.nodeType) return false;
    if (a.nodeType !== 1) return true;
    if (a.nodeName !== b.nodeName) return false;
    var id = b.getAttribute('id'), key = b.getAttribute('data-key');
    if (id !== null || a.getAttribute('id') !== null) return a.getAttribute('id') === id;
    if (key !== null || a.getAttribute('data-key') !== null) return a.getAttribute('data-key') === key;
    return a.getAttribute('class') === b.getAttribute('class');
  }

  // morphChildren morphs each new child into the first kept child that can
  // stand for it (removing those skipped) or moves it in.
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

  // morphNode makes live look as fresh. Controls' values are properties
  // (fill): their attributes stay, as does an opened details element.
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
    if (!fresh.hasAttribute('data-js')) morphChildren(live, fresh);
  }

  // place morphs the parts of Go's answer out that changed since seen into
  // live (root's sel), or puts its whole markup at the top of root; false
  // when it has none.
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

  // show puts Go's answer out into app's page (under sel): the markup, the
  // controls' values (values, else the form), the page's state and, when
  // address, the address; false when the answer has no markup.
  function show(app, live, out, sel, values, address) {
    var root = app.root;
    if (!place(root, live, out, app.parts || (app.parts = {}), sel)) return false;
    app.out = out;
    app.state = out.form;
    fill(root.querySelectorAll(sel + ' [name]'), values || out.form);
    if (root.dataset.state !== out.state) root.dataset.state = out.state;
    if (address) history.replaceState(null, '', '?' + out.query + location.hash);
    return true;
  }

  // fill sets each control's value and checked state from the values s.
  function fill(controls, s) {
    Array.prototype.forEach.call(controls, function (c) {
      var v = s[c.name] == null ? '' : s[c.name];
      if (c.type === 'radio') { if (c.checked !== (c.value === v)) c.checked = c.value === v; }
      else if (c.type === 'checkbox') { var on = v === '1' || v === 'true' || v === 'on'; if (c.checked !== on) c.checked = on; }
      else if (c.value !== v) c.value = v;
    });
  }

  // wireForm sends root's inputs to onInput, and calls onResize after the
  // window's last resize.
  function wireForm(root, onInput, onResize) {
    var tid = 0;
    root.addEventListener('input', onInput);
    root.addEventListener('change', onInput);
    root.addEventListener('submit', function (e) { if (e.target.closest('.calc-form')) e.preventDefault(); });
    window.addEventListener('resize', function () { clearTimeout(tid); tid = setTimeout(onResize, 150); });
  }

  async function copyText(text, btn) {
    var ok = false;
    try {
      if (navigator.clipboard && window.isSecureContext) { await navigator.clipboard.writeText(text); ok = true; }
    } catch (e) { ok = false; }
    if (!ok) {
      var ta = document.createElement('textarea');
      ta.className = 'offscreen';
      ta.setAttribute('aria-hidden', 'true');
      ta.tabIndex = -1;
      ta.value = text;
      document.body.appendChild(ta);
      ta.select();
      try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
      ta.remove();
    }
    var old = btn.dataset.label || btn.textContent;
    btn.dataset.label = old;
    btn.textContent = btn.closest('.share').getAttribute(ok ? 'data-copied' : 'data-copy-failed');
    setTimeout(function () { btn.textContent = old; }, 1600);
  }

  /* ---------- the calculator (calc.wasm's render, view.CalcFuncs) ---------- */

  function Calculator(root, api, embed) {
    this.root = root;
    this.api = api;
    this.embed = embed;
    this.state = {}; // the form as Go last answered it
    this.out = null; // the last answer
    this.wire();
    this.loadOwn();
    if (!embed) this.boxes();
  }

  // open has Go open the page's link, with what was typed (typed) over it.
  Calculator.prototype.open = function (typed) {
    var q = new URLSearchParams(location.search);
    Object.keys(typed).forEach(function (k) { q.set(k, typed[k]); });
    return this.update(Object.keys(typed)[0] || '', q.toString());
  };

  // The user's own calibrations, fitted here and kept in local storage; one
  // that failed its checks only when the user said so (ACCEPT_KEY).
  var OWN_KEY = 'wattscale-own-calibrations', ACCEPT_KEY = 'wattscale-own-accepted';
  function stored(key) {
    try { var v = JSON.parse(localStorage.getItem(key) || '[]'); return Array.isArray(v) ? v : []; } catch (e) { return []; }
  }
  Calculator.prototype.loadOwn = function () {
    var cals = stored(OWN_KEY);
    if (cals.length && this.api && this.api.addCalibration) this.api.addCalibration(JSON.stringify({ calibrations: cals, accept: stored(ACCEPT_KEY) }));
  };
  // useOwn adds a calibration just fitted (anyway: although it failed its
  // checks) to calc.wasm and local storage and selects it, answering
  // addCalibration's answer ({} or {"error"}).
  Calculator.prototype.useOwn = function (cal, anyway) {
    var cals = stored(OWN_KEY).filter(function (c) { return c.name !== cal.name; }).concat([cal]);
    var accept = stored(ACCEPT_KEY).filter(function (n) { return n !== cal.name; }).concat(anyway ? [cal.name] : []);
    var res = this.api.addCalibration(JSON.stringify({ calibrations: cals, accept: accept }));
    if (res.error) return res;
    try { localStorage.setItem(OWN_KEY, JSON.stringify(cals)); localStorage.setItem(ACCEPT_KEY, JSON.stringify(accept)); } catch (e) { /* private mode: this visit only */ }
    this.state.cal = cal.name;
    this.update('cal');
    this.root.querySelector('#f-cal').scrollIntoView({ block: 'center' });
    return res;
  };

  Calculator.prototype.query = function () { return this.out ? this.out.query : location.search.slice(1); };
  Calculator.prototype.shareURL = function () {
    var u = new URL(location.href);
    u.search = this.query();
    u.hash = '';
    return u.href;
  };

  // wire listens to the form, the recommender's points (arrows move between
  // them) and the copy buttons.
  Calculator.prototype.wire = function () {
    var self = this, root = this.root;
    wireForm(root, function (e) { self.onInput(e); }, function () {
      var ce = root.querySelector('.chart-e');
      if (self.out && ce && ce.clientWidth !== self.chartW) self.update('');
    });
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
      copyText(what === 'url' ? self.shareURL() : (root.querySelector('#snip-' + what) || {}).textContent || '', b);
    });
  };

  Calculator.prototype.onInput = function (e) {
    var t = e.target, k = t.name;
    if (!k || !(k in this.state) || !t.closest('.calc-layout')) return;
    var v = t.type === 'checkbox' ? (t.checked ? '1' : '') : t.value;
    if ((t.type === 'radio' && !t.checked) || this.state[k] === v) return;
    this.state[k] = v;
    this.update(k);
  };

  // update has Go draw the form state, or open the link (changed: the
  // input just changed; a query string in, an object out) and puts it in
  // place.
  Calculator.prototype.update = function (changed, link) {
    if (!this.api) return null;
    var root = this.root, ce = root.querySelector('.chart-e'), ct = root.querySelector('.chart-t');
    var widths = root.querySelector('.results.empty') || !ce ? {} : { e: ce.clientWidth, t: ct ? ct.clientWidth : 0 };
    var t0 = performance.now(), live = root.querySelector('.calc-layout');
    var out = this.api.render(link == null ? new URLSearchParams(this.state).toString() : link, changed, widths.e || 0, widths.t || 0, this.embed, !!live, link != null);
    perf.lastEstimateCallMs = performance.now() - t0;
    if (!show(this, live, out, '.calc-layout', null, changed)) return out;
    this.chartW = widths.e || (root.querySelector('.chart-e') || {}).clientWidth;
    perf.sweepPoints = root.querySelectorAll('.chart-e path.line').length;
    if (out.state !== 'ok') return out;
    this.last = out; // the last answer that estimated
    var u = root.querySelector('#share-url');
    if (u && u.value !== this.shareURL()) u.value = this.shareURL();
    if (this.embed) this.tellParent(out.post);
    else this.adviseLater();
    return out;
  };

  // adviseLater has Go draw the recommender's panel (tens of ms) once the
  // figures are painted, so no input waits for it.
  Calculator.prototype.adviseLater = function () {
    if (this.advising) return;
    this.advising = true;
    var self = this;
    requestAnimationFrame(function () {
      setTimeout(function () {
        self.advising = false;
        try { self.advise(); } catch (e) {
          var co = self.root.querySelector('.cheaper-out');
          if (co) co.replaceChildren(para('err', co.getAttribute('data-fail') + ': ' + e.message));
        }
      }, 0);
    });
  };

  // advise draws the panel; a deadline or objective in error is shown
  // beside its input.
  Calculator.prototype.advise = function () {
    var co = this.root.querySelector('.cheaper-out');
    if (!co || !this.api || !this.api.advise || !this.out || this.out.state !== 'ok') return;
    var t0 = performance.now(), html = this.api.advise(new URLSearchParams(this.state).toString(), co.clientWidth || 0);
    perf.lastRecommendMs = performance.now() - t0;
    setHTML(co, html);
    var bad = co.querySelector('[data-input]'), f = bad && this.root.querySelector('.calc-layout [data-key="' + bad.getAttribute('data-input') + '"]');
    if (f) {
      f.classList.add('invalid');
      var er = f.querySelector('.err'), msg = bad.getAttribute('data-msg');
      if (er.textContent !== msg) er.textContent = msg;
    }
  };

  // tellParent reports each estimate (figures shown anyway) and the height
  // to the page that embeds this one (assets/embed.js).
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

  // loadConfig estimates a recommender point's form values (data-load).
  Calculator.prototype.loadConfig = function (g) {
    var s = this.state;
    new URLSearchParams(g.getAttribute('data-load') || '').forEach(function (v, k) { s[k] = v; });
    this.update('gpu');
    tell(this.root.querySelector('.results .status'), 'success', g.getAttribute('data-loaded'));
    var e = this.root.querySelector('#energy');
    if (e) e.closest('.results').scrollIntoView({ block: 'start' });
  };

  // boxes hands the Hugging Face and refit boxes to fit.wasm: the files
  // fill the whole form; a refit is used through useOwn.
  Calculator.prototype.boxes = function () {
    var self = this;
    fitBoxes(this.root, {
      form: function () { return self.state; },
      take: function (vals) {
        Object.assign(self.state, vals);
        self.update(); // which puts Go's form in the controls
        history.replaceState(null, '', '?' + self.query() + location.hash);
        return [];
      },
      use: function (cal, anyway) { return self.useOwn(cal, anyway); }
    });
  };

  /* ---------- the planner (planner.wasm's render, view.PlanFuncs: its rules are Go's) ---------- */

  function Planner(root, wasm) {
    this.root = root;
    this.wasm = wasm;
    this.state = null; // the form as Go last answered it
    this.hfPick = root.querySelector('#hf-row');
    var self = this;
    root.classList.add('wattscale', 'planner');
    wireForm(root, function (e) { self.onInput(e); }, function () { if (self.width() !== self.chartW) self.update({}); });
    root.addEventListener('click', function (e) {
      var b = e.target.closest && e.target.closest('.plan-layout [data-add], .plan-layout [data-remove], .plan-layout [data-use]');
      if (!b) return;
      if (b.hasAttribute('data-add')) self.update({ action: 'add' });
      else if (b.hasAttribute('data-remove')) self.update({ action: 'remove', row: +b.getAttribute('data-remove') });
      else self.update({ action: 'use', row: +b.getAttribute('data-use') });
    });
    this.update({ link: location.search });
    // The Hugging Face files fill the chosen option's student stage.
    var row = function () { return +self.hfPick.value || 1; };
    fitBoxes(root, { form: function () { return self.out.hf[row() - 1]; }, take: function (vals) { return self.update({ action: 'hf', row: row(), values: vals }).left || []; } });
  }

  // width is the charts' box's width (0 before the first layout).
  Planner.prototype.width = function () {
    var b = this.root.querySelector('.plan-layout .stages');
    return b ? b.clientWidth : 0;
  };

  Planner.prototype.onInput = function (e) {
    var t = e.target, k = t.name;
    if (!k || !this.state || !t.closest('.plan-layout') || this.out.show[k] === t.value) return;
    this.update({ changed: k, value: t.value });
  };

  // update has Go apply the change o to the form and draw the result.
  Planner.prototype.update = function (o) {
    var root = this.root, live = root.querySelector('.plan-layout');
    o.form = this.state;
    o.width = this.width();
    o.parts = !!live;
    var t0 = performance.now(), out = call(this.wasm.render, o);
    perf.lastPlanMs = performance.now() - t0;
    show(this, live, out, '.plan-layout', out.show, o.changed || o.action);
    this.chartW = this.width();
    var f = out.focus && document.getElementById('f-' + out.focus);
    if (f) f.focus();
    if (this.hfPick) {
      var was = this.hfPick.value;
      setHTML(this.hfPick, out.hf_options);
      this.hfPick.value = was && +was <= out.hf.length ? was : '1';
    }
    return out;
  };

  /* ---------- the boxes that run fit.wasm (view.HFBox, view.RefitBox) ---------- */

  var fitLoading = null;
  function loadFit() {
    if (!fitLoading) {
      fitLoading = loadGo({ wasm: 'fit.wasm', embedScript: 'fit-embed.js', embedGlobal: 'WATTSCALE_FIT_WASM_GZ_B64', global: 'wattscale_fit', readyHook: 'wattscaleFitReady' })
        .catch(function (e) { fitLoading = null; throw e; });
    }
    return fitLoading;
  }

  // fitWorker starts fit.wasm in a Web Worker, where it fits what the box
  // posts (wasm/fit): a fit takes seconds. The worker instantiates the
  // module the page compiled (loadFit), posted to it, instead of fetching
  // and compiling its own. Not from file://, where a worker cannot load
  // wasm_exec.js (fit.wasm then fits on the page).
  function fitWorker() {
    var w = new Worker(URL.createObjectURL(new Blob(['importScripts(' + JSON.stringify(BASE + asset('wasm_exec.js')) + ');\n' +
      'onmessage = function (e) { var go = new Go(); WebAssembly.instantiate(e.data, go.importObject).then(function (i) { go.run(i); },\n' +
      '  function (x) { postMessage({ error: String(x && x.message || x) }); }); };\n'], { type: 'text/javascript' })));
    w.postMessage(modules['fit.wasm']);
    return w;
  }

  // fitBoxes shows root's boxes that run fit.wasm and hands it each of
  // their events, loading it on the first (wasm/fit says what it does with
  // them and with hooks). A dropped file and a click on the sample's
  // download before fit.wasm made it are held back from the browser,
  // which would open the file or download the page.
  function fitBoxes(root, hooks) {
    hooks.tell = tell;
    if (location.protocol !== 'file:' && BASE && typeof Worker !== 'undefined') hooks.worker = fitWorker;
    Array.prototype.forEach.call(root.querySelectorAll('.hf-import, .refit'), function (sec) {
      sec.hidden = false;
      if (!sec.querySelector('textarea')) return; // the single-file copy's box
      var send = function (e) {
        var files = Array.prototype.slice.call((e.type === 'drop' && e.dataTransfer.files) || []);
        if (e.type === 'dragover' || files.length || e.target.matches('a[download][href="#"]')) e.preventDefault();
        var ev = { type: e.type, target: e.target, files: files };
        loadFit().then(function (how) { window.wattscale_fit.box(sec, ev, hooks, how); }, function (err) {
          var st = sec.querySelector('[data-fail]');
          tell(st, 'error', st.getAttribute('data-fail') + ': ' + err.message);
        });
      };
      ['click', 'change', 'paste', 'dragover', 'drop'].forEach(function (t) { sec.addEventListener(t, send); });
    });
  }

  /* ---------- start ---------- */

  // typedValues is what the visitor changed in the prerendered form (a
  // select prerendered blank shows its first option untyped).
  function typedValues(root) {
    var out = {}, some = Array.prototype.some, chosen = function (o) { return o.defaultSelected; };
    Array.prototype.forEach.call(root.querySelectorAll('.calc-form input[name], .calc-form select[name]'), function (c) {
      if (c.type === 'radio') { if (c.checked && !c.defaultChecked) out[c.name] = c.value; }
      else if (c.type === 'checkbox') { if (c.checked !== c.defaultChecked) out[c.name] = c.checked ? '1' : ''; }
      else if (c.tagName === 'SELECT') { if (c.selectedIndex >= 0 && !chosen(c.options[c.selectedIndex]) && (c.selectedIndex > 0 || some.call(c.options, chosen))) out[c.name] = c.value; }
      else if (c.value !== c.defaultValue) out[c.name] = c.value;
    });
    return out;
  }

  async function start(root) {
    perf.startMs = performance.now();
    var mode = root.getAttribute('data-mode') || 'calculator', planner = mode === 'planner';
    // A prerendered page stays as it is until Go redraws it in place.
    var pre = root.getAttribute('data-prerendered') === '1';
    root.setAttribute('aria-busy', 'true');
    if (!pre) root.replaceChildren(...root.querySelectorAll(':scope > .calc-loading, :scope > section[hidden]'));
    // Another content tree's calibrations, read by Go when it starts.
    var cals = root.getAttribute('data-calibrations');
    if (cals) window.wattscaleCalibrations = cals;
    var loading = loadGo(planner ?
      { wasm: 'planner.wasm', embedScript: 'planner-embed.js', embedGlobal: 'WATTSCALE_PLANNER_WASM_GZ_B64', global: 'wattscale', readyHook: 'wattscaleReady' } :
      { wasm: 'calc.wasm', embedScript: 'calc-embed.js', embedGlobal: 'WATTSCALE_WASM_GZ_B64', global: 'wattscale', readyHook: 'wattscaleReady' });
    var how;
    try {
      how = await loading;
    } catch (e) {
      var msg = para('fatal', root.getAttribute('data-fail') + ': ' + e.message + (pre ? '. ' + root.getAttribute('data-fail-note') : ''));
      msg.setAttribute('role', 'alert');
      unpending(root);
      if (pre) root.insertBefore(msg, root.firstChild);
      else root.replaceChildren(msg);
      root.removeAttribute('aria-busy');
      return;
    }
    root.dataset.wasmSource = how;
    if (how === 'streaming' && perf.wasmResponse) root.dataset.wasmResponse = perf.wasmResponse;
    perf.goReadyMs = performance.now();
    // What was typed meanwhile goes over a link's values, or to the planner as changes.
    var typed = pre ? typedValues(root) : {}, app;
    if (planner) {
      app = new Planner(root, window.wattscale);
      Object.keys(typed).forEach(function (k) { app.update({ changed: k, value: typed[k] }); });
    } else {
      app = new Calculator(root, window.wattscale, mode === 'embed' || root.getAttribute('data-embed') === '1');
      perf.calculatorMs = performance.now();
      app.open(typed);
      perf.firstEstimateCallMs = perf.lastEstimateCallMs;
    }
    unpending(root);
    root.removeAttribute('data-linked');
    var loadingP = !pre && root.querySelector(':scope > .calc-loading');
    if (loadingP) loadingP.remove();
    root.removeAttribute('aria-busy');
    root.dataset.ready = '1';
    perf.firstEstimateMs = performance.now();
    // The rest of the page is laid out after this frame (data-settled).
    requestAnimationFrame(function () { setTimeout(function () { root.dataset.settled = '1'; }, 0); });
    window.wattscaleApp = app;
    if (mode !== 'embed') registerServiceWorker();
  }

  // registerServiceWorker installs sw.js, which keeps the pages and files
  // for visits offline (not from file:// nor when embedded).
  function registerServiceWorker() {
    if (!('serviceWorker' in navigator) || !BASE || !/^https?:$/.test(location.protocol) || window.parent !== window) return;
    var root = new URL('../', BASE);
    navigator.serviceWorker.register(new URL('sw.js', root).href, { scope: root.href }).then(function () {
      perf.serviceWorker = 'registered';
    }, function (e) {
      perf.serviceWorker = 'failed: ' + e.message;
    });
  }

  // afterFirstPaint calls f once a frame is painted (or after a second in
  // a hidden tab): compiling the wasm waits for the prerendered estimate.
  function afterFirstPaint(f) {
    var done = false;
    function once() { if (!done) { done = true; f(); } }
    requestAnimationFrame(function () { setTimeout(once, 0); });
    setTimeout(once, 1000);
  }

  // pending marks the figures as the previous estimate (data-pending) and
  // puts what was typed into the address while an edit waits for the wasm;
  // the status line says so in the words Go gave it (its data-pending).
  function pending(root) {
    if (root.dataset.ready === '1' || root.getAttribute('data-mode') === 'planner') return;
    var status = root.querySelector('.results .status[data-pending]');
    if (!status) return;
    root.dataset.pending = '1';
    var q = new URLSearchParams(location.search), typed = typedValues(root);
    Object.keys(typed).forEach(function (k) { q.set(k, typed[k]); });
    history.replaceState(null, '', '?' + q.toString() + location.hash);
    if (status.textContent !== status.dataset.pending) status.textContent = status.dataset.pending;
  }

  function unpending(root) {
    if (!root.hasAttribute('data-pending')) return;
    root.removeAttribute('data-pending');
    var status = root.querySelector('.results .status[data-pending]');
    if (status && status.textContent === status.dataset.pending) status.textContent = '';
  }

  function boot() {
    var root = document.getElementById('calc-root');
    if (!root) return;
    try {
      ASSETS = JSON.parse(root.getAttribute('data-assets') || '{}');
    } catch (e) {
      ASSETS = {};
    }
    if (root.getAttribute('data-prerendered') !== '1') return start(root);
    // Edits made before Go answers: before this script ran and to come.
    var edited = function (e) { if (e.target && e.target.closest && e.target.closest('.calc-form')) pending(root); };
    root.addEventListener('input', edited);
    root.addEventListener('change', edited);
    if (Object.keys(typedValues(root)).length) pending(root);
    afterFirstPaint(function () { start(root); });
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', boot);
  else boot();
})();
