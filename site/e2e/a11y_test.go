package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// focusStep is what the test records about the element focused after a Tab.
type focusStep struct {
	ID, Tag, Type string
	Labelled      bool
	Outline       string // computed outline: style and width
	InRoot        bool
}

// TestKeyboardOnly tabs through the calculator and the planner: every
// control in the app is reached, labelled and visibly focused, and a value
// typed after tabbing updates the estimate.
func TestKeyboardOnly(t *testing.T) {
	srv := serve(t, builtSite(t))
	ctx := browser(t)
	for _, page := range []string{"/index.html", "/planner/index.html"} {
		t.Run(page, func(t *testing.T) {
			openCalc(t, ctx, srv.URL+page)
			controls := eval[[]string](t, ctx, `Array.prototype.filter.call(document.querySelectorAll('#calc-root input, #calc-root select, #calc-root textarea, #calc-root button, #calc-root a[href], #calc-root [tabindex="0"]'),
  function(e){ return !e.closest('[hidden]') && !e.closest('details:not([open]) > :not(summary)') && e.offsetParent !== null && e.type !== 'radio' }).map(function(e){ return e.id || e.name || e.textContent.trim() })`)
			eval[bool](t, ctx, `(document.activeElement && document.activeElement.blur(), window.scrollTo(0,0), true)`)
			seen := map[string]bool{}
			var steps []focusStep
			for i := 0; i < 400; i++ {
				do(t, ctx, "Tab", chromedp.KeyEvent(kb.Tab))
				s := eval[focusStep](t, ctx, `(function(){var e=document.activeElement; if(!e||e===document.body) return {ID:'',Tag:'BODY'};
  var cs=getComputedStyle(e);
  var lab = (e.labels && e.labels.length>0) || !!e.getAttribute('aria-label') || !!e.getAttribute('aria-labelledby') || ((e.tagName==='BUTTON'||e.tagName==='A'||e.tagName==='SUMMARY') && e.textContent.trim()!=='');
  return {ID: e.id || e.name || e.textContent.trim(), Tag: e.tagName, Type: e.type||'', Labelled: lab, Outline: cs.outlineStyle+' '+cs.outlineWidth, InRoot: !!e.closest('#calc-root')}})()`)
				if s.Tag == "BODY" || (len(steps) > 0 && seen[s.ID] && s.ID == steps[0].ID) {
					break
				}
				steps = append(steps, s)
				seen[s.ID] = true
			}
			for _, c := range controls {
				if !seen[c] {
					t.Errorf("control %q is never reached with Tab", c)
				}
			}
			for _, s := range steps {
				if !s.InRoot {
					continue
				}
				if !s.Labelled {
					t.Errorf("focused control %s %q has no label", s.Tag, s.ID)
				}
				if strings.HasPrefix(s.Outline, "none") || strings.HasSuffix(s.Outline, " 0px") {
					t.Errorf("focused control %s %q shows no focus outline (%s)", s.Tag, s.ID, s.Outline)
				}
			}
			if page != "/index.html" {
				return
			}
			// Tab to the GPU count and type a new value.
			before := pageEnergy(t, ctx)
			eval[bool](t, ctx, `(document.activeElement && document.activeElement.blur(), true)`)
			for i := 0; i < 200; i++ {
				do(t, ctx, "Tab", chromedp.KeyEvent(kb.Tab))
				if eval[string](t, ctx, `document.activeElement.id`) == "f-count" {
					break
				}
			}
			if id := eval[string](t, ctx, `document.activeElement.id`); id != "f-count" {
				t.Fatalf("Tab never reached the GPU count (stopped at %q)", id)
			}
			do(t, ctx, "type 8", chromedp.KeyEvent(kb.End), chromedp.KeyEvent(kb.Backspace), chromedp.KeyEvent("8"))
			if v := eval[string](t, ctx, `document.getElementById('f-count').value`); v != "8" {
				t.Fatalf("GPU count holds %q after typing, want 8", v)
			}
			if after := pageEnergy(t, ctx); after == before {
				t.Error("the estimate did not change after typing a GPU count with the keyboard")
			}
		})
	}
}

// axeViolation is one rule axe-core reports.
type axeViolation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"`
}

// TestAccessibility runs axe-core (pinned in site/e2e/package.json,
// installed by npm ci --prefix site/e2e) in the calculator, the planner
// and the embed page, in light and dark schemes and with a field in error, and fails on any serious or
// critical violation.
func TestAccessibility(t *testing.T) {
	axePath := filepath.Join(repoRoot(t), "site", "e2e", "node_modules", "axe-core", "axe.min.js")
	axe, err := os.ReadFile(axePath)
	if err != nil {
		msg := "axe-core not installed (run `npm ci --prefix site/e2e`): " + err.Error()
		if os.Getenv("WATTSCALE_REQUIRE_E2E") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	srv := serve(t, builtSite(t))
	ctx := browser(t)
	cases := []struct{ name, path, scheme, setup string }{
		{"calculator light", "/index.html", "light", ""},
		{"calculator dark", "/index.html", "dark", ""},
		{"calculator with an error", "/index.html?tokens=12abc", "light", ""},
		{"calculator dark with an error, last result dimmed", "/index.html", "dark", "tokens"},
		{"planner light", "/planner/index.html", "light", ""},
		{"planner dark", "/planner/index.html", "dark", ""},
		{"planner, all seven pipelines", "/planner/index.html?set=all", "light", ""},
		{"planner, my own numbers", "/planner/index.html?set=custom", "light", ""},
		{"planner, an estimated LoRA student and cheaper hardware per stage", "/planner/index.html?set=custom&n=1&rows=1&o1.name=mine&o1.regime=sft&o1.pre=0.4&o1.eval=0.3&o1.smode=estimate&o1.s.model=olmo-2-1b&o1.s.tokens=1e8&o1.s.seq=1024&o1.s.batch=8&o1.s.precision=bf16&o1.s.method=lora&o1.s.gpu=h100-sxm5&o1.s.count=1&o1.s.strategy=single", "dark", ""},
		{"calculator outside the envelope, strategies that do not fit", "/index.html?model=llama-3-8b&gpu=h100&seq=128&batch=4", "light", ""},
		{"embed", "/embed.html?model=llama-3-8b", "light", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			colorScheme(t, ctx, c.scheme)
			openCalc(t, ctx, srv.URL+c.path)
			if c.setup != "" {
				typeInto(t, ctx, c.setup, "-1")
			}
			eval[bool](t, ctx, `(document.querySelectorAll('details').forEach(function(d){d.open=true}), true)`)
			do(t, ctx, "inject axe-core", chromedp.Evaluate[chromedp.Void](string(axe)))
			raw := eval[string](t, ctx, `axe.run(document, {resultTypes: ['violations']}).then(function(r){ return JSON.stringify(r.violations.map(function(v){
  return {id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map(function(n){ return n.target.join(' ') + ': ' + (n.failureSummary || '').split('\n').slice(0,2).join(' ') })} })) })`)
			var vs []axeViolation
			if err := json.Unmarshal([]byte(raw), &vs); err != nil {
				t.Fatal(err)
			}
			for _, v := range vs {
				line := fmt.Sprintf("%s (%s): %s\n    %s", v.ID, v.Impact, v.Help, strings.Join(v.Nodes, "\n    "))
				// Headings that skip a level fail too (issue 14): axe calls
				// heading-order moderate.
				if v.Impact == "serious" || v.Impact == "critical" || v.ID == "heading-order" {
					t.Errorf("axe: %s", line)
				} else {
					t.Logf("axe (not failing): %s", line)
				}
			}
		})
	}
}
