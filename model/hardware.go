package model

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Interconnect is the class of the intra-node link between accelerators; it
// selects the speedup curves. PCIe covers consumer and PCIe cards without a
// bridge; NVLink covers NVLink/NVSwitch, AMD Infinity Fabric and TPU ICI.
type Interconnect string

// The interconnect classes.
const (
	PCIe   Interconnect = "pcie"
	NVLink Interconnect = "nvlink"
)

// Precision is the numeric format of the training matmuls.
type Precision string

// The precisions a request may name.
const (
	FP32 Precision = "fp32"
	TF32 Precision = "tf32"
	FP16 Precision = "fp16"
	BF16 Precision = "bf16"
	FP8  Precision = "fp8"
)

// Precisions lists the accepted precisions in display order.
var Precisions = []Precision{FP32, TF32, FP16, BF16, FP8}

// GPU is one accelerator's roofline and power figures. Peak rates are dense
// (no structured sparsity) tensor-core rates where the part has them; a zero
// rate means the precision is not supported in hardware.
type GPU struct {
	ID           string       `json:"id"`             // canonical id, e.g. "h100-sxm5"
	Name         string       `json:"name"`           // display name
	Vendor       string       `json:"vendor"`         // NVIDIA, AMD or Google
	Year         int          `json:"year"`           // launch year
	FP32TFLOPS   float64      `json:"fp32_tflops"`    // non-tensor FP32 peak, TFLOP/s
	TF32TFLOPS   float64      `json:"tf32_tflops"`    // TF32 tensor peak, TFLOP/s; 0 = none
	FP16TFLOPS   float64      `json:"fp16_tflops"`    // FP16 tensor peak with FP32 accumulate, TFLOP/s
	BF16TFLOPS   float64      `json:"bf16_tflops"`    // BF16 tensor peak, TFLOP/s; 0 = none
	FP8TFLOPS    float64      `json:"fp8_tflops"`     // FP8 tensor peak, TFLOP/s; 0 = none
	MemoryGB     float64      `json:"memory_gb"`      // device memory, GB (1e9 bytes)
	BandwidthGBs float64      `json:"bandwidth_gb_s"` // device memory bandwidth, GB/s
	BoardPowerW  float64      `json:"board_power_w"`  // TDP / total board power, W (per chip, system power where PowerScope is SystemPower)
	IdlePowerW   float64      `json:"idle_power_w"`   // idle draw, W (measured where cited, else an estimate)
	Interconnect Interconnect `json:"interconnect"`   // intra-node link class
	Source       string       `json:"source"`         // where the figures come from
	IdleSource   string       `json:"idle_source"`    // where the idle figure comes from
	Aliases      []string     `json:"aliases,omitempty"`
	// PowerScope says what BoardPowerW and IdlePowerW cover: "" for the
	// accelerator alone (a board's TDP, as vendors publish it), or
	// SystemPower for the measured power of the whole system divided by
	// its chips (host CPUs, memory, network and fans included), the only
	// figure Google publishes for its TPUs in training.
	PowerScope string `json:"power_scope,omitempty"`
}

// SystemPower is the PowerScope of a catalog entry whose power is the
// measured system power per chip: an estimate for it already includes the
// host's share, so no host factor is added on top when it is compared with
// a node or facility figure (validate.HostFactor).
const SystemPower = "system"

// PeakFLOPS returns the peak rate in FLOP/s for precision p, or an error that
// names the field and the precisions the GPU supports.
func (g *GPU) PeakFLOPS(p Precision) (float64, error) {
	known := false
	for _, q := range Precisions {
		known = known || q == p
	}
	if !known {
		return 0, codeErr(CodePrecision, "training.precision", string(p), Args{{Name: "among", Str: joinPrecisions(Precisions)}})
	}
	t := g.peakTFLOPS(p)
	if t <= 0 {
		return 0, codeErr(CodePrecisionUnsupported, "training.precision", string(p), Args{{Name: "gpu", Str: g.ID}, {Name: "supported", Str: joinPrecisions(g.Supported())}})
	}
	return t * 1e12, nil
}

// DefaultPrecisionRule states how DefaultPrecision chooses.
const DefaultPrecisionRule = "bf16 where the accelerator has it in hardware; otherwise fp16 where its fp16 peak is a tensor-core one (at least 4× fp32: Volta, Turing); otherwise fp32"

// DefaultPrecision is the numeric format a typical mixed-precision recipe
// uses on g when a request names none (DefaultPrecisionRule): bf16 on
// Ampere and later and on TPUs, fp16 on Volta and Turing, fp32 before
// (Pascal's fp16 runs without tensor cores at twice fp32).
func (g *GPU) DefaultPrecision() Precision {
	switch {
	case g.peakTFLOPS(BF16) > 0:
		return BF16
	case g.FP16TFLOPS >= 4*g.FP32TFLOPS && g.FP16TFLOPS > 0:
		return FP16
	}
	return FP32
}

// Supported lists the precisions with a non-zero peak.
func (g *GPU) Supported() []Precision {
	var out []Precision
	for _, p := range Precisions {
		if g.peakTFLOPS(p) > 0 {
			out = append(out, p)
		}
	}
	return out
}

// peakTFLOPS is the table's peak for p in TFLOP/s; 0 = not supported.
func (g *GPU) peakTFLOPS(p Precision) float64 {
	switch p {
	case FP32:
		return g.FP32TFLOPS
	case TF32:
		return g.TF32TFLOPS
	case FP16:
		return g.FP16TFLOPS
	case BF16:
		return g.BF16TFLOPS
	case FP8:
		return g.FP8TFLOPS
	}
	return 0
}

func joinPrecisions(ps []Precision) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = string(p)
	}
	return strings.Join(s, ", ")
}

// Hardware is a table of accelerators, looked up by exact name.
type Hardware struct {
	GPUs  []GPU
	exact map[string]int // id, name and aliases as written -> index
	// keys maps every spelling Lookup accepts, normalised, to its index.
	// It is built on the first lookup that is not of a spelling as
	// written (exact): the calculator's start and its usual lookups need
	// only exact.
	keys func() map[string]int
}

// NewHardware indexes gpus for lookup by id, name and aliases (Lookup).
func NewHardware(gpus []GPU) *Hardware {
	h := &Hardware{GPUs: gpus, exact: map[string]int{}}
	for i, g := range gpus {
		for _, k := range append([]string{g.ID, g.Name}, g.Aliases...) {
			h.exact[k] = i
		}
	}
	h.keys = sync.OnceValue(func() map[string]int { return normalisedSpellings(gpus) })
	return h
}

// normalisedSpellings are the spellings a part is known by, normalised,
// to its index: as written in the table, then derived ones: the vendor
// before any of them, and the part's own memory size after its id or an
// alias. A derived spelling that two parts share, or that is another
// part's written one, names neither.
func normalisedSpellings(gpus []GPU) map[string]int {
	keys := map[string]int{}
	for i, g := range gpus {
		for _, k := range append([]string{g.ID, g.Name}, g.Aliases...) {
			keys[normName(k)] = i
		}
	}
	derived := map[string]int{}
	for i, g := range gpus {
		mem := strconv.Itoa(int(math.Round(g.MemoryGB))) + "gb"
		for j, k := range append([]string{g.ID, g.Name}, g.Aliases...) {
			spellings := []string{k}
			if j != 1 && !strings.HasSuffix(normName(k), "gb") {
				spellings = append(spellings, k+mem)
			}
			for _, sp := range spellings {
				for _, d := range []string{sp, g.Vendor + sp} {
					d = normName(d)
					if _, written := keys[d]; written {
						continue
					}
					if j, ok := derived[d]; ok && j != i {
						derived[d] = -1
					} else if !ok {
						derived[d] = i
					}
				}
			}
		}
	}
	for d, i := range derived {
		if i >= 0 {
			keys[d] = i
		}
	}
	return keys
}

// normName is the form names are compared in: lower case, without spaces
// and hyphens. Nothing else is dropped, so "h100_sxm5" or "h100.sxm5" is
// not "h100-sxm5".
func normName(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == ' ' || r == '-':
		case 'A' <= r && r <= 'Z':
			b.WriteRune(r + ('a' - 'A'))
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// invisible returns the first control, format (zero-width, bidirectional)
// or invalid UTF-8 character of s and its byte offset, or -1.
func invisible(s string) (rune, int) {
	for i, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return r, i
		}
	}
	return 0, -1
}

// Lookup finds a GPU by its id, its name or an alias, compared without
// regard to case, spaces and hyphens, optionally after its vendor
// ("NVIDIA A100 SXM4 80 GB") and, after the id or an alias, the part's
// own memory size ("l40s-48gb"). Nothing else matches: a prefix or a near
// miss ("a100-sxm4-8gb") is an error listing close matches, and a control
// or invisible character is an error naming it.
func (h *Hardware) Lookup(name string) (*GPU, error) {
	if i, ok := h.exact[name]; ok {
		return &h.GPUs[i], nil // the usual spelling: no normalising needed
	}
	if r, at := invisible(name); at >= 0 {
		return nil, codeErr(CodeGPUInvisible, "hardware.gpu", name, Args{{Name: "char", Str: unicodeName(r)}, {Name: "at", Num: float64(at)}})
	}
	k := normName(name)
	if k == "" {
		return nil, codeErr(CodeGPUBlank, "hardware.gpu", name, nil)
	}
	if i, ok := h.keys()[k]; ok {
		return &h.GPUs[i], nil
	}
	return nil, codeErr(CodeGPUUnknown, "hardware.gpu", name, Args{{Name: "near", List: h.near(k, 4)}})
}

// near returns the ids of the n GPUs whose spellings are closest to k (a
// normalised name): first those that k is a prefix of or that are a
// prefix of k, then by edit distance.
func (h *Hardware) near(k string, n int) []string {
	d := make([]int, len(h.GPUs))
	for i := range d {
		d[i] = math.MaxInt
	}
	for key, i := range h.keys() {
		e := editDistance(k, key)
		if strings.HasPrefix(key, k) || strings.HasPrefix(k, key) {
			e -= 1000
		}
		d[i] = min(d[i], e)
	}
	cs := make([]named, len(h.GPUs))
	for i, g := range h.GPUs {
		cs[i] = named{g.ID, d[i]}
	}
	return closest(cs, n)
}

// named is a name and its distance from the one asked for.
type named struct {
	name string
	d    int
}

// closest returns the names of the n nearest of cs, nearest first, ties
// in cs's order (cs is sorted in place).
func closest(cs []named, n int) []string {
	sort.Stable(sortable{len(cs), func(i, j int) bool { return cs[i].d < cs[j].d }, func(i, j int) { cs[i], cs[j] = cs[j], cs[i] }})
	var out []string
	for _, c := range cs[:min(n, len(cs))] {
		out = append(out, c.name)
	}
	return out
}

// sortable is sort.Interface over a length and two closures: sort.Sort
// and sort.Stable on it sort as sort.Slice and sort.SliceStable do,
// without the reflection those swap through (package reflectlite), which
// calc.wasm would otherwise link.
type sortable struct {
	n    int
	less func(i, j int) bool
	swap func(i, j int)
}

func (s sortable) Len() int           { return s.n }
func (s sortable) Less(i, j int) bool { return s.less(i, j) }
func (s sortable) Swap(i, j int)      { s.swap(i, j) }

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := 1
			if a[i-1] == b[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Sources shared by many rows.
const (
	srcRef   = "vendor datasheets, via the llm-analysis GPU configs (github.com/cli99/llm-analysis) and the TechPowerUp GPU database"
	idleCCF  = "measured idle, Cloud Carbon Footprint / Teads coefficients"
	idleEst  = "estimate: 10% of board power (no published idle figure)"
	idleH100 = "measured idle about 35 W (Lambert & Luccioni 2026 harness, one H100 SXM)"
)

// DefaultGPUs returns a fresh copy of the built-in accelerator table.
// Peak FP16 is the dense tensor rate with FP32 accumulation (what mixed
// precision training uses); on GeForce cards that is half the FP16-accumulate
// figure marketed.
func DefaultGPUs() []GPU {
	return []GPU{
		{ID: "p100-pcie-16gb", Name: "Tesla P100 PCIe 16 GB", Vendor: "NVIDIA", Year: 2016, FP32TFLOPS: 9.3, FP16TFLOPS: 18.7, MemoryGB: 16, BandwidthGBs: 732, BoardPowerW: 250, IdlePowerW: 25, Interconnect: PCIe, Source: srcRef + "; NVIDIA Tesla P100 datasheet", IdleSource: idleEst, Aliases: []string{"p100", "p100-pcie"}},
		{ID: "v100-pcie-16gb", Name: "Tesla V100 PCIe 16 GB", Vendor: "NVIDIA", Year: 2017, FP32TFLOPS: 14, FP16TFLOPS: 112, MemoryGB: 16, BandwidthGBs: 900, BoardPowerW: 250, IdlePowerW: 35, Interconnect: PCIe, Source: srcRef + "; NVIDIA V100 datasheet", IdleSource: idleCCF, Aliases: []string{"v100", "v100-pcie", "v100-16gb"}},
		{ID: "v100-pcie-32gb", Name: "Tesla V100 PCIe 32 GB", Vendor: "NVIDIA", Year: 2018, FP32TFLOPS: 14, FP16TFLOPS: 112, MemoryGB: 32, BandwidthGBs: 900, BoardPowerW: 250, IdlePowerW: 35, Interconnect: PCIe, Source: srcRef + "; NVIDIA V100 datasheet", IdleSource: idleCCF, Aliases: []string{"v100-32gb"}},
		{ID: "v100-sxm2-16gb", Name: "Tesla V100 SXM2 16 GB", Vendor: "NVIDIA", Year: 2017, FP32TFLOPS: 15.7, FP16TFLOPS: 125, MemoryGB: 16, BandwidthGBs: 900, BoardPowerW: 300, IdlePowerW: 35, Interconnect: NVLink, Source: srcRef + "; NVIDIA V100 datasheet (NVLink 150 GB/s per direction)", IdleSource: idleCCF, Aliases: []string{"v100-sxm2", "v100-sxm"}},
		{ID: "v100-sxm2-32gb", Name: "Tesla V100 SXM2 32 GB", Vendor: "NVIDIA", Year: 2018, FP32TFLOPS: 15.7, FP16TFLOPS: 125, MemoryGB: 32, BandwidthGBs: 900, BoardPowerW: 300, IdlePowerW: 35, Interconnect: NVLink, Source: srcRef + "; NVIDIA V100 datasheet", IdleSource: idleCCF, Aliases: []string{"v100-sxm-32gb"}},
		{ID: "t4", Name: "Tesla T4", Vendor: "NVIDIA", Year: 2018, FP32TFLOPS: 8.1, FP16TFLOPS: 65, FP8TFLOPS: 0, MemoryGB: 16, BandwidthGBs: 320, BoardPowerW: 70, IdlePowerW: 8, Interconnect: PCIe, Source: srcRef + "; NVIDIA T4 datasheet", IdleSource: idleCCF, Aliases: []string{"tesla-t4"}},
		{ID: "rtx-2080-ti", Name: "GeForce RTX 2080 Ti", Vendor: "NVIDIA", Year: 2018, FP32TFLOPS: 13.4, FP16TFLOPS: 53.8, MemoryGB: 11, BandwidthGBs: 616, BoardPowerW: 250, IdlePowerW: 20, Interconnect: PCIe, Source: srcRef + "; Turing whitepaper (107.6 TFLOP/s with FP16 accumulate, 53.8 with FP32 accumulate)", IdleSource: "estimate: 8% of board power (consumer card, no published idle figure)", Aliases: []string{"2080ti", "rtx2080ti"}},
		{ID: "rtx-6000", Name: "Quadro RTX 6000", Vendor: "NVIDIA", Year: 2018, FP32TFLOPS: 16.3, FP16TFLOPS: 130.5, MemoryGB: 24, BandwidthGBs: 672, BoardPowerW: 260, IdlePowerW: 26, Interconnect: PCIe, Source: srcRef + "; Quadro RTX 6000 datasheet", IdleSource: idleEst, Aliases: []string{"quadro-rtx-6000"}},
		{ID: "a40", Name: "A40", Vendor: "NVIDIA", Year: 2020, FP32TFLOPS: 37.4, TF32TFLOPS: 74.8, FP16TFLOPS: 149.7, BF16TFLOPS: 149.7, MemoryGB: 48, BandwidthGBs: 696, BoardPowerW: 300, IdlePowerW: 30, Interconnect: PCIe, Source: srcRef + "; NVIDIA A40 datasheet", IdleSource: idleEst},
		{ID: "a10", Name: "A10", Vendor: "NVIDIA", Year: 2021, FP32TFLOPS: 31.2, TF32TFLOPS: 62.5, FP16TFLOPS: 125, BF16TFLOPS: 125, MemoryGB: 24, BandwidthGBs: 600, BoardPowerW: 150, IdlePowerW: 18, Interconnect: PCIe, Source: srcRef + "; NVIDIA A10 datasheet", IdleSource: idleCCF + " (A10G figure)"},
		{ID: "a10g", Name: "A10G", Vendor: "NVIDIA", Year: 2021, FP32TFLOPS: 31.2, TF32TFLOPS: 35, FP16TFLOPS: 70, BF16TFLOPS: 70, MemoryGB: 24, BandwidthGBs: 600, BoardPowerW: 150, IdlePowerW: 18, Interconnect: PCIe, Source: srcRef + " (AWS G5 instance figures)", IdleSource: idleCCF},
		{ID: "rtx-a6000", Name: "RTX A6000", Vendor: "NVIDIA", Year: 2020, FP32TFLOPS: 38.7, TF32TFLOPS: 77.4, FP16TFLOPS: 154.8, BF16TFLOPS: 154.8, MemoryGB: 48, BandwidthGBs: 768, BoardPowerW: 300, IdlePowerW: 30, Interconnect: PCIe, Source: srcRef + "; RTX A6000 datasheet", IdleSource: idleEst, Aliases: []string{"a6000"}},
		{ID: "rtx-3090", Name: "GeForce RTX 3090", Vendor: "NVIDIA", Year: 2020, FP32TFLOPS: 35.6, TF32TFLOPS: 35.6, FP16TFLOPS: 71, BF16TFLOPS: 71, MemoryGB: 24, BandwidthGBs: 936, BoardPowerW: 350, IdlePowerW: 30, Interconnect: PCIe, Source: srcRef + "; Ampere GA102 whitepaper", IdleSource: idleEst, Aliases: []string{"3090"}},
		{ID: "rtx-4090", Name: "GeForce RTX 4090", Vendor: "NVIDIA", Year: 2022, FP32TFLOPS: 82.6, TF32TFLOPS: 82.6, FP16TFLOPS: 165.2, BF16TFLOPS: 165.2, FP8TFLOPS: 330.3, MemoryGB: 24, BandwidthGBs: 1008, BoardPowerW: 450, IdlePowerW: 30, Interconnect: PCIe, Source: srcRef + "; Ada Lovelace whitepaper", IdleSource: idleEst, Aliases: []string{"4090"}},
		{ID: "l40s", Name: "L40S", Vendor: "NVIDIA", Year: 2023, FP32TFLOPS: 91.6, TF32TFLOPS: 183, FP16TFLOPS: 362, BF16TFLOPS: 362, FP8TFLOPS: 733, MemoryGB: 48, BandwidthGBs: 864, BoardPowerW: 350, IdlePowerW: 35, Interconnect: PCIe, Source: srcRef + "; NVIDIA L40S datasheet (dense tensor figures: half the sparse ones)", IdleSource: idleEst},
		{ID: "l4", Name: "L4", Vendor: "NVIDIA", Year: 2023, FP32TFLOPS: 30.3, TF32TFLOPS: 60, FP16TFLOPS: 121, BF16TFLOPS: 121, FP8TFLOPS: 242, MemoryGB: 24, BandwidthGBs: 300, BoardPowerW: 72, IdlePowerW: 12, Interconnect: PCIe, Source: srcRef + "; NVIDIA L4 datasheet", IdleSource: idleEst + " (rounded up: low-power card)"},
		{ID: "a100-pcie-40gb", Name: "A100 PCIe 40 GB", Vendor: "NVIDIA", Year: 2020, FP32TFLOPS: 19.5, TF32TFLOPS: 156, FP16TFLOPS: 312, BF16TFLOPS: 312, MemoryGB: 40, BandwidthGBs: 1555, BoardPowerW: 250, IdlePowerW: 40, Interconnect: PCIe, Source: srcRef + "; NVIDIA A100 datasheet", IdleSource: idleCCF + " (A100 46 W, scaled to the 250 W card)", Aliases: []string{"a100-pcie"}},
		{ID: "a100-pcie-80gb", Name: "A100 PCIe 80 GB", Vendor: "NVIDIA", Year: 2021, FP32TFLOPS: 19.5, TF32TFLOPS: 156, FP16TFLOPS: 312, BF16TFLOPS: 312, MemoryGB: 80, BandwidthGBs: 1935, BoardPowerW: 300, IdlePowerW: 46, Interconnect: PCIe, Source: srcRef + "; NVIDIA A100 datasheet", IdleSource: idleCCF},
		{ID: "a100-sxm4-40gb", Name: "A100 SXM4 40 GB", Vendor: "NVIDIA", Year: 2020, FP32TFLOPS: 19.5, TF32TFLOPS: 156, FP16TFLOPS: 312, BF16TFLOPS: 312, MemoryGB: 40, BandwidthGBs: 1555, BoardPowerW: 400, IdlePowerW: 46, Interconnect: NVLink, Source: srcRef + "; NVIDIA A100 datasheet (NVLink 600 GB/s total)", IdleSource: idleCCF, Aliases: []string{"a100-40gb", "a100-sxm-40gb"}},
		{ID: "a100-sxm4-80gb", Name: "A100 SXM4 80 GB", Vendor: "NVIDIA", Year: 2020, FP32TFLOPS: 19.5, TF32TFLOPS: 156, FP16TFLOPS: 312, BF16TFLOPS: 312, MemoryGB: 80, BandwidthGBs: 2039, BoardPowerW: 400, IdlePowerW: 46, Interconnect: NVLink, Source: srcRef + "; NVIDIA A100 datasheet (NVLink 600 GB/s total)", IdleSource: idleCCF, Aliases: []string{"a100", "a100-80gb", "a100-sxm", "a100-sxm4"}},
		{ID: "h100-pcie", Name: "H100 PCIe 80 GB", Vendor: "NVIDIA", Year: 2022, FP32TFLOPS: 51, TF32TFLOPS: 378, FP16TFLOPS: 756, BF16TFLOPS: 756, FP8TFLOPS: 1513, MemoryGB: 80, BandwidthGBs: 2000, BoardPowerW: 350, IdlePowerW: 35, Interconnect: PCIe, Source: srcRef + "; NVIDIA H100 datasheet", IdleSource: idleH100, Aliases: []string{"h100-pcie-80gb"}},
		{ID: "h100-sxm5", Name: "H100 SXM5 80 GB", Vendor: "NVIDIA", Year: 2022, FP32TFLOPS: 67, TF32TFLOPS: 494.7, FP16TFLOPS: 989, BF16TFLOPS: 989, FP8TFLOPS: 1979, MemoryGB: 80, BandwidthGBs: 3350, BoardPowerW: 700, IdlePowerW: 35, Interconnect: NVLink, Source: srcRef + "; NVIDIA H100 datasheet (NVLink 900 GB/s total)", IdleSource: idleH100, Aliases: []string{"h100", "h100-sxm", "h100-sxm5-80gb", "h100-80gb"}},
		{ID: "h200-sxm", Name: "H200 SXM 141 GB", Vendor: "NVIDIA", Year: 2024, FP32TFLOPS: 67, TF32TFLOPS: 494.7, FP16TFLOPS: 989, BF16TFLOPS: 989, FP8TFLOPS: 1979, MemoryGB: 141, BandwidthGBs: 4800, BoardPowerW: 700, IdlePowerW: 40, Interconnect: NVLink, Source: srcRef + "; NVIDIA H200 datasheet (H200 NVL: 600 W)", IdleSource: idleEst + " scaled from the H100 measurement", Aliases: []string{"h200", "h200-141gb"}},
		{ID: "b200", Name: "B200 180 GB", Vendor: "NVIDIA", Year: 2025, FP32TFLOPS: 80, TF32TFLOPS: 1100, FP16TFLOPS: 2250, BF16TFLOPS: 2250, FP8TFLOPS: 4500, MemoryGB: 180, BandwidthGBs: 8000, BoardPowerW: 1000, IdlePowerW: 100, Interconnect: NVLink, Source: srcRef + "; NVIDIA HGX B200 datasheet (dense rates)", IdleSource: idleEst, Aliases: []string{"b200-sxm"}},
		{ID: "mi250x", Name: "Instinct MI250X", Vendor: "AMD", Year: 2021, FP32TFLOPS: 47.9, TF32TFLOPS: 0, FP16TFLOPS: 383, BF16TFLOPS: 383, MemoryGB: 128, BandwidthGBs: 3277, BoardPowerW: 560, IdlePowerW: 90, Interconnect: NVLink, Source: srcRef + "; AMD MI250X datasheet (OAM, Infinity Fabric)", IdleSource: "estimate: 16% of board power (two dies on one package)", Aliases: []string{"mi250"}},
		{ID: "mi300x", Name: "Instinct MI300X", Vendor: "AMD", Year: 2023, FP32TFLOPS: 163.4, TF32TFLOPS: 653.7, FP16TFLOPS: 1307.4, BF16TFLOPS: 1307.4, FP8TFLOPS: 2614.9, MemoryGB: 192, BandwidthGBs: 5300, BoardPowerW: 750, IdlePowerW: 110, Interconnect: NVLink, Source: srcRef + "; AMD MI300X datasheet (OAM, Infinity Fabric)", IdleSource: "estimate: about 15% of board power", Aliases: []string{"mi300"}},
		{ID: "tpu-v3", Name: "Cloud TPU v3 (per chip)", Vendor: "Google", Year: 2018, FP32TFLOPS: 0, BF16TFLOPS: 123, MemoryGB: 32, BandwidthGBs: 900, BoardPowerW: 288, IdlePowerW: 60, Interconnect: NVLink, Source: "Jouppi et al., CACM 2020 (123 TFLOP/s bf16, 32 GiB HBM, 900 GB/s per chip); power: Patterson et al. 2021, Table 4 average system power per TPU v3 chip", IdleSource: "estimate: about 20% of the average system power", Aliases: []string{"tpuv3"}, PowerScope: SystemPower},
		{ID: "tpu-v4", Name: "Cloud TPU v4 (per chip)", Vendor: "Google", Year: 2021, FP32TFLOPS: 0, BF16TFLOPS: 275, MemoryGB: 32, BandwidthGBs: 1200, BoardPowerW: 378.5, IdlePowerW: 76, Interconnect: NVLink, Source: srcRef + "; Jouppi et al., ISCA 2023 (275 TFLOP/s bf16, 1200 GB/s; the chip alone: mean measured power about 170-192 W); power: Chowdhery et al. 2022 (PaLM, arXiv 2204.02311), App. B, 378.5 W measured average system power per TPU v4 chip in training, the convention of the TPU v3 entry (Patterson et al. 2021, Table 4)", IdleSource: "estimate: about 20% of the average system power", Aliases: []string{"tpuv4"}, PowerScope: SystemPower},
	}
}

// unicodeName is a character as U+ and at least four upper-case hex digits
// ("U+200B"), as fmt's %U writes it.
func unicodeName(r rune) string {
	h := strings.ToUpper(strconv.FormatInt(int64(r), 16))
	for len(h) < 4 {
		h = "0" + h
	}
	return "U+" + h
}
