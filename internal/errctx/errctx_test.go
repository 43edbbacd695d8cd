package errctx

import (
	"errors"
	"fmt"
	"io"
	"testing"
	"time"
)

func TestWrap(t *testing.T) {
	err := Wrap("calibration", io.ErrUnexpectedEOF)
	if got, want := err.Error(), fmt.Errorf("calibration: %w", io.ErrUnexpectedEOF).Error(); got != want {
		t.Errorf("Wrap = %q, want %q", got, want)
	}
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("errors.Is(Wrap(…, io.ErrUnexpectedEOF), io.ErrUnexpectedEOF) = false")
	}
	if Wrap("x", nil) != nil {
		t.Errorf("Wrap(x, nil) is not nil")
	}
}

func TestTextIsSprint(t *testing.T) {
	var nilErr error
	for _, v := range []any{nilErr, errors.New("boom"), "index out of range", time.Second, 42, int64(-7), uint64(9), 0.1, 1e21, -3.5e-7, true} {
		if got, want := Text(v), fmt.Sprint(v); got != want {
			t.Errorf("Text(%#v) = %q, want %q", v, got, want)
		}
	}
	// A runtime panic's value is an error.
	func() {
		defer func() {
			r := recover()
			if got, want := Text(r), fmt.Sprint(r); got != want {
				t.Errorf("Text(runtime panic) = %q, want %q", got, want)
			}
		}()
		var a []int
		_ = a[3]
	}()
}
