package model_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/model"
)

// TestReadAtMost: a reader at its limit is read whole; one byte over is an
// error that names the limit, never the first limit bytes (issue 29).
func TestReadAtMost(t *testing.T) {
	for _, limit := range []int64{0, 1, 1000, 64 << 10} {
		b, err := model.ReadAtMost(bytes.NewReader(make([]byte, limit)), limit)
		if err != nil || int64(len(b)) != limit {
			t.Errorf("ReadAtMost(%d bytes, %d) = %d bytes, %v; want all of them", limit, limit, len(b), err)
		}
		b, err = model.ReadAtMost(bytes.NewReader(make([]byte, limit+1)), limit)
		if !errors.Is(err, model.ErrTooLarge) || b != nil {
			t.Errorf("ReadAtMost(%d bytes, %d) = %d bytes, %v; want ErrTooLarge", limit+1, limit, len(b), err)
		}
	}
	_, err := model.ReadAtMost(bytes.NewReader(make([]byte, 64<<20+1)), 64<<20)
	if err == nil || !strings.Contains(err.Error(), "67108864 bytes (64 MiB)") {
		t.Errorf("ReadAtMost(64 MiB + 1) = %v, want an error naming 64 MiB", err)
	}
}

// TestReadBodyLimit: every surface's body reader takes MaxRequestBytes and
// refuses one byte more.
func TestReadBodyLimit(t *testing.T) {
	if _, err := model.ReadBody(bytes.NewReader(make([]byte, model.MaxRequestBytes))); err != nil {
		t.Errorf("ReadBody(MaxRequestBytes) = %v", err)
	}
	_, err := model.ReadBody(bytes.NewReader(make([]byte, model.MaxRequestBytes+1)))
	if fe := model.AsFieldError(err); fe == nil || !strings.Contains(fe.Message, "65536") {
		t.Errorf("ReadBody(MaxRequestBytes+1) = %v, want an error naming the limit", err)
	}
	_, err = model.ParseRequest(bytes.NewReader(make([]byte, model.MaxRequestBytes+1)))
	if fe := model.AsFieldError(err); fe == nil || !strings.Contains(fe.Message, "65536") {
		t.Errorf("ParseRequest(MaxRequestBytes+1) = %v, want an error naming the limit", err)
	}
}
