package stats_test

import (
	"fmt"
	"math"

	"github.com/wattscale/wattscale/model/fit/stats"
)

// Energy per run against tokens processed: a straight line with an
// intercept, fitted by OLS, then a 95 % prediction interval for a new run.
// The printed values agree with an exact rational computation of the
// simple-regression formulas and t₀.₉₇₅(6) = 2.4469.
func ExampleOLS() {
	tokensM := []float64{1, 2, 3, 4, 5, 6, 7, 8}                       // millions of tokens
	energyKWh := []float64{3.1, 4.9, 7.2, 8.8, 11.1, 13.0, 14.8, 17.2} // measured energy
	X := make([][]float64, len(tokensM))
	for i, t := range tokensM {
		X[i] = []float64{1, t} // intercept column, then the regressor
	}
	r, err := stats.OLS(X, energyKWh, []string{"const", "tokens_M"}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for j, name := range r.Names {
		fmt.Printf("%-8s %6.3f ± %.3f kWh\n", name, r.Coef[j], r.SE[j])
	}
	fmt.Printf("R2 %.4f, sigma %.3f kWh, DOF %d\n", r.R2, r.Sigma, r.DOF)
	lo, hi := r.PredictInterval([]float64{1, 10}, 0.95)
	fmt.Printf("10 M tokens: %.2f to %.2f kWh\n", lo, hi)

	_, err = stats.OLS(X[:2], energyKWh[:2], nil, nil)
	fmt.Println(err)

	bad := append([]float64(nil), energyKWh...)
	bad[3] = math.NaN()
	_, err = stats.OLS(X, bad, nil, nil)
	fmt.Println(err)
	// Output:
	// const     1.018 ± 0.138 kWh
	// tokens_M  1.999 ± 0.027 kWh
	// R2 0.9989, sigma 0.177 kWh, DOF 6
	// 10 M tokens: 20.42 to 21.60 kWh
	// fit: need at least 3 rows for 2 columns, got 2
	// fit: y[3] is NaN
}
