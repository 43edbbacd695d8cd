package calcapi

import (
	"encoding/json"
	"strings"

	"github.com/wattscale/wattscale/model"
)

// RecommendInput is the argument of Recommend: the form as typed (its
// deadline and minimise keys set the search).
type RecommendInput struct {
	Form Form `json:"form"`
}

// RecommendOutput is Recommend's result: the request sent to the
// recommender and its answer, or an error placed on a form input.
type RecommendOutput struct {
	Request json.RawMessage          `json:"request,omitempty"`
	Result  *model.RecommendResponse `json:"result,omitempty"`
	Error   *Error                   `json:"error,omitempty"`
}

// RecommendRequest turns the form into a recommend request: its model and
// training as the workload, every GPU of the table as a candidate (up to
// 64 each), its hardware and strategy as the current configuration.
func (f Form) RecommendRequest(regions []Region) (model.RecommendRequest, *Error) {
	req, ferr := f.Request(regions)
	if ferr != nil {
		return model.RecommendRequest{}, ferr
	}
	rr := model.RecommendRequest{
		Workload: model.Workload{Model: req.Model, Training: req.Training, Calibration: req.Calibration},
		Current:  &model.Current{Hardware: req.Hardware, Strategy: req.Strategy},
		Site:     req.Site, Minimise: strings.TrimSpace(f["minimise"]),
	}
	rr.DeadlineS, ferr = f.deadlineS()
	return rr, ferr
}

// deadlineS reads the form's deadline (hours; empty = none) as a
// request's deadline_s, in seconds: the calculator's panel and the
// planner's per-stage search read it alike.
func (f Form) deadlineS() (float64, *Error) {
	h, ferr := f.number("deadline", false)
	return h * 3600, ferr
}

// Recommend runs the "cheaper ways to run this" search for the form
// (model.Catalog.Recommend, the command line's path).
func (a *API) Recommend(input []byte) (out []byte) {
	defer recoverInto(&out)
	var in RecommendInput
	if e := decodeInput(input, &in); e != nil {
		return mustJSON(RecommendOutput{Error: e})
	}
	rr, ferr := in.Form.RecommendRequest(a.Regions)
	if ferr != nil {
		return mustJSON(RecommendOutput{Error: ferr})
	}
	o := RecommendOutput{Request: mustJSON(rr)}
	res, err := a.Catalog.Recommend(rr)
	if fe := model.AsFieldError(err); fe != nil && strings.HasPrefix(fe.Field, "current.") {
		// The form's own configuration cannot run (the estimate says why
		// beside its input); the other configurations still can.
		rr.Current = nil
		o.Request = mustJSON(rr)
		res, err = a.Catalog.Recommend(rr)
	}
	if err != nil {
		e := a.errorOf(err, in.Form)
		switch {
		case strings.HasPrefix(e.Field, "workload."):
			e.Input = in.Form.InputFor(strings.TrimPrefix(e.Field, "workload."))
		case e.Field == "deadline_s":
			e.Input = "deadline"
		case e.Field == "minimise":
			e.Input = "minimise"
		}
		o.Error = e
		return mustJSON(o)
	}
	o.Result = &res
	return mustJSON(o)
}
