package model_test

import (
	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
	"sort"
	"strconv"
)

func sortStrings(s []string) { sort.Strings(s) }
func itoa(i int) string      { return strconv.Itoa(i) }
func fmtSig(x float64) string {
	return strconv.FormatFloat(x, 'g', 6, 64)
}

func catalogForFuzz() (*model.Catalog, error) { return content.Catalog() }
