// Package view writes the calculator's and the planner's HTML for a form
// state and its answer: the form with its values, hints and messages, the
// estimate's figures, breakdown, charts and snippets, the planner's option
// cards, stage bars and curves.
//
// It is the one view of both pages. The site generator calls it at build
// time for the page's prerendered default state; calc.wasm and
// planner.wasm call the same functions at run time for every state, and
// the page script only puts the markup in place (morphing the nodes that
// are already there), so what the page shows before and after the
// WebAssembly starts is the same by construction.
//
// It is plain Go over package calcapi's types (no syscall/js), tested
// natively.
package view

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/wattscale/wattscale/wasm/calcapi"
)

// SweepStrategies are the strategies the calculator's charts draw.
var SweepStrategies = sweepStrategies

// SweepCounts are the GPU counts the calculator's charts show for a
// configuration of count GPUs.
func SweepCounts(count int) []int { return sweepCounts(count) }

// Calculator is the calculator's markup (the content of its mount
// element) for the form state form and its estimate out; embed: the
// embedded calculator's (no summary, recommender or snippets). advice is
// the recommender's panel (Advice) for the same form ("" = none yet).
// parts are its parts' hashes (PartHashes), which the page hands to
// calc.wasm's first answer (CalcCall.Seen).
func Calculator(m *calcapi.Meta, form calcapi.Form, out *calcapi.EstimateOutput, embed bool, advice string) (html, parts string, err error) {
	if m == nil || out == nil {
		return "", "", fmt.Errorf("view: no meta or no estimate")
	}
	c := calcView{meta: m, state: form, out: out, embed: embed, advice: advice}
	html, err = c.markup()
	return html, PartHashes(c.parts), err
}

// PartHashes lists each part's key and a hash of its markup
// ("key:hash,..."), which a page that already shows those parts hands to
// the next answer so that the parts it shows are not sent again.
func PartHashes(parts []Part) string {
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(p.Key + ":" + strconv.FormatUint(partHash(p.HTML), 16))
	}
	return b.String()
}

// partHash is the 64-bit FNV-1a hash of a part's markup.
func partHash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	return h
}

// shown is what the page shows of a view's parts, so that an answer
// carries only the parts the page lacks: their markup as last sent and,
// until the first answer, the prerendered page's part hashes.
type shown struct {
	sent map[string]string
	seen map[string]uint64
}

// prerendered takes the prerendered page's part hashes (PartHashes, ""
// for none), which count until the first answer.
func (s *shown) prerendered(hashes string) {
	if hashes != "" && s.sent == nil {
		s.seen = parseHashes(hashes)
	}
}

// answer is what an answer carries: with partsOnly, those of parts whose
// markup the page does not show yet (changed since the last answer and,
// on a first answer, not the prerendered page's); else the whole markup
// html, after which no part counts as sent.
func (s *shown) answer(parts []Part, html string, partsOnly bool) ([]Part, string) {
	seen := s.seen
	s.seen = nil
	if !partsOnly {
		s.sent = nil
		return nil, html
	}
	if s.sent == nil {
		s.sent = map[string]string{}
	}
	var out []Part
	for _, p := range parts {
		if s.sent[p.Key] == p.HTML {
			continue
		}
		s.sent[p.Key] = p.HTML
		if h, ok := seen[p.Key]; !ok || h != partHash(p.HTML) {
			out = append(out, p)
		}
	}
	return out, ""
}

// parseHashes reads PartHashes' list back, by key; a malformed entry is
// left out (its part is then sent).
func parseHashes(s string) map[string]uint64 {
	m := map[string]uint64{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, ":")
		if h, err := strconv.ParseUint(v, 16, 64); ok && err == nil {
			m[k] = h
		}
	}
	return m
}

// Planner is the planner's markup for the plan form state form and its
// evaluation out, and its parts' hashes (PartHashes; PlanRenderInput.Seen).
func Planner(m *calcapi.Meta, pm *calcapi.PlannerMeta, form calcapi.PlanForm, out *calcapi.PlanOutput) (html, parts string, err error) {
	if m == nil || pm == nil || out == nil {
		return "", "", fmt.Errorf("view: no meta or no plan")
	}
	v := planView{meta: m, pm: pm, state: form, out: out}
	html, err = v.markup()
	return html, PartHashes(v.c.parts), err
}
