/* wattscale embed: the calculator in any page, with one line.
 *
 *   <script src="https://YOUR-HOST/assets/embed.js" data-preset="llama-3-8b"></script>
 *
 * The script puts an iframe of the site's embed.html right after itself.
 * Optional attributes:
 *   data-preset   a model preset (bert-base, llama-3-8b, ...)
 *   data-query    any calculator URL state, e.g. "gpu=h100-sxm5&count=8&strategy=fsdp"
 *   data-height   initial height in pixels (the frame then follows its content)
 * The frame resizes itself, and each estimate is re-dispatched on the iframe
 * as a bubbling "wattscale:estimate" event whose detail holds energy_kwh,
 * co2e_kg, time_s, the calibration and the share URL.
 * Without JavaScript on the host page, a plain iframe does the same:
 *   <iframe src="https://YOUR-HOST/embed.html?model=llama-3-8b" title="wattscale energy calculator" width="100%" height="1100"></iframe>
 */
(function () {
  'use strict';
  var s = document.currentScript;
  if (!s || !s.src) return;
  var url = new URL('../embed.html', s.src);
  var q = new URLSearchParams(s.getAttribute('data-query') || '');
  var preset = s.getAttribute('data-preset');
  if (preset) q.set('model', preset);
  url.search = q.toString();
  var f = document.createElement('iframe');
  f.src = url.href;
  f.title = s.getAttribute('data-title') || 'wattscale energy calculator';
  f.className = 'wattscale-embed';
  f.setAttribute('loading', 'lazy');
  f.style.width = '100%';
  f.style.border = '0';
  f.style.display = 'block';
  f.style.height = (parseInt(s.getAttribute('data-height'), 10) || 1100) + 'px';
  s.parentNode.insertBefore(f, s.nextSibling);
  window.addEventListener('message', function (e) {
    if (e.source !== f.contentWindow || !e.data || typeof e.data.type !== 'string') return;
    if (e.data.type === 'wattscale:resize' && e.data.height > 0) f.style.height = Math.ceil(e.data.height) + 'px';
    if (e.data.type === 'wattscale:estimate') f.dispatchEvent(new CustomEvent('wattscale:estimate', { detail: e.data, bubbles: true }));
  });
})();
