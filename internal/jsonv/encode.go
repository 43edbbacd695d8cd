package jsonv

import (
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// AppendString appends s as a JSON string, escaped as encoding/json's
// Encoder with SetEscapeHTML(false) escapes it: quote, backslash and
// control characters, U+2028 and U+2029, and each invalid UTF-8 byte as
// \ufffd.
func AppendString(dst []byte, s string) []byte { return appendString(dst, s, false) }

// AppendStringHTML is AppendString that also escapes <, > and & (as
// \u003c, \u003e, \u0026), as encoding/json's Marshal does.
func AppendStringHTML(dst []byte, s string) []byte { return appendString(dst, s, true) }

const hex = "0123456789abcdef"

func appendString(dst []byte, s string, html bool) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case html && (c == '<' || c == '>' || c == '&'):
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\b':
				dst = append(dst, '\\', 'b')
			case c == '\f':
				dst = append(dst, '\\', 'f')
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c < 0x20:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			dst = append(dst, s[i:i+n]...)
		}
		i += n
	}
	return append(dst, '"')
}

// AppendFloat appends f as encoding/json writes a float64: the shortest
// decimal that reads back as f, with an exponent below 1e-6 and from 1e21
// ("1e-7", "1e+21"). NaN and ±Inf, which JSON cannot hold, are written as
// null.
func AppendFloat(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...)
	}
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// e-09 → e-9, as encoding/json writes it
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

// Indent appends v as encoding/json's Encoder with SetIndent("", indent)
// and SetEscapeHTML(false) writes the same document decoded into an
// interface (an object's keys sorted, as for a map; a number as its
// float64), without the final newline.
func Indent(dst []byte, v Value, indent string) []byte {
	return appendIndent(dst, v, indent, "\n")
}

func appendIndent(dst []byte, v Value, indent, nl string) []byte {
	switch v.Kind {
	case Null:
		return append(dst, "null"...)
	case Bool:
		return strconv.AppendBool(dst, v.Bool)
	case Number:
		f, _ := strconv.ParseFloat(v.Str, 64)
		return AppendFloat(dst, f)
	case String:
		return AppendString(dst, v.Str)
	case Array:
		if len(v.Elems) == 0 {
			return append(dst, "[]"...)
		}
		dst = append(dst, '[')
		for i, e := range v.Elems {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(append(dst, nl...), indent...)
			dst = appendIndent(dst, e, indent, nl+indent)
		}
		return append(append(dst, nl...), ']')
	}
	if len(v.Keys) == 0 {
		return append(dst, "{}"...)
	}
	// Sorted, the last of a repeated key winning, as a map holds them.
	last := map[string]int{}
	for i, k := range v.Keys {
		last[k] = i
	}
	keys := make([]string, 0, len(last))
	for k := range last {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(append(dst, nl...), indent...)
		dst = append(AppendString(dst, k), ':', ' ')
		dst = appendIndent(dst, v.Members[last[k]], indent, nl+indent)
	}
	return append(append(dst, nl...), '}')
}

// Compact appends the JSON document raw without insignificant white
// space, escaping <, > and &, U+2028 and U+2029 in its strings, as
// encoding/json's Marshal writes a Marshaler's output; false when raw is
// not valid JSON (the bytes appended are then undefined).
func Compact(dst []byte, raw []byte) ([]byte, bool) {
	if _, err := Parse(raw); err != nil {
		return dst, false
	}
	in := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case in && c == '\\':
			dst = append(dst, c, raw[i+1])
			i++
		case c == '"':
			in = !in
			dst = append(dst, c)
		case !in && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
		case c == '<' || c == '>' || c == '&':
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		case c == 0xe2 && i+2 < len(raw) && raw[i+1] == 0x80 && raw[i+2]&^1 == 0xa8:
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[raw[i+2]&0xf])
			i += 2
		default:
			dst = append(dst, c)
		}
	}
	return dst, true
}
