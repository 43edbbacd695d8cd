package model

import (
	"fmt"
	"math"
	"strconv"
	"testing"
)

// TestValueTextIsSprint holds valueText, which writes the value an error
// repeats without package fmt, to what fmt wrote before: %v for the kinds
// the error sites pass (an int, a bool, nil), a string quoted, a float in
// its shortest exact form.
func TestValueTextIsSprint(t *testing.T) {
	for _, v := range []any{0, -3, 1 << 40, true, false} {
		if got, want := valueText(v), fmt.Sprint(v); got != want {
			t.Errorf("valueText(%#v) = %q, want %q", v, got, want)
		}
	}
	if got := valueText(nil); got != "" {
		t.Errorf("valueText(nil) = %q, want \"\"", got)
	}
	if got, want := valueText("a\"b"), strconv.Quote("a\"b"); got != want {
		t.Errorf("valueText(string) = %q, want %q", got, want)
	}
	for _, x := range []float64{0.1, 1e21, 4, math.Inf(1)} {
		if got, want := valueText(x), formatFloat(x); got != want {
			t.Errorf("valueText(%g) = %q, want %q", x, got, want)
		}
	}
	if got, want := unicodeName('\u200b'), fmt.Sprintf("%U", '\u200b'); got != want {
		t.Errorf("unicodeName(U+200B) = %q, want %q", got, want)
	}
	if got, want := unicodeName('\U0001F600'), fmt.Sprintf("%U", '\U0001F600'); got != want {
		t.Errorf("unicodeName(U+1F600) = %q, want %q", got, want)
	}
	if got, want := typeName(int8(1)), fmt.Sprintf("%T", int8(1)); got != want {
		t.Errorf("typeName(int8) = %q, want %q", got, want)
	}
	if got, want := typeName(nil), fmt.Sprintf("%T", nil); got != want {
		t.Errorf("typeName(nil) = %q, want %q", got, want)
	}
}
