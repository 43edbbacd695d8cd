package gen

// The prerendered calculator and planner.
//
// The generator computes the calculator's default estimate and the
// planner's default plan at build time with the same Go code as the
// browser's WebAssembly (wasm/calcapi) and writes them into the pages with
// the one view (wasm/calcapi/view), which calc.wasm and planner.wasm call
// at run time too. The page thus shows a complete estimate before any
// script runs, and without JavaScript at all.

import (
	"encoding/json"
	"fmt"
	"html/template"
	"strconv"
	"strings"

	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/wasm/calcapi"
	"github.com/wattscale/wattscale/wasm/calcapi/view"
)

// prerendered is the calculator's markup for the calculator page and for
// embed.html.
type prerendered struct {
	Calculator, Embed template.HTML
	// CalculatorParts and EmbedParts are their parts' hashes
	// (view.PartHashes; the mount's data-parts).
	CalculatorParts, EmbedParts string
	FormKeys                    []string // the URL keys that carry a calculator's state
	// Planner is the planner page's (prerenderplan.go); nil = none.
	Planner *plannerPrerendered
}

// prerenderCalculator computes the default estimate with cat, the catalog
// of the loaded content's calibrations (the ones calc.wasm then uses), and
// writes both markups.
func prerenderCalculator(cat *model.Catalog) (*prerendered, error) {
	api := calcapi.New(cat)
	meta := api.MetaOf()
	form := meta.DefaultForm
	n, _ := strconv.Atoi(form["count"])
	if n <= 0 {
		n = 4
	}
	in, _ := json.Marshal(calcapi.EstimateInput{Form: form, Sweep: &calcapi.SweepSpec{Counts: view.SweepCounts(n), Strategies: view.SweepStrategies}})
	var out calcapi.EstimateOutput
	if err := json.Unmarshal(api.Estimate(in), &out); err != nil {
		return nil, fmt.Errorf("prerender: estimate: %w", err)
	}
	if out.Error != nil {
		return nil, fmt.Errorf("prerender: the default form does not estimate: %s", out.Error.Text)
	}
	p := &prerendered{FormKeys: meta.FormKeys}
	// The recommender's panel as calc.wasm's advise draws it (at an
	// unknown width); the embedded calculator has none.
	advice := view.Advice(api, &meta, form, 0)
	for _, embed := range []bool{false, true} {
		adv := advice
		if embed {
			adv = ""
		}
		s, parts, err := view.Calculator(&meta, form, &out, embed, adv)
		if err != nil {
			return nil, err
		}
		if embed {
			p.Embed, p.EmbedParts = template.HTML(s), parts
		} else {
			p.Calculator, p.CalculatorParts = template.HTML(s), parts
		}
	}
	return p, nil
}

// with adds the prerendered markup that fits the shell's mode.
func (s calcShell) with(p *prerendered) calcShell {
	if p == nil {
		return s
	}
	switch s.Mode {
	case "calculator":
		s.Prerendered, s.Parts = p.Calculator, p.CalculatorParts
	case "embed":
		s.Prerendered, s.Parts = p.Embed, p.EmbedParts
	case "planner":
		if p.Planner != nil {
			s.Prerendered, s.FormKeys, s.Parts = p.Planner.Markup, p.Planner.Keys, p.Planner.Parts
		}
		return s
	}
	s.FormKeys = p.FormKeys
	return s
}

// plannerPrerendered is the planner's markup with the default plan and
// the URL keys that carry a planner state.
type plannerPrerendered struct {
	Markup template.HTML
	Keys   []string
	Parts  string // the parts' hashes (view.PartHashes; the mount's data-parts)
}

// prerenderPlanner evaluates the planner's default plan with cat (the
// catalog planner.wasm then uses) and writes the planner's markup.
func prerenderPlanner(cat *model.Catalog) (*plannerPrerendered, error) {
	api := calcapi.New(cat)
	var meta calcapi.Meta
	if err := json.Unmarshal(api.Meta(), &meta); err != nil {
		return nil, fmt.Errorf("prerender planner: meta: %w", err)
	}
	var pm calcapi.PlannerMeta
	if err := json.Unmarshal(api.PlannerMeta(), &pm); err != nil {
		return nil, fmt.Errorf("prerender planner: planner meta: %w", err)
	}
	in, _ := json.Marshal(calcapi.PlanInput{Form: pm.Default})
	var out calcapi.PlanOutput
	if err := json.Unmarshal(api.Distill(in), &out); err != nil {
		return nil, fmt.Errorf("prerender planner: distill: %w", err)
	}
	if out.Error != nil {
		return nil, fmt.Errorf("prerender planner: the default plan does not evaluate: %s", out.Error.Text)
	}
	s, parts, err := view.Planner(&meta, &pm, pm.Default, &out)
	if err != nil {
		return nil, err
	}
	p := &plannerPrerendered{Markup: template.HTML(s), Parts: parts}
	// The keys a planner link carries: the plan's, and each
	// row's for every row the form can have.
	for _, f := range pm.Fields {
		if rest, ok := strings.CutPrefix(f.Key, "oK."); ok {
			for i := 1; i <= pm.MaxRows; i++ {
				p.Keys = append(p.Keys, "o"+strconv.Itoa(i)+"."+rest)
			}
			continue
		}
		p.Keys = append(p.Keys, f.Key)
	}
	return p, nil
}
