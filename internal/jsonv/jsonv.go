// Package jsonv reads and writes JSON without encoding/json, for the
// calculator's WebAssembly (wasm/calc), where encoding/json would cost
// about 200 KB of code and its reflection-heavy decoding a sixth of the
// start-up (issues 31 and 33).
//
// Parse reads a document into a Value tree (objects keep their members'
// order and every value its byte span, so that a member can be handed on
// as it was written). Decode stores a document in a Go value by its
// fields' JSON names, as encoding/json does for the plain types the
// project's files use (structs, embedded structs, pointers, slices,
// arrays, maps with string keys, strings, numbers, booleans, any); keys
// must be exactly a field's name, and a key the type does not have, or one
// given twice, is an error. StoreString, StoreObject and the other typed
// stores do what Store does for one Go type, without reflection, for
// decoders written by hand where package reflect is not to be linked
// (calc.wasm reads calibrations with them). Indent writes a Value as
// encoding/json's MarshalIndent writes it, object keys sorted as for a
// map.
//
// Errors carry the byte offset and, for a value of the wrong type, the
// dotted path of the field ("roofline.u_compute.value").
package jsonv

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Kind is a JSON value's type.
type Kind uint8

const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

var kindNames = [...]string{"null", "a boolean", "a number", "a string", "an array", "an object"}

// Value is one JSON value. Str is a string's decoded text or a number's
// literal; Elems an array's elements; Keys and Members an object's, in
// order. Start and End are its bytes in the document.
type Value struct {
	Kind       Kind
	Bool       bool
	Str        string
	Elems      []Value
	Keys       []string
	Members    []Value
	Start, End int
}

// Error is a document that cannot be read: at Offset bytes, what is wrong
// (Msg), and for a value of the wrong type the field's dotted Path.
type Error struct {
	Offset int
	Path   string
	Msg    string
}

func (e *Error) Error() string {
	if e.Path != "" {
		return e.Path + ": " + e.Msg
	}
	return "invalid JSON at byte " + strconv.Itoa(e.Offset) + ": " + e.Msg
}

// maxDepth bounds nesting (encoding/json's limit).
const maxDepth = 10000

// Parse reads one JSON value (RFC 8259), with only white space around it.
func Parse(b []byte) (Value, error) {
	p := parser{b: b}
	p.space()
	v, err := p.value(0)
	if err != nil {
		return Value{}, err
	}
	p.space()
	if p.i < len(b) {
		return Value{}, p.fail("data after the value")
	}
	return v, nil
}

type parser struct {
	b []byte
	i int
}

func (p *parser) fail(msg string) error { return &Error{Offset: p.i, Msg: msg} }

func (p *parser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (Value, error) {
	if depth > maxDepth {
		return Value{}, p.fail("nested too deeply")
	}
	if p.i >= len(p.b) {
		return Value{}, p.fail("unexpected end of input")
	}
	start := p.i
	switch c := p.b[p.i]; {
	case c == '{':
		v := Value{Kind: Object, Start: start}
		p.i++
		p.space()
		if p.i < len(p.b) && p.b[p.i] == '}' {
			p.i++
			v.End = p.i
			return v, nil
		}
		for {
			p.space()
			if p.i >= len(p.b) || p.b[p.i] != '"' {
				return Value{}, p.fail("want a string key")
			}
			k, err := p.str()
			if err != nil {
				return Value{}, err
			}
			p.space()
			if p.i >= len(p.b) || p.b[p.i] != ':' {
				return Value{}, p.fail("want ':' after a key")
			}
			p.i++
			p.space()
			m, err := p.value(depth + 1)
			if err != nil {
				return Value{}, err
			}
			v.Keys, v.Members = append(v.Keys, k), append(v.Members, m)
			p.space()
			if p.i < len(p.b) && p.b[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.b) && p.b[p.i] == '}' {
				p.i++
				v.End = p.i
				return v, nil
			}
			return Value{}, p.fail("want ',' or '}' in an object")
		}
	case c == '[':
		v := Value{Kind: Array, Start: start}
		p.i++
		p.space()
		if p.i < len(p.b) && p.b[p.i] == ']' {
			p.i++
			v.End = p.i
			return v, nil
		}
		for {
			p.space()
			e, err := p.value(depth + 1)
			if err != nil {
				return Value{}, err
			}
			v.Elems = append(v.Elems, e)
			p.space()
			if p.i < len(p.b) && p.b[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.b) && p.b[p.i] == ']' {
				p.i++
				v.End = p.i
				return v, nil
			}
			return Value{}, p.fail("want ',' or ']' in an array")
		}
	case c == '"':
		s, err := p.str()
		return Value{Kind: String, Str: s, Start: start, End: p.i}, err
	case c == '-' || c >= '0' && c <= '9':
		lit, err := p.number()
		return Value{Kind: Number, Str: lit, Start: start, End: p.i}, err
	}
	for _, w := range [...]struct {
		lit  string
		kind Kind
		b    bool
	}{{"true", Bool, true}, {"false", Bool, false}, {"null", Null, false}} {
		if len(p.b)-p.i >= len(w.lit) && string(p.b[p.i:p.i+len(w.lit)]) == w.lit {
			p.i += len(w.lit)
			return Value{Kind: w.kind, Bool: w.b, Start: start, End: p.i}, nil
		}
	}
	return Value{}, p.fail("want a value")
}

// number reads a number by RFC 8259's grammar and returns its literal.
func (p *parser) number() (string, error) {
	start := p.i
	digits := func() int {
		n := 0
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.b[p.i] == '-' {
		p.i++
	}
	if p.i < len(p.b) && p.b[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		return "", p.fail("want a digit in a number")
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return "", p.fail("want a digit after the decimal point")
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return "", p.fail("want a digit in the exponent")
		}
	}
	return string(p.b[start:p.i]), nil
}

// str reads a string (p.b[p.i] is its quote) and returns its text:
// escapes decoded, as encoding/json decodes them (a lone surrogate or an
// invalid UTF-8 byte becomes U+FFFD).
func (p *parser) str() (string, error) {
	p.i++
	var out []byte
	for {
		if p.i >= len(p.b) {
			return "", p.fail("unterminated string")
		}
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return string(out), nil
		case c < 0x20:
			return "", p.fail("control character in a string")
		case c == '\\':
			if p.i+1 >= len(p.b) {
				return "", p.fail("unterminated string")
			}
			e := p.b[p.i+1]
			p.i += 2
			switch e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := hex4(p.b[p.i:])
				if !ok {
					return "", p.fail("bad \\u escape")
				}
				p.i += 4
				if utf16.IsSurrogate(r) {
					// A pair makes one rune; a lone half is U+FFFD.
					if len(p.b)-p.i >= 6 && p.b[p.i] == '\\' && p.b[p.i+1] == 'u' {
						if r2, ok := hex4(p.b[p.i+2:]); ok {
							if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
								p.i += 6
								out = utf8.AppendRune(out, d)
								break
							}
						}
					}
					r = utf8.RuneError
				}
				out = utf8.AppendRune(out, r)
			default:
				return "", p.fail("bad escape in a string")
			}
		case c < utf8.RuneSelf:
			out = append(out, c)
			p.i++
		default:
			r, n := utf8.DecodeRune(p.b[p.i:])
			out = utf8.AppendRune(out, r) // an invalid byte: U+FFFD
			p.i += n
		}
	}
}

// hex4 reads four hex digits.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
