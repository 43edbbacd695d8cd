/* wattscale calculator and planner: the page side.
 *
 * Contract with the page (site/templates): a mount element
 *   <div id="calc-root" data-mode="calculator"></div>   (or "planner", "embed")
 * and, by relative URLs, assets/calc.css, assets/wasm_exec.js and
 * assets/calc.js. Everything else is found next to this script:
 *   calc.wasm        the Go calculator (wasm/calc), loaded on start
 *   calc-embed.js    window.WATTSCALE_WASM_GZ_B64 = base64(gzip(calc.wasm)),
 *                    loaded only when fetching calc.wasm fails (file://)
 *   fit.wasm         the refit (wasm/fit, gonum), loaded only when asked for
 *   fit-embed.js     window.WATTSCALE_FIT_WASM_GZ_B64, its file:// fallback
 *
 * All model logic is Go: this file builds the form, sends the form as typed
 * (one JSON call per interaction: the estimate and the chart sweep
 * together), and draws the answer. No library, no network beyond the
 * files above, so it works offline and from file://.
 */
(function () {
  'use strict';

  var script = document.currentScript;
  var BASE = script && script.src ? new URL('.', script.src).href : '';
  var SVGNS = 'http://www.w3.org/2000/svg';
  var perf = (window.wattscalePerf = window.wattscalePerf || {});

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

  async function gunzip(bytes) {
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    return new Response(stream).arrayBuffer();
  }

  // loadGo starts a Go wasm program. It tries streaming compilation, then
  // fetch().arrayBuffer() (hosts that serve .wasm with a wrong MIME type),
  // then the base64 gzip copy a classic script carries (file://, where
  // fetch is blocked). It resolves with the name of the path that worked
  // once the program has set window[o.global].
  async function loadGo(o) {
    if (typeof Go === 'undefined') await loadScript(BASE + 'wasm_exec.js');
    var url = BASE + o.wasm;
    var go = new Go();
    var inst = null, how = '', errors = [];
    if (location.protocol !== 'file:' && BASE) {
      try {
        inst = (await WebAssembly.instantiateStreaming(fetch(url), go.importObject)).instance;
        how = 'streaming';
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
        if (!window[o.embedGlobal]) await loadScript(BASE + o.embedScript);
        var bytes = await gunzip(b64ToBytes(window[o.embedGlobal]));
        inst = (await WebAssembly.instantiate(bytes, go.importObject)).instance;
        how = 'embedded';
      } catch (e) {
        errors.push('embedded copy: ' + e.message);
        throw new Error('could not start ' + o.wasm + ' (' + errors.join('; ') + ')');
      }
    }
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

  /* ---------- formatting ---------- */

  function sig(x, digits) {
    digits = digits || 3;
    if (!isFinite(x)) return '—';
    if (x === 0) return '0';
    var a = Math.abs(x);
    if (a >= 1e-3 && a < 1e7) {
      var d = Math.max(0, digits - 1 - Math.floor(Math.log10(a)));
      return fixed(d).format(x);
    }
    var e = x.toExponential(digits - 1).split('e');
    return e[0] + '×10' + sup(e[1].replace('+', ''));
  }
  // fixed returns a cached en-US formatter with d decimals: building one
  // per call (toLocaleString with options) costs tens of microseconds.
  var formatters = {};
  function fixed(d) {
    return formatters[d] || (formatters[d] = new Intl.NumberFormat('en-US', { minimumFractionDigits: d, maximumFractionDigits: d }));
  }
  function sup(s) {
    var m = { '-': '⁻', '0': '⁰', '1': '¹', '2': '²', '3': '³', '4': '⁴', '5': '⁵', '6': '⁶', '7': '⁷', '8': '⁸', '9': '⁹' };
    return s.split('').map(function (c) { return m[c] || c; }).join('');
  }
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
  function timeParts(s) {
    if (s < 120) return [sig(s), 's'];
    if (s < 2 * 3600) return [sig(s / 60), 'min'];
    if (s < 3 * 86400) return [sig(s / 3600), 'h'];
    return [sig(s / 86400), 'days'];
  }
  function timeText(s) { var p = timeParts(s); return p[0] + ' ' + p[1]; }
  function powerText(w) { return w < 1e4 ? sig(w) + ' W' : sig(w / 1000) + ' kW'; }
  function usd(x) {
    if (x < 1) return '$' + sig(x);
    if (x < 1e6) return '$' + fixed(2).format(x);
    return '$' + sig(x);
  }
  function pct(x) { return Math.round(x * 100) + ' %'; }
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

  /* ---------- charts (hand-written SVG) ---------- */

  function niceStep(span, n) {
    var raw = span / n, p = Math.pow(10, Math.floor(Math.log10(raw))), f = raw / p;
    return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * p;
  }
  // axis returns {map, ticks:[{v,label}]} for a linear or log scale.
  function axis(min, max, a, b, opts) {
    opts = opts || {};
    var log = opts.log, ticks = [];
    if (log) {
      var lmin = Math.log(min), lmax = Math.log(max);
      if (lmax - lmin < 1e-9) { lmin -= 0.5; lmax += 0.5; }
      var map = function (v) { return a + (Math.log(v) - lmin) / (lmax - lmin) * (b - a); };
      if (opts.base2) {
        for (var v = 1; v <= max * 1.0001; v *= 2) if (v >= min / 1.0001) ticks.push(v);
      } else {
        var e0 = Math.floor(Math.log10(min)), e1 = Math.ceil(Math.log10(max));
        var mults = e1 - e0 <= 2 ? [1, 2, 5] : e1 - e0 <= 4 ? [1, 3] : [1];
        for (var e = e0; e <= e1; e++) mults.forEach(function (m) {
          var t = m * Math.pow(10, e);
          if (t >= min * 0.999 && t <= max * 1.001) ticks.push(t);
        });
        if (ticks.length < 2) ticks = [min, max];
      }
      return { map: map, ticks: ticks, min: Math.exp(lmin), max: Math.exp(lmax) };
    }
    var step = niceStep(max - min || 1, 5);
    var lo = Math.floor(min / step) * step, hi = Math.ceil(max / step) * step;
    if (hi === lo) hi = lo + step;
    for (var t = lo; t <= hi + step / 2; t += step) ticks.push(+t.toPrecision(12));
    return { map: function (v) { return a + (v - lo) / (hi - lo) * (b - a); }, ticks: ticks, min: lo, max: hi };
  }

  // lineChart draws series of [x, y] points. o: {title, desc, series:[{name, key, pts}],
  // xLabel, yLabel, fmtY, fmtX, mark:{x, y, label}, xBase2}
  function lineChart(o) {
    var W = 560, H = 300, L = 64, R = 16, T = 16, B = 46;
    var xs = [], ys = [];
    o.series.forEach(function (s) { s.pts.forEach(function (p) { xs.push(p[0]); ys.push(p[1]); }); });
    if (o.mark) { xs.push(o.mark.x); ys.push(o.mark.y); }
    if (!xs.length) return '<p class="muted">No feasible configuration to chart.</p>';
    var xmin = Math.min.apply(null, xs), xmax = Math.max.apply(null, xs);
    var ymin = Math.min.apply(null, ys), ymax = Math.max.apply(null, ys);
    var ylog = ymax / ymin > 8;
    var xa = axis(xmin, xmax, L, W - R, { log: true, base2: o.xBase2 });
    var ya = ylog ? axis(ymin, ymax, H - B, T, { log: true }) : axis(0, ymax * 1.05, H - B, T, {});
    var out = [];
    out.push('<svg viewBox="0 0 ' + W + ' ' + H + '" role="img" aria-labelledby="' + o.id + '-t ' + o.id + '-d" class="chart" id="' + o.id + '">');
    out.push('<title id="' + o.id + '-t">' + esc(o.title) + '</title><desc id="' + o.id + '-d">' + esc(o.desc) + '</desc>');
    ya.ticks.forEach(function (t) {
      var y = ya.map(t).toFixed(1);
      out.push('<line class="grid" x1="' + L + '" x2="' + (W - R) + '" y1="' + y + '" y2="' + y + '"/>');
      out.push('<text class="tick" x="' + (L - 6) + '" y="' + y + '" dy="0.32em" text-anchor="end">' + esc(o.fmtY(t)) + '</text>');
    });
    xa.ticks.forEach(function (t) {
      var x = xa.map(t).toFixed(1);
      out.push('<line class="grid" y1="' + T + '" y2="' + (H - B) + '" x1="' + x + '" x2="' + x + '"/>');
      out.push('<text class="tick" y="' + (H - B + 16) + '" x="' + x + '" text-anchor="middle">' + esc(o.fmtX ? o.fmtX(t) : String(t)) + '</text>');
    });
    out.push('<line class="axis" x1="' + L + '" x2="' + (W - R) + '" y1="' + (H - B) + '" y2="' + (H - B) + '"/>');
    out.push('<line class="axis" x1="' + L + '" x2="' + L + '" y1="' + T + '" y2="' + (H - B) + '"/>');
    out.push('<text class="label" x="' + ((L + W - R) / 2) + '" y="' + (H - 8) + '" text-anchor="middle">' + esc(o.xLabel) + '</text>');
    out.push('<text class="label" transform="translate(14 ' + ((T + H - B) / 2) + ') rotate(-90)" text-anchor="middle">' + esc(o.yLabel + (ylog ? ' (log scale)' : '')) + '</text>');
    o.series.forEach(function (s) {
      if (!s.pts.length) return;
      var d = s.pts.map(function (p, i) { return (i ? 'L' : 'M') + xa.map(p[0]).toFixed(1) + ' ' + ya.map(p[1]).toFixed(1); }).join('');
      out.push('<path class="line s-' + s.key + '" d="' + d + '"/>');
      if (s.pts.length === 1) out.push('<circle class="dot s-' + s.key + '" r="4" cx="' + xa.map(s.pts[0][0]).toFixed(1) + '" cy="' + ya.map(s.pts[0][1]).toFixed(1) + '"/>');
    });
    if (o.mark) {
      var mx = xa.map(o.mark.x), my = ya.map(o.mark.y);
      out.push('<circle class="mark" r="6" cx="' + mx.toFixed(1) + '" cy="' + my.toFixed(1) + '"/>');
      var anchor = mx > W - 150 ? 'end' : 'start', dx = anchor === 'end' ? -10 : 10;
      out.push('<text class="mark-label" x="' + (mx + dx).toFixed(1) + '" y="' + (my - 10).toFixed(1) + '" text-anchor="' + anchor + '">' + esc(o.mark.label) + '</text>');
    }
    out.push('</svg>');
    return out.join('');
  }

  function legend(series) {
    return '<ul class="legend">' + series.map(function (s) {
      return '<li><span class="swatch s-' + s.key + '" aria-hidden="true"></span>' + esc(s.name) + '</li>';
    }).join('') + '</ul>';
  }

  /* ---------- the calculator ---------- */

  var STRATEGY_NAMES = { single: 'Single GPU', ddp: 'DDP (data parallel)', fsdp: 'FSDP (fully sharded)', tp: 'Tensor parallel', hybrid: 'Hybrid tensor × data' };
  var SWEEP_STRATEGIES = ['single', 'ddp', 'fsdp', 'tp'];

  // sweepCounts returns GPU counts for the charts: every count to 16, then
  // four per doubling, up to well past the chosen count.
  function sweepCounts(count) {
    var top = 64;
    while (top < 4 * count && top < 4096) top *= 2;
    var out = [];
    for (var n = 1; n <= Math.min(16, top); n++) out.push(n);
    for (var p = 16; p < top; p *= 2) [1.25, 1.5, 1.75, 2].forEach(function (m) { out.push(Math.round(p * m)); });
    return out;
  }

  // applies reports whether a row of the field table (meta.fields, from
  // model.RequestFields) matters for the form state s: its "when" names the
  // form key and value it depends on.
  function applies(f, s) {
    var w = f.when;
    return !w || ((s[w.key] == null ? '' : s[w.key]) === w.value) !== !!w.not;
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

  function Calculator(root, api, meta, opts) {
    this.root = root;
    this.api = api;
    this.meta = meta;
    this.fields = {};
    meta.fields.forEach(function (f) { this.fields[f.key] = f; }, this);
    this.embed = !!opts.embed;
    this.state = Object.assign({}, meta.default_form);
    this.inputs = {};
    this.last = null; // last good output
    this.readURL();
    this.build();
    this.fill();
  }

  Calculator.prototype.readURL = function () {
    var q = new URLSearchParams(location.search);
    var self = this;
    var any = false;
    q.forEach(function (v, k) {
      if (self.fields[k]) { self.state[k] = v; any = true; }
    });
    // A link with a grid region but no intensity takes the region's figure.
    if (any && q.has('region') && !q.has('carbon')) {
      var reg = this.meta.regions.filter(function (r) { return r.id === self.state.region; })[0];
      this.state.carbon = reg ? String(reg.carbon_g_per_kwh) : '';
    }
  };

  Calculator.prototype.query = function () {
    var s = this.state, keys = this.activeKeys(), q = new URLSearchParams();
    keys.forEach(function (k) { q.set(k, s[k] == null ? '' : s[k]); });
    return q.toString();
  };

  Calculator.prototype.activeKeys = function () {
    var s = this.state;
    return this.meta.fields.filter(function (f) { return applies(f, s); }).map(function (f) { return f.key; });
  };

  Calculator.prototype.shareURL = function () {
    var u = new URL(location.href);
    u.search = this.query();
    u.hash = '';
    return u.href;
  };

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

  // field builds the input of a form key with the label and hint of its
  // row of the field table (hint, when given, overrides the table's).
  Calculator.prototype.field = function (key, control, hint) {
    var f = this.fields[key];
    return labelled(this, key, f.label, control, hint === undefined ? (f.hint || null) : hint);
  };

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

  Calculator.prototype.build = function () {
    var m = this.meta, self = this;
    var uid = 'cr' + Math.random().toString(36).slice(2, 7);
    this.root.innerHTML = '';
    this.root.classList.add('wattscale', 'calc');

    // datalists for the forgiving text inputs
    var presetList = el('datalist', { id: uid + '-presets' });
    m.presets.forEach(function (p) { presetList.appendChild(el('option', { value: p.name, text: p.family + ' · ' + paramsText(p.params_published) })); });
    presetList.appendChild(el('option', { value: 'custom', text: 'custom shape' }));
    var gpuList = el('datalist', { id: uid + '-gpus' });
    m.gpus.forEach(function (g) { gpuList.appendChild(el('option', { value: g.id, text: g.name })); });

    var form = el('form', { class: 'calc-form', novalidate: true, 'aria-label': 'Training configuration' });
    form.addEventListener('submit', function (e) { e.preventDefault(); });

    // Model
    var fsModel = el('fieldset', {}, [el('legend', { text: 'Model' })]);
    fsModel.appendChild(this.field('model', textInput('text', uid + '-presets'), ''));
    var shape = el('div', { class: 'grid3 shape', 'data-group': '' });
    ['layers', 'hidden', 'heads', 'kv_heads', 'ffn', 'vocab'].forEach(function (k) {
      shape.appendChild(self.field(k, textInput('numeric')));
    });
    var glu = el('input', { type: 'checkbox', value: '1' });
    glu.id = 'f-glu'; glu.name = 'glu';
    this.inputs.glu = glu;
    shape.appendChild(el('div', { class: 'field check', 'data-key': 'glu' }, [glu, el('label', { for: 'f-glu', text: this.fields.glu.label }), el('p', { class: 'err', id: 'f-glu-err' })]));
    glu.setAttribute('aria-describedby', 'f-glu-err');
    fsModel.appendChild(shape);
    fsModel.appendChild(this.field('head', select([
      { value: '', text: 'Default for the model' }, { value: 'lm', text: 'Language-model head (vocabulary)' }, { value: 'classifier', text: 'Small classifier head' }]), null));
    form.appendChild(fsModel);

    // Training
    var fsTrain = el('fieldset', {}, [el('legend', { text: 'Training' })]);
    var lenTokens = el('input', { type: 'radio', name: 'length', value: 'tokens', id: 'f-length-tokens' });
    var lenEpochs = el('input', { type: 'radio', name: 'length', value: 'epochs', id: 'f-length-epochs' });
    this.inputs.length = [lenTokens, lenEpochs];
    fsTrain.appendChild(el('div', { class: 'radios', role: 'radiogroup', 'aria-label': this.fields.length.label }, [
      el('span', { class: 'radio' }, [lenTokens, el('label', { for: 'f-length-tokens', text: 'Total tokens' })]),
      el('span', { class: 'radio' }, [lenEpochs, el('label', { for: 'f-length-epochs', text: 'Dataset × epochs' })])
    ]));
    fsTrain.appendChild(this.field('tokens', textInput()));
    var ep = el('div', { class: 'grid2', 'data-group': '' }, [
      this.field('dataset_tokens', textInput()),
      this.field('epochs', textInput())]);
    fsTrain.appendChild(ep);
    fsTrain.appendChild(el('div', { class: 'grid3' }, [
      this.field('seq', textInput('numeric')),
      this.field('batch', textInput('numeric')),
      this.field('precision', select(m.precisions.map(function (p) { return { value: p, text: p }; })))]));
    form.appendChild(fsTrain);

    // Hardware
    var fsHw = el('fieldset', {}, [el('legend', { text: 'Hardware and parallelism' })]);
    fsHw.appendChild(this.field('gpu', textInput('text', uid + '-gpus'), ''));
    fsHw.appendChild(el('div', { class: 'grid2' }, [
      this.field('count', textInput('numeric')),
      this.field('strategy', select(m.strategies.map(function (s) { return { value: s, text: STRATEGY_NAMES[s] || s }; })))]));
    fsHw.appendChild(el('div', { class: 'grid2', 'data-group': '' }, [
      this.field('tensor', textInput('numeric')),
      this.field('data_mode', select(this.fields.data_mode.choices.map(function (c) { return { value: c, text: c.toUpperCase() }; })))]));
    form.appendChild(fsHw);

    // Site
    var fsSite = el('fieldset', {}, [el('legend', { text: 'Site, grid and price' })]);
    fsSite.appendChild(this.field('region', select(m.regions.map(function (r) {
      return { value: r.id, text: r.name + ' — ' + sig(r.carbon_g_per_kwh) + ' g/kWh' };
    }).concat([{ value: 'custom', text: 'Custom intensity' }])), ''));
    fsSite.appendChild(el('div', { class: 'grid3' }, [
      this.field('carbon', textInput()),
      this.field('pue', textInput()),
      this.field('price', textInput())]));
    form.appendChild(fsSite);

    // Calibration
    var fsCal = el('fieldset', {}, [el('legend', { text: 'Calibration' })]);
    fsCal.appendChild(this.field('cal', select([{ value: '', text: 'Default (' + m.calibrations.filter(function (c) { return c.default; }).map(function (c) { return c.name; })[0] + ')' }]
      .concat(m.calibrations.map(function (c) { return { value: c.name, text: c.name + ' ' + c.version + ' (' + c.kind + ')' }; }))), ''));
    form.appendChild(fsCal);

    // Every other row of the field table gets a plain input in its group's
    // fieldset, so a field added to model.RequestFields appears here
    // without a change to this file.
    var groups = { model: fsModel, training: fsTrain, hardware: fsHw, site: fsSite, calibration: fsCal };
    m.fields.forEach(function (f) {
      if (self.inputs[f.key] || !groups[f.group]) return;
      var c;
      if (f.kind === 'enum') c = select(f.choices.map(function (x) { return { value: x, text: x || 'Default' }; }));
      else if (f.kind === 'bool') { c = el('input', { type: 'checkbox', value: '1' }); }
      else c = textInput(f.kind === 'int' ? 'numeric' : f.kind === 'number' ? 'decimal' : 'text');
      var node = self.field(f.key, c);
      if (f.help) c.title = f.help;
      groups[f.group].appendChild(node);
    });
    form.appendChild(el('p', { class: 'err form-err', id: uid + '-formerr', 'aria-live': 'polite' }));
    this.formErr = form.lastChild;

    form.appendChild(presetList);
    form.appendChild(gpuList);

    var onInput = function (e) { self.onInput(e); };
    form.addEventListener('input', onInput);
    form.addEventListener('change', onInput);
    this.form = form;

    // Results
    var res = el('section', { class: 'results', 'aria-label': 'Estimate' });
    this.results = res;
    res.innerHTML =
      '<div class="status" role="status" aria-live="polite"></div>' +
      '<div class="headline">' +
      '<p class="kicker">Accelerator energy</p>' +
      '<p class="big"><output id="energy" data-kwh=""></output></p>' +
      '<p class="interval"></p>' +
      '<p class="calline muted small"></p>' +
      '</div>' +
      '<dl class="cards"></dl>' +
      '<h2 class="h">Where the energy goes</h2><div class="breakdown"></div>' +
      '<div class="prov"></div>' +
      '<div class="notes"></div>' +
      '<h2 class="h">Energy and time against GPU count</h2>' +
      '<p class="muted small chart-note">Same model, tokens and batch per GPU; each line is a strategy, the ring is your configuration. More GPUs finish sooner but parallel overhead costs energy.</p>' +
      '<div class="charts"><figure class="chart-e"></figure><figure class="chart-t"></figure></div>' +
      '<div class="legend-wrap"></div>' +
      (this.embed ? '' : '<h2 class="h">Share and cite</h2><div class="share"></div>');
    var layout = el('div', { class: 'calc-layout' }, [form, res]);
    this.root.appendChild(layout);
    if (this.embed) {
      this.root.appendChild(el('p', { class: 'embed-foot' }, [
        el('a', { href: '#', class: 'open-full', target: '_blank', rel: 'noopener', text: 'Open in the full wattscale calculator' })]));
    }
    if (!this.embed) this.buildRefit();
  };

  Calculator.prototype.fill = function () {
    var s = this.state;
    for (var k in this.inputs) {
      var c = this.inputs[k];
      if (k === 'length') {
        c[0].checked = s.length !== 'epochs';
        c[1].checked = s.length === 'epochs';
      } else if (c.type === 'checkbox') c.checked = s[k] === '1' || s[k] === 'true' || s[k] === 'on';
      else if (c.tagName === 'SELECT') {
        var v = s[k] == null ? '' : s[k];
        if (!Array.prototype.some.call(c.options, function (o) { return o.value === v; })) {
          c.appendChild(el('option', { value: v, text: v + ' (not a known choice)' }));
        }
        c.value = v;
      } else c.value = s[k] == null ? '' : s[k];
    }
    this.toggle();
  };

  // toggle shows the inputs that apply (the field table's "when") and
  // hides a group of inputs when none of them applies.
  Calculator.prototype.toggle = function () {
    var s = this.state, self = this;
    Array.prototype.forEach.call(this.form.querySelectorAll('.field[data-key]'), function (n) {
      var f = self.fields[n.getAttribute('data-key')];
      n.hidden = !!f && !applies(f, s);
    });
    Array.prototype.forEach.call(this.form.querySelectorAll('[data-group]'), function (n) {
      n.hidden = !n.querySelector('.field[data-key]:not([hidden])');
    });
  };

  Calculator.prototype.onInput = function (e) {
    var t = e.target, k = t.name;
    if (!k || !(k in this.state)) return;
    var v = t.type === 'checkbox' ? (t.checked ? '1' : '') : t.value;
    if (t.type === 'radio' && !t.checked) return;
    if (this.state[k] === v) return;
    var t0 = performance.now();
    this.state[k] = v;
    if (k === 'region' || k === 'carbon') {
      followRegion(this, this.state, k, v);
    } else if (k === 'model' && v === 'custom' && this.lastPreset) {
      // Start the custom shape from the preset the user had.
      var a = this.lastPreset.arch, st = this.state, self = this;
      [['layers', a.layers], ['hidden', a.hidden], ['heads', a.heads], ['kv_heads', a.kv_heads || ''], ['ffn', a.ffn], ['vocab', a.vocab]].forEach(function (p) {
        st[p[0]] = String(p[1]); self.inputs[p[0]].value = st[p[0]];
      });
      st.glu = a.glu ? '1' : ''; this.inputs.glu.checked = !!a.glu;
    }
    this.toggle();
    this.update();
    history.replaceState(null, '', '?' + this.query() + location.hash);
    perf.lastInputMs = performance.now() - t0;
  };

  Calculator.prototype.sweepSpec = function () {
    var n = parseInt(this.state.count, 10);
    return { counts: sweepCounts(n > 0 && n < 1e6 ? n : 4), strategies: SWEEP_STRATEGIES };
  };

  // update runs one estimate (with its sweep) and draws it.
  Calculator.prototype.update = function (sweep) {
    var out = call(this.api.estimate, { form: this.state, sweep: sweep || this.sweepSpec() });
    this.render(out);
    return out;
  };

  Calculator.prototype.clearErrors = function () {
    var root = this.root;
    Array.prototype.forEach.call(root.querySelectorAll('.field.invalid'), function (f) { f.classList.remove('invalid'); });
    Array.prototype.forEach.call(root.querySelectorAll('[aria-invalid]'), function (c) { c.removeAttribute('aria-invalid'); });
    Array.prototype.forEach.call(root.querySelectorAll('.calc-form .err'), function (p) { p.textContent = ''; });
  };

  Calculator.prototype.showError = function (err) {
    var key = err.input, ctl = key && this.inputs[key];
    var typed = ctl && !Array.isArray(ctl) && ctl.type !== 'checkbox' && ctl.tagName !== 'SELECT' ? ctl.value : null;
    var msg = err.message + (typed !== null && typed.trim() !== '' ? ' (you entered “' + typed + '”)' : err.value ? ' (got ' + err.value + ')' : '');
    if (ctl && !Array.isArray(ctl)) {
      var f = ctl.closest('.field');
      f.classList.add('invalid');
      ctl.setAttribute('aria-invalid', 'true');
      var label = f.querySelector('label').textContent;
      f.querySelector('.err').textContent = msg.charAt(0).toUpperCase() + msg.slice(1);
      // The field may be in a hidden group (a URL can carry anything): say so.
      if (ctl.offsetParent === null) this.formErr.textContent = label + ': ' + msg;
      return label;
    }
    this.formErr.textContent = err.text || msg;
    return null;
  };

  Calculator.prototype.render = function (out) {
    this.clearErrors();
    var res = this.results, status = res.querySelector('.status');
    if (out.error) {
      var label = this.showError(out.error);
      var where = label ? 'Check “' + label + '”: ' : '';
      if (this.last) {
        res.classList.add('stale');
        status.textContent = where + 'showing the last valid estimate until the input is fixed.';
      } else {
        res.classList.add('stale', 'empty');
        status.textContent = where + (out.error.text || out.error.message);
      }
      this.root.dataset.state = 'error';
      return;
    }
    res.classList.remove('stale', 'empty');
    status.textContent = '';
    this.root.dataset.state = 'ok';
    this.last = out;
    var r = out.response, p = r.inputs;
    var pres = this.meta.presets.filter(function (x) { return x.name === p.model; })[0];
    if (pres) this.lastPreset = pres;
    this.hints(r, pres);

    var e = res.querySelector('#energy');
    var ep = energyParts(r.energy_kwh);
    e.innerHTML = esc(ep[0]) + ' <span class="unit">' + esc(ep[1]) + '</span>';
    e.dataset.kwh = String(r.energy_kwh);
    res.querySelector('.interval').innerHTML = esc(pct(r.interval_level)) + ' interval ' +
      '<span class="num" data-kwh="' + r.energy_interval_kwh[0] + '">' + esc(energyText(r.energy_interval_kwh[0])) + '</span> – ' +
      '<span class="num" data-kwh="' + r.energy_interval_kwh[1] + '">' + esc(energyText(r.energy_interval_kwh[1])) + '</span>' +
      ' · ' + esc(energyText(r.facility_energy_kwh)) + ' at the wall with PUE ' + esc(sig(p.pue));

    var cu = r.calibration;
    res.querySelector('.calline').textContent = 'Calibration ' + cu.name + ' ' + cu.version + ' (' + cu.kind + ')' +
      (cu.in_envelope ? ', inside its fitted range' : ', outside its fitted range: interval widened') + ' · accelerator energy only; the wall figure adds PUE';
    var cards = [
      ['Time', timeText(r.time_s), pct(r.interval_level) + ' interval ' + timeText(r.time_interval_s[0]) + ' – ' + timeText(r.time_interval_s[1]), 'time'],
      ['Average power', powerText(r.avg_power_w), 'all ' + p.count + ' GPU' + (p.count > 1 ? 's' : '') + ' together', 'power'],
      ['GPU-hours', sig(r.gpu_hours), p.count + ' × ' + p.gpu_name, 'gpuh'],
      ['CO₂e', massText(r.co2e_kg), pct(r.interval_level) + ' interval ' + massText(r.co2e_interval_kg[0]) + ' – ' + massText(r.co2e_interval_kg[1]) + '; ' + sig(p.carbon_g_per_kwh) + ' g/kWh' + (p.region ? ' (' + p.region + ')' : ''), 'co2'],
      ['Cost of electricity', usd(r.cost_usd), 'at $' + sig(p.usd_per_kwh) + ' per kWh, PUE ' + sig(p.pue), 'cost'],
      ['Parallel efficiency η', r.parallel.gpus > 1 ? sig(r.parallel.efficiency, 2) : '1', r.parallel.gpus > 1 ? 'speedup ' + sig(r.parallel.speedup) + '× on ' + r.parallel.gpus + ' GPUs (' + r.parallel.law + ')' : 'one GPU: no parallel overhead', 'eta']
    ];
    res.querySelector('.cards').innerHTML = cards.map(function (c) {
      return '<div class="card" data-card="' + c[3] + '"><dt>' + esc(c[0]) + '</dt><dd><span class="v">' + esc(c[1]) + '</span><span class="sub">' + esc(c[2]) + '</span></dd></div>';
    }).join('');

    this.renderBreakdown(r);
    this.renderProvenance(r);
    this.renderCharts(out);
    if (!this.embed) this.renderShare(out);
    else {
      var a = this.root.querySelector('.open-full');
      if (a) a.href = new URL('../index.html?' + this.query(), BASE).href;
      this.tellParent(out);
    }
  };

  // tellParent reports each estimate and the content height to the page
  // that embeds this one (assets/embed.js listens). The figures are what the
  // page shows anyway, so any origin may read them.
  Calculator.prototype.tellParent = function (out) {
    if (window.parent === window) return;
    var r = out.response;
    window.parent.postMessage({
      type: 'wattscale:estimate', energy_kwh: r.energy_kwh, energy_interval_kwh: r.energy_interval_kwh, co2e_kg: r.co2e_kg,
      time_s: r.time_s, model: r.inputs.model, gpu: r.inputs.gpu, count: r.inputs.count,
      calibration: r.calibration.name + ' ' + r.calibration.version, url: new URL('../index.html?' + this.query(), BASE).href
    }, '*');
    if (!this.resizeObs && window.ResizeObserver) {
      this.resizeObs = new ResizeObserver(function () {
        window.parent.postMessage({ type: 'wattscale:resize', height: document.documentElement.offsetHeight }, '*');
      });
      this.resizeObs.observe(document.body);
    }
  };

  Calculator.prototype.hints = function (r, pres) {
    var hm = this.root.querySelector('#f-model-hint');
    if (hm) hm.textContent = pres ? pres.family + ', ' + paramsText(pres.params_published) + ' parameters (' + pres.source.split(';')[0] + ')' :
      'custom shape: ' + paramsText(r.proxies.params) + ' parameters counted';
    var g = this.meta.gpus.filter(function (x) { return x.id === r.inputs.gpu; })[0];
    var hg = this.root.querySelector('#f-gpu-hint');
    if (hg && g) hg.textContent = g.name + ' · ' + g.memory_gb + ' GB · ' + g.board_power_w + ' W · ' + g.interconnect + ' · ' + g.precisions.join(', ');
    var hr = this.root.querySelector('#f-region-hint');
    var reg = this.meta.regions.filter(function (x) { return x.id === this.state.region; }, this)[0];
    if (hr) hr.textContent = reg ? reg.source : 'your own figure, g CO₂e per kWh';
    var hc = this.root.querySelector('#f-cal-hint');
    var cal = this.meta.calibrations.filter(function (c) { return c.name === r.calibration.name; })[0];
    if (hc && cal) hc.textContent = cal.title;
  };

  Calculator.prototype.renderBreakdown = function (r) {
    var b = r.breakdown_kwh, total = r.energy_kwh;
    var parts = [['compute', 'Compute', b.compute], ['memory', 'Memory traffic and step latency', b.memory], ['parallel', 'Parallel overhead', b.parallel_overhead], ['fixed', 'Start-up (fixed)', b.fixed]];
    var W = 560, H = 28, x = 0;
    var rects = parts.map(function (p) {
      var w = Math.max(0, p[2] / total * W);
      var s = '<rect class="b-' + p[0] + '" x="' + x.toFixed(2) + '" y="0" width="' + w.toFixed(2) + '" height="' + H + '"/>';
      x += w;
      return s;
    }).join('');
    var desc = parts.map(function (p) { return p[1] + ' ' + energyText(p[2]) + ' (' + pct(p[2] / total) + ')'; }).join('; ');
    this.results.querySelector('.breakdown').innerHTML =
      '<svg class="bar" viewBox="0 0 ' + W + ' ' + H + '" preserveAspectRatio="none" role="img" aria-label="' + esc('Energy breakdown: ' + desc) + '">' + rects + '</svg>' +
      '<table class="bd"><caption class="offscreen">Energy breakdown</caption><tbody>' + parts.map(function (p) {
        return '<tr><th scope="row"><span class="swatch b-' + p[0] + '" aria-hidden="true"></span>' + esc(p[1]) + '</th><td>' + esc(energyText(p[2])) + '</td><td>' + esc(pct(p[2] / total)) + '</td></tr>';
      }).join('') + '</tbody></table>' +
      '<p class="muted small">' + esc(r.roofline.bound === 'compute' ? 'Compute-bound' : 'Memory-bound') + ': arithmetic intensity ' + esc(sig(r.roofline.arithmetic_intensity)) +
      ' FLOP/byte against a machine balance of ' + esc(sig(r.roofline.machine_balance)) + ' (' + esc(sig(r.roofline.peak_tflops)) + ' TFLOP/s peak at ' + esc(r.inputs.precision) + '). ' +
      'Roofline floor ' + esc(energyText(r.roofline.energy_lower_bound_kwh)) + '; ' + esc(sig(r.roofline.flops)) + ' FLOPs in all.</p>';
  };

  Calculator.prototype.renderProvenance = function (r) {
    var c = r.calibration;
    var env = c.in_envelope ? '<span class="ok">inside the range it was fitted on</span>' :
      '<span class="warn-t">outside the range it was fitted on</span> (' + esc((c.outside || []).join('; ')) + '), so the interval is widened';
    this.results.querySelector('.prov').innerHTML =
      '<h2 class="h">Where these numbers come from</h2>' +
      '<p>Calibration <strong class="cal-name">' + esc(c.name) + '</strong> version <span class="cal-version">' + esc(c.version) + '</span> (' + esc(c.kind) + '): ' + env + '. ' +
      'The ' + esc(pct(r.interval_level)) + ' interval is log-normal with σ = ' + esc(sig(c.sigma_ln, 2)) + ' in ln energy.</p>' +
      '<p class="muted small cite">' + esc(c.citation) + '</p>';
    var notes = '';
    if (r.warnings && r.warnings.length) notes += '<div class="warnings" role="note"><h4>Warnings</h4><ul>' + r.warnings.map(function (w) { return '<li>' + esc(w) + '</li>'; }).join('') + '</ul></div>';
    if (r.assumptions && r.assumptions.length) notes += '<details class="assumptions"><summary>Assumptions used (' + r.assumptions.length + ')</summary><ul>' + r.assumptions.map(function (w) { return '<li>' + esc(w) + '</li>'; }).join('') + '</ul></details>';
    this.results.querySelector('.notes').innerHTML = notes;
  };

  Calculator.prototype.renderCharts = function (out) {
    var pts = out.sweep || [], r = out.response;
    var series = SWEEP_STRATEGIES.map(function (s) {
      return { key: s, name: STRATEGY_NAMES[s], e: [], t: [] };
    });
    pts.forEach(function (p) {
      if (p.error) return;
      var s = series[SWEEP_STRATEGIES.indexOf(p.strategy)];
      if (!s) return;
      s.e.push([p.gpus, p.energy_kwh]);
      s.t.push([p.gpus, p.time_s / 3600]);
    });
    var n = r.parallel.gpus, strat = r.parallel.strategy;
    var label = n + ' × ' + (strat === 'hybrid' ? 'hybrid' : strat.toUpperCase());
    var eUnit = energyParts(r.energy_kwh)[1], eScale = { Wh: 1000, kWh: 1, MWh: 1e-3, GWh: 1e-6 }[eUnit];
    var es = series.map(function (s) { return { key: s.key, name: s.name, pts: s.e.map(function (p) { return [p[0], p[1] * eScale]; }) }; });
    var ts = series.map(function (s) { return { key: s.key, name: s.name, pts: s.t }; });
    var fmtN = function (v) { return sig(v, 2); };
    var desc = function (what) {
      return series.filter(function (s) { return s.e.length; }).map(function (s) {
        var a = what === 'e' ? s.e : s.t, last = a[a.length - 1];
        return s.name + ': ' + a.length + ' points, ' + (what === 'e' ? energyText(a[0][1]) + ' at ' + a[0][0] + ' GPU to ' + energyText(last[1]) : timeText(a[0][1] * 3600) + ' at ' + a[0][0] + ' GPU to ' + timeText(last[1] * 3600)) + ' at ' + last[0] + ' GPUs';
      }).join('. ');
    };
    this.results.querySelector('.chart-e').innerHTML = lineChart({
      id: 'chart-energy', title: 'Energy against GPU count by strategy', desc: desc('e'), series: es, xBase2: true,
      xLabel: 'GPUs', yLabel: 'Energy (' + eUnit + ')', fmtY: fmtN, mark: { x: n, y: r.energy_kwh * eScale, label: label }
    }) + '<figcaption>Accelerator energy</figcaption>';
    this.results.querySelector('.chart-t').innerHTML = lineChart({
      id: 'chart-time', title: 'Training time against GPU count by strategy', desc: desc('t'), series: ts, xBase2: true,
      xLabel: 'GPUs', yLabel: 'Time (hours)', fmtY: fmtN, mark: { x: n, y: r.time_s / 3600, label: label }
    }) + '<figcaption>Wall-clock time</figcaption>';
    this.results.querySelector('.legend-wrap').innerHTML = legend(series.filter(function (s) { return s.e.length; }));
    perf.sweepPoints = pts.length;
  };

  Calculator.prototype.renderShare = function (out) {
    var box = this.results.querySelector('.share');
    if (!box.firstChild) {
      var self = this;
      box.innerHTML =
        '<div class="share-row"><label for="share-url">Link to this estimate</label><div class="row"><input id="share-url" type="text" readonly><button type="button" class="btn" data-copy="url">Copy link</button></div></div>' +
        '<div class="snip"><div class="snip-h"><h4 id="card-h">Hugging Face model card (<code>co2_eq_emissions</code>)</h4><button type="button" class="btn" data-copy="card" aria-describedby="card-h">Copy</button></div><pre id="snip-card" tabindex="0" aria-labelledby="card-h"></pre></div>' +
        '<div class="snip"><div class="snip-h"><h4 id="cite-h">Sentence for a paper</h4><button type="button" class="btn" data-copy="cite" aria-describedby="cite-h">Copy</button></div><p id="snip-cite" class="cite-text"></p></div>' +
        '<details class="snip"><summary>Request JSON for the command line</summary><div class="snip-h"><p class="muted small"><code>go run ./site estimate &lt; request.json</code> gives the same answer.</p><button type="button" class="btn" data-copy="req">Copy</button></div><pre id="snip-req" tabindex="0" aria-label="Request JSON"></pre></details>';
      box.addEventListener('click', function (e) {
        var b = e.target.closest('[data-copy]');
        if (!b) return;
        var what = b.getAttribute('data-copy');
        var text = what === 'url' ? self.shareURL() : what === 'card' ? self.last.snippets.model_card : what === 'cite' ? self.last.snippets.citation : JSON.stringify(self.last.request, null, 2);
        copyText(text, b);
      });
    }
    box.querySelector('#share-url').value = this.shareURL();
    box.querySelector('#snip-card').textContent = out.snippets.model_card;
    box.querySelector('#snip-cite').textContent = out.snippets.citation;
    box.querySelector('#snip-req').textContent = JSON.stringify(out.request, null, 2);
  };

  /* ---------- the distillation planner ---------- */

  var REGIME_NAMES = { sft: 'Direct SFT', kd: 'Logit KD', synthetic: 'Synthetic-data SFT' };
  var STAGES = [['preprocess', 'pre', 'Preprocess'], ['teacher', 'teacher', 'Teacher'], ['student', 'student', 'Student'], ['eval', 'eval', 'Evaluation']];
  var SET_NAMES = { '1b': 'Paper: 1B students (OLMo-2 1B, teacher OLMo-2 32B)', '13b': 'Paper: 13B students', all: 'Paper: all seven pipelines', custom: 'My own numbers' };

  function Planner(root, api, meta) {
    this.root = root;
    this.api = api;
    this.meta = meta;
    this.pm = JSON.parse(api.plannerMeta());
    this.state = Object.assign({}, this.pm.default_form);
    this.inputs = {};
    this.last = null;
    var q = new URLSearchParams(location.search), self = this, any = false;
    q.forEach(function (v, k) { if (/^(set|n|region|carbon|pue|price|jref|jstu|rows|o\d+\.(preset|name|regime|pre|teacher|student|eval|q|baseline))$/.test(k)) { if (!any) { self.clearRows(); any = true; } self.state[k] = v; } });
    this.build();
    this.update();
  }

  Planner.prototype.clearRows = function () {
    for (var k in this.state) if (/^o\d+\./.test(k)) delete this.state[k];
  };
  Planner.prototype.rows = function () { var n = parseInt(this.state.rows, 10); return n > 0 && n <= this.pm.max_rows ? n : 0; };
  Planner.prototype.preset = function (name) { return this.pm.presets.filter(function (p) { return p.name === name; })[0]; };

  Planner.prototype.loadSet = function (set) {
    this.clearRows();
    var names = this.pm.sets[set] || [];
    if (set === 'custom') names = [];
    var st = this.state;
    st.rows = String(names.length || 2);
    names.forEach(function (n, i) { st['o' + (i + 1) + '.preset'] = n; });
    if (!names.length) {
      st['o1.name'] = 'direct SFT'; st['o1.regime'] = 'sft'; st['o1.pre'] = ''; st['o1.student'] = ''; st['o1.eval'] = '';
      st['o2.name'] = 'distilled'; st['o2.regime'] = 'kd'; st['o2.pre'] = ''; st['o2.teacher'] = ''; st['o2.student'] = ''; st['o2.eval'] = '';
    }
  };

  Planner.prototype.query = function () {
    var q = new URLSearchParams(), st = this.state, n = this.rows();
    ['set', 'n', 'region', 'carbon', 'pue', 'price', 'jref', 'jstu', 'rows'].forEach(function (k) { q.set(k, st[k] == null ? '' : st[k]); });
    for (var i = 1; i <= n; i++) {
      var o = 'o' + i + '.';
      if (st[o + 'preset']) { q.set(o + 'preset', st[o + 'preset']); if (st[o + 'baseline']) q.set(o + 'baseline', st[o + 'baseline']); continue; }
      ['name', 'regime', 'pre', 'teacher', 'student', 'eval', 'q', 'baseline'].forEach(function (k) { if (st[o + k] != null && st[o + k] !== '') q.set(o + k, st[o + k]); });
    }
    return q.toString();
  };

  Planner.prototype.field = function (key, label, control, hint) { return labelled(this, key, label, control, hint); };

  Planner.prototype.build = function () {
    var self = this, m = this.meta, pm = this.pm;
    this.root.innerHTML = '';
    this.inputs = {};
    this.root.classList.add('wattscale', 'planner');
    var form = el('form', { class: 'calc-form', novalidate: true, 'aria-label': 'Distillation plan' });
    form.addEventListener('submit', function (e) { e.preventDefault(); });
    form.appendChild(el('a', { href: '#plan-results', class: 'btn skip-results', text: 'Jump to the result ↓' }));
    var fsPlan = el('fieldset', {}, [el('legend', { text: 'Plan' })]);
    fsPlan.appendChild(this.field('set', 'Start from', select(Object.keys(SET_NAMES).map(function (k) { return { value: k, text: SET_NAMES[k] }; })), 'Stage energies from Lambert & Luccioni (ICML 2026), measured on one H100'));
    fsPlan.appendChild(this.field('n', 'Students sharing each teacher stage (N)', textInput('numeric'), 'reuse of cached logits or a synthetic set'));
    form.appendChild(fsPlan);

    var n = this.rows();
    for (var i = 1; i <= n; i++) form.appendChild(this.buildRow(i));
    var add = el('button', { type: 'button', class: 'btn', text: '+ Add an option' });
    add.addEventListener('click', function () {
      var r = self.rows() + 1;
      if (r > pm.max_rows) return;
      self.state.rows = String(r);
      var o = 'o' + r + '.';
      self.state[o + 'name'] = 'option ' + r; self.state[o + 'regime'] = 'kd';
      self.state.set = 'custom';
      self.rebuild('o' + r + '.name');
    });
    form.appendChild(el('p', {}, [add]));

    var fsSite = el('fieldset', {}, [el('legend', { text: 'Site, grid and price' })]);
    // The site inputs are the calculator's: labels and hints from its field table.
    var F = {};
    m.fields.forEach(function (f) { F[f.key] = f; });
    fsSite.appendChild(this.field('region', F.region.label, select(m.regions.map(function (r) {
      return { value: r.id, text: r.name + ' — ' + sig(r.carbon_g_per_kwh) + ' g/kWh' };
    }).concat([{ value: 'custom', text: 'Custom intensity' }])), null));
    fsSite.appendChild(el('div', { class: 'grid3' }, [
      this.field('carbon', F.carbon.label, textInput(), F.carbon.hint || null),
      this.field('pue', F.pue.label, textInput(), F.pue.hint || null),
      this.field('price', F.price.label, textInput(), F.price.hint || null)]));
    form.appendChild(fsSite);
    var fsServe = el('fieldset', {}, [el('legend', { text: 'Serving (for T*)' })]);
    fsServe.appendChild(el('div', { class: 'grid2' }, [
      this.field('jref', 'Reference J/token', textInput(), null),
      this.field('jstu', 'Student J/token', textInput(), null)]));
    fsServe.appendChild(el('p', { class: 'hint', text: 'Serving energy per token of the model the student replaces and of the student; leave empty to skip T*.' }));
    form.appendChild(fsServe);
    form.appendChild(el('p', { class: 'err form-err', 'aria-live': 'polite' }));
    this.formErr = form.lastChild;
    form.addEventListener('input', function (e) { self.onInput(e); });
    form.addEventListener('change', function (e) { self.onInput(e); });
    form.addEventListener('click', function (e) {
      var b = e.target.closest('[data-remove]');
      if (!b) return;
      self.removeRow(parseInt(b.getAttribute('data-remove'), 10));
    });
    this.form = form;

    var res = el('section', { class: 'results', 'aria-label': 'Plan result', id: 'plan-results', tabindex: '-1' });
    res.innerHTML = '<div class="status" role="status" aria-live="polite"></div>' +
      '<h2 class="h first">Options side by side</h2><div class="options"></div>' +
      '<h2 class="h">Energy by stage</h2><div class="stages"></div>' +
      '<h2 class="h">Energy per student against reuse</h2><p class="muted small">Per-student energy Ē(N) = E_teacher/N + E_student of each distilled option; the dashed line is its direct-SFT baseline\'s student stage. Distillation pays off right of N*.</p><div class="curve"></div>' +
      '<h2 class="h">Energy and quality</h2><p class="muted small">One-off pipeline energy against quality Q (student score ÷ teacher score); the dashed line joins the Pareto-efficient options.</p><div class="plane"></div>' +
      '<div class="tstar"></div><div class="advice-box"></div><div class="pnotes"></div>';
    this.results = res;
    this.root.appendChild(el('div', { class: 'plan-layout' }, [form, res]));
    this.fill();
  };

  Planner.prototype.buildRow = function (i) {
    var self = this, o = 'o' + i + '.', st = this.state;
    var fs = el('fieldset', { class: 'row-opt', 'data-row': i }, [el('legend', { text: 'Option ' + i })]);
    var presets = [{ value: '', text: 'My own numbers' }].concat(this.pm.presets.map(function (p) { return { value: p.name, text: p.name + ' — ' + REGIME_NAMES[p.regime] + ', ' + p.student }; }));
    fs.appendChild(this.field(o + 'preset', 'Source', select(presets), ''));
    var g = el('div', { class: 'grid2' }, [
      this.field(o + 'name', 'Name', textInput('text'), null),
      this.field(o + 'regime', 'Regime', select(this.pm.regimes.map(function (r) { return { value: r, text: REGIME_NAMES[r] }; })), null)]);
    fs.appendChild(g);
    var stg = el('div', { class: 'grid2' });
    STAGES.forEach(function (s) {
      var f = self.field(o + s[1], s[2] + ' kWh', textInput(), null);
      if (s[1] === 'teacher') f.setAttribute('data-teacher', '1');
      stg.appendChild(f);
    });
    fs.appendChild(stg);
    var sfts = [];
    for (var j = 1; j <= this.rows(); j++) {
      var reg = st['o' + j + '.preset'] ? (this.preset(st['o' + j + '.preset']) || {}).regime : st['o' + j + '.regime'];
      if (reg === 'sft') sfts.push(st['o' + j + '.preset'] || st['o' + j + '.name']);
    }
    var bl = this.field(o + 'baseline', 'Compared with', select([{ value: '', text: 'The plan\'s direct-SFT option' }].concat(sfts.map(function (n) { return { value: n, text: n }; }))), null);
    bl.setAttribute('data-distilled', '1');
    fs.appendChild(el('div', { class: 'grid2' }, [this.field(o + 'q', 'Quality Q', textInput(), null), bl]));
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
        if (p) v = mm[2] === 'name' ? p.name : mm[2] === 'regime' ? p.regime : mm[2] === 'q' ? (p.quality != null ? String(p.quality) : '') :
          (function () { var key = { pre: 'preprocess', teacher: 'teacher', student: 'student', eval: 'eval' }[mm[2]]; var x = p.stages_kwh[key]; return x != null ? String(x) : ''; })();
      }
      if (c.tagName === 'SELECT' && !Array.prototype.some.call(c.options, function (o) { return o.value === v; })) c.appendChild(el('option', { value: v, text: v + ' (not a known choice)' }));
      c.value = v;
    }
    for (var i = 1; i <= this.rows(); i++) {
      var o = 'o' + i + '.';
      var pr = st[o + 'preset'] ? this.preset(st[o + 'preset']) : null;
      var regime = pr ? pr.regime : st[o + 'regime'];
      var row = this.root.querySelector('[data-row="' + i + '"]');
      if (!row) continue;
      row.querySelector('[data-teacher]').hidden = regime === 'sft';
      row.querySelector('[data-distilled]').hidden = regime === 'sft';
      var hint = row.querySelector('#f-o' + i + '\\.preset-hint');
      if (hint) hint.textContent = pr ? (pr.teacher_work ? 'teacher: ' + pr.teacher_work + '; ' : '') + 'published total ' + pr.total_kwh + ' kWh' + (pr.stages_kwh.student == null ? ' (no stage split published)' : '') : 'stage energies you measured, kWh';
    }
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
    var st = this.state, n = this.rows(), keys = ['preset', 'name', 'regime', 'pre', 'teacher', 'student', 'eval', 'q', 'baseline'];
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
      if (mm[2] !== 'baseline' && st[o + 'preset']) {
        // Editing a number of a preset row makes it the user's own.
        var p = this.preset(st[o + 'preset']);
        st[o + 'preset'] = '';
        st[o + 'name'] = p.name + ' (mine)'; st[o + 'regime'] = p.regime; st[o + 'q'] = p.quality != null ? String(p.quality) : '';
        STAGES.forEach(function (s) { var x = p.stages_kwh[s[0]]; st[o + s[1]] = x != null ? String(x) : ''; });
        st[k] = v;
        st.set = 'custom';
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
    this.update();
    history.replaceState(null, '', '?' + this.query() + location.hash);
  };

  Planner.prototype.clearErrors = Calculator.prototype.clearErrors;
  Planner.prototype.showError = Calculator.prototype.showError;

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
      status.textContent = where + (this.last ? 'showing the last valid plan until the input is fixed.' : (out.error.text || out.error.message));
      this.root.dataset.state = 'error';
      return;
    }
    res.classList.remove('stale', 'empty');
    status.textContent = '';
    this.root.dataset.state = 'ok';
    this.last = out;
    var r = out.result;
    this.renderOptions(r);
    this.renderStages(r);
    this.renderCurve(r);
    this.renderPlane(r);
    var ts = r.options.filter(function (o) { return o.t_star_tokens != null; });
    res.querySelector('.tstar').innerHTML = ts.length ? '<h2 class="h">Serving threshold T*</h2><ul>' + ts.map(function (o) {
      return '<li data-tstar="' + o.t_star_tokens + '"><strong>' + esc(o.name) + '</strong>: ' + esc(sig(o.t_star_tokens)) + ' served tokens repay its ' + esc(energyText(o.extra_train_kwh)) + ' of extra training energy.</li>';
    }).join('') + '</ul>' : '';
    res.querySelector('.advice-box').innerHTML = r.advice.length ? '<h2 class="h">What the numbers say</h2><ul class="advice">' + r.advice.map(function (a) { return '<li>' + esc(a) + '</li>'; }).join('') + '</ul>' : '';
    var s = r.site;
    res.querySelector('.pnotes').innerHTML =
      (r.warnings.length ? '<div class="warnings" role="note"><h4>Warnings</h4><ul>' + r.warnings.map(function (w) { return '<li>' + esc(w) + '</li>'; }).join('') + '</ul></div>' : '') +
      '<p class="muted small">Whole plan: ' + esc(energyText(r.plan_total_kwh)) + ', ' + esc(massText(r.plan_co2e_kg)) + ' and ' + esc(usd(r.plan_cost_usd)) + ' at PUE ' + esc(sig(s.pue)) + ', ' + esc(sig(s.carbon_g_per_kwh)) + ' g CO₂e/kWh' + (s.region ? ' (' + esc(s.region) + ')' : '') + ' and $' + esc(sig(s.usd_per_kwh)) + '/kWh. ' +
      'Preset stage energies: ' + esc(this.pm.citation) + '.</p>' +
      (r.assumptions.length ? '<details class="assumptions"><summary>Assumptions used (' + r.assumptions.length + ')</summary><ul>' + r.assumptions.map(function (w) { return '<li>' + esc(w) + '</li>'; }).join('') + '</ul></details>' : '');
  };

  Planner.prototype.renderOptions = function (r) {
    var best = null;
    r.options.forEach(function (o) { if (!best || o.kwh_per_student < best.kwh_per_student) best = o; });
    this.results.querySelector('.options').innerHTML = r.options.map(function (o) {
      var ns = o.n_star != null ? '<span class="nstar">N* = ' + esc(sig(o.n_star)) + '</span> students to break even' : esc(o.n_star_reason || '');
      return '<div class="option' + (o === best ? ' best' : '') + '" data-option="' + esc(o.name) + '"' + (o.n_star != null ? ' data-nstar="' + o.n_star + '"' : '') + ' data-oneoff="' + o.one_off_kwh + '">' +
        '<h4>' + esc(o.name) + '</h4><span class="sub">' + esc(REGIME_NAMES[o.regime] || o.regime) + ' · ' + esc(o.source) + '</span>' +
        '<span class="v">' + esc(energyText(o.one_off_kwh)) + '</span><span class="sub">one-off pipeline' + (o.regime !== 'sft' ? '; ' + esc(energyText(o.kwh_per_student)) + ' per student at N = ' + o.students : '') + '</span>' +
        '<span class="sub">' + esc(massText(o.co2e_kg)) + ' · ' + esc(usd(o.cost_usd)) + (o.quality != null ? ' · Q ' + esc(sig(o.quality, 2)) : '') + (o.j_per_token ? ' · ' + esc(sig(o.j_per_token)) + ' J/token' : '') + '</span>' +
        (o.regime !== 'sft' ? '<p class="small">' + ns + (o.baseline ? ' (against ' + esc(o.baseline) + ')' : '') + '</p>' : '') +
        (o === best ? '<p class="small"><strong>Lowest energy per student</strong></p>' : '') + '</div>';
    }).join('');
  };

  Planner.prototype.renderStages = function (r) {
    var W = 560, rowH = 30, L = 130, R = 80, H = r.options.length * rowH + 10;
    var max = Math.max.apply(null, r.options.map(function (o) { return o.one_off_kwh; })) || 1;
    var out = ['<svg class="chart" viewBox="0 0 ' + W + ' ' + H + '" role="img" aria-label="' + esc('Energy by stage of each option: ' + r.options.map(function (o) { return o.name + ' ' + energyText(o.one_off_kwh); }).join('; ')) + '">'];
    r.options.forEach(function (o, i) {
      var y = 5 + i * rowH, x = L;
      out.push('<text class="bar-label" x="' + (L - 8) + '" y="' + (y + 15) + '" text-anchor="end">' + esc(o.name.length > 18 ? o.name.slice(0, 17) + '…' : o.name) + '</text>');
      var stages = o.stages.length ? o.stages : [];
      stages.forEach(function (s) {
        var e = s.source === 'shared' ? 0 : s.energy_kwh;
        if (s.stage === 'teacher' && o.teacher_shared_with) e = o.one_off_kwh - o.total_kwh;
        var w = e / max * (W - L - R);
        if (w <= 0) return;
        out.push('<rect class="st-' + esc(s.stage) + '" x="' + x.toFixed(1) + '" y="' + y + '" width="' + w.toFixed(1) + '" height="' + (rowH - 10) + '"><title>' + esc(s.stage + ': ' + energyText(e)) + '</title></rect>');
        x += w;
      });
      if (!stages.length) out.push('<rect class="st-preprocess" x="' + L + '" y="' + y + '" width="' + (o.one_off_kwh / max * (W - L - R)).toFixed(1) + '" height="' + (rowH - 10) + '"/>');
      out.push('<text class="bar-label" x="' + (x + 6).toFixed(1) + '" y="' + (y + 15) + '">' + esc(energyText(o.one_off_kwh)) + '</text>');
    });
    out.push('</svg>');
    var present = {};
    r.options.forEach(function (o) { o.stages.forEach(function (s) { if (s.energy_kwh > 0) present[s.stage] = true; }); });
    var legendHTML = '<ul class="legend">' + [['prerun', 'Prerun'], ['preprocess', 'Preprocess'], ['teacher', 'Teacher'], ['student', 'Student'], ['eval', 'Evaluation']].filter(function (s) { return present[s[0]]; }).map(function (s) {
      return '<li><span class="swatch st-' + s[0] + '" aria-hidden="true" style="height:0.8rem;width:0.8rem;vertical-align:-0.08rem"></span>' + s[1] + '</li>';
    }).join('') + '</ul>';
    this.results.querySelector('.stages').innerHTML = out.join('') + legendHTML;
  };

  Planner.prototype.renderCurve = function (r) {
    var dist = r.options.filter(function (o) { return o.curve && o.curve.length; });
    var box = this.results.querySelector('.curve');
    if (!dist.length) { box.innerHTML = '<p class="muted">No distilled option: nothing to amortise.</p>'; return; }
    var W = 560, H = 300, L = 60, R = 16, T = 16, B = 46;
    var ys = [];
    dist.forEach(function (o) { o.curve.forEach(function (p) { ys.push(p.kwh_per_student); }); if (o.baseline_student_kwh != null) ys.push(o.baseline_student_kwh); });
    var xa = axis(1, 50, L, W - R, { log: true }), ya = axis(0, Math.max.apply(null, ys) * 1.05, H - B, T, {});
    xa.ticks = [1, 2, 5, 10, 20, 50];
    var keys = ['ddp', 'tp', 'fsdp', 'hybrid', 'single'];
    var out = ['<svg class="chart" viewBox="0 0 ' + W + ' ' + H + '" role="img" aria-labelledby="curve-t"><title id="curve-t">' + esc('Energy per student against the number of students: ' + dist.map(function (o) { return o.name + (o.n_star != null ? ' breaks even at N* = ' + sig(o.n_star) : ' does not break even'); }).join('; ')) + '</title>'];
    ya.ticks.forEach(function (t) { var y = ya.map(t).toFixed(1); out.push('<line class="grid" x1="' + L + '" x2="' + (W - R) + '" y1="' + y + '" y2="' + y + '"/><text class="tick" x="' + (L - 6) + '" y="' + y + '" dy="0.32em" text-anchor="end">' + esc(sig(t, 2)) + '</text>'); });
    xa.ticks.forEach(function (t) { var x = xa.map(t).toFixed(1); out.push('<line class="grid" y1="' + T + '" y2="' + (H - B) + '" x1="' + x + '" x2="' + x + '"/><text class="tick" y="' + (H - B + 16) + '" x="' + x + '" text-anchor="middle">' + t + '</text>'); });
    out.push('<line class="axis" x1="' + L + '" x2="' + (W - R) + '" y1="' + (H - B) + '" y2="' + (H - B) + '"/><line class="axis" x1="' + L + '" x2="' + L + '" y1="' + T + '" y2="' + (H - B) + '"/>');
    out.push('<text class="label" x="' + ((L + W - R) / 2) + '" y="' + (H - 8) + '" text-anchor="middle">Students sharing the teacher stage (N)</text>');
    out.push('<text class="label" transform="translate(14 ' + ((T + H - B) / 2) + ') rotate(-90)" text-anchor="middle">kWh per student</text>');
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
    box.innerHTML = out.join('') + legend(legendItems);
  };

  Planner.prototype.renderPlane = function (r) {
    var pts = r.options.filter(function (o) { return o.quality != null; });
    var box = this.results.querySelector('.plane');
    if (!pts.length) { box.innerHTML = '<p class="muted">No option has a quality score: give Q to place options on the plane.</p>'; return; }
    var W = 560, H = 300, L = 60, R = 16, T = 16, B = 46;
    var xs = pts.map(function (o) { return o.one_off_kwh; }), qs = pts.map(function (o) { return o.quality; });
    var xa = axis(0, Math.max.apply(null, xs) * 1.1, L, W - R, {});
    var ya = axis(Math.max(0, Math.min.apply(null, qs) - 0.05), Math.min(1.05, Math.max.apply(null, qs) + 0.05), H - B, T, {});
    var out = ['<svg class="chart" viewBox="0 0 ' + W + ' ' + H + '" role="img" aria-labelledby="plane-t"><title id="plane-t">' + esc('Energy–quality plane. Pareto-efficient: ' + r.pareto.map(function (p) { return p.name; }).join(', ') + '. Dominated: ' + (r.dominated.map(function (d) { return d.name; }).join(', ') || 'none')) + '</title>'];
    ya.ticks.forEach(function (t) { var y = ya.map(t).toFixed(1); out.push('<line class="grid" x1="' + L + '" x2="' + (W - R) + '" y1="' + y + '" y2="' + y + '"/><text class="tick" x="' + (L - 6) + '" y="' + y + '" dy="0.32em" text-anchor="end">' + esc(sig(t, 2)) + '</text>'); });
    xa.ticks.forEach(function (t) { var x = xa.map(t).toFixed(1); out.push('<line class="grid" y1="' + T + '" y2="' + (H - B) + '" x1="' + x + '" x2="' + x + '"/><text class="tick" y="' + (H - B + 16) + '" x="' + x + '" text-anchor="middle">' + esc(sig(t, 2)) + '</text>'); });
    out.push('<line class="axis" x1="' + L + '" x2="' + (W - R) + '" y1="' + (H - B) + '" y2="' + (H - B) + '"/><line class="axis" x1="' + L + '" x2="' + L + '" y1="' + T + '" y2="' + (H - B) + '"/>');
    out.push('<text class="label" x="' + ((L + W - R) / 2) + '" y="' + (H - 8) + '" text-anchor="middle">One-off pipeline energy (kWh)</text>');
    out.push('<text class="label" transform="translate(14 ' + ((T + H - B) / 2) + ') rotate(-90)" text-anchor="middle">Quality Q</text>');
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
    box.innerHTML = out.join('') + legend([{ key: 'single', name: 'Direct SFT' }, { key: 'ddp', name: 'Logit KD' }, { key: 'tp', name: 'Synthetic-data SFT' }]);
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
      '<p>Upload runs you measured, one row per run, in the project\'s CSV schema (columns <code>model</code> or the shape, <code>gpu</code>, <code>count</code>, <code>strategy</code>, <code>seq_len</code>, <code>batch_per_gpu</code>, <code>tokens</code>, <code>precision</code>, <code>energy_kwh</code>, <code>duration_s</code>; the Zeus power trace also works). ' +
      'The fit runs in this page (a separate 1 MB module loaded only now); nothing is uploaded anywhere.</p>' +
      '<div class="refit-in"><div class="field"><label for="refit-file">Measurement CSV file</label><input type="file" id="refit-file" accept=".csv,text/csv"></div>' +
      '<div class="field"><label for="refit-text">or paste the CSV</label><textarea id="refit-text" rows="4" spellcheck="false"></textarea></div>' +
      '<div class="field"><label for="refit-kind">Fit</label><select id="refit-kind"><option value="law">the paper\'s log-linear law (with hardware terms)</option><option value="paper">the paper\'s specification exactly (needs eta on multi-GPU rows)</option><option value="roofline">the roofline model</option></select></div>' +
      '<button type="button" class="btn primary" id="refit-go">Fit</button></div>' +
      '<div class="refit-status" role="status" aria-live="polite"></div><div class="refit-out"></div>';
    this.root.appendChild(sec);
    var file = sec.querySelector('#refit-file'), text = sec.querySelector('#refit-text');
    file.addEventListener('change', function () {
      var f = file.files[0];
      if (!f) return;
      f.text().then(function (t) { text.value = t; self.refitName = f.name; });
    });
    sec.querySelector('#refit-go').addEventListener('click', function () { self.refit(); });
  };

  Calculator.prototype.refit = async function () {
    var sec = this.root.querySelector('.refit'), st = sec.querySelector('.refit-status'), out = sec.querySelector('.refit-out');
    var csv = sec.querySelector('#refit-text').value;
    var f = sec.querySelector('#refit-file').files[0];
    if (!csv.trim() && f) csv = await f.text();
    if (!csv.trim()) { st.textContent = 'Choose a CSV file or paste one first.'; return; }
    st.textContent = 'Loading the fitting module…';
    sec.dataset.state = 'loading';
    try {
      var how = await loadFit();
      sec.dataset.wasmSource = how;
    } catch (e) {
      st.textContent = 'The fitting module could not be loaded: ' + e.message;
      sec.dataset.state = 'error';
      return;
    }
    st.textContent = 'Fitting…';
    await new Promise(function (r) { setTimeout(r, 0); });
    var kind = sec.querySelector('#refit-kind').value;
    var res = call(window.wattscale_fit.fit, { csv: csv, name: this.refitName || (f && f.name) || 'pasted.csv', kind: kind });
    if (res.error) {
      st.textContent = 'The fit failed: ' + res.error.text;
      out.innerHTML = '';
      sec.dataset.state = 'error';
      return;
    }
    st.textContent = 'Fitted ' + res.calibration.name + ' on ' + res.rows + ' rows.';
    out.innerHTML = fitReport(res, kind);
    sec.dataset.state = 'done';
    var blob = new Blob([JSON.stringify(res.calibration, null, 2) + '\n'], { type: 'application/json' });
    var a = out.querySelector('.dl');
    a.href = URL.createObjectURL(blob);
  };

  function fitReport(res, kind) {
    var c = res.calibration, f = c.fit || {};
    var rows = (f.coefficients || []).map(function (k) {
      return '<tr data-coef="' + esc(k.name) + '"><th scope="row"><code>' + esc(k.name) + '</code></th>' +
        '<td class="num" data-value="' + k.value + '">' + esc(sig(k.value, 4)) + '</td>' +
        '<td class="num" data-se="' + (k.se || 0) + '">' + esc(k.se ? sig(k.se, 3) : '—') + '</td>' +
        '<td class="num">' + esc(k.ci_low || k.ci_high ? sig(k.ci_low, 3) + ' to ' + sig(k.ci_high, 3) : '—') + '</td>' +
        '<td class="num">' + esc(k.p ? (k.p < 1e-4 ? '< 0.0001' : sig(k.p, 2)) : '—') + '</td></tr>';
    }).join('');
    var stats = [
      ['Runs (n)', f.n], ['Workload groups', f.groups], ['R²', f.r2 != null ? sig(f.r2, 4) : ''], ['Adjusted R²', f.adj_r2 != null ? sig(f.adj_r2, 4) : ''],
      ['RMSE (ln energy)', f.rmse_ln != null ? sig(f.rmse_ln, 3) : ''], ['Residual SD (ln)', f.residual_sd_ln != null ? sig(f.residual_sd_ln, 3) : ''], ['Held-out R²', f.cv_r2 != null ? sig(f.cv_r2, 4) : ''],
      ['Held-out RMSE (ln)', f.cv_rmse_ln != null ? sig(f.cv_rmse_ln, 3) : ''], ['Interval coverage held out', f.cv_coverage != null ? pct(f.cv_coverage) : ''],
      ['Cross-validation', f.cv_method || '']
    ].filter(function (s) { return s[1] !== '' && s[1] != null; });
    return '<h3>' + esc(c.title) + '</h3>' +
      '<table class="coef"><caption>Coefficients of <code>' + esc(c.name) + '</code> (' + esc(c.kind) + ')</caption><thead><tr><th scope="col">term</th><th scope="col">estimate</th><th scope="col">SE</th><th scope="col">95 % CI</th><th scope="col">p</th></tr></thead><tbody>' + rows + '</tbody></table>' +
      '<dl class="fitstats">' + stats.map(function (s) { return '<div><dt>' + esc(s[0]) + '</dt><dd>' + esc(String(s[1])) + '</dd></div>'; }).join('') + '</dl>' +
      ((f.notes || []).length ? '<ul class="notes-list">' + f.notes.map(function (n) { return '<li>' + esc(n) + '</li>'; }).join('') + '</ul>' : '') +
      '<p><a class="btn dl" download="' + esc(c.name) + '.json" href="#">Download the calibration JSON</a> <span class="muted small">Same JSON as <code>go run ./site fit -data FILE -kind ' + esc(kind) + '</code>.</span></p>';
  }

  /* ---------- start ---------- */

  async function start(root) {
    var mode = root.getAttribute('data-mode') || 'calculator';
    root.setAttribute('aria-busy', 'true');
    root.innerHTML = '<p class="loading">Loading the calculator…</p>';
    var how;
    try {
      how = await loadGo({ wasm: 'calc.wasm', embedScript: 'calc-embed.js', embedGlobal: 'WATTSCALE_WASM_GZ_B64', global: 'wattscale', readyHook: 'wattscaleReady' });
    } catch (e) {
      root.innerHTML = '<p class="fatal" role="alert">The calculator could not start: ' + esc(e.message) + '</p>';
      root.removeAttribute('aria-busy');
      return;
    }
    root.dataset.wasmSource = how;
    var meta = JSON.parse(window.wattscale.meta());
    var app;
    if (mode === 'planner') app = new Planner(root, window.wattscale, meta);
    else {
      app = new Calculator(root, window.wattscale, meta, { embed: mode === 'embed' || root.getAttribute('data-embed') === '1' });
      app.update();
    }
    root.removeAttribute('aria-busy');
    root.dataset.ready = '1';
    perf.firstEstimateMs = performance.now();
    window.wattscaleApp = app;
  }

  window.WattscaleInternals = { el: el, esc: esc, sig: sig, energyText: energyText, energyParts: energyParts, lineChart: lineChart, legend: legend, copyText: copyText, call: call, pct: pct, timeText: timeText, massText: massText, usd: usd };

  function boot() {
    var root = document.getElementById('calc-root');
    if (root) start(root);
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', boot);
  else boot();
})();
