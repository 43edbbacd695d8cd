package calcapi

import (
	"encoding/json"
	"strings"

	"github.com/wattscale/wattscale/model/distill"
)

// PlanRecommendOutput is DistillRecommend's result: the per-stage request
// the planner form became and its answer, or an error placed on a planner
// input.
type PlanRecommendOutput struct {
	Request json.RawMessage         `json:"request,omitempty"`
	Result  *distill.Recommendation `json:"result,omitempty"`
	Error   *Error                  `json:"error,omitempty"`
}

// RecommendRequest turns the planner form into a per-stage recommend
// request: the form's plan, every GPU of the table as a candidate (up to
// 64 each), and the form's minimise and deadline (hours, each stage's own)
// for every stage.
func (f PlanForm) RecommendRequest(regions []Region) (distill.RecommendRequest, *Error) {
	p, ferr := f.Plan(regions)
	if ferr != nil {
		return distill.RecommendRequest{}, ferr
	}
	rr := distill.RecommendRequest{Plan: p, Minimise: strings.TrimSpace(f["minimise"])}
	rr.DeadlineS, ferr = Form(f).deadlineS()
	return rr, ferr
}

// DistillRecommend runs the recommender on each GPU-bound stage of the
// planner's plan (distill.Recommend, the path of `site recommend -plan`).
func (a *API) DistillRecommend(input []byte) (out []byte) {
	defer recoverInto(&out)
	var in PlanInput
	if e := decodeInput(input, &in); e != nil {
		return mustJSON(PlanRecommendOutput{Error: e})
	}
	if in.Form == nil {
		return mustJSON(PlanRecommendOutput{Error: &Error{Field: "(body)", Message: "has no form", Text: "(body): has no form"}})
	}
	return mustJSON(a.DistillRecommendOf(in.Form))
}

// DistillRecommendOf is DistillRecommend for a planner form.
func (a *API) DistillRecommendOf(form PlanForm) PlanRecommendOutput {
	in := PlanInput{Form: form}
	rr, ferr := in.Form.RecommendRequest(a.Regions)
	if ferr != nil {
		return PlanRecommendOutput{Error: ferr}
	}
	o := PlanRecommendOutput{Request: mustJSON(rr)}
	res, err := distill.Recommend(a.Catalog, rr)
	if err != nil {
		e := a.errorOf(err, nil)
		switch {
		case strings.HasPrefix(e.Field, "plan."):
			e.Input = in.Form.InputFor(strings.TrimPrefix(e.Field, "plan."))
		case e.Field == "deadline_s":
			e.Input = "deadline"
		case e.Field == "minimise":
			e.Input = "minimise"
		}
		e.Field = strings.TrimPrefix(e.Field, "plan.") // the form's plan, as Distill names its fields
		o.Error = e
		return o
	}
	o.Result = &res
	return o
}
