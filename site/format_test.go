package main

import (
	"math"
	"testing"
)

func TestFormat(t *testing.T) {
	cases := []struct {
		name, got, want string
	}{
		{"sig small", sig(0.04544, 4), "0.04544"},
		{"sig negative", sig(-12.6971, 4), "−12.70"},
		{"sig big", sig(2.5e7, 3), "2.50 × 10⁷"},
		{"sig tiny", sig(3e-6, 2), "3.0 × 10⁻⁶"},
		{"sig NaN", sig(math.NaN(), 3), "—"},
		{"fixed", fixed(-0.5, 2), "−0.50"},
		{"grouped", grouped(21588000), "21,588,000"},
		{"grouped negative", grouped(-1234.4), "−1,234"},
		{"kWh large", fmtKWh(73728), "73,728 kWh"},
		{"kWh small", fmtKWh(0.5066), "0.5066 kWh"},
		{"kWh inf", fmtKWh(math.Inf(1)), "—"},
		{"count B", fmtCount(6.738e9), "6.74 B"},
		{"count T", fmtCount(2e12), "2 T"},
		{"count k", fmtCount(1500), "1.5 k"},
		{"count plain", fmtCount(96), "96"},
		{"duration s", fmtDuration(117.2), "117 s"},
		{"duration min", fmtDuration(1687.4), "28.1 min"},
		{"duration h", fmtDuration(43200), "12 h"},
		{"duration days", fmtDuration(1728000), "20 days"},
		{"pct", pct(0.9), "90 %"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, c.got, c.want)
		}
	}
}
