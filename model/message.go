package model

import (
	"sort"
	"strconv"
	"strings"
)

// Message is a warning or an error as data: a code that names its
// sentence, the request field it is about (a dotted JSON path, "" for
// none) and the values it speaks of. Its words come from one table keyed
// by code (Texts) and are written by one renderer (Text), in the technical
// form the API and the command line print (field paths, GPU ids) or the
// plain form the calculator shows (the form's labels, GPU names), so no
// code has to read a message's words back.
type Message struct {
	Code  string `json:"code"`
	Field string `json:"field,omitempty"`
	// Args are the values the sentence speaks of, by the names its text
	// gives them: numbers (float64 or int, in the units their names say),
	// strings (field paths, GPU ids, names), a nested Message or a
	// []Message (advice).
	Args Args `json:"args,omitempty"`
}

// Args are a Message's values by name.
type Args map[string]any

// MessageText is the wording of one code: Tech for the API and the command
// line, Plain for the calculator's page ("" when Tech, rendered with the
// page's Namer, says it well).
//
// A text names its values in braces, with how to write each after a colon:
//
//	{x}        a number as given (shortest exact form), or a string as is
//	{x:.1f}    a number with 1 decimal ('f'), {x:.3g} with 3 digits ('g')
//	{x:short}  a number as ShortNum writes it
//	{x:q}      a string quoted
//	{x:path}   a request path: the path, or the form's label on the page
//	{x:key}    a request path by its last key ("batch_per_gpu"), or the label
//	{x:gpu}    a GPU id: the id, or the GPU's name on the page
//	{x:agpu}   "a <id>", or "one <name>" on the page
//	{x:list}   a []Message or []string joined with ", "
//	{x:semilist} a []Message joined with "; "
//	{x:gpulist}  a []string of GPU ids, as {x:gpu} writes each, joined with ", "
//	{x:orlist} a []Message joined with ", ", the last with ", or "
//	{x:or}     a []string joined with " or "
type MessageText struct {
	Tech, Plain string
}

// Texts are the words of every message code. Packages above model add
// their own codes with AddTexts; a code is never reused for other words.
var Texts = map[string]MessageText{}

// AddTexts adds a package's codes to Texts and returns true (for a
// package-level var). A code given twice panics: it is a programming error.
func AddTexts(m map[string]MessageText) bool {
	for c, t := range m {
		if _, dup := Texts[c]; dup {
			panic("model: message code " + c + " given twice")
		}
		Texts[c] = t
	}
	return true
}

// Codes lists the message codes in order.
func Codes() []string {
	out := make([]string, 0, len(Texts))
	for c := range Texts {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// Namer says how a rendered message names fields and GPUs. The zero Namer
// is the technical form: paths and ids as they are.
type Namer struct {
	// Plain selects each code's Plain text where it has one.
	Plain bool
	// Field is the name of a request path ("“Sequence length”"); nil or
	// "" keeps the path.
	Field func(path string) string
	// GPU is the name of a GPU id; nil or "" keeps the id.
	GPU func(id string) string
}

// Technical is the technical form's Namer: paths and ids as they are.
var Technical = Namer{}

func (n Namer) field(p string) string {
	if n.Field != nil {
		if s := n.Field(p); s != "" {
			return s
		}
	}
	return p
}

func (n Namer) gpu(id string) (string, bool) {
	if n.GPU != nil {
		if s := n.GPU(id); s != "" && s != id {
			return s, true
		}
	}
	return id, false
}

// MessageTexts are ms in the technical form, one string each (nil for
// nil, empty for empty).
func MessageTexts(ms []Message) []string {
	if ms == nil {
		return nil
	}
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Text(Technical)
	}
	return out
}

// String is m in the technical form.
func (m Message) String() string { return m.Text(Technical) }

// Text is m's words as n names things. An unknown code is written as the
// code itself; a value its text names but m lacks as "{name}" (the test of
// every code keeps both from happening).
func (m Message) Text(n Namer) string {
	t, ok := Texts[m.Code]
	if !ok {
		return m.Code
	}
	s := t.Tech
	if n.Plain && t.Plain != "" {
		s = t.Plain
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		name, spec, _ := strings.Cut(s[i+1:i+j], ":")
		v, ok := m.Args[name]
		if !ok {
			b.WriteString(s[i : i+j+1])
		} else {
			writeArg(&b, v, spec, n)
		}
		s = s[i+j+1:]
	}
}

// writeArg writes one value of a message as spec says (MessageText).
func writeArg(b *strings.Builder, v any, spec string, n Namer) {
	switch x := v.(type) {
	case Message:
		b.WriteString(x.Text(n))
	case []Message:
		sep := ", "
		if spec == "semilist" {
			sep = "; "
		}
		for i, m := range x {
			switch {
			case i > 0 && spec == "orlist" && i == len(x)-1:
				b.WriteString(", or ")
			case i > 0:
				b.WriteString(sep)
			}
			b.WriteString(m.Text(n))
		}
	case []any, map[string]any:
		// a Message's values as encoding/json decodes them
		writeArg(b, decodedArg(x), spec, n)
	case []string:
		for i, s := range x {
			switch {
			case i > 0 && spec == "or":
				b.WriteString(" or ")
			case i > 0:
				b.WriteString(", ")
			}
			if spec == "gpulist" {
				s, _ = n.gpu(s)
			}
			b.WriteString(s)
		}
	case string:
		switch spec {
		case "q":
			b.WriteString(strconv.Quote(x))
		case "path":
			b.WriteString(n.field(x))
		case "key":
			if s := n.field(x); s != x {
				b.WriteString(s)
			} else {
				b.WriteString(x[strings.LastIndexByte(x, '.')+1:])
			}
		case "gpu":
			s, _ := n.gpu(x)
			b.WriteString(s)
		case "agpu":
			if s, ok := n.gpu(x); ok && n.Plain {
				b.WriteString("one " + s)
			} else {
				b.WriteString("a " + s)
			}
		default:
			b.WriteString(x)
		}
	case int:
		if spec == "" {
			b.WriteString(strconv.Itoa(x))
		} else {
			writeNum(b, float64(x), spec)
		}
	case float64:
		writeNum(b, x, spec)
	default:
		b.WriteString("{?}")
	}
}

// decodedArg turns a value encoding/json decoded into a Message's value
// (objects with a code into Messages, lists into []Message or []string).
func decodedArg(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := Message{}
		m.Code, _ = x["code"].(string)
		m.Field, _ = x["field"].(string)
		if a, ok := x["args"].(map[string]any); ok {
			m.Args = Args(a)
		}
		return m
	case []any:
		var ms []Message
		var ss []string
		for _, e := range x {
			switch y := e.(type) {
			case string:
				ss = append(ss, y)
			case map[string]any:
				ms = append(ms, decodedArg(y).(Message))
			}
		}
		if ms != nil {
			return ms
		}
		return ss
	}
	return v
}

func writeNum(b *strings.Builder, x float64, spec string) {
	if s, ok := nonFinite(x); ok {
		b.WriteString(s)
		return
	}
	if spec == "short" {
		b.WriteString(ShortNum(x))
		return
	}
	if len(spec) >= 3 && spec[0] == '.' {
		if p, err := strconv.Atoi(spec[1 : len(spec)-1]); err == nil {
			b.WriteString(strconv.FormatFloat(x, spec[len(spec)-1], p, 64))
			return
		}
	}
	b.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
}
