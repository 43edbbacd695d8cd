package model

import (
	"strings"

	"github.com/wattscale/wattscale/internal/jsonv"
)

// A calibration's JSON, read without reflection. The calculator's
// WebAssembly parses calibrations (those its page hands over, the user's
// own refits) and nothing else by reflection: these decoders and the key
// schema calibrationSchema keep package reflect out of calc.wasm (about
// 30 KB brotli, issues 31 and 33). They do what CheckKeys and jsonv.Decode
// do for a Calibration, with the same errors: TestCalibrationKeys holds
// calibrationKeys equal to keysOf(Calibration), and
// TestCalibrationDecoder and FuzzDecodeCalibration hold decodeCalibration
// to CheckKeys and jsonv.Decode.

// decodeCalibration is CheckKeys and jsonv.Decode for a Calibration.
func decodeCalibration(data []byte) (Calibration, error) {
	var c Calibration
	if err := checkKeys(data, calibrationKeys()); err != nil {
		return c, err
	}
	t, err := jsonv.Parse(data)
	if err != nil {
		return c, err
	}
	return c, storeCalibration(&t, "", &c)
}

// calibrationSchema is keysOf(Calibration) written out, as data (a map
// literal of it compiled to 13 KB of code): each struct type, named for
// this table alone, Calibration first, and its fields' JSON names; a field
// whose keys are checked is followed by ":" and its type, "[t]" for a
// slice and "{t}" for a map of them.
var calibrationSchema = [...][2]string{
	{"calibration", "name version kind title description citation provenance:provenance roofline:roofline law:law alpha_eta:{coef} speedup:{speedups} comm:comm interval:interval envelope:envelope fit:fit"},
	{"provenance", "data method generated notes"},
	{"coef", "value se ci_low ci_high"},
	{"roofline", "u_compute:coef u_memory:coef activity:coef overhead_s:coef step_s:coef tensor:tensor"},
	{"tensor", "u_compute:coef u_memory:coef activity:coef base_envelope:envelope rows"},
	{"envelope", "layers hidden seq_len batch_per_gpu gpus params hardware widen_ln_per_efold widen_ln_hardware"},
	{"law", "ln_kappa:coef alpha_c:coef alpha_m:coef alpha_eta:coef ln_psi:{coef} ln_hardware:{coef} ref_tokens ref_note"},
	{"speedups", "tp:speedup fsdp:speedup ddp:speedup workload:workload"},
	{"speedup", "form s_inf k p sigma gamma se points:[point] source"},
	{"point", "n s"},
	{"workload", "tokens_per_step hidden source"},
	{"comm", "exposed:coef exposed_tp:coef latency_s:coef classes source"},
	{"interval", "sigma_ln level method classes:[class] class_method"},
	{"class", "class runs sources median_ln low_ln high_ln"},
	{"fit", "n groups r2 adj_r2 rmse_ln residual_sd_ln rmse_kwh cv_r2 cv_rmse_ln cv_pooled_rmse_ln cv_coverage cv_median_fold_error cv_method coefficients:[named] without_eta:fit notes"},
	{"named", "name value se ci_low ci_high t p"},
}

// calibrationKeys is the keys of calibrationSchema.
func calibrationKeys() *keys {
	types := map[string]*keys{}
	for _, s := range calibrationSchema {
		types[s[0]] = &keys{kind: keyStruct, fields: map[string]*keys{}}
	}
	for _, s := range calibrationSchema {
		for _, f := range strings.Fields(s[1]) {
			name, of, _ := strings.Cut(f, ":")
			var k *keys
			switch {
			case of == "":
			case of[0] == '[':
				k = &keys{kind: keyList, elem: types[of[1:len(of)-1]]}
			case of[0] == '{':
				k = &keys{kind: keyMap, elem: types[of[1:len(of)-1]]}
			default:
				k = types[of]
			}
			types[s[0]].fields[name] = k
		}
	}
	return types[calibrationSchema[0][0]]
}

// storeCalibration is jsonv.Store for a Calibration. The decoders below
// pick the field in a switch and store it after, one call for all the
// fields of a kind: each call and each string comparison costs calc.wasm
// about 130 bytes of code.
func storeCalibration(t *jsonv.Value, path string, c *Calibration) error {
	return jsonv.StoreObject(t, path, func(k string, v *jsonv.Value, p string) error {
		var s *string
		switch k {
		case "name":
			s = &c.Name
		case "version":
			s = &c.Version
		case "kind":
			s = &c.Kind
		case "title":
			s = &c.Title
		case "description":
			s = &c.Description
		case "citation":
			s = &c.Citation
		case "provenance":
			return storeProvenance(v, p, &c.Provenance)
		case "roofline":
			return jsonv.StorePtr(v, p, &c.Roofline, storeRoofline)
		case "law":
			return jsonv.StorePtr(v, p, &c.Law, storeLaw)
		case "alpha_eta":
			return jsonv.StoreMap(v, p, &c.AlphaEta, storeCoefficient)
		case "speedup":
			return jsonv.StoreMap(v, p, (*map[Interconnect]SpeedupSet)(&c.Speedup), storeSpeedupSet)
		case "comm":
			return jsonv.StorePtr(v, p, &c.Comm, storeComm)
		case "interval":
			return storeInterval(v, p, &c.Interval)
		case "envelope":
			return storeEnvelope(v, p, &c.Envelope)
		case "fit":
			return jsonv.StorePtr(v, p, &c.Fit, storeFit)
		default:
			return jsonv.UnknownField(v, p)
		}
		return jsonv.StoreString(v, p, s)
	})
}

func storeProvenance(t *jsonv.Value, path string, x *Provenance) error {
	return jsonv.StoreObject(t, path, func(k string, v *jsonv.Value, p string) error {
		var s *string
		switch k {
		case "data":
			s = &x.Data
		case "method":
			s = &x.Method
		case "generated":
			s = &x.Generated
		case "notes":
			s = &x.Notes
		default:
			return jsonv.UnknownField(v, p)
		}
		return jsonv.StoreString(v, p, s)
	})
}

func storeCoefficient(t *jsonv.Value, path string, x *Coefficient) error {
	return jsonv.StoreObject(t, path, func(k string, v *jsonv.Value, p string) error {
		if f := x.field(k); f != nil {
			return jsonv.StoreFloat(v, p, f)
		}
		return jsonv.UnknownField(v, p)
	})
}

// field is the Coefficient field of JSON name k, or nil.
func (x *Coefficient) field(k string) *float64 {
	switch k {
	case "value":
		return &x.Value
	case "se":
		return &x.SE
	case "ci_low":
		return &x.CILow
	case "ci_high":
		return &x.CIHigh
	}
	return nil
}

func storeRoofline(t *jsonv.Value, path string, x *RooflineParams) error {
	return jsonv.StoreObject(t, path, func(k string, v *jsonv.Value, p string) error {
		var c *Coefficient
		switch k {
		case "u_compute":
			c = &x.UCompute
		case "u_memory":
			c = &x.UMemory
		case "activity":
			c = &x.Activity
		case "overhead_s":
			c = &x.OverheadS
		case "step_s":
			c = &x.StepS
		case "tensor":
			return jsonv.StorePtr(v, p, &x.Tensor, storeTensor)
		default:
			return jsonv.UnknownField(v, p)
		}
		return storeCoefficient(v, p, c)
	})
}

func storeTensor(t *jsonv.Value, path string, x *TensorParams) error {
	return jsonv.StoreObject(t, path, func(k string, v *jsonv.Value, p string) error {
		var c *Coefficient
		switch k {
		case "u_compute":
			c = &x.UCompute
		case "u_memory":
			c = &x.UMemory
		case "activity":
			c = &x.Activity
		case "base_envelope":
			return jsonv.StorePtr(v, p, &x.BaseEnvelope, storeEnvelope)
		case "rows":
			return jsonv.StoreSlice(v, p, &x.Rows, jsonv.StoreString[string])
		default:
			return jsonv.UnknownField(v, p)
		}
		return storeCoefficient(v, p, c)
	})
}

func storeEnvelope(t *jsonv.Value, path string, x *Envelope) error {
	return jsonv.StoreObject(t, path, func(k string, v *jsonv.Value, p string) error {
		var pair *[2]float64
		var f *float64
		switch k {
		case "layers":
			pair = &x.Layers
		case "hidden":
			pair = &x.Hidden
		case "seq_len":
			pair = &x.SeqLen
		case "batch_per_gpu":
			pair = &x.Batch
		case "gpus":
			pair = &x.GPUs
		case "params":
			pair = &x.Params
		case "hardware":
			return jsonv.StoreSlice(v, p, &x.Hardware, jsonv.StoreString[string])
		case "widen_ln_per_efold":
			f = &x.WidenPerEFold
		case "widen_ln_hardware":
			f = &x.WidenHardware
		default:
			return jsonv.UnknownField(v, p)
		}
		if f != nil {
			return jsonv.StoreFloat(v, p, f)
		}
		return jsonv.StoreArray(v, p, pair[:], jsonv.StoreFloat)
	})
}

func storeLaw(t *jsonv.Value, path string, x *LawParams) error {
	return jsonv.StoreObject(t, path, func(k string, v *jsonv.Value, p string) error {
		var c *Coefficient
		var m *map[string]Coefficient
		switch k {
		case "ln_kappa":
			c = &x.LnKappa
		case "alpha_c":
			c = &x.AlphaC
		case "alpha_m":
			c = &x.AlphaM
		case "alpha_eta":
			c = &x.AlphaEta
		case "ln_psi":
			m = &x.LnPsi
		case "ln_hardware":
			m = &x.LnHardware
		case "ref_tokens":
			return jsonv.StoreFloat(v, p, &x.RefTokens)
		case "ref_note":
			return jsonv.StoreString(v, p, &x.RefNote)
		default:
			return jsonv.UnknownField(v, p)
		}
		if m != nil {
			return jsonv.StoreMap(v, p, m, storeCoefficient)
		}
		return storeCoefficient(v, p, c)
	})
}

func storeSpeedupSet(t *jsonv.Value, path string, x *SpeedupSet) error {
	return jsonv.StoreObject(t, path, func(k string, v *jsonv.Value, p string) error {
		var l *SpeedupLaw
		switch k {
		case "tp":
			l = &x.TP
		case "fsdp":
			l = &x.FSDP
		case "ddp":
			l = &x.DDP
		case "workload":
			return jsonv.StorePtr(v, p, &x.Workload, storeCurveWorkload)
		default:
			return jsonv.UnknownField(v, p)
		}
		return storeSpeedupLaw(v, p, l)
	})
}

func storeSpeedupLaw(t *jsonv.Value, path string, x *SpeedupLaw) error {
	return jsonv.StoreObject(t, path, func(k string, v *jsonv.Value, p string) error {
		var f *float64
		var s *string
		switch k {
		case "form":
			s = &x.Form
		case "s_inf":
			f = &x.SInf
		case "k":
			f = &x.K
		case "p":
			f = &x.P
		case "sigma":
			f = &x.Sigma
		case "gamma":
			f = &x.Gamma
		case "se":
			return jsonv.StoreMap(v, p, &x.SE, jsonv.StoreFloat)
		case "points":
			return jsonv.StoreSlice(v, p, &x.Points, storeSpeedupPoint)
		case "source":
			s = &x.Source
		default:
			return jsonv.UnknownField(v, p)
		}
		if s != nil {
			return jsonv.StoreString(v, p, s)
		}
		return jsonv.StoreFloat(v, p, f)
	})
}

func storeSpeedupPoint(t *jsonv.Value, path string, x *SpeedupPoint) error {
	return jsonv.StoreObject(t, path, func(k string, v *jsonv.Value, p string) error {
		var f *float64
		switch k {
		case "n":
			f = &x.N
		case "s":
			f = &x.S
		default:
			return jsonv.UnknownField(v, p)
		}
		return jsonv.StoreFloat(v, p, f)
	})
}

func storeCurveWorkload(t *jsonv.Value, path string, x *CurveWorkload) error {
	return jsonv.StoreObject(t, path, func(k string, v *jsonv.Value, p string) error {
		var f *float64
		switch k {
		case "tokens_per_step":
			f = &x.TokensPerStep
		case "hidden":
			f = &x.Hidden
		case "source":
			return jsonv.StoreString(v, p, &x.Source)
		default:
			return jsonv.UnknownField(v, p)
		}
		return jsonv.StoreFloat(v, p, f)
	})
}

func storeComm(t *jsonv.Value, path string, x *CommParams) error {
	return jsonv.StoreObject(t, path, func(k string, v *jsonv.Value, p string) error {
		var c *Coefficient
		switch k {
		case "exposed":
			c = &x.Exposed
		case "exposed_tp":
			c = &x.ExposedTP
		case "latency_s":
			c = &x.LatencyS
		case "classes":
			return jsonv.StoreSlice(v, p, &x.Classes, jsonv.StoreString[Interconnect])
		case "source":
			return jsonv.StoreString(v, p, &x.Source)
		default:
			return jsonv.UnknownField(v, p)
		}
		return storeCoefficient(v, p, c)
	})
}

func storeInterval(t *jsonv.Value, path string, x *Interval) error {
	return jsonv.StoreObject(t, path, func(k string, v *jsonv.Value, p string) error {
		var f *float64
		var s *string
		switch k {
		case "sigma_ln":
			f = &x.SigmaLn
		case "level":
			f = &x.Level
		case "method":
			s = &x.Method
		case "classes":
			return jsonv.StoreSlice(v, p, &x.Classes, storeClassQuantiles)
		case "class_method":
			s = &x.ClassMethod
		default:
			return jsonv.UnknownField(v, p)
		}
		if s != nil {
			return jsonv.StoreString(v, p, s)
		}
		return jsonv.StoreFloat(v, p, f)
	})
}

func storeClassQuantiles(t *jsonv.Value, path string, x *ClassQuantiles) error {
	return jsonv.StoreObject(t, path, func(k string, v *jsonv.Value, p string) error {
		var f *float64
		var n *int
		switch k {
		case "class":
			return jsonv.StoreString(v, p, &x.Class)
		case "runs":
			n = &x.Runs
		case "sources":
			n = &x.Sources
		case "median_ln":
			f = &x.Median
		case "low_ln":
			f = &x.Low
		case "high_ln":
			f = &x.High
		default:
			return jsonv.UnknownField(v, p)
		}
		if n != nil {
			return jsonv.StoreInt(v, p, n)
		}
		return jsonv.StoreFloat(v, p, f)
	})
}

func storeFit(t *jsonv.Value, path string, x *FitSummary) error {
	return jsonv.StoreObject(t, path, func(k string, v *jsonv.Value, p string) error {
		var f *float64
		var n *int
		switch k {
		case "n":
			n = &x.N
		case "groups":
			n = &x.Groups
		case "r2":
			f = &x.R2
		case "adj_r2":
			f = &x.AdjR2
		case "rmse_ln":
			f = &x.RMSELn
		case "residual_sd_ln":
			f = &x.ResidualSDLn
		case "rmse_kwh":
			f = &x.RMSEKWh
		case "cv_r2":
			f = &x.CVR2
		case "cv_rmse_ln":
			f = &x.CVRMSELn
		case "cv_pooled_rmse_ln":
			f = &x.CVPooledRMSELn
		case "cv_coverage":
			f = &x.CVCoverage
		case "cv_median_fold_error":
			f = &x.CVMedianFold
		case "cv_method":
			return jsonv.StoreString(v, p, &x.CVMethod)
		case "coefficients":
			return jsonv.StoreSlice(v, p, &x.Coefficients, storeNamedCoef)
		case "without_eta":
			return jsonv.StorePtr(v, p, &x.WithoutEta, storeFit)
		case "notes":
			return jsonv.StoreSlice(v, p, &x.Notes, jsonv.StoreString[string])
		default:
			return jsonv.UnknownField(v, p)
		}
		if n != nil {
			return jsonv.StoreInt(v, p, n)
		}
		return jsonv.StoreFloat(v, p, f)
	})
}

func storeNamedCoef(t *jsonv.Value, path string, x *NamedCoef) error {
	return jsonv.StoreObject(t, path, func(k string, v *jsonv.Value, p string) error {
		var f *float64
		switch k {
		case "name":
			return jsonv.StoreString(v, p, &x.Name)
		case "t":
			f = &x.T
		case "p":
			f = &x.P
		default:
			if f = x.Coefficient.field(k); f == nil {
				return jsonv.UnknownField(v, p)
			}
		}
		return jsonv.StoreFloat(v, p, f)
	})
}
