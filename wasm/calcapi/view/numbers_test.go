package view

import (
	"math"
	"testing"
)

func TestFormat(t *testing.T) {
	cases := []struct {
		name, got, want string
	}{
		{"sig small", Sig(0.04544, 4), "0.04544"},
		{"sig negative", Sig(-12.6971, 4), "−12.70"},
		{"sig big", Sig(2.5e7, 3), "2.50 × 10⁷"},
		{"sig tiny", Sig(3e-6, 2), "3.0 × 10⁻⁶"},
		{"sig NaN", Sig(math.NaN(), 3), "—"},
		{"fixed", Fixed(-0.5, 2), "−0.50"},
		{"grouped", Grouped(21588000), "21,588,000"},
		{"grouped negative", Grouped(-1234.4), "−1,234"},
		{"kWh large", KWh(73728), "73,728 kWh"},
		{"kWh small", KWh(0.5066), "0.5066 kWh"},
		{"kWh inf", KWh(math.Inf(1)), "—"},
		{"count B", Count(6.738e9), "6.74 B"},
		{"count T", Count(2e12), "2 T"},
		{"count k", Count(1500), "1.5 k"},
		{"count plain", Count(96), "96"},
		{"duration s", Duration(117.2), "117 s"},
		{"duration min", Duration(1687.4), "28.1 min"},
		{"duration h", Duration(43200), "12 h"},
		{"duration days", Duration(1728000), "20 days"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, c.got, c.want)
		}
	}
}
