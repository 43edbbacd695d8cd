package model

import (
	"fmt"
	"math"
)

// The resolution steps that other packages (model/distill, model/validate,
// the site) share with Catalog.Estimate, so that each rule and each error
// message exists once.

// ResolveModel resolves a preset-or-shape model: the name ("custom" for a
// shape), the shape and the head trained by default ("classifier" for
// encoder presets, else "lm"). Errors name the field under path (""
// for a top-level request, "options[0].teacher" inside a plan), with the
// shape's ranges from RequestFields.
func (c *Catalog) ResolveModel(m ModelSpec, path string) (name string, a Arch, head string, err error) {
	name, a, head, err = c.resolveModel(m)
	if err != nil {
		return "", Arch{}, "", PrefixField(path, err)
	}
	return name, a, head, nil
}

func (c *Catalog) resolveModel(m ModelSpec) (string, Arch, string, error) {
	name, a, head, _, err := c.resolveModelHF(m)
	return name, a, head, err
}

// resolveModelHF is resolveModel with what model.hf_config gave (nil
// without one).
func (c *Catalog) resolveModelHF(m ModelSpec) (string, Arch, string, *HFModel, error) {
	var name, head string
	var a Arch
	var hf *HFModel
	hasShape := m.Layers != 0 || m.Hidden != 0 || m.Heads != 0 || m.FFN != 0 || m.Vocab != 0 || m.KVHeads != 0 || m.Experts != 0 || m.ExpertsPerToken != 0 || m.HeadDim != 0 || m.Tied
	hasConfig := m.HFConfig != ""
	switch {
	case m.Preset != "" && hasConfig:
		return "", a, "", nil, fieldErr("model", nil, "give either preset or hf_config, not both")
	case m.Preset != "" && hasShape:
		return "", a, "", nil, fieldErr("model", nil, "give either preset or a shape (layers, hidden, heads, ffn, vocab), not both")
	case m.Preset != "":
		p, err := c.preset(m.Preset)
		if err != nil {
			return "", a, "", nil, err
		}
		name, a = p.Name, p.Arch
		head = "lm"
		if p.Family == "BERT" || p.Family == "RoBERTa" || p.Family == "DistilBERT" {
			head = "classifier"
		}
	case hasConfig || hasShape:
		for _, f := range []struct {
			n string
			v float64
		}{{"layers", m.Layers}, {"hidden", m.Hidden}, {"heads", m.Heads}, {"ffn", m.FFN}, {"vocab", m.Vocab}, {"kv_heads", m.KVHeads}, {"experts", m.Experts}, {"experts_per_token", m.ExpertsPerToken}, {"head_dim", m.HeadDim}} {
			if f.v == 0 && (hasConfig || f.n == "head_dim") {
				continue // the config's, or hidden ÷ heads
			}
			if err := checkField("model."+f.n, f.v); err != nil {
				return "", a, "", nil, err
			}
		}
		name, head = "custom", "lm"
		if hasConfig {
			if c.hf == nil {
				return "", a, "", nil, c.noHF(PathHFConfig)
			}
			var err error
			if hf, err = c.hf.config([]byte(m.HFConfig)); err != nil {
				return "", a, "", nil, err
			}
			a, name = hf.Arch, hf.Name
			if hf.Encoder {
				head = "classifier"
			}
		}
		// Explicit shape fields win over the config's.
		for _, f := range []struct {
			path string
			v    float64
			dst  *int
		}{{"model.layers", m.Layers, &a.Layers}, {"model.hidden", m.Hidden, &a.Hidden}, {"model.heads", m.Heads, &a.Heads}, {"model.kv_heads", m.KVHeads, &a.KVHeads},
			{"model.ffn", m.FFN, &a.FFN}, {"model.vocab", m.Vocab, &a.Vocab}, {"model.experts", m.Experts, &a.Experts}, {"model.experts_per_token", m.ExpertsPerToken, &a.ExpertsPerToken}, {"model.head_dim", m.HeadDim, &a.HeadDim}} {
			if f.v != 0 {
				*f.dst = int(f.v)
				hf.override(f.path)
			}
		}
		if m.GLU {
			a.GLU = true
		}
		if m.Tied {
			a.Tied = true
			hf.override("model.tied")
		}
	default:
		return "", a, "", nil, fieldErr("model", nil, "give a preset (for example \"bert-base\"), a shape with layers, hidden, heads, ffn and vocab, or hf_config (a config.json)")
	}
	switch m.Head {
	case "":
	case "lm", "classifier":
		head = m.Head
	default:
		return "", a, "", nil, fieldErr("model.head", m.Head, "must be \"lm\" or \"classifier\"")
	}
	if err := a.Validate("model"); err != nil {
		return "", a, "", nil, err
	}
	return name, a, head, hf, nil
}

// override marks the config's keys for field as overridden by the
// request's own field (nil m: nothing to mark).
func (m *HFModel) override(field string) {
	if m == nil {
		return
	}
	for i := range m.Took {
		if m.Took[i].Field == field {
			m.Took[i].Use, m.Took[i].Note = UseOverridden, field+" is given"
		}
	}
}

// ResolveSite fills the site figures left at zero with the stated defaults
// (DefaultPUE, DefaultCarbonGPerKWh, DefaultUSDPerKWh) and checks the
// others against RequestFields. assumptions has one sentence per default
// used, the same wherever an estimate is made.
func ResolveSite(s SiteSpec) (site SiteSpec, assumptions []string, err error) {
	site = s
	if s.PUE == 0 {
		site.PUE = DefaultPUE
		assumptions = append(assumptions, fmt.Sprintf("PUE %.2f: Uptime Institute 2024 global average (site.pue not given)", DefaultPUE))
	} else if err := fieldPUE.Check(s.PUE); err != nil {
		return site, nil, err
	}
	if s.CarbonGPerKWh == 0 {
		site.CarbonGPerKWh = DefaultCarbonGPerKWh
		assumptions = append(assumptions, fmt.Sprintf("grid intensity %g gCO2e/kWh: IEA world average (site.carbon_g_per_kwh not given)", float64(DefaultCarbonGPerKWh)))
	} else if err := fieldCarbon.Check(s.CarbonGPerKWh); err != nil {
		return site, nil, err
	}
	if s.USDPerKWh == 0 {
		site.USDPerKWh = DefaultUSDPerKWh
		assumptions = append(assumptions, fmt.Sprintf("electricity price %.2f USD/kWh: an assumed tariff (site.usd_per_kwh not given)", DefaultUSDPerKWh))
	} else if err := fieldUSD.Check(s.USDPerKWh); err != nil {
		return site, nil, err
	}
	if len(s.Region) > 100 {
		return site, nil, fieldErr("site.region", nil, "must be at most 100 characters")
	}
	return site, assumptions, nil
}

// BusyPowerW is one GPU's power while it computes: idle power plus
// activity × (board power − idle power), activity being the calibration's
// fraction of the dynamic range (RooflineParams.ForPrecision).
func (g *GPU) BusyPowerW(activity float64) float64 {
	return g.IdlePowerW + activity*(g.BoardPowerW-g.IdlePowerW)
}

// AlphaEtaFallback is α_η where a calibration has no fitted value for an
// interconnect class, and AlphaEtaFallbackNote the assumption that says so.
const (
	AlphaEtaFallback     = -1.0
	AlphaEtaFallbackNote = "α_η = −1 (no fitted value for this interconnect)"
)

// AlphaEtaFor returns the calibration's α_η, the exponent of η in the
// parallel energy factor η^α_η, for an interconnect class, or
// AlphaEtaFallback with fitted false when it has none.
func (c *Calibration) AlphaEtaFor(ic Interconnect) (alpha float64, fitted bool) {
	if a, ok := c.AlphaEta[ic]; ok {
		return a.Value, true
	}
	return AlphaEtaFallback, false
}

// NormalQuantile returns the p-quantile of the standard normal distribution,
// √2·erf⁻¹(2p − 1).
func NormalQuantile(p float64) float64 { return math.Sqrt2 * math.Erfinv(2*p-1) }
