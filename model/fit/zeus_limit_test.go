package fit_test

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/fit"
)

// TestReadMeasurementsLimit: a CSV one byte over fit.MaxCSVBytes is an
// error naming the limit, not its first 64 MiB fitted as if whole (issue
// 29: a 67 MB file was fitted with its last value cut from 1234.5678 to
// 1234).
func TestReadMeasurementsLimit(t *testing.T) {
	row := "bert-base,a40,1,single,128,8,1e6,fp16,1,10\n"
	head := "model,gpu,count,strategy,seq_len,batch_per_gpu,tokens,precision,energy_kwh,duration_s\n"
	pad := fit.MaxCSVBytes + 1 - len(head) - len(row)
	body := io.MultiReader(strings.NewReader(head), bytes.NewReader(bytes.Repeat([]byte("\n"), pad)), strings.NewReader(row))
	_, err := fit.ReadMeasurements(body, model.DefaultPresets())
	if err == nil || !strings.Contains(err.Error(), "64 MiB") {
		t.Errorf("ReadMeasurements(MaxCSVBytes+1) = %v, want an error naming 64 MiB", err)
	}
}
