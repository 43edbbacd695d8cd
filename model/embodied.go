package model

// Embodied carbon: the manufacturing emissions of the accelerators and of
// their share of the server, amortised over the hardware's service life at
// a stated utilisation and charged per GPU-hour of the run. It is reported
// beside the operational CO2e (energy × PUE × grid intensity), never added
// to energy.
//
// Figures (Luccioni, Viguier & Ligozat, "Estimating the carbon footprint of
// BLOOM, a 176B parameter language model", JMLR 24(253), 2023,
// arXiv:2211.02001, section 4.1): 150 kgCO2e per GPU card and 2,500 kgCO2e
// per server node without its GPUs (an 8-GPU HPE Apollo 6500 node of the
// Jean Zay cluster), a 6-year service life and 85 % utilisation; together
// they give the paper's 11.2 tCO2e for BLOOM's 1.08 M A100-hours. The card
// figure is the paper's A100 figure: no per-card life-cycle assessment is
// published for most accelerators, so it is applied to all of them and the
// response says so. The server share is 1/8 of a node per GPU (4-GPU and
// single-card servers carry a larger share each; the figure is a floor).

// Embodied carbon defaults and their sources.
const (
	EmbodiedCardKg        = 150.0  // per accelerator card, Luccioni et al. 2023 (A100)
	EmbodiedServerKg      = 2500.0 // per 8-GPU server node without GPUs, Luccioni et al. 2023
	EmbodiedGPUsPerServer = 8.0
	EmbodiedLifeYears     = 6.0  // service life, Luccioni et al. 2023
	EmbodiedUtilisation   = 0.85 // share of the life the hardware is busy, Luccioni et al. 2023
)

// EmbodiedSource is how the response cites the embodied figures.
const EmbodiedSource = "Luccioni, Viguier & Ligozat, Estimating the carbon footprint of BLOOM (JMLR 24(253), 2023; arXiv:2211.02001): 150 kgCO2e per GPU card (their A100 figure, applied to every accelerator: per-card assessments are not published), 2,500 kgCO2e per 8-GPU server node, 6-year life, 85% utilisation"

// Embodied reports the embodied carbon charged to a run.
type Embodied struct {
	CO2eKg          float64 `json:"co2e_kg"`
	KgPerGPUHour    float64 `json:"kg_per_gpu_hour"`
	CardKg          float64 `json:"card_kg"`
	ServerShareKg   float64 `json:"server_share_kg"` // per GPU
	LifeYears       float64 `json:"life_years"`
	Utilisation     float64 `json:"utilisation"`
	GPUHours        float64 `json:"gpu_hours"`
	Source          string  `json:"source"`
	NotInEnergy     bool    `json:"not_in_energy"` // always true: embodied carbon is never added to energy
	OperationalNote string  `json:"note"`
}

// EmbodiedKgPerGPUHour is the embodied carbon charged per GPU-hour.
func EmbodiedKgPerGPUHour() float64 {
	perGPU := EmbodiedCardKg + EmbodiedServerKg/EmbodiedGPUsPerServer
	return perGPU / (EmbodiedLifeYears * 8766 * EmbodiedUtilisation)
}

// embodiedFor returns the embodied carbon of gpuHours GPU-hours.
func embodiedFor(gpuHours float64) Embodied {
	k := EmbodiedKgPerGPUHour()
	return Embodied{
		CO2eKg: k * gpuHours, KgPerGPUHour: k, CardKg: EmbodiedCardKg, ServerShareKg: EmbodiedServerKg / EmbodiedGPUsPerServer,
		LifeYears: EmbodiedLifeYears, Utilisation: EmbodiedUtilisation, GPUHours: gpuHours, Source: EmbodiedSource, NotInEnergy: true,
		OperationalNote: "manufacturing emissions amortised over the service life; reported beside co2e_kg (operational), not included in it or in energy",
	}
}
