package gen

import "github.com/wattscale/wattscale/wasm/calcapi/view"

// The generated pages format numbers as the calculator does: one set of
// rules, package view's.
var (
	sig         = view.Sig
	fixed       = view.Fixed
	grouped     = view.Grouped
	fmtKWh      = view.KWh
	fmtCount    = view.Count
	trimZeros   = view.TrimZeros
	fmtDuration = view.Duration
	minus       = view.Minus
	superscript = view.Superscript
)

const dash = "—"
