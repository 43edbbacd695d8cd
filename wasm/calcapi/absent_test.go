package calcapi

import (
	"regexp"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/model"
)

// oldAbsentReason is the page's former reading of a sweep error's words
// (calc.js's absentReason), kept here as the reference AbsenceOf's codes
// must reproduce.
func oldAbsentReason(err, memGB string) string {
	if strings.HasPrefix(err, "hardware.count: must") {
		err = "the GPU count must" + strings.TrimPrefix(err, "hardware.count: must")
	}
	m := regexp.MustCompile(` \([^)]*\)`).ReplaceAllString(regexp.MustCompile(`, got \S+$`).ReplaceAllString(regexp.MustCompile(`^[a-z_.]+: `).ReplaceAllString(err, ""), ""), "")
	if regexp.MustCompile(`need ([\d.]+ GB per GPU)`).MatchString(m) {
		return "does not fit in " + memGB + " GB: " + strings.Split(strings.TrimPrefix(m, "is too small: "), ";")[0]
	}
	return "not possible here: " + m
}

// TestAbsenceFromCodes: the charts' reasons come from the sweep errors'
// codes and numbers and say what the words-reading did, for full
// fine-tuning, LoRA, tensor ranks the heads refuse and too few steps; on
// the page the GPU goes by its name.
func TestAbsenceFromCodes(t *testing.T) {
	a := newAPI(t)
	seen := map[string]bool{}
	for _, c := range []struct {
		model, method, gpu string
		tokens             float64
		count              int
	}{
		{"llama-2-70b", model.MethodFull, "a100-sxm4-80gb", 2e8, 64},
		{"llama-2-70b", model.MethodLoRA, "rtx-a6000", 2e8, 8},
		{"bert-base", model.MethodFull, "a100-sxm4-80gb", 2e8, 4},
		{"bert-base", model.MethodFull, "a100-sxm4-80gb", 3e5, 1},
	} {
		req := model.Request{
			Model:    model.ModelSpec{Preset: c.model},
			Training: model.TrainingSpec{Tokens: c.tokens, SeqLen: 512, BatchPerGPU: 4, Precision: model.BF16, Method: c.method},
			Hardware: model.HardwareSpec{GPU: c.gpu, Count: float64(c.count)},
			Strategy: model.Strategy{Name: model.FSDP},
		}
		if c.count == 1 {
			req.Strategy.Name = model.Single
		}
		pts, err := a.Catalog.Sweep(model.SweepRequest{Base: req, Counts: []int{1, 2, 4, 8, 16, 32, 64, 1024}, Strategies: []string{model.Single, model.DDP, model.FSDP, model.TP}})
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		for i := range pts {
			p := &pts[i]
			if p.Error == "" {
				continue
			}
			g, _ := a.Catalog.Hardware.Lookup(c.gpu)
			want := oldAbsentReason(p.Error, model.ShortNum(g.MemoryGB))
			if got := absence(p, model.Technical).String(); got != want {
				t.Errorf("%s %s on %d × %s: %q, the words said %q", c.model, p.Strategy, p.GPUs, c.gpu, got, want)
			}
			ab := AbsenceOf(p)
			if ab.Memory && (strings.Contains(ab.Why, c.gpu) || !strings.Contains(ab.Why, g.Name)) {
				t.Errorf("%s: the page's reason %q names the GPU by id, not %q", p.ErrorCode, ab.Why, g.Name)
			}
			seen[p.ErrorCode] = true
		}
	}
	for _, code := range []string{model.CodeMemoryState, model.CodeMemoryStatePEFT, model.CodeTensorHeads} {
		if !seen[code] {
			t.Errorf("no sweep point refused with %s (seen %v)", code, seen)
		}
	}
	if got := AbsenceOf(nil).String(); got != "not possible here: no point" {
		t.Errorf("no point: %q", got)
	}
}
