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
  var modules = {}; // the compiled WebAssembly modules by name (loadGo)

  // asset is the name a file next to this script was written under.
  function asset(name) { return ASSETS[name] || name; }

  /* ---------- loading Go WebAssembly ---------- */

  function loadScript(src) {
    return new Promise(function (resolve, reject) {
      document.head.appendChild(Object.assign(document.createElement('script'), { src: src, onload: resolve, onerror: function () { reject(new Error('could not load ' + src)); } }));
    });
  }

  // inflateB64 is the bytes of a base64 gzip stream (an embed script's).
  function inflateB64(b64) {
    var bin = atob(b64), bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))).arrayBuffer();
  }

  // loadGo starts the Go program NAME.wasm and resolves with the way that
  // worked once it has set window[global]: streaming compilation, of what
  // the page's head started while the page was parsed (site/assets/head.js,
  // inline in the page: the module compiled from the service worker's copy,
  // or the response to compile) or now through the head's wattscaleCompile
  // (which chooses between the host's response and the build's gzip copy
  // inflated in the page); else
  // fetch().arrayBuffer(); else the copy in NAME-embed.js (the only way
  // from file://), which sets window.WATTSCALE_NAME_WASM_GZ_B64. readyHook
  // is the function Go calls when its functions are set (jsexport).
  async function loadGo(name, global, readyHook) {
    if (typeof Go === 'undefined') await loadScript(BASE + asset('wasm_exec.js'));
    perf.wasmExecMs = performance.now();
    var wasm = name + '.wasm', b64 = 'WATTSCALE_' + name.toUpperCase() + '_WASM_GZ_B64';
    var url = BASE + asset(wasm), go = new Go(), r = null, how, errors = [], early = window.wattscaleEarlyWasm;
    if (early && early.name === wasm) window.wattscaleEarlyWasm = null;
    else early = {};
    var ways = [
      ['streaming', 'streaming', async function () {
        var m = early.module || (early.response && WebAssembly.compileStreaming(early.response));
        // A module the head did not start (fit.wasm): through the head's
        // rule, or as served on a page without the head's script.
        if (!m) m = window.wattscaleCompile ? window.wattscaleCompile(url) : WebAssembly.compileStreaming(fetch(url));
        m = await m;
        return { module: m, instance: await WebAssembly.instantiate(m, go.importObject), early: !!(early.module || early.response) };
      }],
      ['arraybuffer', 'arrayBuffer', async function () {
        var res = await fetch(url);
        if (!res.ok) throw new Error('HTTP ' + res.status);
        return WebAssembly.instantiate(await res.arrayBuffer(), go.importObject);
      }],
      ['embedded', 'embedded copy', async function () {
        if (!window[b64]) await loadScript(BASE + asset(name + '-embed.js'));
        return WebAssembly.instantiate(await inflateB64(window[b64]), go.importObject);
      }]
    ];
    for (var i = location.protocol !== 'file:' && BASE ? 0 : ways.length - 1; i < ways.length && !r; i++) {
      try {
        if ((r = await ways[i][2]())) how = ways[i][0];
      } catch (e) {
        errors.push(ways[i][1] + ': ' + e.message);
      }
    }
    if (!r) throw new Error('could not start ' + wasm + ' (' + errors.join('; ') + ')');
    if (r.early) perf.wasmEarly = 1;
    perf.wasmInstantiatedMs = performance.now();
    modules[wasm] = r.module;
    var ready = new Promise(function (resolve) { window[readyHook] = resolve; });
    go.run(r.instance).then(function () { window[global] = undefined; });
    if (!window[global]) await ready;
    if (!window[global]) throw new Error(wasm + ' did not start' + (window.wattscaleError ? ': ' + window.wattscaleError : ''));
    return how;
  }

  /* ---------- putting Go's markup in place ---------- */

  // tell shows a status message of a kind (error, warning, success, info),
  // announced at once only for an error.
  function tell(el, kind, text) {
    if (el) { el.textContent = text; el.dataset.kind = text ? kind : ''; el.setAttribute('role', kind === 'error' && text ? 'alert' : 'status'); }
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
    if (live.isEqualNode(fresh)) return; // the browser compares faster than this walks
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

  // place morphs the parts of Go's answer out (those that changed since
  // its last) into live (root's sel), or puts its whole markup at the top
  // of root; false when it has none.
  function place(root, live, out, sel) {
    var t = document.createElement('template');
    if (out.parts) {
      out.parts.forEach(function (p) {
        var n = root.querySelector('[data-part="' + p.key + '"]');
        t.innerHTML = p.html;
        if (n && t.content.firstElementChild) morphNode(n, t.content.firstElementChild);
      });
    } else if (out.html) {
      t.innerHTML = out.html;
      var fresh = t.content.querySelector(sel);
      if (live && fresh) morphNode(live, fresh);
      else root.insertBefore(t.content, root.firstChild);
    } else return false;
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

  /* ---------- the calculator and the planner (view.CalcFuncs, view.PlanFuncs: their rules are Go's) ---------- */

  // App is the page's calculator, embedded calculator or planner (mode):
  // Go draws it from the form state it last answered with and what the
  // visitor did (update); this keeps that state, the address, the user's
  // own calibrations and the events.
  function App(root, api, mode) {
    var self = this, tid = 0;
    this.root = root;
    this.planner = mode === 'planner';
    this.embed = mode === 'embed' || root.getAttribute('data-embed') === '1';
    this.sel = this.planner ? '.plan-layout' : '.calc-layout';
    // The planner's functions take and answer JSON, the calculator's plain values.
    this.render = this.planner ? function (o) { return JSON.parse(api.render(JSON.stringify(o))); } : api.render;
    this.api = api;
    this.state = undefined; // the form as Go last answered it, handed back unread
    this.out = null; // the last answer
    ['input', 'change'].forEach(function (t) { root.addEventListener(t, function (e) { self.onInput(e); }); });
    root.addEventListener('submit', function (e) { if (e.target.closest('.calc-form')) e.preventDefault(); });
    // Go draws the charts for their boxes' widths, known between resizes
    // (a ResizeObserver) without laying the page out on every input.
    var resized = function () {
      self.known = null;
      clearTimeout(tid);
      tid = setTimeout(function () { var w = self.out && self.widths(); if (w && String(w) !== self.seen) self.update({}); else if (w && w.length && self.ro) self.known = w; }, 150);
    };
    this.ro = window.ResizeObserver ? new ResizeObserver(resized) : null;
    window.addEventListener('resize', resized);
    window.addEventListener('pagehide', function () { self.follow(); });
    ['click', 'keydown'].forEach(function (t) { root.addEventListener(t, function (e) { self.onClick(e); }); });
    if (this.planner) root.classList.add('wattscale', 'planner');
    else if (api.addCalibration && own(OWN_KEY).length) api.addCalibration(JSON.stringify({ calibrations: own(OWN_KEY), accept: own(ACCEPT_KEY) }));
    if (this.embed) return;
    // The Hugging Face and refit boxes: their files fill the form, or on
    // the planner the chosen option's student stage.
    var pick = root.querySelector('#hf-row'), row = function () { return pick ? +pick.value || 1 : 0; };
    fitBoxes(root, {
      form: function () { return self.out.hf ? self.out.hf[row() - 1] : self.out.show; },
      take: function (vals) { return self.update({ action: 'hf', row: row(), values: vals }).left || []; },
      use: function (cal, anyway) { return self.useOwn(cal, anyway); }
    });
  }

  // widths are the widths of the boxes Go draws charts for (data-width).
  App.prototype.widths = function () {
    return Array.prototype.map.call(this.root.querySelectorAll(this.sel + ' [data-width]'), function (b) { return b.clientWidth; });
  };

  // update has Go apply o (what the visitor did) to the form and draw the
  // answer, which it puts in place.
  App.prototype.update = function (o) {
    var root = this.root, live = root.querySelector(this.sel), t0 = performance.now(), widths = this.known || this.widths(), self = this;
    var out = this.render(Object.assign(o, { form: this.state, widths: widths, parts: !!live, embed: this.embed }));
    perf.lastRenderMs = performance.now() - t0;
    if (!place(root, live, out, this.sel)) return out;
    this.out = out;
    this.state = out.form;
    fill(root.querySelectorAll(this.sel + ' [name]'), out.show);
    if (root.dataset.state !== out.state) root.dataset.state = out.state;
    if (out.address) { this.query = out.query; clearTimeout(this.qid); this.qid = setTimeout(function () { self.follow(); }, 100); }
    // The widths drawn for (read again only when none were known); boxes drawn anew are watched.
    var box = root.querySelector(this.sel + ' [data-width]');
    if (!widths.length) widths = this.widths();
    if (box !== this.box && this.ro) root.querySelectorAll(this.sel + ' [data-width]').forEach(function (b) { self.ro.observe(b); });
    this.box = box, this.seen = String(widths), this.known = this.ro && box && widths.length ? widths : null;
    var f = out.focus && document.getElementById('f-' + out.focus), pick = root.querySelector('#hf-row');
    if (f) f.focus();
    if (pick && out.hf_options) {
      var was = pick.value;
      setHTML(pick, out.hf_options);
      pick.value = was && +was <= out.hf.length ? was : '1';
    }
    if (this.planner || out.state !== 'ok') return out;
    this.last = out; // the calculator's last answer that estimated
    var u = root.querySelector('#share-url');
    if (u && u.value !== this.shareURL()) u.value = this.shareURL();
    if (this.embed) this.tellParent(out.post);
    else this.adviseLater();
    return out;
  };

  // follow puts the last answer's query in the address if it is not there
  // yet: when the visitor pauses (browsers limit how often a page may
  // rewrite it: Firefox throws after 200 times in 10 s) or leaves.
  App.prototype.follow = function () {
    clearTimeout(this.qid);
    if (this.query != null) history.replaceState(null, '', '?' + this.query + location.hash);
    this.query = null;
  };

  App.prototype.onInput = function (e) {
    var t = e.target, k = t.name, shown = this.out && this.out.show;
    if (!k || !shown || !(k in shown) || !t.closest(this.sel)) return;
    var v = t.type === 'checkbox' ? (t.checked ? '1' : '') : t.value;
    if ((t.type === 'radio' && !t.checked) || shown[k] === v) return;
    this.update({ changed: k, value: v });
  };

  // onClick runs a button Go drew with data-act (and data-act-row), copies
  // what a copy button names, and loads a recommender point (arrows move
  // between them).
  App.prototype.onClick = function (e) {
    var root = this.root, t = e.target;
    if (!t.closest) return;
    var act = t.closest(this.sel + ' [data-act]'), copy = t.closest('.share [data-copy]'), g = t.closest('.cheaper-out [data-pareto]');
    if (e.type === 'click' && act) this.update({ action: act.getAttribute('data-act'), row: +act.getAttribute('data-act-row') || 0 });
    if (e.type === 'click' && copy) {
      var what = copy.getAttribute('data-copy');
      copyText(what === 'url' ? this.shareURL() : (root.querySelector('#snip-' + what) || {}).textContent || '', copy);
    }
    if (!g) return;
    if (e.type === 'keydown' && /^Arrow/.test(e.key)) {
      var next = root.querySelector('.cheaper-out [data-pareto="' + (+g.getAttribute('data-pareto') + (/Left|Down/.test(e.key) ? -1 : 1)) + '"]');
      if (!next) return;
      e.preventDefault();
      g.setAttribute('tabindex', '-1');
      next.setAttribute('tabindex', '0');
      return next.focus();
    }
    if (e.type === 'keydown' && e.key !== 'Enter' && e.key !== ' ') return;
    e.preventDefault();
    this.update({ action: 'load', changed: 'gpu', values: Object.fromEntries(new URLSearchParams(g.getAttribute('data-load') || '')) });
    tell(root.querySelector('.results .status'), 'success', g.getAttribute('data-loaded'));
    var en = root.querySelector('#energy');
    if (en) en.closest('.results').scrollIntoView({ block: 'start' });
  };

  // The user's own calibrations, fitted here and kept in local storage; one
  // that failed its checks only when the user said so (ACCEPT_KEY).
  var OWN_KEY = 'wattscale-own-calibrations', ACCEPT_KEY = 'wattscale-own-accepted';
  function own(key) {
    try { var v = JSON.parse(localStorage.getItem(key) || '[]'); return Array.isArray(v) ? v : []; } catch (e) { return []; }
  }
  // useOwn adds a calibration just fitted (anyway: although it failed its
  // checks) to calc.wasm and local storage and selects it, answering
  // addCalibration's answer ({} or {"error"}).
  App.prototype.useOwn = function (cal, anyway) {
    var cals = own(OWN_KEY).filter(function (c) { return c.name !== cal.name; }).concat([cal]);
    var accept = own(ACCEPT_KEY).filter(function (n) { return n !== cal.name; }).concat(anyway ? [cal.name] : []);
    var res = this.api.addCalibration(JSON.stringify({ calibrations: cals, accept: accept }));
    if (res.error) return res;
    try { localStorage.setItem(OWN_KEY, JSON.stringify(cals)); localStorage.setItem(ACCEPT_KEY, JSON.stringify(accept)); } catch (e) { /* private mode: this visit only */ }
    this.update({ changed: 'cal', value: cal.name });
    this.root.querySelector('#f-cal').scrollIntoView({ block: 'center' });
    return res;
  };

  App.prototype.shareURL = function () {
    return new URL('?' + (this.out ? this.out.query : location.search.slice(1)), location.href).href;
  };

  // adviseLater has Go draw the recommender's panel (tens of ms) once the
  // figures are painted, so no input waits for it; a deadline or objective
  // in error is shown beside its input.
  App.prototype.adviseLater = function () {
    if (this.advising) return;
    this.advising = true;
    var self = this;
    requestAnimationFrame(function () {
      setTimeout(function () {
        var co = self.root.querySelector('.cheaper-out');
        self.advising = false;
        if (!co || !self.api.advise || self.out.state !== 'ok') return;
        try {
          var t0 = performance.now(), html = self.api.advise(self.state, co.clientWidth || 0);
          perf.lastRecommendMs = performance.now() - t0;
          setHTML(co, html);
        } catch (e) {
          return co.replaceChildren(Object.assign(document.createElement('p'), { className: 'err', textContent: co.getAttribute('data-fail') + ': ' + e.message }));
        }
        var bad = co.querySelector('[data-input]'), f = bad && self.root.querySelector('.calc-layout [data-key="' + bad.getAttribute('data-input') + '"]');
        if (!f) return;
        f.classList.add('invalid');
        var er = f.querySelector('.err'), msg = bad.getAttribute('data-msg');
        if (er.textContent !== msg) er.textContent = msg;
      }, 0);
    });
  };

  // tellParent reports each estimate (figures shown anyway) and the height
  // to the page that embeds this one (assets/embed.js).
  App.prototype.tellParent = function (post) {
    if (window.parent === window || !post) return;
    window.parent.postMessage(Object.assign({ type: 'wattscale:estimate', url: new URL('../index.html?' + this.out.query, BASE).href }, post), '*');
    if (!this.resizeObs && window.ResizeObserver) {
      this.resizeObs = new ResizeObserver(function () {
        window.parent.postMessage({ type: 'wattscale:resize', height: document.documentElement.offsetHeight }, '*');
      });
      this.resizeObs.observe(document.body);
    }
  };

  /* ---------- the boxes that run fit.wasm (view.HFBox, view.RefitBox) ---------- */

  var fitLoading = null;
  function loadFit() {
    if (!fitLoading) {
      fitLoading = loadGo('fit', 'wattscale_fit', 'wattscaleFitReady').catch(function (e) { fitLoading = null; throw e; });
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
    var mode = root.getAttribute('data-mode') || 'calculator';
    // A prerendered page stays as it is until Go redraws it in place.
    var pre = root.getAttribute('data-prerendered') === '1';
    root.setAttribute('aria-busy', 'true');
    if (!pre) root.replaceChildren(...root.querySelectorAll(':scope > .calc-loading, :scope > section[hidden]'));
    // Another content tree's calibrations, read by Go when it starts.
    var cals = root.getAttribute('data-calibrations');
    if (cals) window.wattscaleCalibrations = cals;
    var how, loading = loadGo(mode === 'planner' ? 'planner' : 'calc', 'wattscale', 'wattscaleReady');
    try {
      how = await loading;
    } catch (e) {
      var msg = Object.assign(document.createElement('p'), { className: 'fatal', textContent: root.getAttribute('data-fail') + ': ' + e.message + (pre ? '. ' + root.getAttribute('data-fail-note') : '') });
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
    // What was typed meanwhile goes over the link's values; on a page the
    // visitor has not changed, Go leaves out the parts it shows (data-parts).
    var app = new App(root, window.wattscale, mode), typed = pre ? Object.entries(typedValues(root)) : [];
    perf.calculatorMs = performance.now();
    app.update({ link: location.search.slice(1), typed: typed, seen: typed.length || root.hasAttribute('data-linked') ? '' : root.getAttribute('data-parts') || '' });
    perf.firstEstimateCallMs = perf.lastRenderMs;
    unpending(root);
    root.removeAttribute('data-linked');
    if (!pre) root.querySelectorAll(':scope > .calc-loading').forEach(function (p) { p.remove(); });
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
    navigator.serviceWorker.register(new URL('sw.js', root).href, { scope: root.href }).then(function () { perf.serviceWorker = 'registered'; },
      function (e) { perf.serviceWorker = 'failed: ' + e.message; });
  }

  // afterFirstPaint calls f once a frame is painted (or after a second in
  // a hidden tab): compiling the wasm waits for the prerendered estimate.
  function afterFirstPaint(f) {
    var done = false, once = function () { if (!done) { done = true; f(); } };
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
    try { ASSETS = JSON.parse(root.getAttribute('data-assets') || '{}'); } catch (e) { ASSETS = {}; }
    if (root.getAttribute('data-prerendered') !== '1') return start(root);
    // Edits made before Go answers: before this script ran and to come.
    ['input', 'change'].forEach(function (t) { root.addEventListener(t, function (e) { if (e.target.closest && e.target.closest('.calc-form')) pending(root); }); });
    if (Object.keys(typedValues(root)).length) pending(root);
    afterFirstPaint(function () { start(root); });
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', boot);
  else boot();
})();
