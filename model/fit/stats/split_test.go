package stats

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// checkPartition fails unless every split's Train and Test are sorted,
// disjoint and together hold exactly the rows 0 … n−1.
func checkPartition(t *testing.T, splits []Split, n int) {
	t.Helper()
	for f, s := range splits {
		if !slices.IsSorted(s.Train) || !slices.IsSorted(s.Test) {
			t.Errorf("split %d: Train or Test not sorted", f)
		}
		if len(s.Test) == 0 || len(s.Train) == 0 {
			t.Errorf("split %d: %d train and %d test rows, want both non-empty", f, len(s.Train), len(s.Test))
		}
		all := slices.Sorted(slices.Values(append(slices.Clone(s.Train), s.Test...)))
		if len(all) != n {
			t.Errorf("split %d: %d rows in Train ∪ Test, want %d", f, len(all), n)
			continue
		}
		for i, row := range all {
			if row != i {
				t.Errorf("split %d: Train ∪ Test is not a partition of 0…%d (row %d seen at position %d)", f, n-1, row, i)
				break
			}
		}
	}
}

// checkTestCover fails unless every row is in exactly one test fold.
func checkTestCover(t *testing.T, splits []Split, n int) {
	t.Helper()
	count := make([]int, n)
	for _, s := range splits {
		for _, row := range s.Test {
			count[row]++
		}
	}
	for row, c := range count {
		if c != 1 {
			t.Errorf("row %d is in %d test folds, want 1", row, c)
		}
	}
}

// checkGroupDisjoint fails if a group label has rows on both sides of a split.
func checkGroupDisjoint(t *testing.T, splits []Split, groups []string) {
	t.Helper()
	for f, s := range splits {
		inTest := map[string]bool{}
		for _, row := range s.Test {
			inTest[groups[row]] = true
		}
		for _, row := range s.Train {
			if inTest[groups[row]] {
				t.Errorf("split %d: group %q is in both train and test", f, groups[row])
				break
			}
		}
	}
}

// unevenGroups labels n rows with up to g groups whose sizes grow roughly
// linearly with the group number, interleaved so that no group is a
// contiguous block of rows.
func unevenGroups(n, g int) []string {
	out := make([]string, n)
	for i := range out {
		j := (i * 7919) % n // a permutation of the rows when n is not a multiple of 7919
		out[j] = fmt.Sprintf("g%d", int(float64(g)*math.Sqrt(float64(i)/float64(n))))
	}
	return out
}

func TestGroupKFold(t *testing.T) {
	tests := []struct {
		name   string
		groups []string
		k      int
	}{
		{"uneven groups", unevenGroups(200, 13), 5},
		{"k equals groups", unevenGroups(40, 4), 4},
		{"one row per group", unevenGroups(10, 1000), 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			splits, err := GroupKFold(tc.groups, tc.k, 7)
			if err != nil {
				t.Fatalf("GroupKFold error: %v", err)
			}
			if len(splits) != tc.k {
				t.Fatalf("GroupKFold returned %d splits, want %d", len(splits), tc.k)
			}
			checkPartition(t, splits, len(tc.groups))
			checkTestCover(t, splits, len(tc.groups))
			checkGroupDisjoint(t, splits, tc.groups)
			again, _ := GroupKFold(tc.groups, tc.k, 7)
			if !reflect.DeepEqual(splits, again) {
				t.Errorf("GroupKFold with the same seed gave different splits")
			}
		})
	}
	// Equal-sized groups dealt to the lightest fold: every fold gets the
	// same number of groups.
	groups := make([]string, 60)
	for i := range groups {
		groups[i] = fmt.Sprintf("g%d", i/5) // 12 groups of 5 rows
	}
	splits, err := GroupKFold(groups, 4, 3)
	if err != nil {
		t.Fatalf("GroupKFold error: %v", err)
	}
	for f, s := range splits {
		if len(s.Test) != 15 {
			t.Errorf("fold %d has %d test rows, want 15 (3 groups of 5)", f, len(s.Test))
		}
	}
	other, _ := GroupKFold(groups, 4, 4)
	if reflect.DeepEqual(splits, other) {
		t.Errorf("GroupKFold with seeds 3 and 4 gave identical splits")
	}
}

func TestGroupShuffleSplits(t *testing.T) {
	groups := unevenGroups(300, 20)
	splits, err := GroupShuffleSplits(groups, 20, 0.3, 11)
	if err != nil {
		t.Fatalf("GroupShuffleSplits error: %v", err)
	}
	if len(splits) != 20 {
		t.Fatalf("GroupShuffleSplits returned %d splits, want 20", len(splits))
	}
	labels, _ := groupRows(groups)
	checkPartition(t, splits, len(groups))
	checkGroupDisjoint(t, splits, groups)
	distinct := map[string]bool{}
	for r, s := range splits {
		inTest := map[string]bool{}
		for _, row := range s.Test {
			inTest[groups[row]] = true
		}
		// round(0.3·G) groups in test.
		if want := int(math.Round(0.3 * float64(len(labels)))); len(inTest) != want {
			t.Errorf("repeat %d has %d test groups, want %d of %d", r, len(inTest), want, len(labels))
		}
		distinct[fmt.Sprint(s.Test)] = true
	}
	if len(distinct) < 15 {
		t.Errorf("20 repeats gave only %d distinct test sets, want at least 15", len(distinct))
	}
	again, _ := GroupShuffleSplits(groups, 20, 0.3, 11)
	if !reflect.DeepEqual(splits, again) {
		t.Errorf("GroupShuffleSplits with the same seed gave different splits")
	}
	// Extreme fractions still leave at least one group on each side.
	for _, frac := range []float64{0.001, 0.999} {
		s, err := GroupShuffleSplits([]string{"a", "a", "b", "c"}, 3, frac, 1)
		if err != nil {
			t.Fatalf("GroupShuffleSplits(frac %v) error: %v", frac, err)
		}
		checkPartition(t, s, 4)
	}
}

func TestSplitErrors(t *testing.T) {
	groups := []string{"a", "a", "b", "c"}
	tests := []struct {
		name string
		call func() ([]Split, error)
		want string
	}{
		{"GroupKFold k < 2", func() ([]Split, error) { return GroupKFold(groups, 0, 0) }, "need at least 2 folds, got 0"},
		{"GroupKFold k > groups", func() ([]Split, error) { return GroupKFold(groups, 4, 0) }, "need at least 4 groups for 4 folds, got 3"},
		{"GroupKFold no rows", func() ([]Split, error) { return GroupKFold(nil, 2, 0) }, "need at least 2 groups for 2 folds, got 0"},
		{"GroupShuffleSplits no repeats", func() ([]Split, error) { return GroupShuffleSplits(groups, 0, 0.3, 0) }, "need at least 1 repeat, got 0"},
		{"GroupShuffleSplits frac 0", func() ([]Split, error) { return GroupShuffleSplits(groups, 5, 0, 0) }, "test fraction must be in (0, 1), got 0"},
		{"GroupShuffleSplits frac 1", func() ([]Split, error) { return GroupShuffleSplits(groups, 5, 1, 0) }, "test fraction must be in (0, 1), got 1"},
		{"GroupShuffleSplits one group", func() ([]Split, error) { return GroupShuffleSplits([]string{"a", "a"}, 5, 0.3, 0) }, "need at least 2 groups, got 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := tc.call()
			if err == nil {
				t.Fatalf("got %d splits, nil error; want error containing %q", len(s), tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "fit: ") {
				t.Errorf("error = %q, want it to start with \"fit: \" and contain %q", err, tc.want)
			}
		})
	}
}

func BenchmarkGroupKFold(b *testing.B) {
	groups := unevenGroups(10000, 200)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := GroupKFold(groups, 5, 1); err != nil {
			b.Fatal(err)
		}
	}
}
