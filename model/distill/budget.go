package distill

import (
	"fmt"
	"sort"
	"strings"

	"github.com/wattscale/wattscale/model"
)

// estimatedStages counts the stages of p given as configurations that
// Evaluate estimates (teacher, student, eval; a teacher shared with another
// option is estimated there).
func estimatedStages(p *Plan) int {
	n := 0
	for i := range p.Options {
		o := &p.Options[i]
		if o.Teacher != nil && o.ShareTeacherWith == "" {
			n++
		}
		if o.Student != nil {
			n++
		}
		if o.Eval != nil {
			n++
		}
	}
	return n
}

// checkPlanBudget refuses a plan whose estimated stages exceed the
// catalog's work budget (model.WorkPerEstimatedStage each), before any is
// estimated.
func checkPlanBudget(cat *model.Catalog, p *Plan) error {
	budget := cat.Budget()
	if budget == 0 {
		return nil
	}
	n := estimatedStages(p)
	if work := n * model.WorkPerEstimatedStage; work > budget {
		return model.OverBudget("options", model.Message{Code: CodeBudgetStages, Args: model.Args{{Name: "n", Num: float64(n)}, {Name: "options", Num: float64(len(p.Options))}}}, work, budget)
	}
	return nil
}

// searchWork is one stage's search in a plan recommend request.
type searchWork struct {
	path, cands string // the stage ("options[1].student") and where its candidates were given
	work        int
	text        model.Message
}

// checkRecommendBudget refuses a per-stage recommend request whose
// searches and estimates together exceed the catalog's budget, before any
// stage is searched: res is the plan's evaluation (which stages are
// estimated), settings each stage's search settings.
func checkRecommendBudget(cat *model.Catalog, p *Plan, res *Result, settingsOf func(i int, stage string) stageSettings) error {
	budget := cat.Budget()
	if budget == 0 {
		return nil
	}
	plan := estimatedStages(p) * model.WorkPerEstimatedStage
	total := plan
	var parts []searchWork
	for i := range res.Options {
		for _, sr := range res.Options[i].Stages {
			if sr.Source != "estimated" || sr.Stage != StageStudent && sr.Stage != StageTeacher && sr.Stage != StageEval {
				continue
			}
			st := settingsOf(i, sr.Stage)
			inference := sr.Stage != StageStudent
			var prec model.Precision
			if s := p.Options[i].Student; !inference && s != nil {
				prec = model.Precision(strings.ToLower(strings.TrimSpace(string(s.Training.Precision))))
			}
			n, _ := cat.SearchSize(st.cands, inference, prec)
			per := model.WorkPerConfig
			if inference {
				per = model.WorkPerInferenceConfig
			}
			w := model.WorkPerSearch + n*per
			total += w
			parts = append(parts, searchWork{path: fmt.Sprintf("options[%d].%s", i, sr.Stage), cands: st.candsPath, work: w,
				text: model.Message{Code: CodeBudgetSearch, Args: model.Args{{Name: "stage", Str: fmt.Sprintf("options[%d].%s", i, sr.Stage)},
					{Name: "n", Num: float64(n)}, {Name: "candidates", Str: st.candsPath}, {Name: "work", Num: float64(w)}}}})
		}
	}
	if total <= budget {
		return nil
	}
	sort.SliceStable(parts, func(i, j int) bool { return parts[i].work > parts[j].work })
	field := "candidates"
	if len(parts) > 0 {
		field = parts[0].cands
	}
	var top []model.Message
	for _, s := range parts[:min(3, len(parts))] {
		top = append(top, s.text)
	}
	if len(parts) > 3 {
		top = append(top, model.Message{Code: CodeBudgetMoreSearches, Args: model.Args{{Name: "n", Num: float64(len(parts) - 3)}}})
	}
	what := model.Message{Code: CodeBudgetSearches, Args: model.Args{{Name: "n", Num: float64(len(parts))}, {Name: "parts", Msgs: top}, {Name: "plan", Num: float64(plan)}}}
	return model.OverBudget(field, what, total, budget)
}
