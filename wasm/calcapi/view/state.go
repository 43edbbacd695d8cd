package view

import (
	"slices"
	"strconv"
	"strings"

	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/wasm/calcapi"
)

// What the calculator shows around the figures: the messages of a form in
// error, the method's cards, the user's own calibrations.

// energyOutput is the headline's figure: the energy with its unit, or
// nothing while the form has no estimate yet.
func (c *calcView) energyOutput(v, unit, kwh string) string {
	if c.empty {
		return `<output id="energy" data-kwh="" elementtiming="estimate"></output>`
	}
	return `<output id="energy" data-kwh="` + kwh + `" elementtiming="estimate">` + esc(v) + ` <span class="unit">` + esc(unit) + `</span></output>`
}

// calInfo is the calibration named name as the form lists it.
func (c *calcView) calInfo(name string) (calcapi.CalInfo, bool) {
	for _, cal := range c.meta.Calibrations {
		if cal.Name == name {
			return cal, true
		}
	}
	return calcapi.CalInfo{}, false
}

// yours is ", yours" for a calibration the user fitted in this browser,
// ", yours, failed checks" for one they use although it failed its fit
// checks.
func (c *calcView) yours(name string) string {
	switch cal, _ := c.calInfo(name); {
	case cal.Own && len(cal.Checks) > 0:
		return ", yours, failed checks"
	case cal.Own:
		return ", yours"
	}
	return ""
}

// failedChecks are the fit checks a calibration of the user's failed, in
// the page's words, one after the other; "" for none.
func failedChecks(cal calcapi.CalInfo) string {
	if !cal.Own {
		return ""
	}
	s := make([]string, len(cal.Checks))
	for i, m := range cal.Checks {
		s[i] = calcapi.Say(m)
	}
	return strings.Join(s, "; ")
}

// errFor is the form's error about the input key, or nil.
func (c *calcView) errFor(key string) *calcapi.Error {
	for _, e := range c.errs {
		if e.Input == key {
			return e
		}
	}
	return nil
}

// fieldErr is the message beside the input key: the error in the form's
// words, with what the user typed (a text field) or the value it was
// given; "" when the input is fine.
func (c *calcView) fieldErr(key string) string {
	e := c.errFor(key)
	if e == nil {
		return ""
	}
	return capital(c.errText(e))
}

// fieldErrMore is the whole message beside the input key where the line
// shows its gist (calcapi.Error.Brief), for the disclosure under it; "".
func (c *calcView) fieldErrMore(key string) string {
	e := c.errFor(key)
	if e == nil || e.Brief == "" {
		return ""
	}
	return capital(c.errText(&calcapi.Error{Say: e.Say, Input: e.Input, Value: e.Value}))
}

// errText is e in the form's words (its gist where it has one) with what
// was entered.
func (c *calcView) errText(e *calcapi.Error) string {
	msg := e.Say
	if e.Brief != "" {
		msg = e.Brief
	}
	if msg == "" {
		msg = e.Message
	}
	if c.isText(e.Input) && strings.TrimSpace(c.state[e.Input]) != "" {
		return msg + " (you entered “" + c.state[e.Input] + "”)"
	}
	if e.Value != "" {
		return msg + " (got " + e.Value + ")"
	}
	return msg
}

// isText reports whether the input key is a text field (not a check box,
// a select or radio buttons).
func (c *calcView) isText(key string) bool {
	f, ok := c.rows[key]
	if !ok || c.selects[key] {
		return false
	}
	switch c.controlOf(key) {
	case calcapi.ControlPresets, calcapi.ControlGPUs:
		return true
	case "":
		return f.Kind != model.KindBool && f.Options() == nil
	}
	return false
}

// controlOf is the layout's control for key ("" = the field table's).
func (c *calcView) controlOf(key string) string {
	for _, sec := range c.meta.Layout {
		if ctl, ok := findControl(sec.Items, key); ok {
			return ctl
		}
	}
	return ""
}

func findControl(items []calcapi.Item, key string) (string, bool) {
	for _, it := range items {
		if it.Key == key {
			return it.Control, true
		}
		if ctl, ok := findControl(it.Items, key); ok {
			return ctl, true
		}
	}
	return "", false
}

// marked reports whether e shows beside a visible field of the form.
func (c *calcView) marked(e *calcapi.Error) bool {
	_, ok := c.rows[e.Input]
	return ok && c.placed[e.Input] && c.controlOf(e.Input) != calcapi.ControlRadios && !c.hides(e.Input)
}

// formErr is the form's own message: errors about no input, about radio
// buttons, and about a hidden field (a link can carry anything), the
// latter by the field's label.
func (c *calcView) formErr() string {
	var parts []string
	for _, e := range c.errs {
		if c.marked(e) {
			continue
		}
		if f, ok := c.rows[e.Input]; ok && c.placed[e.Input] && c.controlOf(e.Input) != calcapi.ControlRadios {
			parts = append(parts, f.Label+": "+c.errText(e))
			continue
		}
		parts = append(parts, capital(c.errText(e)))
	}
	return strings.Join(parts, " ")
}

// errorBanner is the status over the figures while the form is in error:
// the fields to fix by label, and that the figures shown are the previous
// estimate's (stale), or what is wrong when there are none (empty).
func (c *calcView) errorBanner() string {
	var labels []string
	for _, e := range c.errs {
		if f, ok := c.rows[e.Input]; ok && c.controlOf(e.Input) != calcapi.ControlRadios && !slices.Contains(labels, f.Label) {
			labels = append(labels, f.Label)
		}
	}
	if !c.empty {
		what := c.what
		if what == "" {
			what = "estimate"
		}
		return staleText(labels, what)
	}
	where := ""
	if len(labels) > 0 {
		where = "Check “" + labels[0] + "”"
		if n := len(labels) - 1; n > 0 {
			where += " and " + strconv.Itoa(n) + " more field"
			if n > 1 {
				where += "s"
			}
		}
		where += ": "
	}
	e := c.errs[0]
	msg := e.Say
	if msg == "" {
		msg = e.Message
	}
	return where + msg
}

// staleText is the banner over figures kept from a previous answer: the
// fields to fix, by label, and that what is shown is not the answer.
func staleText(labels []string, what string) string {
	q := make([]string, len(labels))
	for i, l := range labels {
		q[i] = "“" + l + "”"
	}
	s := ""
	switch len(q) {
	case 0:
	case 1:
		s = "Fix " + q[0] + " to update the " + what + ". "
	default:
		s = "Fix " + strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1] + " to update the " + what + ". "
	}
	return s + "The figures below are the previous " + what + ", dimmed: not an answer for the form as it is now."
}

// capital upper-cases a message's first letter (messages start with
// an ASCII letter or a quotation mark).
func capital(s string) string {
	if s != "" && 'a' <= s[0] && s[0] <= 'z' {
		return string(s[0]-'a'+'A') + s[1:]
	}
	return s
}

// methodCards are the cards of a LoRA or QLoRA estimate (the method, and
// full fine-tuning of the same configuration when the form asks), or of
// full fine-tuning with recomputation.
func (c *calcView) methodCards(r *model.Response) [][4]string {
	tr := r.Training
	if tr.Method == "" || tr.Method == string(model.MethodFull) {
		if tr.GradientCheckpointing {
			return [][4]string{{"Method", "Full, recomputed", Sig(tr.FLOPsPerTokenVsFull, 2) + "× the FLOPs per token of full fine-tuning without checkpointing (Chen et al. 2016)", "method"}}
		}
		return nil
	}
	name, cite := "LoRA", " (Hu et al. 2021)"
	if tr.Method == string(model.MethodQLoRA) {
		name, cite = "QLoRA", " (Dettmers et al. 2023)"
	}
	share := Pct(tr.TrainableShare)
	if tr.TrainableShare < 0.01 {
		share = Sig(tr.TrainableShare*100, 2) + " %"
	}
	sub := ParamsText(tr.TrainableParams) + " trainable parameters (" + share + "), rank " + strconv.Itoa(tr.Rank) + " on " + strings.Join(tr.Targets, ", ")
	if tr.BaseFormat != "" {
		sub += "; base in " + tr.BaseFormat + ", " + Sig(r.Memory.FrozenGBPerGPU, 3) + " GB per GPU"
	}
	sub += "; " + Sig(tr.FLOPsPerTokenVsFull, 2) + "× the FLOPs per token of full fine-tuning"
	if tr.GradientCheckpointing {
		sub += " (with recomputation)"
	}
	cards := [][4]string{{"Method", name, sub + cite, "method"}}
	if f := c.out.Full; f != nil {
		cards = append(cards, [4]string{"Full fine-tuning", EnergyText(f.EnergyKWh), "same configuration: " + Sig(f.EnergyKWh/r.EnergyKWh, 2) + "× the energy, " + Duration(f.TimeS) + ", " +
			Sig(f.Memory.StateGBPerGPU, 3) + " GB of state per GPU against " + Sig(r.Memory.StateGBPerGPU, 3) + " GB", "full"})
	} else if e := c.out.FullError; e != nil {
		msg := e.Say
		if msg == "" {
			msg = e.Message
		}
		cards = append(cards, [4]string{"Full fine-tuning", "does not fit", msg, "full"})
	}
	return cards
}
