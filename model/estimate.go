package model

import (
	"errors"
	"math"
	"slices"
	"sort"
	"strconv"
)

// Catalog is what an estimate needs besides the request: the hardware
// table, the presets and the calibrations. Build one with NewCatalog; it is
// read-only afterwards and safe for concurrent use.
type Catalog struct {
	Hardware     *Hardware
	Presets      []Preset
	Calibrations []Calibration
	// Default is the calibration used when a request names none; it must be
	// of kind roofline (loglinear calibrations borrow its time model).
	Default string
	// Power is the power-limit response (the shipped power calibration); nil
	// = power limits below a run's draw are refused.
	Power *PowerCalibration
	// WorkBudget is the most work one recommend or plan request may ask
	// for, in work units (budget.go); 0 = DefaultWorkBudget, negative = no
	// limit (the browser, whose CPU is the user's own).
	WorkBudget  int
	byName      map[string]int
	presets     map[string]int // normalised preset name -> index
	presetExact map[string]int // preset name as written -> the index presets gives it
	calConsts   map[*Calibration]*calConsts
	hf          *hfReader // nil: requests with Hugging Face files are refused (ReadHFFiles)
}

// NewCatalog checks the calibrations and indexes them. def names the
// default calibration.
func NewCatalog(hw *Hardware, presets []Preset, cals []Calibration, def string) (*Catalog, error) {
	c := &Catalog{Hardware: hw, Presets: presets, Calibrations: cals, Default: def, byName: map[string]int{}, presets: map[string]int{}, presetExact: map[string]int{}}
	for i, p := range presets {
		c.presets[normName(p.Name)] = i
	}
	for _, p := range presets {
		c.presetExact[p.Name] = c.presets[normName(p.Name)]
	}
	// A preset's hub id ("meta-llama/Meta-Llama-3-8B") names it too, where
	// no preset is called that.
	for i, p := range presets {
		if k := normName(p.Hub); k != "" {
			if _, taken := c.presets[k]; !taken {
				c.presets[k] = i
			}
		}
	}
	for i := range cals {
		if err := cals[i].Validate(); err != nil {
			return nil, err
		}
		// The catalog's own errors are not coded: its tables are the
		// content's and the page's own calibrations, checked before (the
		// page refuses a shipped name, calcapi.CodeShippedName).
		if _, dup := c.byName[cals[i].Name]; dup {
			return nil, errors.New("catalog: calibration " + strconv.Quote(cals[i].Name) + " appears twice")
		}
		c.byName[cals[i].Name] = i
	}
	c.calConsts = newCalConsts(cals, hw)
	d, ok := c.byName[def]
	if !ok {
		return nil, errors.New("catalog: default calibration " + strconv.Quote(def) + " not found")
	}
	if cals[d].Kind != KindRoofline {
		return nil, errors.New("catalog: default calibration " + strconv.Quote(def) + " must be of kind roofline")
	}
	return c, nil
}

// preset finds a preset by its normalised name, falling back to FindPreset
// for the error with close matches.
func (c *Catalog) preset(name string) (*Preset, error) {
	if i, ok := c.presetExact[name]; ok {
		return &c.Presets[i], nil // the usual spelling: no normalising needed
	}
	if i, ok := c.presets[normName(name)]; ok {
		return &c.Presets[i], nil
	}
	return FindPreset(c.Presets, name)
}

// Calibration returns the calibration called name ("" = default).
func (c *Catalog) Calibration(name string) (*Calibration, error) {
	if name == "" {
		name = c.Default
	}
	if i, ok := c.byName[name]; ok {
		return &c.Calibrations[i], nil
	}
	names := make([]string, 0, len(c.byName))
	for n := range c.byName {
		names = append(names, n)
	}
	sort.Strings(names)
	return nil, codeErr(CodeCalibrationUnknown, "calibration", name, Args{{Name: "known", List: names}})
}

// Estimate turns a request into a response, or returns a *FieldError that
// names the offending field. It never returns NaN or Inf in a response.
func (c *Catalog) Estimate(req Request) (Response, error) {
	var r resolved // on the stack: one estimate allocates only what the response keeps
	if err := c.resolveInto(&r, req); err != nil {
		return Response{}, err
	}
	return c.estimate(&r)
}

// stateBytesPerGPU is the per-GPU memory of weights, gradients and
// optimizer state (frozen weights included), after sharding.
func (r *resolved) stateBytesPerGPU() float64 {
	f, t := r.stateParts()
	return f + t
}

// actBytesPerTokenLayer is 34·d bytes at 16-bit activations
// (Korthikanti et al. 2022, eq. 1 without the attention-score term, which
// flash attention and selective recomputation remove); doubled for fp32/tf32.
func (r *resolved) actBytesPerTokenLayer() float64 {
	f := 1.0
	if r.prec == FP32 || r.prec == TF32 {
		f = 2
	}
	return 34 * float64(r.arch.Hidden) * f
}

// paramTrafficBytes is the device-memory traffic per parameter per optimizer
// step: weights read in the forward and backward passes and gradients
// written and read (8 bytes in mixed precision, 16 in fp32), and the AdamW
// update reading and writing master weights and two moments in fp32
// (24 bytes; scaled by state_bytes_per_param/16 for other optimizers). Under
// fsdp each rank updates only its shard (ZeRO, Rajbhandari et al. 2020), so
// the update's share is divided by the data-parallel degree. The passes
// run for every micro-batch; the update once per optimizer step, so with
// gradient accumulation its share per micro-batch is divided by the
// micro-batches per step.
func (r *resolved) paramTrafficBytes() float64 {
	pass := 8.0
	if r.prec == FP32 || r.prec == TF32 {
		pass = 16
	}
	update := 24.0 * r.state / DefaultStateBytesPerParam
	if r.plan.DataMode == FSDP && r.plan.Replicas() > 1 {
		update /= float64(r.plan.Replicas())
	}
	return pass + update/float64(r.accum)
}

// counts returns the physical per-token FLOPs and bytes of a resolved request.
func (r *resolved) counts() (flopsTok, bytesTok float64) {
	if r.method.name != MethodFull {
		return r.countsPEFT()
	}
	flopsTok = r.fullFLOPsPerToken(r.method.ckpt)
	pass := r.paramTrafficBytes()
	if r.method.ckpt {
		// the recomputed forward pass reads the weights once more
		pass += 2
		if r.prec == FP32 || r.prec == TF32 {
			pass += 2
		}
	}
	bytesTok = r.actTrafficPerToken() + r.params*pass/(float64(r.bat)*float64(r.seq))
	return
}

// rooflineCore is the part of a configuration's roofline energy and time
// that its power limit leaves alone: the counts, the utilisations, the
// one-GPU times and busy power before the limit, the α_η and, where the
// speedup curves give it (no communication-aware model for the
// interconnect, so it does not depend on the step time), the layout's
// speedup. Catalog.estimate and the recommender's search share it and
// rooflineRun; the search computes it once per layout and runs each power
// limit on it.
type rooflineCore struct {
	flopsTok, bytesTok float64 // per token
	C, M               float64 // the run's FLOPs and bytes
	bw                 float64 // memory bandwidth, B/s
	uFull              float64 // compute utilisation before a PEFT method's share
	uComp, uMem        float64
	tComp, tMem, tStep float64 // one-GPU times without a power limit, s
	p0                 float64 // busy power per GPU without a power limit, W
	alpha              float64 // α_η (alphaEta)
	fellBack           bool    // alpha is AlphaEtaFallback
	// fixed: sp, eta, factor and err are the layout's from the speedup
	// curves (rooflineRun computes them per limit otherwise).
	fixed           bool
	sp, eta, factor float64
	err             error
}

// rooflineCore computes r's rooflineCore with its time calibration.
func (r *resolved) rooflineCore() rooflineCore {
	tc := r.timeCal
	rp := tc.Roofline
	var k rooflineCore
	k.flopsTok, k.bytesTok = r.counts()
	k.C, k.M = k.flopsTok*r.tokens, k.bytesTok*r.tokens
	k.bw = r.gpu.BandwidthGBs * 1e9
	uComp, uMem, activity := rp.ForPrecision(r.prec)
	k.uFull = r.expertShare(r.stack.uCompute(r.prec, uComp), k.flopsTok)
	k.uComp, k.uMem = r.peftShare(k.uFull, k.flopsTok), uMem
	k.tComp = k.C / (r.peak * k.uComp) * r.attnTimeFactor(k.flopsTok)
	k.tMem = r.exposedMem(k.tComp, k.M/(k.bw*uMem))
	// Per-step latency: one GPU doing the whole run takes tokens/(B·S) steps;
	// AdamW's foreach passes add to it (efficiency.go).
	k.tStep = rp.StepS.Value*r.oneGPUSteps() + r.foreachTime()
	k.p0 = r.gpu.BusyPowerW(activity)
	k.alpha, k.fellBack = r.alphaEta()
	if !tc.Comm.Applies(r.gpu.Interconnect) {
		k.fixed = true
		k.sp, k.eta, _, k.err = r.parallel(tc, 0)
		k.factor = r.etaFactor(k.alpha, k.eta)
	}
	return k
}

// alphaEta is the α_η that charges a layout's parallel inefficiency
// (etaFactor): the time calibration's fitted value for the GPU's
// interconnect, else AlphaEtaFallback on more than one GPU (fellBack, an
// assumption of the estimate) and 0 on one; a law's own α_η when the energy
// calibration is a law.
func (r *resolved) alphaEta() (alpha float64, fellBack bool) {
	cal := r.cal
	alpha, fitted := r.timeCal.AlphaEtaFor(r.gpu.Interconnect)
	if !fitted {
		alpha = 0
		if r.count > 1 && cal.Kind != KindLogLinear {
			alpha, fellBack = AlphaEtaFallback, true
		}
	}
	if cal.Kind == KindLogLinear && cal.Law != nil {
		// The law carries its own α_η: the parallel share and the reported
		// exponent are the calibration's, not the time model's.
		alpha = cal.Law.AlphaEta.Value
	}
	return alpha, fellBack
}

// rooflineRun is a configuration's roofline energy and time under its power
// limit (rooflineRun).
type rooflineRun struct {
	limTime, limPower, limSigma float64 // the power limit's factors (powerFactors)
	tComp, tMem, tStep, t1      float64 // one-GPU times under the limit, s
	tHost                       float64 // GPU-time waiting for the host beside t1 (hoststep.go), s
	pAvg                        float64 // busy power per GPU under the limit, W
	sp, eta                     float64
	commModel                   bool // sp and eta from the communication-aware model
	waiting                     bool // the parallel energy is the waiting GPUs' (parallelJ)
	factor                      float64
	compJ, memJ, parJ, e0J      float64
	warmJ                       float64 // the first steps' warm-up (warmup.go)
	hostJ                       float64 // the GPUs' wait for their hosts (hoststep.go)
	totalJ                      float64
	waitW                       float64
	tRun, overheadS, timeS      float64
}

// rooflineRun applies r's power limit to k, then its parallel layout, into
// run: the energy and time of the roofline time model, before a law's
// energy and without the response around them. run is the caller's (the
// search reuses one for every power limit); every field is set.
func (c *Catalog) rooflineRun(r *resolved, k *rooflineCore, run *rooflineRun) error {
	tc := r.timeCal
	g := r.gpu
	var err error
	// A power limit below the uncapped draw slows the clock (power.go).
	if run.limTime, run.limPower, run.limSigma, err = c.powerFactors(g, r.limitW, k.p0); err != nil {
		return err
	}
	run.tComp, run.tMem, run.tStep, run.pAvg = k.tComp*run.limTime, k.tMem*run.limTime, k.tStep*run.limTime, k.p0*run.limPower
	run.t1 = run.tComp + run.tMem + run.tStep
	run.tHost = r.hostWait(run.t1)
	if k.fixed {
		if k.err != nil {
			return k.err
		}
		run.sp, run.eta, run.factor = k.sp, k.eta, k.factor
		run.commModel, run.waiting = false, false
	} else {
		if run.sp, run.eta, run.commModel, err = r.parallel(tc, run.t1); err != nil {
			return err
		}
		run.waiting = run.commModel && r.cal.Kind != KindLogLinear
		// With waiting, parallelJ charges the waiting GPUs' energy, not
		// η^α_η (Catalog.estimate reports the factor that energy implies).
		run.factor = 1
		if !run.waiting {
			run.factor = r.etaFactor(k.alpha, run.eta)
		}
	}
	run.tRun = run.t1/run.sp + run.tHost/float64(r.count) + WarmupS
	run.overheadS = tc.Roofline.OverheadS.Value
	run.e0J = float64(r.count) * g.IdlePowerW * run.overheadS
	// Step latency is charged to the memory term: it is time the GPU waits
	// at busy power without doing arithmetic (launches, synchronisation).
	// The wait for the host is apart, at the power of a GPU between kernels.
	run.compJ, run.memJ = run.pAvg*run.tComp, run.pAvg*(run.tMem+run.tStep)
	run.hostJ = hostWaitPowerW(g, run.pAvg) * run.tHost
	run.parJ, run.waitW = r.parallelJ(run.waiting, run.factor, run.compJ+run.memJ, k.p0, run.pAvg, run.t1, run.eta)
	run.warmJ = warmupEnergy(g, float64(r.count), k.p0, run.pAvg)
	run.totalJ = run.compJ + run.memJ + run.hostJ + run.parJ + run.warmJ + run.e0J
	run.timeS = run.tRun + run.overheadS
	return nil
}

func (c *Catalog) estimate(r *resolved) (Response, error) {
	g, cal, tc := r.gpu, r.cal, r.timeCal
	warn := append([]Message{}, r.warn...)
	assume := append([]Message{}, r.assume...)

	// Roofline on one GPU, the power limit, then the parallel layout: the
	// core the recommender's search shares (rooflineCore, rooflineRun).
	k := r.rooflineCore()
	flopsTok, bytesTok, C, M, bw := k.flopsTok, k.bytesTok, k.C, k.M, k.bw
	uFull, uComp, uMem := k.uFull, k.uComp, k.uMem
	n := float64(r.count)
	tIdeal := math.Max(C/r.peak, M/bw)
	if uComp != uFull {
		assume = append(assume, Message{Code: CodeAssumePEFTTime})
	}
	if r.accum > 1 {
		assume = append(assume, Message{Code: CodeAssumeAccum, Args: Args{{Name: "accum", Num: float64(r.accum)}}})
	}
	var run rooflineRun
	if err := c.rooflineRun(r, &k, &run); err != nil {
		return Response{}, err
	}
	p0, limTime, limPower, limSigma := k.p0, run.limTime, run.limPower, run.limSigma
	tStep, t1, pAvg := run.tStep, run.t1, run.pAvg
	sp, eta, commModel := run.sp, run.eta, run.commModel
	if commModel && r.plan.Data > 1 && r.plan.DataMode == DDP {
		assume = append(assume, Message{Code: CodeAssumeDDP})
	}
	if !commModel && r.count > 1 {
		if w := tc.Speedup[g.Interconnect].Workload; w != nil {
			assume = append(assume, curveWorkloadNote(g.Interconnect, w, r.stepWorkload()))
		}
	}
	alpha, factor := k.alpha, run.factor
	if k.fellBack {
		assume = append(assume, Message{Code: CodeAssumeAlphaFallback})
	}
	tRun, overheadS := run.tRun, run.overheadS
	compJ, memJ, hostJ, parJ, warmJ, e0J, waitW := run.compJ, run.memJ, run.hostJ, run.parJ, run.warmJ, run.e0J, run.waitW
	assume = append(assume, Message{Code: CodeAssumeWarmup})
	if run.tHost > 0 {
		assume = append(assume, r.hostAssumption(run.t1))
	}
	overhead := OverheadAlphaEta
	if r.count > 1 && run.waiting {
		factor = 1 + parJ/(compJ+memJ)
		alpha = effectiveAlpha(eta, factor)
		overhead = OverheadWaiting
		assume = append(assume, Message{Code: CodeAssumeWaiting})
	} else if r.count <= 1 {
		overhead = ""
	}
	totalJ := run.totalJ
	boundJ := pAvg * tIdeal

	resp := Response{Version: APIVersion, IntervalLevel: cal.Interval.Level}
	kind := cal.Kind
	if kind == KindLogLinear {
		l := cal.Law
		lawC := ComputeProxy(float64(r.arch.Layers), float64(r.arch.Hidden), l.RefTokens)
		lawM := MemoryProxy(float64(r.bat), float64(r.seq), float64(r.arch.Hidden), float64(r.arch.Layers))
		strat := r.strategy
		if strat == Hybrid {
			strat = TP
			assume = append(assume, Message{Code: CodeAssumeHybridDummy})
		}
		if _, ok := l.LnPsi[strat]; !ok && strat != Single && r.count > 1 {
			assume = append(assume, Message{Code: CodeAssumeNoDummy, Args: Args{{Name: "strategy", Str: strat}}})
		}
		perTokKWh := l.LawEnergyKWh(lawC, lawM, eta, strat, g.ID) / l.RefTokens
		lawJ := perTokKWh * r.tokens * 3.6e6 * limTime * limPower
		if r.method.name != MethodFull || r.method.ckpt {
			// The law is fitted to full fine-tuning: scale it by the
			// roofline's time ratio of this method to full fine-tuning.
			full := *r
			full.method = method{name: MethodFull, trainable: r.params}
			ff, fb := full.counts()
			tcFull := ff * r.tokens / (r.peak * uFull) * full.attnTimeFactor(ff)
			tFull := (tcFull+r.exposedMem(tcFull, fb*r.tokens/(bw*uMem)))*limTime + tStep
			lawJ *= t1 / tFull
			assume = append(assume, Message{Code: CodeAssumeLawScaled, Args: Args{{Name: "calibration", Str: cal.Name}, {Name: "method", Str: r.methodLabel()}, {Name: "ratio", Num: t1 / tFull}}})
		}
		if lawJ < boundJ {
			warn = append(warn, Message{Code: CodeLawBelowBound, Args: Args{{Name: "calibration", Str: cal.Name}, {Name: "law_kwh", Num: lawJ / 3.6e6}, {Name: "bound_kwh", Num: boundJ / 3.6e6}}})
			lawJ = boundJ
		}
		// Scale the decomposition to the law's total, keeping its shares.
		s := lawJ / totalJ
		compJ, memJ, hostJ, parJ, warmJ, e0J = compJ*s, memJ*s, hostJ*s, parJ*s, warmJ*s, e0J*s
		totalJ = lawJ
		assume = append(assume, Message{Code: CodeAssumeLawPerToken, Args: Args{{Name: "calibration", Str: cal.Name}, {Name: "ref_tokens", Num: l.RefTokens}, {Name: "ref_note", Str: l.RefNote}, {Name: "time_calibration", Str: tc.Name}}})
	}

	timeS := tRun + overheadS
	eKWh := totalJ / 3.6e6
	if kind == KindLogLinear {
		// The law gives energy, the roofline model time: say so when the two
		// disagree so much that the implied power is impossible.
		if p := totalJ / timeS; p < n*g.IdlePowerW {
			warn = append(warn, Message{Code: CodeLawBelowIdle, Args: Args{{Name: "calibration", Str: cal.Name}, {Name: "w", Num: p}, {Name: "idle_w", Num: n * g.IdlePowerW}}})
		} else if p > n*g.BoardPowerW {
			warn = append(warn, Message{Code: CodeLawAboveBoard, Args: Args{{Name: "calibration", Str: cal.Name}, {Name: "w", Num: p}, {Name: "board_w", Num: n * g.BoardPowerW}}})
		}
	}

	// Envelope and interval: the class's held-out quantiles where the
	// calibration carries them, else its σ; both widened for distance
	// beyond the envelope, the power limit's spread and a limit below an
	// estimated minimum.
	outside, envWarn, sigma0, extra, hwWiden := r.envelope(cal)
	extra = math.Hypot(extra, limSigma)
	if r.belowMin {
		extra = math.Hypot(extra, belowMinSigma(c.Power, g, r.limitW))
	}
	z := c.intervalZ(cal)
	steps := r.microSteps()
	perStep := t1 / steps
	short := r.count == 1 && perStep < ShortStepS
	var inputBound Message
	var isInputBound bool
	if r.logits {
		inputBound, isInputBound = InputBoundMessage("a student reading cached teacher log-probs", r.tokens, tRun, r.count)
	}
	class := classOf(isInputBound, short, len(outside) > 0, M/bw > C/r.peak)
	iv := IntervalUsed{Class: class, From: IntervalFromSigma}
	var lo, hi float64
	if q, ok := cal.classQuantiles(class); ok {
		lo, hi = q.Factors(z, extra)
		iv.From, iv.Runs = q.Class, q.Runs
		if class == ClassInputBound {
			// Up to the whole run stretched to the slowest published rate.
			hi = math.Max(hi, inputBoundFactor(r.tokens, tRun, r.count))
			iv.From = ClassInputBound
		}
	} else {
		s := math.Hypot(math.Hypot(sigma0, extra), hwWiden)
		lo, hi = math.Exp(-z*s), math.Exp(z*s)
		iv.Runs = 0
	}
	iv.LowFactor, iv.HighFactor = lo, hi
	if len(outside) > 0 {
		warn = append(warn, envWarn)
	}

	// Memory warnings.
	act := r.actMemPerGPU()
	frozen, trained := r.stateParts()
	state := frozen + trained
	if state+act > g.MemoryGB*1e9 {
		if r.method.ckpt {
			// What may still make it fit, of what is not chosen already.
			var ways []Message
			if r.bat > 1 {
				ways = append(ways, Message{Code: CodeAdviceSmaller, Args: Args{{Name: "field", Str: "training.batch_per_gpu"}}})
			}
			ways = append(ways, Message{Code: CodeAdvicePacking})
			if !r.stack.optimised && !r.eff.compile {
				ways = append(ways, Message{Code: CodeAdviceFused, Args: Args{{Name: "stack", Str: "training.stack"}, {Name: "compile", Str: "training.compile"}}})
			}
			warn = append(warn, Message{Code: CodeMemoryCheckpointed, Args: Args{{Name: "act_gb", Num: act / 1e9}, {Name: "state_gb", Num: state / 1e9}, {Name: "capacity_gb", Num: g.MemoryGB}, {Name: "gpu", Str: g.ID}, {Name: "batch", Str: "training.batch_per_gpu"}, {Name: "ways", Msgs: ways}}})
		} else {
			warn = append(warn, Message{Code: CodeMemoryNoCheckpoint, Args: Args{{Name: "act_gb", Num: act / 1e9}, {Name: "state_gb", Num: state / 1e9}, {Name: "capacity_gb", Num: g.MemoryGB}, {Name: "gpu", Str: g.ID}, {Name: "checkpointing", Str: "training.gradient_checkpointing"}}})
		}
	}
	if r.count > 1 && eta < 0.5 {
		warn = append(warn, Message{Code: CodeLowEfficiency, Args: Args{{Name: "eta", Num: eta}, {Name: "extra_pct", Num: (factor - 1) * 100}}})
	}
	if r.count > GPUsPerNode && !commModel {
		warn = append(warn, Message{Code: CodeInterNode, Args: Args{{Name: "per_node", Num: GPUsPerNode}}})
	}
	if short {
		warn = append(warn, shortStepWarning(perStep))
	}
	if isInputBound {
		warn = append(warn, inputBound)
	}
	if optSteps := steps / float64(r.accum); optSteps < 100 {
		// What gives more optimizer steps, of what is not chosen already.
		var ways []Message
		if r.count > 1 {
			ways = append(ways, Message{Code: CodeAdviceFewerGPUs})
		}
		if r.bat > 1 {
			ways = append(ways, Message{Code: CodeAdviceSmaller, Args: Args{{Name: "field", Str: "training.batch_per_gpu"}}})
		}
		switch {
		case r.accum > 1:
			ways = append(ways, Message{Code: CodeAdviceLess, Args: Args{{Name: "field", Str: "training.gradient_accumulation"}}})
			warn = append(warn, Message{Code: CodeFewStepsAccum, Args: Args{{Name: "steps", Num: optSteps}, {Name: "batch", Str: "training.batch_per_gpu"}, {Name: "accumulation", Str: "training.gradient_accumulation"}, {Name: "ways", Msgs: ways}}})
		case len(ways) > 0:
			warn = append(warn, Message{Code: CodeFewSteps, Args: Args{{Name: "steps", Num: optSteps}, {Name: "batch", Str: "training.batch_per_gpu"}, {Name: "ways", Msgs: ways}}})
		default:
			warn = append(warn, Message{Code: CodeFewStepsLeast, Args: Args{{Name: "steps", Num: optSteps}}})
		}
	}

	pue := r.site.PUE
	resp.EnergyKWh = eKWh
	resp.EnergyIntervalKWh = [2]float64{eKWh * lo, eKWh * hi}
	resp.FacilityEnergyKWh = eKWh * pue
	resp.TrainingEnergyKWh = (totalJ - e0J) / 3.6e6
	resp.TrainingTimeS = tRun
	resp.TimeS = timeS
	resp.TimeIntervalS = [2]float64{timeS * lo, timeS * hi}
	resp.AvgPowerW = totalJ / timeS
	resp.GPUHours = n * timeS / 3600
	resp.CO2eKg = eKWh * pue * r.site.CarbonGPerKWh / 1000
	resp.CO2eIntervalKg = [2]float64{resp.CO2eKg * lo, resp.CO2eKg * hi}
	resp.CostUSD = eKWh * pue * r.site.USDPerKWh
	resp.Embodied = embodiedFor(resp.GPUHours)
	resp.EmbodiedCO2eKg = resp.Embodied.CO2eKg
	resp.PowerLimit = r.powerInfo(c.Power, p0, limTime, limPower, limSigma)
	resp.Breakdown = Breakdown{ComputeKWh: compJ / 3.6e6, MemoryKWh: memJ / 3.6e6, HostWaitKWh: hostJ / 3.6e6, ParallelKWh: parJ / 3.6e6, WarmupKWh: warmJ / 3.6e6, FixedKWh: e0J / 3.6e6}
	bound := "compute"
	if M/bw > C/r.peak {
		bound = "memory"
	}
	resp.Roofline = Roofline{
		FLOPs: C, Bytes: M, FLOPsPerToken: flopsTok, BytesPerToken: bytesTok,
		ArithmeticIntensity: C / M, MachineBalance: r.peak / bw, Bound: bound,
		PeakTFLOPS:          r.peak / 1e12,
		EpsComputeJPerFLOP:  pAvg / (r.peak * uComp),
		EpsMemoryJPerByte:   pAvg / (bw * uMem),
		TimeLowerBoundS:     tIdeal / n,
		EnergyLowerBoundKWh: boundJ / 3.6e6,
	}
	a := r.arch
	resp.Proxies = Proxies{
		ParamsPaper:          ParamsProxy(float64(a.Layers), float64(a.Hidden), float64(a.FFN)),
		ComputePerTokenPaper: ComputePerTokenProxy(float64(a.Layers), float64(a.Hidden), float64(r.seq)),
		ComputeLaw:           ComputeProxy(float64(a.Layers), float64(a.Hidden), r.tokens),
		MemoryPaper:          MemoryProxy(float64(r.bat), float64(r.seq), float64(a.Hidden), float64(a.Layers)),
		Params:               r.params,
		NonEmbeddingParams:   a.NonEmbeddingParams(),
	}
	lawName := "none (one GPU)"
	if r.count > 1 {
		lawName = c.parallelLaw(tc, g.Interconnect, commModel)
	}
	resp.Parallel = Parallel{GPUs: r.count, Strategy: r.strategy, Tensor: r.plan.Tensor, Data: r.plan.Data, DataMode: r.plan.DataMode, Context: r.plan.Context, Speedup: sp, Efficiency: eta, Law: lawName, AlphaEta: alpha,
		Overhead: overhead, WaitingShare: 1 - eta, WaitingPowerW: waitW, BusyPowerW: pAvg}
	resp.Memory = MemoryUse{StateGBPerGPU: state / 1e9, ActivationGBPerGPU: act / 1e9, CapacityGB: g.MemoryGB, FrozenGBPerGPU: frozen / 1e9, TrainedGBPerGPU: trained / 1e9}
	resp.Training = r.methodUse(flopsTok)
	resp.Calibration = CalUsed{Name: cal.Name, Version: cal.Version, Kind: cal.Kind, Citation: cal.Citation, InEnvelope: len(outside) == 0, OutsideMessages: outside, SigmaLn: math.Log(hi/lo) / (2 * z), Interval: iv}
	resp.Inputs = Inputs{Model: r.name, Arch: r.arch, Head: r.head, Tokens: r.tokens, SeqLen: r.seq, BatchPerGPU: r.bat, GradientAccumulation: r.accum, Precision: r.prec, StateBytesPerParam: r.state,
		GPU: g.ID, GPUName: g.Name, Interconnect: string(g.Interconnect), Count: r.count, PowerLimitW: r.limitW, PUE: pue, CarbonGPerKWh: r.site.CarbonGPerKWh, USDPerKWh: r.site.USDPerKWh, Region: r.site.Region,
		Imported: r.imported}
	resp.AssumptionMessages, resp.WarningMessages = assume, warn
	if !r.numbersOnly {
		resp.Calibration.Outside, resp.Assumptions, resp.Warnings = MessageTexts(outside), MessageTexts(assume), MessageTexts(warn)
	}
	if !finiteResponse(&resp) {
		return Response{}, codeErr(CodeNotFinite, "(request)", nil, nil)
	}
	return resp, nil
}

// AccumAssumption states how gradient accumulation is charged: the text of
// CodeAssumeAccum, whose accum is the micro-batches per optimizer step.
const AccumAssumption = "gradient accumulation, {accum:int} micro-batches per optimizer step: the optimizer's update (24 bytes of traffic per parameter for AdamW in mixed precision, ZeRO's accounting) and ddp's gradient all-reduce are charged once per optimizer step (PyTorch DDP's no_sync during accumulation, as Hugging Face Accelerate and Trainer use it); weight reads, gradient accumulation, fsdp's gathers and reduce-scatters and the per-step latency for every micro-batch"

// stepWorkload is the run's tokens per GPU per gradient exchange and its
// hidden size: ddp reduces gradients once per optimizer step, so its
// tokens count every accumulated micro-batch; fsdp gathers weights and
// reduces gradients for each micro-batch.
func (r *resolved) stepWorkload() StepWorkload {
	tok := float64(r.bat) * float64(r.seq)
	if r.plan.DataMode != FSDP {
		tok *= float64(r.accum)
	}
	return StepWorkload{Tokens: tok, Hidden: float64(r.arch.Hidden)}
}

// curveWorkloadNote is the assumption of an estimate whose η comes from
// speedup curves moved from their measured workload w to the run's, s.
func curveWorkloadNote(ic Interconnect, w *CurveWorkload, s StepWorkload) Message {
	return Message{Code: CodeAssumeCurveWorkload, Args: Args{{Name: "interconnect", Str: string(ic)}, {Name: "curve_tokens", Num: w.TokensPerStep}, {Name: "curve_hidden", Num: w.Hidden},
		{Name: "source", Str: w.Source}, {Name: "tokens", Num: s.Tokens}, {Name: "hidden", Num: s.Hidden}}}
}

// fmtCount writes a count with thousands separators ("16,384").
func fmtCount(x float64) string {
	d := strconv.FormatFloat(math.Round(x), 'f', 0, 64)
	for i := len(d) - 3; i > 0; i -= 3 {
		d = d[:i] + "," + d[i:]
	}
	return d
}

// etaFactor is η^α_η, the factor a parallel layout multiplies the busy
// energy by in the paper's model (1 on one GPU).
func (r *resolved) etaFactor(alpha, eta float64) float64 {
	if r.count <= 1 {
		return 1
	}
	return math.Pow(eta, alpha)
}

// parallelJ is the energy a parallel layout adds to busyJ, the run's busy
// energy, for estimate and leanEstimate alike: with waiting (η from the
// communication-aware model) the waiting GPU-time at the waiting power
// (waiting.go), else busyJ·(factor − 1), factor = etaFactor's η^α_η; p0 and
// pAvg are the busy power without and with the limit, t1 the one-GPU time.
func (r *resolved) parallelJ(waiting bool, factor, busyJ, p0, pAvg, t1, eta float64) (parJ, waitW float64) {
	if waiting && r.count > 1 {
		return waitingEnergy(r.gpu, p0, pAvg, t1, eta)
	}
	return busyJ * (factor - 1), 0
}

// parallel returns the speedup and η of r's layout: from the calibration's
// communication-aware model when it applies to the GPU's interconnect
// class (commModel true), else from its speedup curves. t1 is the one-GPU
// roofline time of the whole run.
func (r *resolved) parallel(tc *Calibration, t1 float64) (speedup, eta float64, commModel bool, err error) {
	if tc.Comm.Applies(r.gpu.Interconnect) {
		steps := r.oneGPUSteps()
		bytes := 2.0
		if r.prec == FP32 || r.prec == TF32 {
			bytes = 4
		}
		speedup, eta, _ = tc.Comm.Efficiency(r.plan, CommStep{
			ComputeS: t1 / steps, Params: r.params, Layers: float64(r.arch.Layers), Hidden: float64(r.arch.Hidden),
			KVHidden: float64(r.arch.Hidden) * float64(r.arch.kvHeads()) / float64(r.arch.Heads),
			Tokens:   float64(r.bat) * float64(r.seq), GradBytes: bytes, ActBytes: bytes, Links: LinksFor(r.gpu),
			Trainable: r.method.trainable, GatherBytes: r.gatherBytesPerParam(bytes), Accum: float64(r.accum),
		})
		return speedup, eta, true, nil
	}
	speedup, eta, err = tc.Speedup.Efficiency(r.gpu.Interconnect, r.plan, r.stepWorkload())
	return speedup, eta, false, err
}

// envelope lists the dimensions outside the calibration's envelope (as
// CodeEnvelopeRange and CodeEnvelopeGPU messages), the warning that names
// them (Code "" when none), the calibration's σ and the widening for
// distance beyond the envelope: extra, an ln-space SD, to which each
// numeric dimension outside its range adds (WidenPerEFold·|ln(x/edge)|)²
// in variance, and hw, WidenHardware when the calibration was not fitted
// on the hardware (0 otherwise). Class quantiles already hold unfitted
// hardware (ClassOutside) and take extra alone; a σ takes both. Model size
// is judged by the parameter count alone (layers and hidden are reported
// in the envelope but not counted twice).
func (r *resolved) envelope(cal *Calibration) (outside []Message, warning Message, sigma, extra, hw float64) {
	e, sigma := cal.Envelope, cal.Interval.SigmaLn
	v := 0.0
	dims := [4]struct {
		name string
		x    float64
		rng  [2]float64
	}{
		{"seq_len", float64(r.seq), e.SeqLen},
		{"batch_per_gpu", float64(r.bat), e.Batch},
		{"gpus", float64(r.count), e.GPUs},
		{"params", r.params, e.Params},
	}
	for _, d := range dims {
		if d.rng[1] == 0 {
			continue
		}
		var edge float64
		switch {
		case d.x < d.rng[0]:
			edge = d.rng[0]
		case d.x > d.rng[1]:
			edge = d.rng[1]
		default:
			continue
		}
		outside = append(outside, Message{Code: CodeEnvelopeRange, Args: Args{{Name: "dim", Str: d.name}, {Name: "x", Num: d.x}, {Name: "low", Num: d.rng[0]}, {Name: "high", Num: d.rng[1]}}})
		k := e.WidenPerEFold * math.Abs(math.Log(d.x/edge))
		v += k * k
	}
	if len(e.Hardware) > 0 && !slices.Contains(e.Hardware, r.gpu.ID) {
		outside = append(outside, Message{Code: CodeEnvelopeGPU, Field: "hardware.gpu", Args: Args{{Name: "gpu", Str: r.gpu.ID}, {Name: "among", List: e.Hardware}}})
		hw = e.WidenHardware
	}
	if len(outside) > 0 {
		warning = Message{Code: CodeOutsideEnvelope, Args: Args{{Name: "calibration", Str: cal.Name}, {Name: "dims", Msgs: outside}}}
	}
	return outside, warning, sigma, math.Sqrt(v), hw
}

// ShortNum prints whole numbers below a million exactly and others to 3
// significant digits; NaN and infinities by name. Messages across the
// project use it so a value reads the same everywhere.
func ShortNum(x float64) string {
	if s, ok := nonFinite(x); ok {
		return s
	}
	if x == math.Trunc(x) && math.Abs(x) < 1e6 {
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

// appendShortNum appends ShortNum(x) to b.
func appendShortNum(b []byte, x float64) []byte {
	if s, ok := nonFinite(x); ok {
		return append(b, s...)
	}
	if x == math.Trunc(x) && math.Abs(x) < 1e6 {
		return strconv.AppendFloat(b, x, 'f', 0, 64)
	}
	return strconv.AppendFloat(b, x, 'g', 3, 64)
}
