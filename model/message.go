package model

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Message is a warning or an error as data: a code that names its
// sentence, the request field it is about (a dotted JSON path, "" for
// none) and the values it speaks of. Its words come from one table keyed
// by code (TextOf) and are written by one renderer (Text), in the technical
// form the API and the command line print (field paths, GPU ids) or the
// plain form the calculator shows (the form's labels, GPU names), so no
// code has to read a message's words back.
type Message struct {
	Code  string `json:"code"`
	Field string `json:"field,omitempty"`
	// Args are the values the sentence speaks of, by the names its text
	// gives them.
	Args Args `json:"args,omitempty"`
}

// Arg is one value of a Message: a number (in the unit its name says), a
// string (a field path, a GPU id, a name, words; never empty), a list of
// strings or nested messages (advice, an envelope's dimensions), the first
// of Msgs, List, Str that is set, else Num. Typed fields rather than an
// interface keep the calculator's WebAssembly small: a literal is stores,
// not calls.
type Arg struct {
	Name string
	Num  float64
	Str  string
	List []string
	Msgs []Message
}

// Args are a Message's values; in JSON an object by name.
type Args []Arg

// Get is the value named name, and whether there is one.
func (a Args) Get(name string) (Arg, bool) {
	for _, x := range a {
		if x.Name == name {
			return x, true
		}
	}
	return Arg{}, false
}

// Num is the number named name (0 when none).
func (a Args) Num(name string) float64 {
	x, _ := a.Get(name)
	return x.Num
}

// Str is the string named name ("" when none).
func (a Args) Str(name string) string {
	x, _ := a.Get(name)
	return x.Str
}

// MarshalJSON writes the values as one object by name (names in order,
// as for a map): numbers, strings, lists of strings, lists of messages.
func (a Args) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, len(a))
	for _, x := range a {
		switch {
		case x.Msgs != nil:
			m[x.Name] = x.Msgs
		case x.List != nil:
			m[x.Name] = x.List
		case x.Str != "":
			m[x.Name] = x.Str
		case math.IsNaN(x.Num) || math.IsInf(x.Num, 0):
			m[x.Name] = nil
		default:
			m[x.Name] = x.Num
		}
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (a *Args) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	names := make([]string, 0, len(raw))
	for k := range raw {
		names = append(names, k)
	}
	sort.Strings(names)
	*a = (*a)[:0]
	for _, k := range names {
		x := Arg{Name: k}
		v := raw[k]
		var err error
		switch {
		case len(v) > 0 && v[0] == '"':
			err = json.Unmarshal(v, &x.Str)
		case len(v) > 0 && v[0] == '[':
			if json.Unmarshal(v, &x.List) != nil {
				x.List, err = nil, json.Unmarshal(v, &x.Msgs)
			}
		default:
			err = json.Unmarshal(v, &x.Num)
		}
		if err != nil {
			return fmt.Errorf("message value %s: %w", k, err)
		}
		*a = append(*a, x)
	}
	return nil
}

// MessageText is the wording of one code: Tech for the API and the command
// line, Plain for the calculator's page ("" when Tech, rendered with the
// page's Namer, says it well).
//
// A text names its values in braces, with how to write each after a colon:
//
//	{x}        a number in its shortest exact form ('g'), or a string as is
//	{x:int}    a whole number in full
//	{x:count}  a whole number with thousands separators ("16,384")
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
//	{x:cat}    a []Message one after the other
//	{x:params} a parameter count ("7.24 B", "110 M")
//	{x:kwh}    energy: 2 decimals from 1 up, else 3 digits
type MessageText struct {
	Code        string
	Tech, Plain string
	// Brief, where a message runs long, is its gist for the line beside a
	// field on the page (Namer.Brief), the whole text then behind a
	// disclosure; it names a subset of Tech's values.
	Brief string
}

// texts are the tables of words: model's and those AddTexts adds. They are
// slices of constants, laid out by the compiler rather than built at
// start-up, which keeps the calculator's WebAssembly small.
var texts = [][]MessageText{modelTexts, errTexts}

// AddTexts adds a package's table of words and returns true (for a
// package-level var). A code is never reused for other words; the test of
// every code checks that each is given once.
func AddTexts(t []MessageText) bool {
	texts = append(texts, t)
	return true
}

// TextOf is the wording of code, and whether it has one.
func TextOf(code string) (MessageText, bool) {
	for _, t := range texts {
		for _, x := range t {
			if x.Code == code {
				return x, true
			}
		}
	}
	return MessageText{}, false
}

// HasBrief reports whether code has a Brief text (MessageText).
func HasBrief(code string) bool {
	t, _ := TextOf(code)
	return t.Brief != ""
}

// Codes lists the message codes in order.
func Codes() []string {
	var out []string
	for _, t := range texts {
		for _, x := range t {
			out = append(out, x.Code)
		}
	}
	sort.Strings(out)
	return out
}

// Namer says how a rendered message names fields and GPUs. The zero Namer
// is the technical form: paths and ids as they are.
type Namer struct {
	// Plain selects each code's Plain text where it has one.
	Plain bool
	// Brief selects each code's Brief text where it has one (with Plain's
	// naming); HasBrief says which codes do.
	Brief bool
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

// Note is a sentence not yet given a code of its own (CodeNote): its words
// are the text, the same in both forms.
func Note(text string) Message {
	return Message{Code: CodeNote, Args: Args{{Name: "text", Str: text}}}
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
	t, ok := TextOf(m.Code)
	if !ok {
		return m.Code
	}
	s := t.Tech
	if n.Plain && t.Plain != "" {
		s = t.Plain
	}
	if n.Brief && t.Brief != "" {
		s = t.Brief
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
		if v, ok := m.Args.Get(name); ok {
			writeArg(&b, v, spec, n)
		} else {
			b.WriteString(s[i : i+j+1])
		}
		s = s[i+j+1:]
	}
}

// writeArg writes one value of a message as spec says (MessageText).
func writeArg(b *strings.Builder, v Arg, spec string, n Namer) {
	switch {
	case v.Msgs != nil:
		sep := ", "
		if spec == "semilist" {
			sep = "; "
		}
		if spec == "cat" {
			sep = ""
		}
		for i, m := range v.Msgs {
			switch {
			case i > 0 && spec == "orlist" && i == len(v.Msgs)-1:
				b.WriteString(", or ")
			case i > 0:
				b.WriteString(sep)
			}
			b.WriteString(m.Text(n))
		}
	case v.List != nil:
		for i, s := range v.List {
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
	case v.Str != "":
		x := v.Str
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
	case spec == "q": // an empty string, quoted
		b.WriteString(`""`)
	default:
		writeNum(b, v.Num, spec)
	}
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
	if spec == "kwh" { // 2 decimals from 1 up, else 3 digits
		if math.Abs(x) >= 1 {
			b.WriteString(strconv.FormatFloat(x, 'f', 2, 64))
		} else {
			b.WriteString(strconv.FormatFloat(x, 'g', 3, 64))
		}
		return
	}
	if spec == "params" {
		b.WriteString(fmtParams(x))
		return
	}
	if spec == "count" {
		b.WriteString(fmtCount(x))
		return
	}
	if spec == "int" {
		b.WriteString(strconv.FormatFloat(x, 'f', 0, 64))
		return
	}
	b.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
}
