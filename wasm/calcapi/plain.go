package calcapi

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/distill"
)

// The page speaks the form's language: it names inputs by their labels, not
// by request paths, and never points at API routes. Error.Say carries that
// wording; Error.Message and Error.Text keep the JSON paths the command line
// and the API print.

// formLabels are the labels of the form's inputs (the Label column of
// model.RequestFields and recommendFields, which calc.js renders) by the
// request path a message may mention, with messageLabels' wording where
// that differs.
//
// Built on first use (sync.OnceValue), as planLabels: only a message needs
// them, and the WebAssembly's start-up runs every package-level
// initialiser before it can answer.
var formLabels = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, rows := range [][]model.Field{model.RequestFields, recommendFields} {
		for _, f := range rows {
			if f.Path != "" && f.Label != "" {
				m[f.Path] = f.Label
			}
		}
	}
	for p, l := range messageLabels {
		m[p] = l
	}
	return m
})

// messageLabels are how a sentence names the inputs whose form label is
// not fit to quote in one: a label with a choice or an aside in it
// ("Preset or “custom”", "KV heads (GQA)", "Tokens processed (all
// epochs)", "Train embeddings and LM head in full"), an abbreviation
// ("State bytes / parameter") or a word that needs its noun
// ("Checkpointing").
var messageLabels = map[string]string{
	"model.preset": "Preset", "model.kv_heads": "KV heads", "training.tokens": "Tokens processed",
	"training.state_bytes_per_param": "optimizer state per parameter", "training.gradient_checkpointing": "Gradient checkpointing",
	"training.lora.train_embeddings": "Train embeddings",
}

// planLabels are the planner's labels (distill.PlanFields) by a path below
// an option ("stages_kwh.teacher") or the plan's ("options.students"),
// with a sentence's wording where a label is not fit to quote in one.
var planLabels = sync.OnceValue(func() map[string]string {
	m := map[string]string{"quality": "Quality Q", "stages_kwh.prerun": "Preprocess kWh", "total_kwh": "total kWh"}
	for _, f := range distill.PlanFields {
		if rest, ok := strings.CutPrefix(f.Path, "options[]."); ok && m[rest] == "" {
			m[rest] = f.Label
		}
	}
	m["options.students"] = m["students"]
	return m
})

// The messages' paths and ranges are found by the two scanners below, not
// by package regexp, which would add about 270 KB to calc.wasm (measured
// with scripts/wasmsize); plain_test.go checks them against the regular
// expressions they implement:
//
//	paths:  options\[\d+\]\.[a-z_]+(?:\.[a-z_]+)*|\b(?:model|training|hardware|strategy|site|serving)\.[a-z_]+(?:\.[a-z_]+)?\b
//	ranges: in \[([^\],]+), ([^\]]+)\]   →   from $1 to $2

// replaceRanges writes "in [1, 3]" as "from 1 to 3".
func replaceRanges(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "in [")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		rest := s[i+4:]
		if j := strings.IndexAny(rest, "],"); j > 0 && strings.HasPrefix(rest[j:], ", ") {
			if k := strings.IndexByte(rest[j+2:], ']'); k > 0 {
				b.WriteString(s[:i] + "from " + rest[:j] + " to " + rest[j+2:j+2+k])
				s = rest[j+2+k+1:]
				continue
			}
		}
		b.WriteString(s[:i+1])
		s = s[i+1:]
	}
}

// replacePaths replaces every request path a message quotes
// (training.seq_len, options[2].stages_kwh.teacher) by f's answer.
func replacePaths(s string, f func(string) string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		if end := pathAt(s, i); end > i {
			b.WriteString(s[last:i] + f(s[i:end]))
			i, last = end, end
			continue
		}
		i++
	}
	return b.String() + s[last:]
}

// pathAt is the end of the path that starts at s[i], or -1.
func pathAt(s string, i int) int {
	if rest, ok := strings.CutPrefix(s[i:], "options["); ok {
		d := run(rest, 0, isDigit)
		if d > 0 && strings.HasPrefix(rest[d:], "].") {
			q := i + len("options[") + d + 2
			if n := run(s, q, isLower); n > 0 {
				q += n
				for q < len(s) && s[q] == '.' && run(s, q+1, isLower) > 0 {
					q += 1 + run(s, q+1, isLower)
				}
				return q
			}
		}
	}
	if i > 0 && isWord(s[i-1]) {
		return -1
	}
	for _, name := range []string{"model", "training", "hardware", "strategy", "site", "serving"} {
		if !strings.HasPrefix(s[i:], name+".") {
			continue
		}
		p := i + len(name) + 1
		n := run(s, p, isLower)
		if n == 0 {
			return -1
		}
		q := p + n
		if q < len(s) && s[q] == '.' {
			if m := run(s, q+1, isLower); m > 0 && (q+1+m == len(s) || !isWord(s[q+1+m])) {
				return q + 1 + m
			}
		}
		if q == len(s) || !isWord(s[q]) {
			return q
		}
		return -1
	}
	return -1
}

// run is how many bytes from s[i] satisfy ok.
func run(s string, i int, ok func(byte) bool) int {
	n := 0
	for i+n < len(s) && ok(s[i+n]) {
		n++
	}
	return n
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isLower(c byte) bool { return 'a' <= c && c <= 'z' || c == '_' }
func isWord(c byte) bool  { return isLower(c) || isDigit(c) || 'A' <= c && c <= 'Z' }

// plain rewrites a model or form message in the form's words.
func plain(field, input, msg string, f Form) string {
	s := msg
	s = strings.ReplaceAll(s, " (GET /api/v1/hardware lists all)", "; the list under the field shows every one")
	s = strings.ReplaceAll(s, "GET /api/v1/hardware", "the hardware page")
	if field == "training.tokens" && strings.HasPrefix(s, "is required") {
		if x, ok := ParseNumber(f[input]); f != nil && ok && x <= 0 {
			return "must be more than 0 tokens, for example 2e8 or 200M"
		}
		return "is needed: the tokens the run processes, for example 2e8 or 200M"
	}
	if field == "model.preset" && strings.HasPrefix(s, "is required") {
		return "is needed: pick a model from the list, or type custom to give its shape"
	}
	s = replaceRanges(s)
	s = replacePaths(s, func(p string) string {
		if l := pathLabel(p); l != "" {
			return l
		}
		return p
	})
	s = strings.ReplaceAll(s, "dataset_tokens with epochs", "tokens per epoch with epochs")
	return gpuNamesIn(s)
}

// pageNamer names things as the page does (model.Namer): inputs by
// their labels in quotes, GPUs by name.
var pageNamer = model.Namer{Plain: true, Field: pathLabel, GPU: gpuName}

// pathLabel is how the page names a request path (training.seq_len,
// options[2].stages_kwh.teacher): its label in quotes, "" when it has none.
func pathLabel(p string) string {
	if l, ok := formLabels()[p]; ok {
		return "“" + l + "”"
	}
	if i := strings.Index(p, "]."); i > 0 && strings.HasPrefix(p, "options[") {
		if l, ok := formLabels()[strings.TrimPrefix(p[i+2:], "student.")]; ok && strings.HasPrefix(p[i+2:], "student.") {
			n, _ := strconv.Atoi(p[len("options["):i])
			return fmt.Sprintf("“%s” of option %d's student", l, n+1)
		}
		if l, ok := planLabels()[p[i+2:]]; ok {
			n, _ := strconv.Atoi(p[len("options["):i])
			return fmt.Sprintf("“%s” of option %d", l, n+1)
		}
	}
	if l, ok := planLabels()[p]; ok {
		return "“" + l + "”"
	}
	return ""
}

// gpuName is the name of the table's GPU id, or "".
func gpuName(id string) string {
	for _, g := range gpuIDs() {
		if g.ID == id {
			return g.Name
		}
	}
	return ""
}

// sayError is a model error's message in the page's words: its code's
// text when it has one, else plain's rewriting of its words.
func sayError(fe *model.FieldError, input string, f Form) string {
	if fe.Code == model.CodeTokensRequired && f != nil {
		if x, ok := ParseNumber(f[input]); ok && x <= 0 {
			return "must be more than 0 tokens, for example 2e8 or 200M"
		}
	}
	if fe.Code != "" {
		return fe.Say(pageNamer)
	}
	return plain(fe.Field, input, fe.Message, f)
}

// WarningsSay is a response's warnings in the form's words (inputs by
// label, GPUs by name), less the envelope warning when env (EnvelopeNote)
// explains it.
func WarningsSay(r *model.Response, env []string) []string {
	var out []string
	for _, w := range r.WarningMessages {
		if len(env) > 0 && w.Code == model.CodeOutsideEnvelope {
			continue
		}
		out = append(out, Say(w))
	}
	return out
}

// Say is a message in the page's words (pageNamer): inputs by their
// labels, GPUs by name. A sentence not yet coded (model.CodeNote) is
// rewritten by plain and bareKeys, the scanners the codes replace.
func Say(m model.Message) string {
	if m.Code == model.CodeNote {
		return bareKeys(plain("", "", m.Text(model.Technical), nil))
	}
	return m.Text(pageNamer)
}

// bareKeys names the request fields an assumption gives by their bare JSON
// name ("a smaller batch_per_gpu") by their form labels.
func bareKeys(s string) string {
	for _, k := range []string{"batch_per_gpu", "gradient_accumulation", "gradient_checkpointing", "seq_len", "state_bytes_per_param"} {
		if l, ok := formLabels()["training."+k]; ok {
			s = strings.ReplaceAll(s, k, "“"+l+"”")
		}
	}
	return s
}

// gpuIDs are the table's GPUs, longest id first, for gpuNamesIn.
var gpuIDs = sync.OnceValue(func() []model.GPU {
	g := slices.Clone(model.DefaultGPUs())
	slices.SortFunc(g, func(a, b model.GPU) int { return len(b.ID) - len(a.ID) })
	return g
})

// gpuNamesIn names the GPUs a message gives by id ("the 80 GB of a
// a100-sxm4-80gb") by their names ("the 80 GB of one NVIDIA A100 SXM4
// 80 GB"): the page shows names, the API keeps ids.
func gpuNamesIn(s string) string {
	idChar := func(c byte) bool { return isLower(c) || isDigit(c) || c == '-' }
	for _, g := range gpuIDs() {
		if g.Name == "" || g.Name == g.ID || !strings.Contains(s, g.ID) {
			continue
		}
		var b strings.Builder
		for i := 0; i < len(s); {
			j := strings.Index(s[i:], g.ID)
			if j < 0 {
				b.WriteString(s[i:])
				break
			}
			j += i
			end := j + len(g.ID)
			if (j > 0 && idChar(s[j-1])) || (end < len(s) && idChar(s[end])) {
				b.WriteString(s[i:end])
				i = end
				continue
			}
			pre := s[i:j]
			if strings.HasSuffix(pre, " a ") {
				pre = strings.TrimSuffix(pre, "a ") + "one "
			}
			b.WriteString(pre)
			b.WriteString(g.Name)
			i = end
		}
		s = b.String()
	}
	return s
}

// numberProblem says why text is not a number the input takes: what a
// number there looks like (ex, the Example of the input's field row), or
// else "a number, for example " + fallback.
func numberProblem(ex, raw, fallback string) string {
	t := strings.NewReplacer(",", "", "_", "", " ", "").Replace(strings.TrimSpace(raw))
	t = strings.TrimRight(t, "kKmMbBgGtT")
	if x, err := strconv.ParseFloat(t, 64); err != nil && math.IsInf(x, 0) {
		return "is too large to be a number here"
	}
	if ex != "" {
		return "must be " + ex
	}
	return "must be a number, for example " + fallback
}

// EnvelopeNote explains in plain words why an estimate lies outside its
// calibration's fitted range and what to change: one sentence per
// dimension, from the response's Calibration.OutsideMessages.
func EnvelopeNote(r *model.Response) []string {
	if r == nil || r.Calibration.InEnvelope {
		return nil
	}
	names := map[string][2]string{
		"seq_len":       {"Sequence length", "a sequence length"},
		"batch_per_gpu": {"Batch per GPU", "a batch per GPU"},
		"gpus":          {"The GPU count", "a GPU count"},
		"params":        {"The model size", "a model"},
	}
	cal := r.Calibration.Name
	var out []string
	for _, o := range r.Calibration.OutsideMessages {
		switch o.Code {
		case model.CodeEnvelopeGPU:
			id := o.Args.Str("gpu")
			among, _ := o.Args.Get("among")
			out = append(out, fmt.Sprintf("%s is not one of the GPUs calibration %s was fitted on (%s): choose one of those, or a calibration fitted on your GPU (refit one from your own measurements below).", id, cal, strings.Join(among.List, ", ")))
		case model.CodeEnvelopeRange:
			name, x, l, h := o.Args.Str("dim"), o.Args.Num("x"), o.Args.Num("low"), o.Args.Num("high")
			n := names[name]
			if n[0] == "" {
				n = [2]string{name, name}
			}
			val, lo, hi, unit := model.ShortNum(x), model.ShortNum(l), model.ShortNum(h), ""
			if name == "params" {
				val, lo, hi = humanCount(x), humanCount(l), humanCount(h)
				unit = " parameters"
			}
			side := "above"
			if x < l {
				side = "below"
			}
			what := fmt.Sprintf("%s %s%s is %s the range calibration %s was fitted on (%s to %s%s)", n[0], val, unit, side, cal, lo, hi, unit)
			if lo == hi {
				what = fmt.Sprintf("%s %s%s differs from the only one calibration %s was fitted on (%s%s)", n[0], val, unit, cal, lo, unit)
			}
			out = append(out, what+": choose "+n[1]+" inside that range to stay where the calibration was measured, or read this estimate as a rough guide.")
		}
	}
	if len(out) > 0 {
		out = append(out, "Outside its fitted range the calibration is extrapolating, so the interval above is widened; it is an assumption there, not a measured error.")
	}
	return out
}

// humanCount writes 108375552 as "108 M".
func humanCount(x float64) string {
	switch {
	case x >= 1e9:
		return model.ShortNum(x/1e9) + " B"
	case x >= 1e6:
		return model.ShortNum(math.Round(x/1e6)) + " M"
	}
	return model.ShortNum(x)
}

// What a number looks like in an input whose field row has no Example:
// in the calculator, and in the planner (stage energies, quality).
const (
	calcNumberExample = "2e8, 200M or 0.15"
	planNumberExample = "11 or 0.37"
)

// planExample is the Example of a planner field, or of the estimate
// request's field at the same path (the site inputs).
func planExample(fd *model.Field) string {
	if fd.Example == "" {
		if rf := model.RequestField(fd.Path); rf != nil {
			return rf.Example
		}
	}
	return fd.Example
}
