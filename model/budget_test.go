package model_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/model"
)

// wholeTable lists every accelerator of c with max_count maxCount and, with
// limits, model.MaxPowerLimits power limits over its range (where it has one).
func wholeTable(c *model.Catalog, maxCount int, limits bool) []model.Candidate {
	var out []model.Candidate
	for i := range c.Hardware.GPUs {
		g := &c.Hardware.GPUs[i]
		cd := model.Candidate{GPU: g.ID, MaxCount: float64(maxCount)}
		if pr := model.PowerLimits(g); limits && pr.MinW < pr.DefaultW {
			for j := range model.MaxPowerLimits {
				cd.PowerLimitsW = append(cd.PowerLimitsW, float64(int(pr.MinW+(pr.DefaultW-pr.MinW)*float64(j)/float64(model.MaxPowerLimits-1))))
			}
		}
		out = append(out, cd)
	}
	return out
}

const budgetWorkload = `{"model": {"preset": "llama-3-8b"}, "training": {"tokens": 1e9, "seq_len": 4096, "batch_per_gpu": 2, "precision": "bf16"}}`

// TestSearchSizeIsSearched: the size computed before a search is the
// number of configurations the search then tries.
func TestSearchSizeIsSearched(t *testing.T) {
	c := catalog(t)
	c.WorkBudget = -1
	for _, cands := range [][]model.Candidate{
		nil,
		{{GPU: "h100", MaxCount: 4096}},
		{{GPU: "a100", MaxCount: 7, PowerLimitsW: []float64{250, 300, 400}}, {GPU: "t4", MaxCount: 1}, {GPU: "l4", MaxCount: 100}},
		wholeTable(c, 4096, true),
	} {
		req := parseRec(t, `{"workload": `+budgetWorkload+`}`)
		req.Candidates = cands
		r := recommend(t, c, req)
		if n, _ := c.SearchSize(cands, false, model.BF16); n != r.Searched {
			t.Errorf("%d candidates: SearchSize = %d, Recommend searched %d", len(cands), n, r.Searched)
		}
	}
}

// TestRecommendBudget: a search over the budget is refused before it runs,
// with an error on candidates that gives the configurations, their largest
// parts and the budget; the same request passes with the budget raised
// (site recommend -budget); the default search is within the budget.
func TestRecommendBudget(t *testing.T) {
	c := catalog(t)
	req := parseRec(t, `{"workload": `+budgetWorkload+`}`)
	if _, err := c.Recommend(req); err != nil {
		t.Fatalf("the default search (every GPU up to 64): %v", err)
	}
	req.Candidates = wholeTable(c, 4096, true)
	n, _ := c.SearchSize(req.Candidates, false, model.BF16)
	if model.WorkPerSearch+n <= model.DefaultWorkBudget {
		t.Fatalf("the whole table at 4096 GPUs and 16 limits is %d configurations, within the budget: test a larger search", n)
	}
	_, err := c.Recommend(req)
	fe := model.AsFieldError(err)
	if fe == nil || fe.Field != "candidates" || !strings.Contains(fe.Message, fmt.Sprintf("%d configurations", n)) ||
		!strings.Contains(fe.Message, fmt.Sprintf("the budget is %d work units", model.DefaultWorkBudget)) || !strings.Contains(fe.Message, "16 power limits") {
		t.Errorf("Recommend(whole table, 4096 GPUs, 16 limits) = %v, want an error on candidates naming %d configurations, their parts and the budget", err, n)
	}
	c.WorkBudget = model.WorkPerSearch + n
	if _, err := c.Recommend(req); err != nil {
		t.Errorf("with the budget raised to its size: %v", err)
	}
	c.WorkBudget = model.WorkPerSearch + n - 1
	if _, err := c.Recommend(req); model.AsFieldError(err) == nil {
		t.Errorf("with the budget one unit under its size: %v, want the budget error", err)
	}
}
