// Package errctx gives an error context without package fmt, which the
// calculator's WebAssembly does not link (fmt and the reflection it
// formats with are about 30 KB of calc.wasm brotli, and their code is
// compiled in the browser on the first call): Wrap is fmt.Errorf's
// "prefix: %w", Text is fmt.Sprint for the values a recovered panic
// holds.
package errctx

import "strconv"

// Wrap is err with prefix before its words ("prefix: words"); errors.Is
// and errors.As see err through it. A nil err stays nil.
func Wrap(prefix string, err error) error {
	if err == nil {
		return nil
	}
	return &wrapped{prefix + ": " + err.Error(), err}
}

type wrapped struct {
	msg string
	err error
}

func (w *wrapped) Error() string { return w.msg }
func (w *wrapped) Unwrap() error { return w.err }

// Text is v as fmt.Sprint writes it, for the kinds a recovered panic
// holds (an error, runtime's included; a string; a fmt.Stringer; a
// number or a boolean); any other value is written as "(a value of
// another type)".
func Text(v any) string {
	switch x := v.(type) {
	case nil:
		return "<nil>"
	case error:
		return x.Error()
	case string:
		return x
	case interface{ String() string }:
		return x.String()
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	return "(a value of another type)"
}
