package model

import "fmt"

// What every estimate derives from a calibration alone (the interval's
// normal quantile, the names of its parallel laws) is worked out once
// when the catalog is built, and the field-table rows it checks are looked up
// once, so that one estimate does little more than its arithmetic and
// allocates little more than its response.

// calConsts are one calibration's derived constants. level, name and the
// ranges are the values they were derived from: a calibration changed
// after NewCatalog falls back to computing them afresh.
type calConsts struct {
	level float64
	z     float64 // NormalQuantile(0.5 + level/2)
	name  string
	laws  []parallelLawName
}

// parallelLawName is how Parallel.Law names a calibration's parallel model
// on one interconnect class.
type parallelLawName struct {
	ic           Interconnect
	comm, curves string
}

func newCalConsts(cals []Calibration, hw *Hardware) map[*Calibration]*calConsts {
	ics := interconnects(hw)
	m := make(map[*Calibration]*calConsts, len(cals))
	for i := range cals {
		m[&cals[i]] = newCalConst(&cals[i], ics)
	}
	return m
}

// interconnects are the link classes of the hardware table, in table order.
func interconnects(hw *Hardware) []Interconnect {
	var ics []Interconnect
	if hw != nil {
		for _, g := range hw.GPUs {
			if !containsIC(ics, g.Interconnect) {
				ics = append(ics, g.Interconnect)
			}
		}
	}
	return ics
}

func newCalConst(c *Calibration, ics []Interconnect) *calConsts {
	k := &calConsts{level: c.Interval.Level, z: intervalQuantile(c.Interval.Level), name: c.Name}
	for _, ic := range ics {
		k.laws = append(k.laws, parallelLawName{ic: ic, comm: commLawName(c.Name, ic), curves: curvesLawName(c.Name, ic)})
	}
	return k
}

// holds reports whether k has every constant of c (the same name and
// level).
func (k *calConsts) holds(c *Calibration) bool {
	return k != nil && k.name == c.Name && k.level == c.Interval.Level
}

// WithDefault is the catalog with its default calibration replaced by cal
// (renamed to the default's name) and no power-limit response, as
// NewCatalog(c.Hardware, c.Presets, calibrations, c.Default) would build
// it, but reusing what c derived from the hardware, the presets and the
// other calibrations: a fit tries thousands of constants this way.
func (c *Catalog) WithDefault(cal Calibration) (*Catalog, error) {
	d, ok := c.byName[c.Default]
	if !ok { // not coded: the catalog's own tables, not a request
		return nil, fmt.Errorf("catalog: default calibration %q not found", c.Default)
	}
	cal.Name = c.Default
	if err := cal.Validate(); err != nil {
		return nil, err
	}
	if cal.Kind != KindRoofline {
		return nil, fmt.Errorf("catalog: default calibration %q must be of kind roofline", c.Default)
	}
	n := *c
	n.Power = nil
	n.Calibrations = append([]Calibration(nil), c.Calibrations...)
	n.Calibrations[d] = cal
	n.calConsts = make(map[*Calibration]*calConsts, len(n.Calibrations))
	for i := range n.Calibrations {
		k := c.calConsts[&c.Calibrations[i]]
		if i == d && !k.holds(&cal) {
			k = newCalConst(&n.Calibrations[i], interconnects(c.Hardware))
		}
		n.calConsts[&n.Calibrations[i]] = k
	}
	return &n, nil
}

func containsIC(ics []Interconnect, ic Interconnect) bool {
	for _, x := range ics {
		if x == ic {
			return true
		}
	}
	return false
}

// intervalQuantile is the normal quantile of a two-sided interval of
// coverage level.
func intervalQuantile(level float64) float64 { return NormalQuantile(0.5 + level/2) }

func commLawName(cal string, ic Interconnect) string {
	return "communication-aware model of " + cal + " (" + string(ic) + " links)"
}

func curvesLawName(cal string, ic Interconnect) string { return string(ic) + " curves of " + cal }

// intervalZ is intervalQuantile(cal.Interval.Level).
func (c *Catalog) intervalZ(cal *Calibration) float64 {
	if k := c.calConsts[cal]; k != nil && k.level == cal.Interval.Level {
		return k.z
	}
	return intervalQuantile(cal.Interval.Level)
}

// parallelLaw names what gave the speedup of a multi-GPU estimate: tc's
// communication-aware model (comm) or its speedup curves, on links of
// class ic.
func (c *Catalog) parallelLaw(tc *Calibration, ic Interconnect, comm bool) string {
	if k := c.calConsts[tc]; k != nil && k.name == tc.Name {
		for _, l := range k.laws {
			if l.ic == ic {
				if comm {
					return l.comm
				}
				return l.curves
			}
		}
	}
	if comm {
		return commLawName(tc.Name, ic)
	}
	return curvesLawName(tc.Name, ic)
}

// Rows of RequestFields that every estimate checks, looked up once rather
// than by path on each call (checkField).
var (
	fieldTokens        = mustRequestField("training.tokens")
	fieldDatasetTokens = mustRequestField("training.dataset_tokens")
	fieldExamples      = mustRequestField("training.dataset_examples")
	fieldEpochs        = mustRequestField("training.epochs")
	fieldSeqLen        = mustRequestField("training.seq_len")
	fieldBatchPerGPU   = mustRequestField("training.batch_per_gpu")
	fieldStateBytes    = mustRequestField("training.state_bytes_per_param")
	fieldAccum         = mustRequestField("training.gradient_accumulation")
	fieldCount         = mustRequestField("hardware.count")
	fieldPUE           = mustRequestField("site.pue")
	fieldCarbon        = mustRequestField("site.carbon_g_per_kwh")
	fieldUSD           = mustRequestField("site.usd_per_kwh")
)

// mustRequestField is RequestField for a path the code names, which must exist.
func mustRequestField(path string) *Field {
	f := RequestField(path)
	if f == nil {
		panic("model: no field " + path + " in RequestFields")
	}
	return f
}
