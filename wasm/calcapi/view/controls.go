package view

import (
	"slices"
	"strings"

	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/wasm/calcapi"
)

// The calculator form's controls: each field with its label, hint and
// message, check boxes, selects, radios and the inputs of a row.

// place records that the layout wrote key's field.
func (c *calcView) place(key string) {
	if c.placed == nil {
		c.placed = map[string]bool{}
	}
	c.placed[key] = true
	if !c.hides(key) {
		c.shown++
	}
}

// field is a labelled control of key; hint nil = no hint paragraph.
func (c *calcView) field(key, label, control string, hint *string) string {
	c.place(key)
	id := "f-" + key
	desc := id + "-err"
	if hint != nil {
		desc = id + "-hint " + desc
	}
	msg, cls, inv := c.fieldErr(key), "field", ""
	if msg != "" {
		cls, inv = "field invalid", ` aria-invalid="true"`
	}
	control = strings.Replace(control, "<CTL", ` id="`+id+`" name="`+key+`" aria-describedby="`+desc+`"`+inv, 1)
	s := `<div class="` + cls + `" data-key="` + key + `"` + hiddenIf(c.hides(key)) + `><label for="` + id + `">` + esc(label) + `</label>` + control
	if hint != nil {
		s += `<p class="hint" id="` + id + `-hint">` + esc(*hint) + `</p>`
	}
	s += `<p class="err" id="` + id + `-err" aria-live="polite">` + esc(msg) + `</p>`
	if more := c.fieldErrMore(key); more != "" {
		s += `<details class="err-more"><summary>Why, and what to change</summary><p>` + esc(more) + `</p></details>`
	}
	return s + `</div>`
}

// checkbox is a bool row's check box with its label
// after it.
func (c *calcView) checkbox(key, label, title string) string {
	c.place(key)
	chk := ""
	if v := c.state[key]; v == "1" || v == "true" || v == "on" {
		chk = " checked"
	}
	if title != "" {
		title = ` title="` + esc(title) + `"`
	}
	msg, cls, inv := c.fieldErr(key), "field check", ""
	if msg != "" {
		cls, inv = "field check invalid", ` aria-invalid="true"`
	}
	return `<div class="` + cls + `" data-key="` + key + `"` + hiddenIf(c.hides(key)) + `><input type="checkbox" value="1" id="f-` + key + `" name="` + key + `" aria-describedby="f-` + key + `-err"` + title + chk + inv +
		`><label for="f-` + key + `">` + esc(label) + `</label><p class="err" id="f-` + key + `-err">` + esc(msg) + `</p></div>`
}

// input is the field of the table row of key (rows) with
// its label and hint: a check box for a bool, a select of the row's
// options in the table's words, or a text field with its kind's keyboard.
// title, when not "", is the control's tooltip.
func (c *calcView) input(key, title string) string {
	f := c.rows[key]
	if f.Kind == model.KindBool && f.Options() == nil {
		return c.checkbox(key, f.Label, title)
	}
	ctl := c.control(key)
	if title != "" {
		ctl = strings.Replace(ctl, "<CTL", ` title="`+esc(title)+`"<CTL`, 1)
	}
	return c.field(key, f.Label, ctl, fieldHint(f))
}

// control is the select or text field of the table
// row of key.
func (c *calcView) control(key string) string {
	f := c.rows[key]
	if vs := f.Options(); vs != nil {
		opts := make([]option, len(vs))
		for i, v := range vs {
			opts[i] = option{v, f.Text(v)}
		}
		return c.sel(key, opts)
	}
	return c.textInput(key, inputMode(f.Kind), "")
}

// inputs writes the fields of keys.
func (c *calcView) inputs(keys ...string) string {
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(c.input(k, ""))
	}
	return b.String()
}

// group writes what body writes inside a div of class cls, hidden (as
// the page hides a data-group) when no field in it applies.
func (c *calcView) group(cls string, body func()) {
	start, shown := c.b.Len(), c.shown
	body()
	inner := string(c.b.Bytes()[start:])
	c.b.Truncate(start)
	if cls != "" {
		cls = ` class="` + cls + `"`
	}
	c.w(`<div`, cls, ` data-group=""`, hiddenIf(c.shown == shown), `>`, inner, `</div>`)
}

func str(s string) *string { return &s }

// textInput is an input with the state's value; "<CTL" marks where field
// puts the id, name and description.
func (c *calcView) textInput(key, mode, list string) string {
	s := `<input type="text" inputmode="` + mode + `" autocomplete="off" spellcheck="false"`
	if list != "" {
		s += ` list="` + list + `"`
	}
	return s + `<CTL value="` + esc(c.state[key]) + `">`
}

type option struct{ value, text string }

func (c *calcView) sel(key string, opts []option) string {
	if c.selects == nil {
		c.selects = map[string]bool{}
	}
	c.selects[key] = true
	v := c.state[key]
	var b strings.Builder
	b.WriteString(`<select<CTL>`)
	known := false
	for _, o := range opts {
		selected := ""
		if o.value == v && !known {
			selected, known = " selected", true
		}
		b.WriteString(`<option value="` + esc(o.value) + `"` + selected + `>` + esc(o.text) + `</option>`)
	}
	if !known && !(v == "" && c.blankSelects) {
		b.WriteString(`<option value="` + esc(v) + `" selected>` + esc(v+" (not a known choice)") + `</option>`)
	}
	b.WriteString(`</select>`)
	return b.String()
}

// regionOptions are the grid regions' select: each region with its
// intensity, then a custom intensity.
func regionOptions(m *calcapi.Meta) []option {
	var regs []option
	for _, reg := range m.Regions {
		regs = append(regs, option{reg.ID, reg.Name + " — " + Sig(reg.CarbonGPerKWh, 3) + " g/kWh"})
	}
	return append(regs, option{"custom", "Custom intensity"})
}

// radios is an enum row's choices as radio buttons in
// the table's words.
func (c *calcView) radios(key string) string {
	c.place(key)
	f := c.rows[key]
	s := `<div class="radios" role="radiogroup" aria-label="` + esc(f.Label) + `">`
	for i, v := range f.Choices {
		chk := ""
		if c.state[key] == v || i == 0 && !slices.Contains(f.Choices, c.state[key]) {
			chk = " checked"
		}
		id := "f-" + key + "-" + v
		s += `<span class="radio"><input type="radio" name="` + key + `" value="` + esc(v) + `" id="` + id + `"` + chk + `><label for="` + id + `">` + esc(f.Text(v)) + `</label></span>`
	}
	return s + `</div>`
}

// inputMode is the inputmode of a text field of kind k: the keyboard a
// phone shows for it.
func inputMode(k model.FieldKind) string {
	switch k {
	case model.KindInt:
		return "numeric"
	case model.KindNumber:
		return "decimal"
	}
	return "text"
}

// fieldHint is the hint paragraph of field f's row: the table's hint, or
// none.
func fieldHint(f model.Field) *string {
	if f.Hint == "" {
		return nil
	}
	return str(f.Hint)
}
