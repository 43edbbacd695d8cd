package model

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/wattscale/wattscale/internal/jsonv"
)

// Exact JSON keys. encoding/json matches an object key to a struct field
// without regard to case (and with Unicode case folding: "ſite" is "site",
// "to\u212Aens" is "tokens"), and a key written twice is silently
// last-wins. CheckKeys is a pre-pass over the raw bytes that refuses both
// before encoding/json decodes: every key must be exactly a field's JSON
// name, and no object may hold a key twice. It costs one linear scan with
// no allocation for keys without escapes; go-json-experiment/json does the
// same by default but adds about 195 KB brotli to calc.wasm (issue 29).

// CheckKeys walks the JSON value raw alongside the Go type of v (a
// pointer, or a type) and returns a *FieldError for the first object key
// that is not exactly the JSON name of one of the struct's fields ("is not a
// known field"), or that appears twice in one object ("is given twice"),
// its Field the dotted path of the key ("training.tokens",
// "options[2].name"). A type with its own UnmarshalJSON, a map, an
// interface or a json.RawMessage is checked for duplicate keys only (its
// decoder checks its own fields). Malformed JSON gives nil: the decoder
// that follows reports it.
func CheckKeys(raw []byte, v any) error {
	t, ok := v.(reflect.Type)
	if !ok {
		t = reflect.TypeOf(v)
	}
	return checkKeys(raw, keysOf(t))
}

// checkKeys is CheckKeys for a type's keys (keysOf).
func checkKeys(raw []byte, k *keys) error {
	s := keyScan{b: raw}
	err := s.value(k)
	if err == errMalformed {
		return nil
	}
	return err
}

// keys is what CheckKeys knows of a Go type: a struct's fields by JSON
// name, or the element of a slice, array or map. nil stands for every
// other type, a type with its own UnmarshalJSON, and a slice, array or map
// with no struct below it: the keys of an object there are free (only a
// key given twice is refused).
type keys struct {
	kind   keyKind
	fields map[string]*keys // keyStruct: its JSON fields (jsonFields)
	elem   *keys            // keyList, keyMap: the element's
}

type keyKind uint8

const (
	keyStruct keyKind = iota
	keyList           // a slice or an array
	keyMap
)

// keysCache maps a type to its keys.
var keysCache sync.Map // reflect.Type -> *keys

// keysOf returns the keys of type t.
func keysOf(t reflect.Type) *keys {
	if k, ok := keysCache.Load(t); ok {
		return k.(*keys)
	}
	k := buildKeys(t, map[reflect.Type]*keys{})
	keysCache.Store(t, k)
	return k
}

// buildKeys builds the keys of t; memo holds those begun, for a type that
// contains itself.
func buildKeys(t reflect.Type, memo map[reflect.Type]*keys) *keys {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType) {
		return nil
	}
	if k, ok := memo[t]; ok {
		return k
	}
	k := &keys{}
	switch t.Kind() {
	case reflect.Struct:
		k.kind = keyStruct
		memo[t] = k
		fields := jsonFields(t)
		k.fields = make(map[string]*keys, len(fields))
		for name, ft := range fields {
			k.fields[name] = buildKeys(ft, memo)
		}
		return k
	case reflect.Slice, reflect.Array, reflect.Map:
		k.kind = keyList
		if t.Kind() == reflect.Map {
			k.kind = keyMap
		}
		memo[t] = k
		if k.elem = buildKeys(t.Elem(), memo); k.elem == nil {
			memo[t] = nil
			return nil
		}
		return k
	}
	return nil
}

// errMalformed stops the scan at bytes that are not JSON (a literal: its
// words are CodeBodyNotJSON's).
var errMalformed = &FieldError{Field: "(body)", Message: "is not valid JSON", Code: CodeBodyNotJSON}

// maxKeyDepth bounds the nesting the scan follows (encoding/json stops at
// 10,000); deeper is left to the decoder.
const maxKeyDepth = 10000

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// keyScan is the state of CheckKeys: the bytes, the read position and the
// path to it (built into a string only for an error).
type keyScan struct {
	b     []byte
	i     int
	depth int
	path  []pathSeg
}

// pathSeg is one step of a path: an object key, or an array index.
type pathSeg struct {
	key     []byte
	index   int
	isIndex bool
}

// pathTo returns the dotted path of the scan's position, with key last.
func (s *keyScan) pathTo(key []byte) string {
	var b strings.Builder
	for _, p := range s.path {
		if p.isIndex {
			b.WriteString("[" + strconv.Itoa(p.index) + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.Write(p.key)
	}
	if b.Len() > 0 {
		b.WriteByte('.')
	}
	b.Write(key)
	return b.String()
}

func (s *keyScan) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// value scans one value of a type with keys k (nil = any).
func (s *keyScan) value(k *keys) error {
	s.ws()
	if s.i >= len(s.b) {
		return errMalformed
	}
	switch s.b[s.i] {
	case '{':
		return s.object(k)
	case '[':
		var elem *keys
		if k != nil && k.kind == keyList {
			elem = k.elem
		}
		return s.array(elem)
	case '"':
		_, _, ok := s.str()
		if !ok {
			return errMalformed
		}
		return nil
	default:
		// A number, true, false or null: up to the next delimiter.
		start := s.i
		for s.i < len(s.b) && !strings.ContainsRune(",]} \t\n\r", rune(s.b[s.i])) {
			s.i++
		}
		if s.i == start {
			return errMalformed
		}
		return nil
	}
}

func (s *keyScan) enter() error {
	s.depth++
	if s.depth > maxKeyDepth {
		return errMalformed
	}
	return nil
}

func (s *keyScan) array(elem *keys) error {
	if err := s.enter(); err != nil {
		return err
	}
	defer func() { s.depth-- }()
	s.i++ // [
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return nil
	}
	for n := 0; ; n++ {
		if err := s.member(pathSeg{index: n, isIndex: true}, elem); err != nil {
			return err
		}
		if done, err := s.next(']'); done || err != nil {
			return err
		}
	}
}

// member checks the value of an array element or an object member at seg.
func (s *keyScan) member(seg pathSeg, k *keys) error {
	s.path = append(s.path, seg)
	err := s.value(k)
	s.path = s.path[:len(s.path)-1]
	return err
}

// next reads what follows a member: a comma (more to come) or close (the
// array or object ends, done).
func (s *keyScan) next(close byte) (done bool, err error) {
	s.ws()
	if s.i >= len(s.b) {
		return false, errMalformed
	}
	switch s.b[s.i] {
	case ',':
		s.i++
		return false, nil
	case close:
		s.i++
		return true, nil
	}
	return false, errMalformed
}

// object scans an object; k is a struct's (keys must be its fields), a
// map's or nil (keys are free, only duplicates are refused).
func (s *keyScan) object(k *keys) error {
	if err := s.enter(); err != nil {
		return err
	}
	defer func() { s.depth-- }()
	var fields map[string]*keys
	var elem *keys
	switch {
	case k == nil:
	case k.kind == keyStruct:
		fields = k.fields
	case k.kind == keyMap:
		elem = k.elem
	}
	s.i++ // {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return nil
	}
	var seenBuf [16][]byte
	seen := seenBuf[:0]      // the keys so far, for a small object
	var many map[string]bool // past 16 keys
	for {
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return errMalformed
		}
		key, escaped, ok := s.str()
		if !ok {
			return errMalformed
		}
		if escaped {
			// (jsonv decodes escapes as encoding/json does; FuzzParse
			// in internal/jsonv holds them equal.)
			v, err := jsonv.Parse(key)
			if err != nil || v.Kind != jsonv.String {
				return errMalformed
			}
			key = []byte(v.Str)
		} else {
			key = key[1 : len(key)-1]
		}
		if fields != nil {
			ft, known := fields[string(key)]
			if !known {
				return unknownKey(s.pathTo(key), string(key), fields)
			}
			elem = ft
		}
		if many != nil {
			if many[string(key)] {
				return duplicateKey(s.pathTo(key))
			}
			many[string(key)] = true
		} else {
			for _, k := range seen {
				if bytes.Equal(k, key) {
					return duplicateKey(s.pathTo(key))
				}
			}
			if len(seen) < len(seenBuf) {
				seen = append(seen, key)
			} else {
				many = make(map[string]bool, 2*len(seen))
				for _, k := range seen {
					many[string(k)] = true
				}
				many[string(key)] = true
			}
		}
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return errMalformed
		}
		s.i++
		if err := s.member(pathSeg{key: key}, elem); err != nil {
			return err
		}
		if done, err := s.next('}'); done || err != nil {
			return err
		}
	}
}

// str scans a string at s.i and returns it with its quotes, and whether it
// holds an escape or a byte that is not plain ASCII (then its value is not
// its bytes: encoding/json unquotes it and replaces invalid UTF-8).
func (s *keyScan) str() (quoted []byte, escaped, ok bool) {
	start := s.i
	s.i++
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return s.b[start:s.i], escaped, true
		case c == '\\':
			escaped = true
			s.i += 2
			continue
		case c < 0x20:
			return nil, false, false
		case c >= 0x80:
			escaped = true
		}
		s.i++
	}
	return nil, false, false
}

func duplicateKey(path string) error {
	return codeErr(CodeKeyTwice, path, nil, nil)
}

// unknownKey names a key that is no field, and the field it differs from
// only in case, if there is one.
func unknownKey(path, key string, fields map[string]*keys) error {
	for name := range fields {
		if strings.EqualFold(name, key) {
			return codeErr(CodeUnknownKeyCase, path, nil, Args{{Name: "name", Str: name}})
		}
	}
	return codeErr(CodeUnknownKey, path, nil, nil)
}

// jsonFields returns the JSON names of struct t's fields, as encoding/json
// names them: the tag's name or the Go name, "-" left out, the fields of an
// untagged embedded struct promoted (a shallower field wins; two at the same
// depth cancel, unless exactly one is tagged).
func jsonFields(t reflect.Type) map[string]reflect.Type {
	type cand struct {
		t      reflect.Type
		depth  int
		tagged bool
		n      int // candidates at this name and depth
	}
	found := map[string]*cand{}
	var walk func(t reflect.Type, depth int, visited map[reflect.Type]bool)
	walk = func(t reflect.Type, depth int, visited map[reflect.Type]bool) {
		if visited[t] {
			return
		}
		visited[t] = true
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			ft := f.Type
			if f.Anonymous {
				et := ft
				if et.Kind() == reflect.Pointer {
					et = et.Elem()
				}
				if name == "" && et.Kind() == reflect.Struct {
					walk(et, depth+1, visited)
					continue
				}
				if !f.IsExported() && et.Kind() != reflect.Struct {
					continue
				}
			} else if !f.IsExported() {
				continue
			}
			tagged := name != ""
			if name == "" {
				name = f.Name
			}
			c := found[name]
			switch {
			case c == nil || depth < c.depth:
				found[name] = &cand{ft, depth, tagged, 1}
			case depth == c.depth && tagged == c.tagged:
				c.n++
			case depth == c.depth && tagged:
				found[name] = &cand{ft, depth, tagged, 1}
			}
		}
	}
	walk(t, 0, map[reflect.Type]bool{})
	m := make(map[string]reflect.Type, len(found))
	for name, c := range found {
		if c.n == 1 {
			m[name] = c.t
		}
	}
	return m
}
