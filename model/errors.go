package model

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// FieldError reports a bad value in a request: which field (a dotted JSON
// path such as "training.batch_per_gpu"), what was given and what is
// accepted. Callers branch on it with errors.As.
type FieldError struct {
	Field   string // dotted JSON path of the offending field
	Value   string // the value as given, formatted for people; "" when absent
	Message string // what is accepted, lowercase, no final punctuation
}

func (e *FieldError) Error() string {
	if e.Value == "" {
		return fmt.Sprintf("%s: %s", e.Field, e.Message)
	}
	return fmt.Sprintf("%s: %s, got %s", e.Field, e.Message, e.Value)
}

// fieldErr builds a *FieldError with the value formatted with %v.
func fieldErr(field string, value any, format string, args ...any) error {
	v := ""
	if value != nil {
		switch x := value.(type) {
		case float64:
			v = formatFloat(x)
		case string:
			v = strconv.Quote(x)
		default:
			v = fmt.Sprint(x)
		}
	}
	return &FieldError{Field: field, Value: v, Message: fmt.Sprintf(format, args...)}
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

// AsFieldError returns the *FieldError in err's chain, or nil.
func AsFieldError(err error) *FieldError {
	var fe *FieldError
	if errors.As(err, &fe) {
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
