package stats

import (
	"fmt"
	"math"
	"sort"
)

// CVResult summarises held-out predictions in ln energy.
type CVResult struct {
	Method     string
	Groups     int
	Folds      int
	R2         float64 // 1 − SSE/SST of held-out ln energy
	RMSELn     float64
	Coverage   float64 // share of held-out rows inside the level interval
	MedianFold float64 // median of max(pred/actual, actual/pred)
	// HeldOut is each row's held-out ln prediction, averaged over the splits
	// that held it out; NaN for a row no split held out.
	HeldOut []float64
	// PooledRMSELn is the RMSE of HeldOut over the rows that have one.
	PooledRMSELn float64
}

// GroupCV scores held-out predictions against y (natural-log units, for
// example ln energy) with the rows of each group kept on one side of
// every split. With at least 5 groups it follows the paper's
// protocol: 20 repeated group-disjoint 70/30 splits, reporting the median
// held-out R² and RMSE over splits and the pooled interval coverage; with
// fewer groups it runs leave-one-group-out. fitPred returns the held-out ln
// predictions and the ln SD used for the interval.
func GroupCV(groups []string, level float64, fitPred func(train, test []int) ([]float64, float64, error), y []float64) (CVResult, error) {
	distinct := map[string]bool{}
	for _, g := range groups {
		distinct[g] = true
	}
	k := len(distinct)
	if k < 2 {
		return CVResult{}, fmt.Errorf("fit: cross-validation needs at least 2 workload groups, got %d", k)
	}
	var splits []Split
	var err error
	method := fmt.Sprintf("leave-one-group-out over %d workload groups", k)
	if k >= 5 {
		method = fmt.Sprintf("20 repeated group-disjoint 70/30 splits over %d workload groups (medians over splits)", k)
		splits, err = GroupShuffleSplits(groups, 20, 0.3, 1)
	} else {
		splits, err = GroupKFold(groups, k, 1)
	}
	if err != nil {
		return CVResult{}, err
	}
	z := NormalQuantile(0.5 + level/2)
	var folds, r2s, rmses []float64
	covered, total := 0, 0
	sum := make([]float64, len(y))
	cnt := make([]int, len(y))
	for _, s := range splits {
		p, sigma, err := fitPred(s.Train, s.Test)
		if err != nil {
			return CVResult{}, fmt.Errorf("fit: cross-validation split: %w", err)
		}
		ys := make([]float64, len(s.Test))
		for i, j := range s.Test {
			d := p[i] - y[j]
			ys[i] = y[j]
			sum[j] += p[i]
			cnt[j]++
			folds = append(folds, math.Exp(math.Abs(d)))
			if math.Abs(d) <= z*sigma {
				covered++
			}
			total++
		}
		r2, rmse := R2RMSE(ys, p)
		if !math.IsNaN(r2) {
			r2s = append(r2s, r2)
		}
		rmses = append(rmses, rmse)
	}
	res := CVResult{Method: method, Groups: k, Folds: len(splits), Coverage: float64(covered) / float64(total), HeldOut: make([]float64, len(y))}
	var yh, ph []float64
	for j := range y {
		res.HeldOut[j] = math.NaN()
		if cnt[j] > 0 {
			res.HeldOut[j] = sum[j] / float64(cnt[j])
			yh, ph = append(yh, y[j]), append(ph, res.HeldOut[j])
		}
	}
	_, res.PooledRMSELn = R2RMSE(yh, ph)
	sort.Float64s(folds)
	res.MedianFold = Median(folds)
	if k >= 5 {
		sort.Float64s(r2s)
		sort.Float64s(rmses)
		res.R2, res.RMSELn = Median(r2s), Median(rmses)
	} else {
		res.R2, res.RMSELn = R2RMSE(yh, ph)
	}
	return res, nil
}

// R2RMSE returns 1 − SSE/SST and sqrt(SSE/n) of pred against y; R² is NaN
// when y is constant.
func R2RMSE(y, pred []float64) (r2, rmse float64) {
	var mean float64
	for _, v := range y {
		mean += v
	}
	mean /= float64(len(y))
	var sse, sst float64
	for i := range y {
		sse += (y[i] - pred[i]) * (y[i] - pred[i])
		sst += (y[i] - mean) * (y[i] - mean)
	}
	rmse = math.Sqrt(sse / float64(len(y)))
	if sst == 0 {
		return math.NaN(), rmse
	}
	return 1 - sse/sst, rmse
}

// AdjR2 is 1 − (1−r2)·(n−1)/(n−k) for n rows and k columns; NaN when n ≤ k.
func AdjR2(r2 float64, n, k int) float64 {
	if n-k <= 0 {
		return math.NaN()
	}
	return 1 - (1-r2)*float64(n-1)/float64(n-k)
}

// Median is the median of sorted values (NaN for none).
func Median(sorted []float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// NormalQuantile is the standard normal quantile of p in (0, 1), via the
// inverse error function.
func NormalQuantile(p float64) float64 { return math.Sqrt2 * math.Erfinv(2*p-1) }
