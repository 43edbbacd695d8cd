package meter_test

import (
	"fmt"

	"github.com/wattscale/wattscale/scripts/measure/meter"
)

// A GPU read every 0.5 s ramps from 100 W to 200 W over 2 s; one reading is
// missing and is bridged. The energy of the ramp and of its two halves.
func ExampleSeries_Integral() {
	s, _ := meter.NewSeries([]float64{0, 0.5, 1.5, 2}, []float64{100, 125, 175, 200})
	fmt.Printf("run %.1f J = %.1f J + %.1f J\n", s.Integral(0, 2), s.Integral(0, 1), s.Integral(1, 2))
	// Output: run 300.0 J = 125.0 J + 175.0 J
}

func ExampleParseMarker() {
	for _, line := range []string{"INFO wattscale:stage teacher tokens=1.5e6", "wattscale:tokens 4096", "epoch 1 done"} {
		m, ok, err := meter.ParseMarker(line)
		fmt.Printf("%q: marker %v, stage %q, tokens %g, err %v\n", line, ok, m.Stage, m.Tokens, err)
	}
	// Output:
	// "INFO wattscale:stage teacher tokens=1.5e6": marker true, stage "teacher", tokens 1.5e+06, err <nil>
	// "wattscale:tokens 4096": marker true, stage "", tokens 4096, err <nil>
	// "epoch 1 done": marker false, stage "", tokens 0, err <nil>
}

func ExampleTimeline() {
	evs := []meter.Event{
		{T: 2, Marker: meter.Marker{Stage: "train", Tokens: 1000}},
		{T: 8, Marker: meter.Marker{Stage: "eval"}},
	}
	segs, _, tokens, _ := meter.Timeline(evs, 0, 10, "prerun")
	for _, s := range segs {
		fmt.Printf("%s %g–%g s, %g tokens\n", s.Stage, s.FromS, s.ToS, tokens[s.Stage])
	}
	// Output:
	// prerun 0–2 s, 0 tokens
	// train 2–8 s, 1000 tokens
	// eval 8–10 s, 0 tokens
}
