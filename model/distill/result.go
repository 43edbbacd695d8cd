package distill

import "github.com/wattscale/wattscale/model"

// Result is a plan's outcome. Field names are a public interface
// (APIVersion). Lists are never null in JSON.
type Result struct {
	Version  string         `json:"version"`
	Baseline string         `json:"baseline,omitempty"` // the plan's default baseline as resolved
	Options  []OptionResult `json:"options"`
	// PlanTotalKWh is the energy of running every option in the plan, a
	// shared teacher stage counted once.
	PlanTotalKWh float64 `json:"plan_total_kwh"`
	// PlanTotalIntervalKWh is PlanTotalKWh with every estimated stage at
	// the ends of its interval.
	PlanTotalIntervalKWh [2]float64 `json:"plan_total_interval_kwh"`
	PlanCO2eKg           float64    `json:"plan_co2e_kg"`
	PlanCostUSD          float64    `json:"plan_cost_usd"`
	// Pareto is the energy–quality Pareto set of the options with a quality
	// (minimum one-off energy, maximum quality), in order of energy.
	Pareto []Point `json:"pareto"`
	// Dominated lists the options with a quality that are not efficient,
	// and which options dominate them.
	Dominated []Dominated `json:"dominated"`
	Advice    []string    `json:"advice"`
	Warnings  []string    `json:"warnings"`
	// WarningMessages are Warnings as data (model.Message), in order.
	WarningMessages []model.Message `json:"warning_messages"`
	Assumptions     []string        `json:"assumptions"`
	Site            SiteUsed        `json:"site"`
}

// SiteUsed echoes the site figures applied to every stage.
type SiteUsed struct {
	PUE           float64 `json:"pue"`
	CarbonGPerKWh float64 `json:"carbon_g_per_kwh"`
	USDPerKWh     float64 `json:"usd_per_kwh"`
	Region        string  `json:"region,omitempty"`
}

// Dominated names an option off the Pareto set and the options that use no
// more energy for no less quality, one of the two strictly.
type Dominated struct {
	Name        string   `json:"name"`
	DominatedBy []string `json:"dominated_by"`
}

// OptionResult is one pipeline's accounting.
type OptionResult struct {
	Name     string `json:"name"`
	Regime   string `json:"regime"`
	Source   string `json:"source"`             // measured, estimated, preset NAME, or mixed
	Baseline string `json:"baseline,omitempty"` // the direct-SFT option N* compares with
	// TotalKWh is the sum of the stages (a shared teacher stage counts 0
	// here: it is counted in the option that produces it).
	TotalKWh float64 `json:"total_kwh"`
	// OneOffKWh is the energy of running this pipeline alone, its teacher
	// stage included even when shared: the energy on the energy–quality plane.
	OneOffKWh float64       `json:"one_off_kwh"`
	Stages    []StageResult `json:"stages"`
	CO2eKg    float64       `json:"co2e_kg"`
	CostUSD   float64       `json:"cost_usd"`
	TimeS     float64       `json:"time_s,omitempty"`      // sum of stage times, when every stage has one
	Tokens    float64       `json:"tokens,omitempty"`      // the pipeline's training tokens
	JPerToken float64       `json:"j_per_token,omitempty"` // OneOffKWh·3.6e6/Tokens, whole pipeline
	Quality   *float64      `json:"quality,omitempty"`

	// TeacherSharedWith names the option whose teacher stage this one reuses.
	TeacherSharedWith string `json:"teacher_shared_with,omitempty"`
	// TeacherKWh is the teacher stage's energy amortised over the students
	// (the owner's when shared); StudentKWh the student stage's.
	TeacherKWh         float64  `json:"teacher_kwh"`
	StudentKWh         float64  `json:"student_kwh"`
	BaselineStudentKWh *float64 `json:"baseline_student_kwh,omitempty"`

	// NStar is the break-even reuse count, null with NStarReason when there
	// is none.
	NStar       *float64 `json:"n_star"`
	NStarReason string   `json:"n_star_reason,omitempty"`
	// NStarRange is N* with every stage anywhere in its interval (measured
	// and preset stages exact): the least teacher energy over the largest
	// saving, to the most over the smallest. Absent when no stage of the
	// option or its baseline is estimated, or when even the least break
	// even is never reached. RangeFlagged is true when a stage behind it
	// was estimated in a regime the model flags (an interval class other
	// than core): then the range, not the point, is the answer.
	NStarRange   *Range `json:"n_star_range,omitempty"`
	RangeFlagged bool   `json:"range_flagged,omitempty"`
	// OneOffIntervalKWh is OneOffKWh with every estimated stage at the ends
	// of its interval.
	OneOffIntervalKWh [2]float64 `json:"one_off_interval_kwh"`
	// Students is the planned number of students sharing the teacher stage
	// and KWhPerStudent the amortised Ē(N) = TeacherKWh/N + StudentKWh there.
	Students      int          `json:"students"`
	KWhPerStudent float64      `json:"kwh_per_student"`
	Curve         []CurvePoint `json:"curve,omitempty"` // N = 1…50, distilled options

	// TStarTokens is the serving threshold, null with TStarReason when there
	// is none or no serving energies were given.
	TStarTokens *float64 `json:"t_star_tokens"`
	TStarReason string   `json:"t_star_reason,omitempty"`
	// TStarRange is T* over OneOffIntervalKWh (when T* repays the one-off
	// energy and a stage is estimated).
	TStarRange    *[2]float64 `json:"t_star_range,omitempty"`
	ExtraTrainKWh float64     `json:"extra_train_kwh,omitempty"` // the energy T* repays
}

// CurvePoint is the amortised per-student energy at n students.
type CurvePoint struct {
	N             int     `json:"n"`
	KWhPerStudent float64 `json:"kwh_per_student"`
}

// StageResult is one stage of one option. TimeS, Tokens and JPerToken are
// omitted when not known (a measured stage with no token count).
type StageResult struct {
	Stage      string  `json:"stage"`
	Source     string  `json:"source"` // measured, preset, estimated or shared
	EnergyKWh  float64 `json:"energy_kwh"`
	TimeS      float64 `json:"time_s,omitempty"`
	Tokens     float64 `json:"tokens,omitempty"`
	JPerToken  float64 `json:"j_per_token,omitempty"`
	CO2eKg     float64 `json:"co2e_kg"`
	CostUSD    float64 `json:"cost_usd"`
	SharedWith string  `json:"shared_with,omitempty"`
	Detail     string  `json:"detail,omitempty"`
	// EnergyIntervalKWh is an estimated stage's interval (its estimate's,
	// model.IntervalUsed) and IntervalClass the class that set it; absent
	// for measured, preset and shared stages and for the preprocessing and
	// prerun stages, which are taken as given by their rates.
	EnergyIntervalKWh *[2]float64 `json:"energy_interval_kwh,omitempty"`
	IntervalClass     string      `json:"interval_class,omitempty"`
}

// Range is a quantity's range from its stages' intervals: Low, and High
// or, when the high end is unbounded (the distilled student may cost as
// much as the baseline's), none.
type Range struct {
	Low  float64  `json:"low"`
	High *float64 `json:"high"`
}

// Text is the range of a count of unit in words: "1.8 to 47 students",
// or "at least 1.8 students, possibly never" when the high end is
// unbounded.
func (r Range) Text(unit string) string {
	if r.High == nil {
		return "at least " + sig3(r.Low) + " " + unit + ", possibly never"
	}
	return sig3(r.Low) + " to " + sig3(*r.High) + " " + unit
}

// Stage sources.
const (
	SourceMeasured  = "measured"
	SourcePreset    = "preset"
	SourceEstimated = "estimated"
	SourceShared    = "shared"
)
