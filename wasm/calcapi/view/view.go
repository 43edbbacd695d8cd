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
func Calculator(m *calcapi.Meta, form calcapi.Form, out *calcapi.EstimateOutput, embed bool, advice string) (string, error) {
	if m == nil || out == nil {
		return "", fmt.Errorf("view: no meta or no estimate")
	}
	c := calcView{meta: m, state: form, out: out, embed: embed, advice: advice}
	return c.markup()
}

// Planner is the planner's markup for the plan form state form and its
// evaluation out.
func Planner(m *calcapi.Meta, pm *calcapi.PlannerMeta, form calcapi.PlanForm, out *calcapi.PlanOutput) (string, error) {
	if m == nil || pm == nil || out == nil {
		return "", fmt.Errorf("view: no meta or no plan")
	}
	v := planView{meta: m, pm: pm, state: form, out: out}
	return v.markup()
}
