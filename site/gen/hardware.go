package gen

import (
	"strconv"
	"strings"

	"github.com/wattscale/wattscale/model"
)

// HardwareTable is the hardware page: the accelerator table and the model
// presets, each row with its source, and the site defaults.
type HardwareTable struct {
	GPUs     []GPURow
	Presets  []PresetRow
	Defaults []KV
}

// GPURow is one accelerator, formatted.
type GPURow struct {
	ID, Name, Vendor, Year               string
	FP32, TF32, FP16, BF16, FP8          string // dense TFLOP/s; "—" when not supported
	Memory, Bandwidth, Board, Idle, Link string
	Balance                              string // FLOP per byte at the fastest 16-bit rate
	Source, IdleSource                   string
	Aliases                              string
}

// PresetRow is one model preset, formatted.
type PresetRow struct {
	Name, Family, Layers, Hidden, Heads, KVHeads, FFN, Vocab, GLU, Params, Published, Source string
}

// hardwareTable formats the built-in accelerator table and presets.
func hardwareTable(gpus []model.GPU, presets []model.Preset) HardwareTable {
	var t HardwareTable
	tf := func(x float64) string {
		if x <= 0 {
			return dash
		}
		return trimZeros(sig(x, 4))
	}
	for _, g := range gpus {
		peak16 := max(g.FP16TFLOPS, g.BF16TFLOPS)
		row := GPURow{ID: g.ID, Name: g.Name, Vendor: g.Vendor, Year: strconv.Itoa(g.Year),
			FP32: tf(g.FP32TFLOPS), TF32: tf(g.TF32TFLOPS), FP16: tf(g.FP16TFLOPS), BF16: tf(g.BF16TFLOPS), FP8: tf(g.FP8TFLOPS),
			Memory: trimZeros(sig(g.MemoryGB, 3)), Bandwidth: grouped(g.BandwidthGBs), Board: grouped(g.BoardPowerW), Idle: grouped(g.IdlePowerW),
			Link: string(g.Interconnect), Balance: dash, Source: g.Source, IdleSource: g.IdleSource}
		if peak16 > 0 && g.BandwidthGBs > 0 {
			row.Balance = grouped(peak16 * 1e12 / (g.BandwidthGBs * 1e9))
		}
		row.Aliases = strings.Join(g.Aliases, ", ")
		t.GPUs = append(t.GPUs, row)
	}
	for _, p := range presets {
		a := p.Arch
		kv := dash
		if a.KVHeads > 0 && a.KVHeads != a.Heads {
			kv = strconv.Itoa(a.KVHeads)
		}
		glu := "no"
		if a.GLU {
			glu = "yes"
		}
		t.Presets = append(t.Presets, PresetRow{Name: p.Name, Family: p.Family, Layers: strconv.Itoa(a.Layers), Hidden: grouped(float64(a.Hidden)),
			Heads: strconv.Itoa(a.Heads), KVHeads: kv, FFN: grouped(float64(a.FFN)), Vocab: grouped(float64(a.Vocab)), GLU: glu,
			Params: fmtCount(a.Params()), Published: fmtCount(p.ParamsPublished), Source: p.Source})
	}
	t.Defaults = []KV{
		{"PUE", trimZeros(fixed(model.DefaultPUE, 2)) + ": the Uptime Institute's 2024 global average (also Green Algorithms' value for an unknown data centre)"},
		{"grid carbon intensity", grouped(model.DefaultCarbonGPerKWh) + " g CO₂e/kWh: the IEA world average (the default of CodeCarbon and Green Algorithms)"},
		{"electricity price", fixed(model.DefaultUSDPerKWh, 2) + " USD/kWh: an assumed commercial tariff; enter your own"},
	}
	return t
}
