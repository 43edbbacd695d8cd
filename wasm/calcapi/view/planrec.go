package view

// The planner's summary and its "cheaper hardware per stage" panel.

import (
	"math"
	"strconv"
	"strings"

	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/distill"
	"github.com/wattscale/wattscale/wasm/calcapi"
)

// summary is the plan's summary at the top of the planner, which a phone
// shows before the form (calc.css .summary, as the calculator's): the
// option with the lowest energy per student with the energies and N* its
// card gives, and the whole plan's energy; one tap away from the options.
func (v *planView) summary(r *distill.Result) {
	v.w(`<a class="summary" href="#plan-results" aria-label="Plan summary: jump to the options" data-part="sum">`)
	if v.empty {
		v.w(`<span class="s-e"><span class="s-k">Lowest per student</span> <output id="sum-best"></output></span><span class="s-i"></span><span class="s-c"></span><span class="s-go" aria-hidden="true">Options ↓</span></a>`)
		return
	}
	var best *distill.OptionResult
	for i := range r.Options {
		if r.Options[i].Name == v.out.BestPerStudent {
			best = &r.Options[i]
		}
	}
	if best == nil {
		v.w(`<span class="s-e"><span class="s-k">Whole plan</span> <output id="sum-best">`, esc(EnergyText(r.PlanTotalKWh)), `</output></span>`)
	} else {
		// (what its card says)
		per := EnergyText(best.OneOffKWh) + " one-off"
		if best.Regime != distill.RegimeSFT {
			per += "; " + EnergyText(best.KWhPerStudent) + " per student at N = " + strconv.Itoa(best.Students)
		}
		if best.NStar != nil {
			per += "; N* = " + Sig(*best.NStar, 3)
		}
		v.w(`<span class="s-e"><span class="s-k">Lowest per student</span> <output id="sum-best" data-best="`, esc(best.Name), `">`, esc(best.Name), `</output></span>`,
			`<span class="s-i">`, esc(per), `</span><span class="s-c">`, esc("whole plan "+EnergyText(r.PlanTotalKWh)), `</span>`)
	}
	v.w(`<span class="s-go" aria-hidden="true">Options ↓</span></a>`)
}

// objective is what a search minimised, in words (the calculator's panel
// and the planner's).
var objective = map[string]string{"energy": "energy", "co2e": "CO₂e", "cost": "electricity cost", "time": "time"}

// says is messages in the form's words, joined.
func says(ms []model.Message) string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = calcapi.Say(m)
	}
	return strings.Join(out, " ")
}

// stageRec is the per-stage search of the plan's estimated stages
// (calcapi.DistillRecommend, as `site recommend -plan`): per searched
// stage the user's configuration and the best, with a button that loads
// a student stage's best into its option, then the stages not searched,
// grouped by why.
func (v *planView) stageRec() {
	any := false
	for i := 1; i <= v.rows(); i++ {
		any = any || v.estimated("o"+strconv.Itoa(i)+".")
	}
	if !any {
		v.w(`<p class="muted">Measured and published stage energies have no configuration to change. Set an option’s “Student stage” to “Estimated from its training setup” to search GPU type, count, layout and power limit for it.</p>`)
		return
	}
	if e := v.recErr; e != nil {
		msg := e.Say
		if msg == "" {
			msg = e.Message
		}
		v.w(`<p class="muted">`, esc(msg), `</p>`)
		return
	}
	r := v.rec
	if r == nil {
		return
	}
	less := ""
	if r.Saving.EnergyKWh > 0 {
		less = " (" + Num(math.Round(r.Saving.EnergyPct*10)/10) + " % less)"
	}
	v.w(`<p class="stage-rec-total" data-before="`, Num(r.PlanTotalKWh), `" data-after="`, Num(r.PlanTotalBestKWh), `">Whole plan: `, esc(EnergyText(r.PlanTotalKWh)), ` as planned, `,
		esc(EnergyText(r.PlanTotalBestKWh)), ` with every searched stage at its best`, esc(less), `.</p><ul class="stage-recs">`)
	for j, s := range searched(r) {
		b, c := s.Best, s.Current
		v.w(`<li data-stage-rec="`, esc(s.Path), `"`)
		if b != nil {
			v.w(` data-best-kwh="`, Num(b.EnergyKWh), `"`)
		}
		if c != nil {
			v.w(` data-current-kwh="`, Num(c.EnergyKWh), `"`)
		}
		v.w(`><strong>`, esc(s.Option+", "+s.Stage), `</strong>: `)
		if c != nil {
			v.w(`yours `, esc(configText(v.meta, c.Hardware, c.Strategy)+": "+EnergyText(c.EnergyKWh)+", "+Duration(c.TimeS)), `. `)
		}
		if b == nil {
			v.w(esc(says(s.WarningMessages)), `</li>`)
			continue
		}
		head := "Nothing meets the deadline; fastest"
		if s.MeetsDeadline {
			obj := objective[s.Minimise]
			if obj == "" {
				obj = s.Minimise
			}
			head = "Least " + obj
			if s.DeadlineS > 0 {
				head += " within the deadline"
			}
		}
		v.w(esc(head + ": " + configText(v.meta, b.Hardware, b.Strategy) + ": " + EnergyText(b.EnergyKWh) + ", " + Duration(b.TimeS)))
		if sv := s.Saving; sv != nil && sv.EnergyKWh > 0 {
			v.w(esc(" (" + EnergyText(sv.EnergyKWh) + ", " + strconv.Itoa(int(math.Floor(sv.EnergyPct+0.5))) + " % less)"))
		}
		v.w(`. `)
		if s.Stage == distill.StageStudent {
			v.w(`<button type="button" class="btn small" data-act="use" data-act-row="`, strconv.Itoa(j), `">Use it for option `, strings.TrimSuffix(strings.TrimPrefix(stageRow(s.Path), "o"), "."), `</button>`)
		}
		if len(s.WarningMessages) > 0 {
			v.w(`<br><span class="muted small">`, esc(says(s.WarningMessages)), `</span>`)
		}
		v.w(`</li>`)
	}
	v.w(`</ul>`)
	why, order := map[string][]string{}, []string(nil)
	for _, s := range r.Stages {
		if s.Reason == "" {
			continue
		}
		if _, ok := why[s.Reason]; !ok {
			order = append(order, s.Reason)
		}
		why[s.Reason] = append(why[s.Reason], s.Option+" "+s.Stage)
	}
	if len(order) > 0 {
		v.w(`<div class="muted small stage-rec-skipped"><p>Not searched:</p><ul>`)
		for _, w := range order {
			v.w(`<li>`, esc(strings.Join(why[w], ", ")+": "+w), `.</li>`)
		}
		v.w(`</ul></div>`)
	}
}
