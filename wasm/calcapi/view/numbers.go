package view

import (
	"math"
	"strconv"
	"strings"
)

// Number formatting for the generated pages. Every function is
// deterministic (strconv only) and never prints NaN: a non-finite value
// prints as an em dash.

const dash = "—"

// Sig formats x to n significant digits without an exponent for
// magnitudes between 1e-4 and 1e6, using a true minus sign.
func Sig(x float64, n int) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return dash
	}
	if x == 0 {
		return "0"
	}
	a := math.Abs(x)
	var s string
	if a >= 1e-4 && a < 1e6 {
		decimals := n - 1 - int(math.Floor(math.Log10(a)))
		if decimals < 0 {
			decimals = 0
		}
		s = strconv.FormatFloat(x, 'f', decimals, 64)
	} else {
		s = strconv.FormatFloat(x, 'e', n-1, 64)
		mant, exp, _ := strings.Cut(s, "e")
		e, _ := strconv.Atoi(exp)
		s = mant + " × 10" + Superscript(e)
	}
	return Minus(s)
}

// Fixed formats x with d decimals and a true minus sign.
func Fixed(x float64, d int) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return dash
	}
	return Minus(strconv.FormatFloat(x, 'f', d, 64))
}

// Minus replaces a leading hyphen-minus by the minus sign U+2212.
func Minus(s string) string {
	if strings.HasPrefix(s, "-") {
		return "−" + s[1:]
	}
	return s
}

func Superscript(e int) string {
	const digits = "⁰¹²³⁴⁵⁶⁷⁸⁹"
	var b strings.Builder
	if e < 0 {
		b.WriteString("⁻")
		e = -e
	}
	for _, c := range strconv.Itoa(e) {
		b.WriteString(string([]rune(digits)[c-'0']))
	}
	return b.String()
}

// Grouped formats a whole number with thin-space thousands separators.
func Grouped(x float64) string {
	s := strconv.FormatFloat(math.Round(math.Abs(x)), 'f', 0, 64)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteString(",")
		}
		b.WriteRune(c)
	}
	if x < 0 {
		return "−" + b.String()
	}
	return b.String()
}

// KWh formats an energy in kWh: whole kWh with separators from 100 up,
// four significant digits below.
func KWh(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return dash
	}
	if math.Abs(x) >= 100 {
		return Grouped(x) + " kWh"
	}
	return Sig(x, 4) + " kWh"
}

// Count formats a count with a k, M, B or T suffix and three significant digits.
func Count(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return dash
	}
	for _, u := range []struct {
		v float64
		s string
	}{{1e12, " T"}, {1e9, " B"}, {1e6, " M"}, {1e3, " k"}} {
		if math.Abs(x) >= u.v {
			return TrimZeros(Sig(x/u.v, 3)) + u.s
		}
	}
	return TrimZeros(Sig(x, 3))
}

// TrimZeros drops trailing decimal zeros ("2.00" → "2").
func TrimZeros(s string) string {
	if !strings.Contains(s, ".") || strings.Contains(s, "×") {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// Duration formats seconds as s, min, h or days.
func Duration(sec float64) string {
	switch {
	case math.IsNaN(sec) || math.IsInf(sec, 0):
		return dash
	case sec < 120:
		return TrimZeros(Sig(sec, 3)) + " s"
	case sec < 2*3600:
		return TrimZeros(Sig(sec/60, 3)) + " min"
	case sec < 72*3600:
		return TrimZeros(Sig(sec/3600, 3)) + " h"
	}
	return TrimZeros(Sig(sec/86400, 3)) + " days"
}
