package gen

import (
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// testChart has a log-log axis pair, a line, markers with tooltips and an
// error bar.
func testChart() Chart {
	return Chart{ID: "t", Title: "Energy & time", Desc: "A test <chart>.",
		X: Axis{Label: "GPUs", Log: true}, Y: Axis{Label: "energy (kWh)", Log: true},
		Series: []Series{
			{Name: "curve", Class: "s0", Line: true, Points: []Point{{X: 1, Y: 1}, {X: 2, Y: 1.6}, {X: 8, Y: 4}}},
			{Name: "measured", Class: "s1", Marker: "square", Points: []Point{{X: 2, Y: 1.5, YLow: 1.2, YHigh: 1.9, Label: "N=2"}, {X: 4, Y: 2.5}}},
			{Name: "derived", Class: "s2", Line: true, Dash: true, Marker: "triangle", Points: []Point{{X: 1, Y: 0.9}, {X: 8, Y: 5}}},
		}}
}

// TestChartGolden compares a chart's SVG with testdata/chart.golden
// (refresh with go test ./site/gen -run TestChartGolden -update).
func TestChartGolden(t *testing.T) {
	got := string(testChart().SVG())
	golden := filepath.Join("testdata", "chart.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("chart SVG differs from %s; run with -update if the change is intended\ngot:\n%s", golden, got)
	}
}

func TestChartText(t *testing.T) {
	svg := string(testChart().SVG())
	for _, want := range []string{
		`role="img" aria-labelledby="t-title t-desc"`, `<title id="t-title">Energy &amp; time</title>`,
		`<desc id="t-desc">A test &lt;chart&gt;.</desc>`, `<title>N=2</title>`, `class="line dash"`, `class="series s1"`,
		`<li><svg class="key s0"`, `clip-path="url(#t-clip)"`,
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("SVG lacks %s", want)
		}
	}
	for _, bad := range []string{"NaN", "Inf", "e+", "e-"} {
		if strings.Contains(svg, bad) {
			t.Errorf("SVG contains %q", bad)
		}
	}
}

func TestAxisScale(t *testing.T) {
	cases := []struct {
		name      string
		a         Axis
		lo, hi    float64
		wantLo    float64
		wantHi    float64
		wantTicks []float64
	}{
		{"linear nice", Axis{}, 0.3, 7.2, 0, 8, []float64{0, 2, 4, 6, 8}},
		{"linear fixed", Axis{Min: 1, Max: 8}, 2, 3, 1, 8, []float64{2, 4, 6, 8}},
		{"log two decades", Axis{Log: true}, 0.06, 0.7, 0.05, 1, []float64{0.05, 0.1, 0.2, 0.5, 1}},
		{"log many decades", Axis{Log: true}, 3, 2e5, 2, 2e5, []float64{10, 100, 1000, 1e4, 1e5}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := axisScale(c.a, c.lo, c.hi)
			if math.Abs(s.lo-c.wantLo) > 1e-12 || math.Abs(s.hi-c.wantHi) > 1e-9 {
				t.Errorf("range [%g, %g], want [%g, %g]", s.lo, s.hi, c.wantLo, c.wantHi)
			}
			if len(s.ticks) != len(c.wantTicks) {
				t.Fatalf("ticks %v, want %v", s.ticks, c.wantTicks)
			}
			for i := range s.ticks {
				if math.Abs(s.ticks[i]-c.wantTicks[i]) > 1e-9*c.wantTicks[i]+1e-12 {
					t.Errorf("ticks %v, want %v", s.ticks, c.wantTicks)
					break
				}
			}
			if f := s.frac(s.lo); math.Abs(f) > 1e-12 {
				t.Errorf("frac(lo) = %g, want 0", f)
			}
			if f := s.frac(s.hi); math.Abs(f-1) > 1e-12 {
				t.Errorf("frac(hi) = %g, want 1", f)
			}
		})
	}
}

func TestTickLabel(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{{0.05, "0.05"}, {1, "1"}, {2.5, "2.5"}, {1000, "1000"}, {1e5, "10⁵"}, {1e-4, "10⁻⁴"}, {-1, "−1"}} {
		if got := tickLabel(c.v, true); got != c.want {
			t.Errorf("tickLabel(%g) = %q, want %q", c.v, got, c.want)
		}
	}
}

// TestChartBandsAndMarkers checks a band (Area), hollow markers (Open),
// points without a marker, powers-of-ten labels, a custom height and the
// alternate labels of a crowded axis.
func TestChartBandsAndMarkers(t *testing.T) {
	c := Chart{ID: "b", Title: "Band", Desc: "A band.", Height: 560,
		X: Axis{Label: "x", Log: true, Powers: true, Min: 1e-3, Max: 1e8},
		Y: Axis{Label: "y", Log: true, Powers: true, Min: 1e-3, Max: 1e8},
		Series: []Series{
			{Name: "within ×2", Class: "ref", Area: true, Points: []Point{{X: 1e-3, Y: 5e-4}, {X: 1e8, Y: 5e7}, {X: 1e8, Y: 2e8}, {X: 1e-3, Y: 2e-3}}},
			{Name: "open", Class: "s1", Marker: "square", Open: true, Points: []Point{{X: 1, Y: 2}, {X: 10, Y: 20, NoMarker: true}, {X: 100, Y: 150}}},
		}}
	svg := string(c.SVG())
	for _, want := range []string{`viewBox="0 0 560 560"`, `<path class="area" d="M`, `Z"/>`, `class="mk ring"`, ">10⁻³<", ">10⁸<", `<text class="alt"`,
		`<rect class="area" x="1" y="2" width="26" height="10"/>`} {
		if !strings.Contains(svg, want) {
			t.Errorf("SVG lacks %s", want)
		}
	}
	if n := strings.Count(svg, `<rect class="mk ring"`); n != 3 { // two points with markers, one legend key
		t.Errorf("%d hollow square markers, want 3 (the NoMarker point has none)", n)
	}
	if i, j := strings.Index(svg, `class="area"`), strings.Index(svg, `class="mk`); i > j {
		t.Errorf("the band is drawn after the markers; it must be behind them")
	}
}
