package distill

// Result is a plan's outcome. Field names are a public interface
// (APIVersion). Lists are never null in JSON.
type Result struct {
	Version  string         `json:"version"`
	Baseline string         `json:"baseline,omitempty"` // the plan's default baseline as resolved
	Options  []OptionResult `json:"options"`
	// PlanTotalKWh is the energy of running every option in the plan, a
	// shared teacher stage counted once.
	PlanTotalKWh float64 `json:"plan_total_kwh"`
	PlanCO2eKg   float64 `json:"plan_co2e_kg"`
	PlanCostUSD  float64 `json:"plan_cost_usd"`
	// Pareto is the energy–quality Pareto set of the options with a quality
	// (minimum one-off energy, maximum quality), in order of energy.
	Pareto []Point `json:"pareto"`
	// Dominated lists the options with a quality that are not efficient,
	// and which options dominate them.
	Dominated   []Dominated `json:"dominated"`
	Advice      []string    `json:"advice"`
	Warnings    []string    `json:"warnings"`
	Assumptions []string    `json:"assumptions"`
	Site        SiteUsed    `json:"site"`
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
	JPerToken float64       `json:"j_per_token,omitempty"` // TotalKWh·3.6e6/Tokens
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
	// Students is the planned number of students sharing the teacher stage
	// and KWhPerStudent the amortised Ē(N) = TeacherKWh/N + StudentKWh there.
	Students      int          `json:"students"`
	KWhPerStudent float64      `json:"kwh_per_student"`
	Curve         []CurvePoint `json:"curve,omitempty"` // N = 1…50, distilled options

	// TStarTokens is the serving threshold, null with TStarReason when there
	// is none or no serving energies were given.
	TStarTokens   *float64 `json:"t_star_tokens"`
	TStarReason   string   `json:"t_star_reason,omitempty"`
	ExtraTrainKWh float64  `json:"extra_train_kwh,omitempty"` // the energy T* repays
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
}

// Stage sources.
const (
	SourceMeasured  = "measured"
	SourcePreset    = "preset"
	SourceEstimated = "estimated"
	SourceShared    = "shared"
)
