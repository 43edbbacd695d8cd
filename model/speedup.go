package model

import (
	"fmt"
	"math"
)

// Speedup-law forms.
const (
	// Saturating is the tensor-parallel law
	// S(N) = 1 + (S∞ − 1)·(1 − exp(−k·(N − 1))).
	// S∞ < 1 is allowed: tensor parallelism slower than one GPU, as measured
	// on RTX 2080 Ti over PCIe.
	Saturating = "saturating"
	// Amdahl is the generalised Amdahl law used for FSDP and data parallelism,
	// S(N) = N / (N·(1 − p) + p + σ·(N − 1)^γ),
	// i.e. 1/S = (1 − p) + p/N + σ·(N − 1)^γ/N: a serial share 1 − p and a
	// synchronisation overhead, relative to the per-GPU step, that grows as
	// (N − 1)^γ. With the published points γ comes out near 0.25 on both
	// PCIe RTX 2080 Ti and NVLink A100.
	Amdahl = "amdahl"
)

// SpeedupLaw is one fitted speedup curve S(N) = T₁/T_N.
type SpeedupLaw struct {
	Form  string  `json:"form"`            // Saturating or Amdahl
	SInf  float64 `json:"s_inf,omitempty"` // saturating: asymptotic speedup
	K     float64 `json:"k,omitempty"`     // saturating: rate per added GPU
	P     float64 `json:"p,omitempty"`     // amdahl: parallel fraction in (0, 1]
	Sigma float64 `json:"sigma,omitempty"` // amdahl: overhead scale
	Gamma float64 `json:"gamma,omitempty"` // amdahl: overhead growth exponent
	// SE holds the standard errors of the fitted parameters by name; a
	// parameter missing here was fixed, not fitted.
	SE     map[string]float64 `json:"se,omitempty"`
	Points []SpeedupPoint     `json:"points,omitempty"` // the measurements it was fitted to
	Source string             `json:"source"`           // what it was fitted to, or why it is assumed
}

// SpeedupPoint is one measured (N, S) pair.
type SpeedupPoint struct {
	N float64 `json:"n"`
	S float64 `json:"s"`
}

// Speedup returns S(n) for n ≥ 1 GPUs; S(1) = 1.
func (l SpeedupLaw) Speedup(n float64) float64 {
	if n <= 1 {
		return 1
	}
	switch l.Form {
	case Saturating:
		return 1 + (l.SInf-1)*(1-math.Exp(-l.K*(n-1)))
	case Amdahl:
		p := l.P
		if p == 0 {
			p = 1
		}
		return n / (n*(1-p) + p + l.Sigma*math.Pow(n-1, l.Gamma))
	}
	return math.NaN()
}

// Efficiency returns η = S(n)/n, capped at 1; η(1) = 1.
func (l SpeedupLaw) Efficiency(n float64) float64 {
	if n <= 1 {
		return 1
	}
	return math.Min(1, l.Speedup(n)/n)
}

// Validate checks that the parameters give a finite, positive speedup.
func (l SpeedupLaw) Validate() error {
	switch l.Form {
	case Saturating:
		if !(l.SInf > 0) || !(l.K > 0) || math.IsInf(l.SInf, 0) || math.IsInf(l.K, 0) {
			return fmt.Errorf("saturating law needs s_inf > 0 and k > 0, got s_inf=%g k=%g", l.SInf, l.K)
		}
	case Amdahl:
		if l.P < 0 || l.P > 1 || l.Sigma < 0 || l.Gamma < 0 || math.IsNaN(l.Sigma) || math.IsNaN(l.Gamma) || math.IsInf(l.Sigma, 0) || math.IsInf(l.Gamma, 0) {
			return fmt.Errorf("amdahl law needs 0 <= p <= 1, sigma >= 0, gamma >= 0, got p=%g sigma=%g gamma=%g", l.P, l.Sigma, l.Gamma)
		}
	default:
		return fmt.Errorf("unknown speedup form %q (want %q or %q)", l.Form, Saturating, Amdahl)
	}
	return nil
}

// SpeedupSet holds the curves for one interconnect class.
type SpeedupSet struct {
	TP   SpeedupLaw `json:"tp"`
	FSDP SpeedupLaw `json:"fsdp"`
	DDP  SpeedupLaw `json:"ddp"`
}

// Speedups maps an interconnect class to its curves.
type Speedups map[Interconnect]SpeedupSet

// Plan is a parallel layout resolved against a GPU count.
type Plan struct {
	Tensor   int    `json:"tensor"`    // tensor-parallel degree
	Data     int    `json:"data"`      // data-parallel degree
	DataMode string `json:"data_mode"` // "ddp" or "fsdp" for the data dimension; "" when Data = 1
}

// Efficiency returns the combined speedup S = S_TP(tensor)·S_DP(data) and
// η = S/N for the plan on interconnect class ic. The two dimensions are
// treated as independent (an assumption: tensor ranks inside a node, data
// ranks across them).
func (s Speedups) Efficiency(ic Interconnect, p Plan) (speedup, eta float64, err error) {
	set, ok := s[ic]
	if !ok {
		return 0, 0, fmt.Errorf("no speedup curves for interconnect %q", ic)
	}
	sp := 1.0
	if p.Tensor > 1 {
		sp *= set.TP.Speedup(float64(p.Tensor))
	}
	if p.Data > 1 {
		law := set.DDP
		if p.DataMode == "fsdp" {
			law = set.FSDP
		}
		sp *= law.Speedup(float64(p.Data))
	}
	n := float64(p.Tensor * p.Data)
	eta = math.Min(1, sp/n)
	return sp, eta, nil
}
