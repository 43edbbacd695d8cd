package calcapi

import (
	"strconv"
	"strings"

	"github.com/wattscale/wattscale/model"
)

// Region is a grid carbon-intensity preset the calculator offers. Figures
// are annual averages of the electricity mix, g CO2e per kWh.
type Region struct {
	ID            string  `json:"id"`
	Name          string  `json:"name"`
	CarbonGPerKWh float64 `json:"carbon_g_per_kwh"`
	Source        string  `json:"source"`
}

const (
	srcOWID = "Our World in Data 2023 (CC-BY), as used by CodeCarbon (github.com/mlco2/codecarbon)"
	srcGA   = "Green Algorithms 2022 (CC-BY-4.0; Lannelongue et al., Advanced Science 2021)"
)

// DefaultRegions returns the built-in grid presets, world average first.
// Country figures are OWID 2023; US states, which OWID does not split, are
// Green Algorithms 2022.
func DefaultRegions() []Region {
	return []Region{
		{"world", "World average", 475, "IEA world average (the CodeCarbon and Green Algorithms default)"},
		{"us", "United States", 369.5, srcOWID},
		{"us-va", "US, Virginia (PJM)", 308, srcGA},
		{"us-ca", "US, California", 216.4, srcGA},
		{"ca", "Canada", 170, srcOWID},
		{"fr", "France", 56, srcOWID},
		{"de", "Germany", 381, srcOWID},
		{"gb", "United Kingdom", 237.6, srcOWID},
		{"ie", "Ireland", 290.8, srcOWID},
		{"nl", "Netherlands", 267.6, srcOWID},
		{"se", "Sweden", 40.7, srcOWID},
		{"no", "Norway", 30.1, srcOWID},
		{"pl", "Poland", 661.9, srcOWID},
		{"in", "India", 713.4, srcOWID},
		{"cn", "China", 582.3, srcOWID},
		{"jp", "Japan", 485.4, srcOWID},
		{"au", "Australia", 548.7, srcOWID},
	}
}

// Apply names the region in reports and fills the carbon intensity with
// the region's figure, while the intensity given is the region's own or
// left empty. A different figure is the user's own: the site then names no
// region. The calculator and the planner both use it; the page follows the
// same rule when it restores a link (a region without an intensity takes
// the region's figure) and when the user edits the intensity (the region
// becomes "custom").
func (r *Region) Apply(s *model.SiteSpec) {
	if s.CarbonGPerKWh == 0 || s.CarbonGPerKWh == r.CarbonGPerKWh {
		s.Region = r.Name
		s.CarbonGPerKWh = r.CarbonGPerKWh
	}
}

// Follow keeps a form's grid region and carbon intensity in step after the
// user changed the input changed, by Apply's rule: choosing a region fills
// in its intensity; typing another intensity than the region's makes the
// region "custom". The calculator and the planner both call it.
func (f Form) Follow(changed string, regions []Region) {
	switch changed {
	case "region":
		if r := findRegion(regions, f["region"]); r != nil {
			f["carbon"] = strconv.FormatFloat(r.CarbonGPerKWh, 'f', -1, 64)
		}
	case "carbon":
		if r := findRegion(regions, f["region"]); r != nil && strconv.FormatFloat(r.CarbonGPerKWh, 'f', -1, 64) != strings.TrimSpace(f["carbon"]) {
			f["region"] = "custom"
		}
	}
}
