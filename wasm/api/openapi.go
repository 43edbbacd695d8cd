package api

import (
	"encoding"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"sort"
	"strings"

	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/distill"
)

// The OpenAPI description is generated from the route table and, by
// reflection, from the Go types the handlers decode and encode, so it cannot
// drift from them: a field added to model.Response appears in the schema
// with the next build, and the tests validate real answers against it.

// schema is the subset of JSON Schema 2020-12 (the dialect of OpenAPI 3.1)
// that the description uses.
type schema struct {
	Ref                  string             `json:"$ref,omitempty"`
	Type                 any                `json:"type,omitempty"` // a type name, or a list of them
	Description          string             `json:"description,omitempty"`
	Properties           map[string]*schema `json:"properties,omitempty"`
	Required             []string           `json:"required,omitempty"`
	AdditionalProperties any                `json:"additionalProperties,omitempty"` // false or a *schema
	Items                *schema            `json:"items,omitempty"`
	MinItems             *int               `json:"minItems,omitempty"`
	MaxItems             *int               `json:"maxItems,omitempty"`
	Enum                 []string           `json:"enum,omitempty"`
	OneOf                []*schema          `json:"oneOf,omitempty"`
	Minimum              *float64           `json:"minimum,omitempty"`
	ExclusiveMinimum     *float64           `json:"exclusiveMinimum,omitempty"`
	Maximum              *float64           `json:"maximum,omitempty"`
}

type document struct {
	OpenAPI string   `json:"openapi"`
	Info    info     `json:"info"`
	Servers []server `json:"servers"`
	// Security is empty: no route needs credentials.
	Security   []map[string][]string            `json:"security"`
	Paths      map[string]map[string]*operation `json:"paths"`
	Components components                       `json:"components"`
}

type info struct {
	Title       string  `json:"title"`
	Version     string  `json:"version"`
	Description string  `json:"description"`
	License     license `json:"license"`
}

type license struct {
	Name       string `json:"name"`
	Identifier string `json:"identifier"`
}

type server struct {
	URL         string `json:"url"`
	Description string `json:"description"`
}

type components struct {
	Schemas map[string]*schema `json:"schemas"`
}

type operation struct {
	OperationID string               `json:"operationId"`
	Summary     string               `json:"summary"`
	Description string               `json:"description,omitempty"`
	RequestBody *requestBody         `json:"requestBody,omitempty"`
	Responses   map[string]*response `json:"responses"`
}

type requestBody struct {
	Required bool                 `json:"required"`
	Content  map[string]mediaType `json:"content"`
}

type response struct {
	Description string               `json:"description"`
	Content     map[string]mediaType `json:"content,omitempty"`
}

type mediaType struct {
	Schema *schema `json:"schema"`
}

const jsonType = "application/json"

// openAPI builds the description of routes.
func openAPI(routes []*route, build string) (b []byte, err error) {
	g := &schemaGen{components: map[string]*schema{}, names: map[genKey]string{}, taken: map[string]genKey{}}
	defer func() {
		// The generator panics on a Go type it cannot describe, which is a
		// programmer error caught by the tests; report it as an error.
		if v := recover(); v != nil {
			err = fmt.Errorf("api: openapi: %v", v)
		}
	}()
	errResp := func(why string) *response {
		return &response{Description: why, Content: map[string]mediaType{jsonType: {g.top(reflect.TypeFor[ErrorBody](), false)}}}
	}
	doc := document{
		OpenAPI: "3.1.0",
		Info: info{
			Title:   "wattscale API",
			Version: model.APIVersion,
			Description: "Energy, time, carbon and cost of transformer fine-tuning and distillation pipelines, before they run. " +
				"Every route answers CORS requests from any origin; none needs credentials. Build " + build + ".",
			License: license{Name: "MIT", Identifier: "MIT"},
		},
		// The paths are absolute (/api/v1/...): served from whichever host
		// answered this description.
		Servers:    []server{{URL: "/", Description: "the host that served this description"}},
		Security:   []map[string][]string{},
		Paths:      map[string]map[string]*operation{},
		Components: components{Schemas: g.components},
	}
	// Answers first, then request bodies: a type used in both directions
	// gets a second component, suffixed Input, without required fields.
	ops := make([]*operation, len(routes))
	for i, rt := range routes {
		op := &operation{OperationID: rt.opID, Summary: rt.summary, Description: rt.doc, Responses: map[string]*response{}}
		out := &schema{Type: "object"}
		if rt.out.Kind() != reflect.Map {
			out = g.top(rt.out, false)
		}
		op.Responses["200"] = &response{Description: "success", Content: map[string]mediaType{jsonType: {out}}}
		ops[i] = op
	}
	for i, rt := range routes {
		op := ops[i]
		if rt.method == http.MethodPost {
			op.RequestBody = &requestBody{Required: true, Content: map[string]mediaType{jsonType: {g.top(rt.in, true)}}}
			op.Responses["400"] = errResp("malformed JSON, an unknown field (keys are exact: case matters), a key given twice, a wrong type, an out-of-range value, a body shorter than its Content-Length, more work than the budget, or an answer over 1 MiB; field names it")
			op.Responses["413"] = errResp(fmt.Sprintf("body larger than %d bytes", model.MaxRequestBytes))
		} else {
			op.Responses["304"] = &response{Description: "not modified (If-None-Match matched the ETag)"}
		}
		op.Responses["405"] = errResp("method not allowed; the Allow header lists the allowed ones")
		op.Responses["default"] = errResp("any other error, for example 404 for an unknown path")
		doc.Paths[rt.path] = map[string]*operation{strings.ToLower(rt.method): op}
	}
	b, err = json.MarshalIndent(doc, "", " ")
	return append(b, '\n'), err
}

// genKey identifies a component: request (in) and response schemas of one Go
// type differ in their required lists.
type genKey struct {
	t  reflect.Type
	in bool
}

// schemaGen turns Go types into schemas, following encoding/json's rules.
// Named structs become components, referenced by $ref (which also handles
// recursive types such as model.FitSummary).
type schemaGen struct {
	components map[string]*schema
	names      map[genKey]string
	taken      map[string]genKey
}

var (
	marshalerType       = reflect.TypeFor[json.Marshaler]()
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textMarshalerType   = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// top returns the schema of a whole body, which is never null.
func (g *schemaGen) top(t reflect.Type, in bool) *schema {
	return g.schema(t, in, false)
}

// schema returns t's schema. in selects request mode: there a property is
// required when its row of the field table (model.RequestFields,
// distill.PlanFields) is neither optional, conditional nor has a default,
// or when it is an object holding required properties; numbers carry the
// row's bounds. nullable says a nil value is encoded as null (a slice, map
// or pointer field without omitempty).
func (g *schemaGen) schema(t reflect.Type, in, nullable bool) *schema {
	if s := special(t); s != nil {
		return s
	}
	for _, it := range []reflect.Type{marshalerType, unmarshalerType, textMarshalerType, textUnmarshalerType} {
		if t.Implements(it) || reflect.PointerTo(t).Implements(it) {
			panic(fmt.Sprintf("%v has its own JSON encoding; describe it in special", t))
		}
	}
	orNull := func(s *schema) *schema {
		if !nullable {
			return s
		}
		if s.Ref != "" {
			return &schema{OneOf: []*schema{s, {Type: "null"}}}
		}
		s.Type = []string{s.Type.(string), "null"}
		return s
	}
	switch t.Kind() {
	case reflect.Bool:
		return &schema{Type: "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return &schema{Type: "integer"}
	case reflect.Float32, reflect.Float64:
		return &schema{Type: "number"}
	case reflect.String:
		return &schema{Type: "string"}
	case reflect.Interface:
		return &schema{}
	case reflect.Pointer:
		return orNull(g.schema(t.Elem(), in, false))
	case reflect.Array:
		n := t.Len()
		return &schema{Type: "array", Items: g.schema(t.Elem(), in, false), MinItems: &n, MaxItems: &n}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			panic(fmt.Sprintf("%v encodes as base64; not described", t))
		}
		return orNull(&schema{Type: "array", Items: g.schema(t.Elem(), in, false)})
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			panic(fmt.Sprintf("%v: map keys must be strings", t))
		}
		return orNull(&schema{Type: "object", AdditionalProperties: g.schema(t.Elem(), in, false)})
	case reflect.Struct:
		return g.ref(t, in) // a struct value is never null
	}
	panic(fmt.Sprintf("%v: kind %v not described", t, t.Kind()))
}

// ref returns a $ref to the component of struct type t, building it on
// first use.
func (g *schemaGen) ref(t reflect.Type, in bool) *schema {
	k := genKey{t, in}
	name, ok := g.names[k]
	if !ok {
		name = t.Name()
		if name == "" {
			panic(fmt.Sprintf("anonymous struct %v not described", t))
		}
		if in {
			if _, clash := g.taken[name]; clash || g.usedOut(t) {
				name += "Input"
			}
		}
		if _, clash := g.taken[name]; clash {
			name = pkgName(t) + name
		}
		g.names[k], g.taken[name] = name, k
		s := &schema{Type: "object", Properties: map[string]*schema{}, AdditionalProperties: false}
		g.components[name] = s // before the fields: recursive types refer to it
		g.fields(s, t, in)
		sort.Strings(s.Required)
	}
	return &schema{Ref: "#/components/schemas/" + name}
}

func (g *schemaGen) usedOut(t reflect.Type) bool {
	_, ok := g.names[genKey{t, false}]
	return ok
}

func pkgName(t reflect.Type) string {
	p := t.PkgPath()
	p = p[strings.LastIndex(p, "/")+1:]
	return strings.ToUpper(p[:1]) + p[1:]
}

// fields adds t's encoded fields to s, promoting the fields of embedded
// structs as encoding/json does.
func (g *schemaGen) fields(s *schema, t reflect.Type, in bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				g.fields(s, ft, in)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		omit := false
		for _, o := range strings.Split(opts, ",") {
			switch o {
			case "omitempty", "omitzero":
				omit = true
			case "string":
				panic(fmt.Sprintf("%v.%s: the ,string option is not described", t, f.Name))
			}
		}
		fs := g.schema(f.Type, in, !omit && !in)
		if e := f.Tag.Get("enum"); e != "" {
			fs.Enum = strings.Split(e, ",")
		}
		var row *model.Field
		if prefix, ok := requestPrefix[t]; ok && in {
			row = model.RequestField(prefix + name)
			if fs.Description == "" {
				fs.Description = fieldDoc(prefix + name)
			}
		} else if prefix, ok := planPrefix[t]; ok && in {
			row = distill.PlanField(prefix + name)
			if fs.Description == "" {
				fs.Description = planFieldDoc(prefix + name)
			}
			if row != nil && strings.Contains(row.Path, "[]") {
				// An option's fields may come from its preset: the table's
				// bounds hold, its required-ness does not.
				r := *row
				r.Optional = true
				row = &r
			}
		}
		withBounds(fs, row)
		s.Properties[name] = fs
		switch {
		case !in && !omit:
			s.Required = append(s.Required, name)
		case in && row != nil && !row.Optional && row.When == nil && row.Default == "":
			s.Required = append(s.Required, name)
		case in && f.Type.Kind() == reflect.Struct && fs.Ref != "" && len(g.components[strings.TrimPrefix(fs.Ref, "#/components/schemas/")].Required) > 0:
			s.Required = append(s.Required, name) // an object that must hold required fields
		}
	}
}

// requestPrefix gives the JSON path below which the fields of an estimate
// request's types lie, so that their descriptions come from the field
// table, model.RequestFields.
var requestPrefix = func() map[reflect.Type]string {
	m := map[reflect.Type]string{}
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || t == reflect.TypeFor[model.Strategy]() {
			return
		}
		m[t] = prefix
		for i := range t.NumField() {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			if name != "" && name != "-" {
				walk(t.Field(i).Type, prefix+name+".")
			}
		}
	}
	walk(reflect.TypeFor[model.Request](), "")
	return m
}()

// planPrefix gives the plan path below which the fields of the plan's own
// types lie, so that their descriptions come from the plan's field table,
// distill.PlanFields ("[]" stands for an option's index).
var planPrefix = map[reflect.Type]string{
	reflect.TypeFor[distill.Plan]():    "",
	reflect.TypeFor[distill.Option]():  "options[].",
	reflect.TypeFor[distill.Serving](): "options[].serving.",
	// The per-stage recommender's search settings are the planner's too.
	reflect.TypeFor[distill.RecommendRequest](): "",
}

// planFieldDoc describes the plan field at path from its row of
// distill.PlanFields, or an object by the rows below it ("stages_kwh":
// each stage's); "" when the table has neither.
func planFieldDoc(path string) string {
	if f := distill.PlanField(path); f != nil && f.Help != "" {
		return rowDoc(f)
	}
	var parts []string
	for i := range distill.PlanFields {
		f := &distill.PlanFields[i]
		if leaf, ok := strings.CutPrefix(f.Path, path+"."); ok && f.Help != "" {
			parts = append(parts, leaf+": "+rowDoc(f))
		}
	}
	return strings.Join(parts, ". ")
}

// fieldDoc describes the request field at path from its row of
// model.RequestFields: what it is, its unit, range or choices, and what
// leaving it out means.
func fieldDoc(path string) string {
	f := model.RequestField(path)
	if f == nil {
		return ""
	}
	return rowDoc(f)
}

// rowDoc describes a field table's row.
func rowDoc(f *model.Field) string {
	d := f.Help
	if f.Unit != "" {
		d += " (" + f.Unit + ")"
	}
	if f.Bounds != nil {
		d += "; " + strings.TrimPrefix(f.Rule(), "must be ")
	}
	var choices []string
	for _, c := range f.Choices {
		if c != "" {
			choices = append(choices, c)
		}
	}
	if len(choices) > 0 {
		d += "; one of " + strings.Join(choices, ", ")
	}
	if f.Default != "" {
		d += "; left out: " + f.Default
	}
	return d
}

// withBounds sets a number's minimum and maximum from its field table row
// (nil: none).
func withBounds(s *schema, row *model.Field) {
	if row == nil || row.Bounds == nil || s.Type != "number" && s.Type != "integer" {
		return
	}
	lo, hi := row.Min, row.Max
	if row.MinOpen {
		s.ExclusiveMinimum = &lo
	} else {
		s.Minimum = &lo
	}
	s.Maximum = &hi
}

// special describes the types with their own JSON encoding.
func special(t reflect.Type) *schema {
	switch t {
	case reflect.TypeFor[model.RawObject]():
		// A Hugging Face file, read key by key by the model (its keys are
		// the file's, not the API's): any object.
		return &schema{Type: "object"} // described by its row of the field table
	case reflect.TypeFor[model.Args]():
		// A message's values by name (model.Message).
		return &schema{Type: "object", Description: "the values the message speaks of, by the names its code gives them: numbers (in the units their names say), strings (field paths, GPU ids, names), lists of strings, or lists of messages ({code, field, args})",
			AdditionalProperties: true}
	case reflect.TypeFor[model.Strategy]():
		var names []string
		for _, n := range model.Strategies {
			if n != model.Hybrid {
				names = append(names, n)
			}
		}
		return &schema{
			Description: "a strategy name (" + strings.Join(names, ", ") + "), or hybrid tensor × data parallelism as an object",
			OneOf: []*schema{
				{Type: "string"},
				{
					Type: "object",
					Properties: map[string]*schema{
						"tensor":    bounded(&schema{Type: "number", Description: fieldDoc("strategy.tensor")}, "strategy.tensor"),
						"data":      bounded(&schema{Type: "number", Description: fieldDoc("strategy.data")}, "strategy.data"),
						"data_mode": {Type: "string", Description: fieldDoc("strategy.data_mode")},
						"context":   {Type: "number", Description: fieldDoc("strategy.context")},
					},
					AdditionalProperties: false,
				},
			},
		}
	}
	return nil
}

// bounded is s with the bounds of the request field at path.
func bounded(s *schema, path string) *schema {
	withBounds(s, model.RequestField(path))
	return s
}
