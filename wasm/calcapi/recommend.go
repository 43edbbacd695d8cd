package calcapi

import (
	"encoding/json"
	"strconv"
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
	// Say is what the panel shows besides the figures, in words with GPU
	// names (the result keeps the ids).
	Say *RecommendSay `json:"say,omitempty"`
}

// RecommendSay is the recommender's answer in the calculator's words.
type RecommendSay struct {
	// Current is the form's configuration's memory check, or why it was
	// left out of the comparison.
	Current string `json:"current"`
	// Searched says what was searched: every GPU type or only the form's.
	Searched string `json:"searched"`
	// Skipped are the GPU counts the search left out, with why.
	Skipped []string `json:"skipped"`
	// Warnings are the answer's warnings in the form's words (Say of its
	// warning_messages), for the panel instead of the API's warnings.
	Warnings []string `json:"warnings"`
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
	if on(f["only_gpu"]) {
		// Only the form's GPU type, up to its own count if that is more
		// than the search's usual 64.
		rr.Candidates = []model.Candidate{{GPU: req.Hardware.GPU, MaxCount: max(model.DefaultMaxCount, req.Hardware.Count)}}
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
// (model.Catalog.Recommend, the command line's path), JSON in and out
// (RecommendOf, with the request sent to the recommender).
func (a *API) Recommend(input []byte) (out []byte) {
	defer recoverInto(&out)
	var in RecommendInput
	if e := decodeInput(input, &in); e != nil {
		return mustJSON(RecommendOutput{Error: e})
	}
	o, rr := a.recommend(in.Form)
	if rr != nil {
		o.Request = mustJSON(rr)
	}
	return mustJSON(o)
}

// RecommendOf is the search for form as a value (without Request): the
// calculator's panel (package view) draws it.
func (a *API) RecommendOf(form Form) RecommendOutput {
	o, _ := a.recommend(form)
	return o
}

// recommend is RecommendOf, with the request sent to the recommender (nil
// when the form is in error).
func (a *API) recommend(form Form) (o RecommendOutput, req *model.RecommendRequest) {
	rr, ferr := form.RecommendRequest(a.Regions)
	if ferr != nil {
		return RecommendOutput{Error: ferr}, nil
	}
	res, err := a.Catalog.Recommend(rr)
	var curErr *Error
	if fe := model.AsFieldError(err); fe != nil && strings.HasPrefix(fe.Field, "current.") {
		// The form's own configuration cannot run (the estimate says why
		// beside its input); the other configurations still can.
		curErr = a.errorOf(err, form)
		rr.Current = nil
		res, err = a.Catalog.Recommend(rr)
	}
	if err != nil {
		e := a.errorOf(err, form)
		switch {
		case strings.HasPrefix(e.Field, "workload."):
			e.Input = form.InputFor(strings.TrimPrefix(e.Field, "workload."))
		case e.Field == "deadline_s":
			e.Input = "deadline"
		case e.Field == "minimise":
			e.Input = "minimise"
		}
		o.Error = e
		return o, &rr
	}
	o.Result = &res
	o.Say = a.recommendSay(rr, res, curErr)
	return o, &rr
}

// gpuName is a GPU's display name ("NVIDIA A100 SXM4 80GB"), or the id
// given when the table has no such GPU.
func (a *API) gpuName(id string) string {
	if g, err := a.Catalog.Hardware.Lookup(id); err == nil && g.Name != "" {
		return g.Name
	}
	return id
}

// recommendSay renders what the search did in words: the form's
// configuration's memory check (or why it is not compared), which GPU
// types were searched and the counts left out, naming GPUs by their names.
func (a *API) recommendSay(rr model.RecommendRequest, res model.RecommendResponse, curErr *Error) *RecommendSay {
	s := &RecommendSay{Skipped: []string{}, Warnings: []string{}}
	for _, w := range res.WarningMessages {
		s.Warnings = append(s.Warnings, Say(w))
	}
	switch c := res.Current; {
	case c != nil && c.Memory != nil:
		m := c.Memory
		need := m.StateGB + m.ActivationGB
		verdict := "fits"
		if !m.Fits {
			verdict = "does not fit"
		}
		s.Current = "Your configuration's memory check (" + strconv.Itoa(c.Hardware.Count) + " × " + a.gpuName(c.Hardware.GPU) + "): " + model.ShortNum(need) + " GB per GPU (" + model.ShortNum(m.StateGB) + " GB state and " +
			model.ShortNum(m.ActivationGB) + " GB activations) against its " + model.ShortNum(m.CapacityGB) + " GB: " + verdict + "."
	case curErr != nil:
		say := curErr.Say
		if l := formLabels()[strings.TrimPrefix(curErr.Field, "current.")]; l != "" {
			say = "“" + l + "” " + say
		}
		s.Current = "Your configuration is not compared: " + say
	}
	if len(rr.Candidates) > 0 {
		names := make([]string, len(rr.Candidates))
		for i, c := range rr.Candidates {
			names[i] = a.gpuName(c.GPU)
		}
		s.Searched = "Searched only " + strings.Join(names, ", ") + ", as asked."
	} else {
		s.Searched = "Searched every GPU type of the table."
	}
	for _, k := range res.Skipped {
		s.Skipped = append(s.Skipped, a.skipSay(k))
	}
	return s
}

// skipSay is a skipped GPU count in words, with the GPU's name.
func (a *API) skipSay(k model.Skipped) string {
	ranks := make([]string, len(k.DataRanks))
	for i, d := range k.DataRanks {
		ranks[i] = strconv.Itoa(d)
	}
	at := strconv.Itoa(k.Count) + " × " + a.gpuName(k.GPU)
	switch k.Code {
	case model.SkipIndivisible:
		return at + ": no layout's data-parallel degree (" + strings.Join(ranks, ", ") + ") divides your " + strconv.Itoa(k.SequencesPerStep) + " sequences per optimizer step"
	case model.SkipMemory:
		return at + ": your " + strconv.Itoa(k.SequencesPerStep) + " sequences per optimizer step need at least " + strconv.FormatFloat(k.NeedGB, 'f', 1, 64) + " GB per GPU at the smallest micro-batch, more than its " + strconv.FormatFloat(k.CapacityGB, 'f', 0, 64) + " GB"
	}
	return at + ": the tokens make less than one optimizer step of " + strconv.Itoa(k.SequencesPerStep) + " sequences"
}
