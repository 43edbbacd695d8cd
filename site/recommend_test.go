package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/distill"
)

// TestRecommendCommand runs `site recommend` on the shipped example and
// sends its best configuration back through `site estimate`: the same
// energy and time.
func TestRecommendCommand(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "content", "examples", "recommend.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"recommend"}, bytes.NewReader(b), &out, &errOut); code != 0 {
		t.Fatalf("site recommend exited %d: %s", code, errOut.String())
	}
	var res model.RecommendResponse
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if res.Best == nil || len(res.Pareto) == 0 || res.Current == nil || res.Saving == nil {
		t.Fatalf("site recommend: best %v, %d pareto points, current %v, saving %v", res.Best, len(res.Pareto), res.Current, res.Saving)
	}
	reqJSON, err := json.Marshal(res.Best.Request)
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := run([]string{"estimate"}, bytes.NewReader(reqJSON), &out, &errOut); code != 0 {
		t.Fatalf("site estimate of best exited %d: %s", code, errOut.String())
	}
	var e model.Response
	if err := json.Unmarshal(out.Bytes(), &e); err != nil {
		t.Fatal(err)
	}
	if e.EnergyKWh != res.Best.EnergyKWh || e.TimeS != res.Best.TimeS {
		t.Errorf("best through site estimate: %.10g kWh %.10g s, recommend said %.10g kWh %.10g s", e.EnergyKWh, e.TimeS, res.Best.EnergyKWh, res.Best.TimeS)
	}
}

func TestRecommendCommandErrors(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run([]string{"recommend"}, strings.NewReader(`{"workload": {"model": {"preset": "bert-base"}, "training": {"tokens": 1e8, "seq_len": 128, "batch_per_gpu": 8, "precision": "fp16"}}, "candidates": []}`), &out, &errOut)
	if code != 1 || !strings.Contains(errOut.String(), "candidates: is empty") || strings.Count(errOut.String(), "\n") != 1 {
		t.Errorf("empty candidates: exit %d, stderr %q; want 1 and one line naming candidates", code, errOut.String())
	}
}

// TestRecommendPlanCommand runs `site recommend -plan` on the shipped
// example: a student stage's best sent back through `site estimate` gives
// the same energy, and a bad per-stage candidate is one line naming its path.
func TestRecommendPlanCommand(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "content", "examples", "recommend-plan.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"recommend", "-plan"}, bytes.NewReader(b), &out, &errOut); code != 0 {
		t.Fatalf("site recommend -plan exited %d: %s", code, errOut.String())
	}
	var res distill.Recommendation
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	students := 0
	for _, s := range res.Stages {
		if s.Stage != distill.StageStudent || s.Best == nil {
			continue
		}
		students++
		reqJSON, _ := json.Marshal(s.Best.Request)
		var eo bytes.Buffer
		if code := run([]string{"estimate"}, bytes.NewReader(reqJSON), &eo, &errOut); code != 0 {
			t.Fatalf("site estimate of %s's best exited %d: %s", s.Path, code, errOut.String())
		}
		var e model.Response
		if err := json.Unmarshal(eo.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		if e.EnergyKWh != s.Best.EnergyKWh {
			t.Errorf("%s best through site estimate: %.10g kWh, recommend -plan said %.10g kWh", s.Path, e.EnergyKWh, s.Best.EnergyKWh)
		}
	}
	if students != 3 || !(res.PlanTotalBestKWh <= res.PlanTotalKWh) {
		t.Errorf("%d student stages searched, plan %.6g kWh → %.6g kWh; want 3 and no rise", students, res.PlanTotalKWh, res.PlanTotalBestKWh)
	}
	errOut.Reset()
	bad := strings.Replace(string(b), `"candidates": [{"gpu": "h100-sxm5", "max_count": 4}]`, `"candidates": [{"gpu": "h100-sxm5-8gb"}]`, 1)
	code := run([]string{"recommend", "-plan"}, strings.NewReader(bad), &out, &errOut)
	if code != 1 || !strings.HasPrefix(errOut.String(), "wattscale recommend: stages[0].candidates[0].gpu") || strings.Count(errOut.String(), "\n") != 1 {
		t.Errorf("bad stage candidate: exit %d, stderr %q; want 1 and one line naming stages[0].candidates[0].gpu", code, errOut.String())
	}
}

// TestRecommendCommandBudget: the command line has the API's work budget:
// a per-stage search over it exits non-zero with the budget error, and
// -budget -1 (or a budget at least its size) runs it.
func TestRecommendCommandBudget(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "content", "examples", "plan-paper-estimated.json"))
	if err != nil {
		t.Fatal(err)
	}
	body := `{"plan": ` + string(b) + `}` // every stage over the whole table
	var out, errOut bytes.Buffer
	if code := run([]string{"recommend", "-plan"}, strings.NewReader(body), &out, &errOut); code == 0 || !strings.Contains(errOut.String(), "candidates: asks for more work than one request may") {
		t.Errorf("site recommend -plan over the budget: exit %d, stderr %q", code, errOut.String())
	}
	for _, flag := range []string{"-1", "1000000"} {
		out.Reset()
		errOut.Reset()
		if code := run([]string{"recommend", "-plan", "-budget", flag}, strings.NewReader(body), &out, &errOut); code != 0 {
			t.Errorf("site recommend -plan -budget %s: exit %d, %s", flag, code, errOut.String())
		}
	}
	errOut.Reset()
	run([]string{"recommend", "-h"}, nil, &out, &errOut)
	if !strings.Contains(errOut.String(), fmt.Sprintf("as the API allows (%d", model.DefaultWorkBudget)) {
		t.Errorf("site recommend -h does not state the budget:\n%s", errOut.String())
	}
}
