package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Split is one train/test partition of row indices. Train and Test are
// disjoint, sorted in increasing order, and together hold every row.
type Split struct{ Train, Test []int }

// newRand returns the package's seeded generator; the same seed always gives
// the same splits.
func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^0x9e37))
}

// GroupKFold returns k train/test splits that keep all rows with the same
// group label on the same side. The distinct labels are shuffled (seeded
// with seed) and dealt one at a time to the fold with the fewest rows so far
// (the lowest-numbered fold on a tie), which balances row counts; with
// groups of equal size this is plain round-robin dealing. Every row is in
// exactly one test fold. It returns an error when k < 2 or k exceeds the
// number of distinct groups.
func GroupKFold(groups []string, k int, seed uint64) ([]Split, error) {
	if k < 2 {
		return nil, fmt.Errorf("fit: need at least 2 folds, got %d", k)
	}
	labels, rowsOf := groupRows(groups)
	if k > len(labels) {
		return nil, fmt.Errorf("fit: need at least %d groups for %d folds, got %d", k, k, len(labels))
	}
	r := newRand(seed)
	r.Shuffle(len(labels), func(i, j int) { labels[i], labels[j] = labels[j], labels[i] })
	fold := make([]int, len(groups))
	load := make([]int, k)
	for _, label := range labels {
		f := 0
		for c := 1; c < k; c++ {
			if load[c] < load[f] {
				f = c
			}
		}
		for _, row := range rowsOf[label] {
			fold[row] = f
		}
		load[f] += len(rowsOf[label])
	}
	return splitsFromFolds(fold, k), nil
}

// GroupShuffleSplits returns repeats random group-disjoint train/test
// splits, each with round(testFrac·G) of the G distinct groups in the test
// set (at least 1 and at most G−1), for example 20 repeats at testFrac 0.3
// for repeated 70/30 splits by group. The fraction counts groups, not rows.
// All repeats come from one generator seeded with seed. It returns an error
// when repeats < 1, testFrac is not in (0, 1), or there are fewer than 2
// groups.
func GroupShuffleSplits(groups []string, repeats int, testFrac float64, seed uint64) ([]Split, error) {
	if repeats < 1 {
		return nil, fmt.Errorf("fit: need at least 1 repeat, got %d", repeats)
	}
	if !(testFrac > 0 && testFrac < 1) {
		return nil, fmt.Errorf("fit: test fraction must be in (0, 1), got %v", testFrac)
	}
	labels, rowsOf := groupRows(groups)
	g := len(labels)
	if g < 2 {
		return nil, fmt.Errorf("fit: need at least 2 groups, got %d", g)
	}
	nTest := int(math.Round(testFrac * float64(g)))
	nTest = min(max(nTest, 1), g-1)
	r := newRand(seed)
	out := make([]Split, repeats)
	inTest := make([]bool, len(groups))
	for rep := range out {
		r.Shuffle(g, func(i, j int) { labels[i], labels[j] = labels[j], labels[i] })
		clear(inTest)
		for _, label := range labels[:nTest] {
			for _, row := range rowsOf[label] {
				inTest[row] = true
			}
		}
		var s Split
		for row, t := range inTest {
			if t {
				s.Test = append(s.Test, row)
			} else {
				s.Train = append(s.Train, row)
			}
		}
		out[rep] = s
	}
	return out, nil
}

// groupRows returns the distinct labels in order of first appearance and
// the rows of each.
func groupRows(groups []string) ([]string, map[string][]int) {
	var labels []string
	rowsOf := map[string][]int{}
	for i, g := range groups {
		if _, ok := rowsOf[g]; !ok {
			labels = append(labels, g)
		}
		rowsOf[g] = append(rowsOf[g], i)
	}
	return labels, rowsOf
}

// splitsFromFolds turns a fold number per row into k splits with sorted
// index lists.
func splitsFromFolds(fold []int, k int) []Split {
	size := make([]int, k)
	for _, f := range fold {
		size[f]++
	}
	out := make([]Split, k)
	for f := range out {
		out[f] = Split{Train: make([]int, 0, len(fold)-size[f]), Test: make([]int, 0, size[f])}
	}
	for row, rf := range fold {
		for f := range out {
			if rf == f {
				out[f].Test = append(out[f].Test, row)
			} else {
				out[f].Train = append(out[f].Train, row)
			}
		}
	}
	return out
}
