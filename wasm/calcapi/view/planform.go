package view

// The planner form's rules: what a link opens, what a change to an input
// does to the rest of the form (a ready-made plan fills the rows, editing
// a preset row makes it the user's own, an estimated student stage opens
// on the paper's setup), adding and removing rows, loading a searched
// configuration or Hugging Face files into a row, and the address's query.

import (
	"slices"
	"strconv"
	"strings"

	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/distill"
	"github.com/wattscale/wattscale/wasm/calcapi"
)

// planForm is a planner form state being changed.
type planForm struct {
	pm *calcapi.PlannerMeta
	st calcapi.PlanForm
}

// planStageKeys are a row's measured stages: the plan's stage and the
// row's key.
var planStageKeys = planStages

// rowKey reads a row key: "o2.teacher" → "2", "teacher", true.
func rowKey(key string) (row, rest string, ok bool) {
	num, rest, found := strings.Cut(strings.TrimPrefix(key, "o"), ".")
	if !strings.HasPrefix(key, "o") || !found || num == "" || rest == "" || strings.Trim(num, "0123456789") != "" {
		return "", "", false
	}
	return num, rest, true
}

// isRowKey reports whether key is a row's ("o2.teacher").
func isRowKey(key string) bool { _, _, ok := rowKey(key); return ok }

func (f *planForm) rows() int {
	n, err := strconv.Atoi(f.st["rows"])
	if err != nil || n <= 0 || n > f.pm.MaxRows {
		return 0
	}
	return n
}

func (f *planForm) field(key string) *model.Field {
	if _, rest, ok := rowKey(key); ok {
		key = distill.OptionKeyPrefix + rest
	}
	for i := range f.pm.Fields {
		if f.pm.Fields[i].Key == key {
			return &f.pm.Fields[i]
		}
	}
	return nil
}

func (f *planForm) preset(name string) *distill.Preset {
	for i := range f.pm.Presets {
		if f.pm.Presets[i].Name == name {
			return &f.pm.Presets[i]
		}
	}
	return nil
}

// clearRows drops every row's keys.
func (f *planForm) clearRows() {
	for k := range f.st {
		if isRowKey(k) {
			delete(f.st, k)
		}
	}
}

// open is the form a link's query opens: the default plan, or the link's
// keys over it (its rows only, when it names any); a link that names a
// ready-made plan alone (?set=all) opens that plan.
func (f *planForm) open(link string) {
	for k, v := range f.pm.Default {
		f.st[k] = v
	}
	q := linkQuery(strings.TrimPrefix(link, "?"))
	any, rowsGiven := false, false
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if f.field(k) == nil || (!isRowKey(k) && strings.HasPrefix(f.field(k).Key, distill.OptionKeyPrefix)) {
			continue
		}
		if !any {
			f.clearRows()
			any = true
		}
		if k == "rows" || isRowKey(k) {
			rowsGiven = true
		}
		f.st[k] = q[k]
	}
	if any && !rowsGiven && f.st["set"] != "" {
		f.loadSet(f.st["set"])
	}
}

// linkQuery is a link's query as net/url's ParseQuery reads it, each
// key's first value: a pair that is not valid percent-encoding or holds a
// semicolon is passed over, the pairs after it kept. (calcapi's reader,
// not net/url, whose initialisation brings net/netip and unique into
// calc.wasm, which links this package.)
func linkQuery(q string) map[string]string {
	out := map[string]string{}
	for _, pair := range strings.Split(q, "&") {
		if pair == "" || strings.Contains(pair, ";") {
			continue
		}
		f, err := calcapi.ParseFormQuery(pair)
		if err != nil {
			continue
		}
		for k, v := range f {
			if _, seen := out[k]; !seen {
				out[k] = v
			}
		}
	}
	return out
}

// loadSet starts from a ready-made plan; "My own numbers" (and a name the
// planner does not know) opens on an editable example that evaluates
// (calcapi.CustomPlanForm).
func (f *planForm) loadSet(set string) {
	f.clearRows()
	names, ok := f.pm.Sets[set]
	if !ok {
		for k, v := range f.pm.Custom {
			if k == "rows" || isRowKey(k) {
				f.st[k] = v
			}
		}
		f.st["set"] = "custom"
		return
	}
	f.st["rows"] = strconv.Itoa(len(names))
	for i, n := range names {
		f.st["o"+strconv.Itoa(i+1)+".preset"] = n
	}
}

// ownRow makes preset row o the user's own, keeping the preset's numbers.
func (f *planForm) ownRow(o string, p *distill.Preset) {
	st := f.st
	st[o+"preset"] = ""
	if p == nil {
		return
	}
	st[o+"name"], st[o+"regime"], st[o+"q"] = p.Name+" (mine)", p.Regime, ""
	if p.Quality != nil {
		st[o+"q"] = Num(*p.Quality)
	}
	for _, s := range planStageKeys {
		st[o+s[1]] = ""
		if x := p.StagesKWh.Get(s[0]); x != nil {
			st[o+s[1]] = Num(*x)
		}
	}
	st["set"] = "custom"
}

// estimated reports whether row o's student stage is estimated.
func (f *planForm) estimated(o string) bool {
	return f.st[o+"preset"] == "" && f.st[o+"smode"] == calcapi.StudentModeEstimate
}

func (f *planForm) anyEstimated() bool {
	for i := 1; i <= f.rows(); i++ {
		if f.estimated("o" + strconv.Itoa(i) + ".") {
			return true
		}
	}
	return false
}

// studentForm is row o's student request as estimating it starts from:
// its own inputs once it has a model, else the paper's setup for its
// preset or regime (asked before the row stops being a preset row).
func (f *planForm) studentForm(o string) map[string]string {
	sub := map[string]string{}
	for _, k := range f.pm.StudentKeys {
		sub[k] = f.st[o+"s."+k]
	}
	if sub["model"] != "" {
		return sub
	}
	from, ok := f.pm.StudentForms[f.st[o+"preset"]]
	if !ok {
		regime := f.st[o+"regime"]
		if regime == "" {
			regime = distill.RegimeSFT
		}
		if from, ok = f.pm.StudentForms[regime+"-1b"]; !ok {
			from = f.pm.StudentForms[""]
		}
	}
	out := map[string]string{}
	for k, v := range from {
		out[k] = v
	}
	return out
}

// change sets key to v and applies what follows from it.
func (f *planForm) change(key, v string, regions []calcapi.Region) {
	st := f.st
	if key == "set" {
		if st["set"] != v {
			st["set"] = v
			f.loadSet(v)
		}
		return
	}
	if num, rest, ok := rowKey(key); ok {
		o := "o" + num + "."
		switch pr := f.preset(st[o+"preset"]); {
		case rest == "preset":
			if st[key] == v {
				return
			}
			if v == "" && pr != nil { // the preset's numbers start the user's own
				f.ownRow(o, pr)
			}
			st[key], st["set"] = v, "custom"
			return
		case rest == "smode":
			// Estimating the student: a preset row becomes the user's own,
			// and the estimate opens on the paper's setup for that
			// pipeline.
			sf := f.studentForm(o)
			if pr != nil {
				f.ownRow(o, pr)
			}
			st[key] = v
			if v == calcapi.StudentModeEstimate {
				for k, x := range sf {
					st[o+"s."+k] = x
				}
			}
			return
		case rest != "baseline" && pr != nil:
			f.ownRow(o, pr) // editing a number of a preset row makes it the user's own
		}
		st[key] = v
		return
	}
	st[key] = v
	calcapi.Form(st).Follow(key, regions)
}

// add adds a row (up to the planner's limit) and returns its name's key.
func (f *planForm) add() string {
	r := f.rows() + 1
	if r > f.pm.MaxRows {
		return ""
	}
	o := "o" + strconv.Itoa(r) + "."
	f.st["rows"], f.st[o+"name"], f.st[o+"regime"], f.st["set"] = strconv.Itoa(r), "option "+strconv.Itoa(r), distill.RegimeKD, "custom"
	return o + "name"
}

// rowKeys are a row's keys after "oK.".
func (f *planForm) rowKeys() []string {
	var out []string
	for _, fd := range f.pm.Fields {
		if rest, ok := strings.CutPrefix(fd.Key, distill.OptionKeyPrefix); ok {
			out = append(out, rest)
		}
	}
	return out
}

// remove removes row r, moving the rows after it up.
func (f *planForm) remove(r int) {
	n, st := f.rows(), f.st
	if r < 1 || r > n || n < 2 {
		return
	}
	keys := f.rowKeys()
	for i := r; i < n; i++ {
		for _, k := range keys {
			from, to := "o"+strconv.Itoa(i+1)+"."+k, "o"+strconv.Itoa(i)+"."+k
			if v, ok := st[from]; ok {
				st[to] = v
			} else {
				delete(st, to)
			}
		}
	}
	for _, k := range keys {
		delete(st, "o"+strconv.Itoa(n)+"."+k)
	}
	st["rows"], st["set"] = strconv.Itoa(n-1), "custom"
}

// searched are the stages of rec that were searched, in order: what the
// panel lists with their buttons.
func searched(rec *distill.Recommendation) []*distill.StageRecommendation {
	if rec == nil {
		return nil
	}
	var out []*distill.StageRecommendation
	for i := range rec.Stages {
		if rec.Stages[i].Reason == "" {
			out = append(out, &rec.Stages[i])
		}
	}
	return out
}

// stageRow is the row ("o2.") of a stage's path ("options[1].student").
func stageRow(path string) string {
	rest, ok := strings.CutPrefix(path, "options[")
	if !ok {
		return ""
	}
	i, err := strconv.Atoi(rest[:max(0, strings.IndexByte(rest, ']'))])
	if err != nil {
		return ""
	}
	return "o" + strconv.Itoa(i+1) + "."
}

// use puts the j-th searched stage's best hardware into its option (a
// student stage: the micro-batch and accumulation that hold its global
// batch).
func (f *planForm) use(rec *distill.Recommendation, j int) {
	ss := searched(rec)
	if j < 0 || j >= len(ss) || ss[j].Best == nil || ss[j].Stage != distill.StageStudent {
		return
	}
	c, o, st := ss[j].Best, stageRow(ss[j].Path), f.st
	if o == "" {
		return
	}
	st[o+"s.gpu"], st[o+"s.count"], st[o+"s.power"] = c.Hardware.GPU, strconv.Itoa(c.Hardware.Count), Num(c.Hardware.PowerLimitW)
	if c.BatchPerGPU > 0 {
		st[o+"s.batch"], st[o+"s.accum"] = strconv.Itoa(c.BatchPerGPU), ""
		if c.GradientAccumulation > 1 {
			st[o+"s.accum"] = strconv.Itoa(c.GradientAccumulation)
		}
	}
	if s := c.Strategy; s.Name != model.Hybrid && s.Name != "" {
		st[o+"s.strategy"] = s.Name
	} else {
		st[o+"s.strategy"], st[o+"s.tensor"], st[o+"s.data_mode"] = model.Hybrid, Num(s.Tensor), s.DataMode
		if s.DataMode == "" {
			st[o+"s.data_mode"] = model.FSDP
		}
	}
}

// takeHF puts calculator form values read from Hugging Face files into
// row's estimated student stage (a preset row becomes the user's own) and
// returns the keys the stage does not take.
func (f *planForm) takeHF(row int, vals map[string]string) []string {
	if row < 1 || row > f.rows() {
		row = 1
	}
	o, st := "o"+strconv.Itoa(row)+".", f.st
	sub := f.studentForm(o)
	if pr := f.preset(st[o+"preset"]); pr != nil {
		f.ownRow(o, pr)
	}
	st[o+"smode"] = calcapi.StudentModeEstimate
	for k, v := range sub {
		st[o+"s."+k] = v
	}
	var left []string
	keys := make([]string, 0, len(vals))
	for k := range vals {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fd := f.field(distill.OptionKeyPrefix + "s." + k)
		if fd == nil {
			left = append(left, k)
			continue
		}
		v := vals[k]
		if v == "1" && fd.Offer != nil { // a check box's value, as the row's select of default, on, off
			v = "on"
		}
		st[o+"s."+k] = v
	}
	return left
}

// query is the address's query for the form: the plan's keys in the
// table's order (the search settings only when set), then each row's that
// apply (a preset row: its preset and baseline; an estimated student: its
// training inputs).
func (f *planForm) query() string {
	st := f.st
	var parts []string
	set := func(k, v string) { parts = append(parts, calcapi.QueryEscape(k)+"="+calcapi.QueryEscape(v)) }
	for _, fd := range f.pm.Fields {
		if strings.HasPrefix(fd.Key, distill.OptionKeyPrefix) {
			continue
		}
		if fd.Group != "recommend" || st[fd.Key] != "" {
			set(fd.Key, st[fd.Key])
		}
	}
	for i := 1; i <= f.rows(); i++ {
		o := "o" + strconv.Itoa(i) + "."
		est, preset := f.estimated(o), st[o+"preset"] != ""
		get := func(k string) string { return st[o+strings.TrimPrefix(k, distill.OptionKeyPrefix)] }
		for _, fd := range f.pm.Fields {
			rest, ok := strings.CutPrefix(fd.Key, distill.OptionKeyPrefix)
			if !ok {
				continue
			}
			k := o + rest
			v := st[k]
			if v == "" || !fd.When.Holds(get) {
				continue
			}
			if preset && rest != "preset" && rest != "baseline" || !preset && fd.Group == "student" && !est {
				continue
			}
			set(k, v)
		}
	}
	return strings.Join(parts, "&")
}
