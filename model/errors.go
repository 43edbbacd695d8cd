package model

import (
	"errors"
	"math"
	"reflect"
	"strconv"
)

// FieldError reports a bad value in a request: which field (a dotted JSON
// path such as "training.batch_per_gpu"), what was given and what is
// accepted. Callers branch on it with errors.As.
type FieldError struct {
	Field   string // dotted JSON path of the offending field
	Value   string // the value as given, formatted for people; "" when absent
	Message string // what is accepted, lowercase, no final punctuation
	// Code and Args are Message as data (model.Message): Message is their
	// technical text. Code is "" for an error whose words are not yet in
	// the table of words (TextOf).
	Code string
	Args Args
}

// Say is what e says is accepted, as n names things: Message, or its
// code's text when e has one.
func (e *FieldError) Say(n Namer) string {
	if e.Code == "" {
		return e.Message
	}
	return e.Msg().Text(n)
}

// At is e about another field: a copy with Field field.
func (e *FieldError) At(field string) *FieldError {
	c := *e
	c.Field = field
	return &c
}

// asMessage is e as a Message: its own, or CodeNote with its words when it
// has no code.
func (e *FieldError) asMessage() Message {
	if e.Code == "" {
		return Note(e.Message)
	}
	return e.Msg()
}

// withValue is e with the value given v (already formatted).
func (e *FieldError) withValue(v string) *FieldError {
	e.Value = v
	return e
}

// InContext is e with words after it that say where it arose (code
// CodeForStage or CodeSearching, at the path at): the same field, e's own
// message nested as problem.
func (e *FieldError) InContext(code, at string) *FieldError {
	c := *e
	c.Code, c.Args = code, Args{{Name: "problem", Msgs: []Message{e.asMessage()}}, {Name: "at", Str: at}}
	c.Message = Message{Code: c.Code, Args: c.Args}.Text(Technical)
	return &c
}

// Msg is e as a Message.
func (e *FieldError) Msg() Message {
	return Message{Code: e.Code, Field: e.Field, Args: e.Args}
}

func (e *FieldError) Error() string {
	if e.Value == "" {
		return e.Field + ": " + e.Message
	}
	return e.Field + ": " + e.Message + ", got " + e.Value
}

// codeErr builds a *FieldError whose words are code's (TextOf), about the
// values args, with the value given formatted as fieldErr does.
func codeErr(code, field string, value any, args Args) *FieldError {
	return &FieldError{Field: field, Value: valueText(value), Code: code, Args: args,
		Message: Message{Code: code, Field: field, Args: args}.Text(Technical)}
}

// CodeErr is codeErr for the packages above model.
func CodeErr(code, field string, value any, args Args) *FieldError {
	return codeErr(code, field, value, args)
}

// valueText is a value as an error repeats it.
func valueText(value any) string {
	v := ""
	if value != nil {
		switch x := value.(type) {
		case float64:
			v = formatFloat(x)
		case string:
			v = strconv.Quote(x)
		case int:
			v = strconv.Itoa(x)
		case bool:
			v = strconv.FormatBool(x)
		default:
			// The kinds above are those the error sites pass (a test
			// holds them to fmt.Sprint's); without fmt, another is
			// written by its Go kind alone.
			v = "(" + reflect.TypeOf(x).String() + ")"
		}
	}
	return v
}

// formatFloat prints x exactly (shortest round-trip form), non-finite
// values by name.
func formatFloat(x float64) string {
	if s, ok := nonFinite(x); ok {
		return s
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// nonFinite names NaN and the infinities.
func nonFinite(x float64) (string, bool) {
	switch {
	case math.IsNaN(x):
		return "NaN", true
	case math.IsInf(x, 1):
		return "+Inf", true
	case math.IsInf(x, -1):
		return "-Inf", true
	}
	return "", false
}

// MessageError is an error that is a Message about no request field (a
// calibration's): its text is the message's technical words.
type MessageError struct{ Msg Message }

func (e *MessageError) Error() string { return e.Msg.Text(Technical) }

// msgErr is the error code about args.
func msgErr(code string, args Args) error { return &MessageError{Message{Code: code, Args: args}} }

// AsMessage is err as a Message: the *MessageError or *FieldError in its
// chain, else CodeNote with its words. (errors.AsType, not errors.As: As
// checks its target by reflection, package reflectlite, which calc.wasm
// need not link.)
func AsMessage(err error) Message {
	if me, ok := errors.AsType[*MessageError](err); ok {
		return me.Msg
	}
	if fe := AsFieldError(err); fe != nil && fe.Code != "" {
		return fe.Msg()
	}
	return Note(err.Error())
}

// AsFieldError returns the *FieldError in err's chain, or nil.
func AsFieldError(err error) *FieldError {
	if fe, ok := errors.AsType[*FieldError](err); ok {
		return fe
	}
	return nil
}

// checkPositive and checkCount check numbers that are not request fields
// (the recommender's) with Bounds, the one wording of a range error.
func checkPositive(field string, x, hi float64) error {
	return Bounds{Max: hi, MinOpen: true}.Check(field, x)
}

func checkCount(field string, x float64, lo, hi int) error {
	return Bounds{Min: float64(lo), Max: float64(hi), Whole: true}.Check(field, x)
}
