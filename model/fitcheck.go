package model

// MinFitCoverage is the least share of held-out runs a refitted
// calibration's interval must cover for FitChecks to pass it: a 90 %
// interval that covers fewer than 70 % of runs it did not see is not an
// interval a user can act on.
const MinFitCoverage = 0.70

// Codes of a fit's failed checks (FitChecks).
const (
	CodeFitNotHeldOut   = "fit.not_held_out"  // n (rows), groups
	CodeFitHeldOutR2    = "fit.held_out_r2"   // r2
	CodeFitCoverage     = "fit.coverage"      // coverage, min (shares)
	CodeFitParamOutside = "fit.param_outside" // name, value, low, high (±Inf for none), why
	CodeFitFailedChecks = "fit.failed_checks" // name, checks ([]Message)
)

// FitChecks are the reasons a calibration fitted to measurements (one with
// a Fit summary, as `site fit` and the page's refit write it) should not be
// trusted: no held-out check at all, a held-out R² below 0 (the fit
// predicts runs it did not see worse than their mean does), a held-out
// interval coverage below MinFitCoverage (where measured), or a law coefficient of the sign
// physics rules out (more compute or more memory traffic for less energy, a
// more efficient parallel run for more). The roofline parameters' ranges
// are enforced by Validate, which a fit cannot leave. A calibration
// without a Fit summary (published, or written by hand) has none.
func FitChecks(c Calibration) []Message {
	f := c.Fit
	if f == nil {
		return nil
	}
	var out []Message
	if f.CVMethod == "" {
		out = append(out, Message{Code: CodeFitNotHeldOut, Args: Args{{Name: "n", Num: float64(f.N)}, {Name: "groups", Num: float64(f.Groups)}}})
	} else {
		if f.CVR2 < 0 {
			out = append(out, Message{Code: CodeFitHeldOutR2, Args: Args{{Name: "r2", Num: f.CVR2}}})
		}
		// (0 is a coverage not measured: a published calibration's summary
		// may lack it; every refit measures it.)
		if f.CVCoverage > 0 && f.CVCoverage < MinFitCoverage {
			out = append(out, Message{Code: CodeFitCoverage, Args: Args{{Name: "coverage_pct", Num: 100 * f.CVCoverage}, {Name: "min_pct", Num: 100 * MinFitCoverage}}})
		}
	}
	if l := c.Law; c.Kind == KindLogLinear && l != nil {
		for _, p := range []struct {
			name     string
			v        float64
			positive bool
			why      string
		}{
			{"α_C", l.AlphaC.Value, true, "more compute for less energy"},
			{"α_M", l.AlphaM.Value, true, "more memory traffic for less energy"},
			{"α_η", l.AlphaEta.Value, false, "a more efficient parallel run for more energy"},
		} {
			ok, rng := p.v >= 0, "≥ 0"
			if !p.positive {
				ok, rng = p.v <= 0, "≤ 0"
			}
			if !ok { // NaN fails both
				out = append(out, outside(p.name, p.v, rng, p.why))
			}
		}
	}
	return out
}

func outside(name string, v float64, rng, why string) Message {
	return Message{Code: CodeFitParamOutside, Args: Args{{Name: "name", Str: name}, {Name: "value", Num: v}, {Name: "range", Str: rng}, {Name: "why", Str: why}}}
}
