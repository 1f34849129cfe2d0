package report

import (
	"fmt"
	"math"
	"strconv"
)

// Null is how every format for people (table, markdown, html) shows a value
// that is unknown (null in the results file): never as 0. The csv format
// leaves such a cell empty instead, the csv convention for a missing value.
const Null = "—"

// Num formats a measurement for people: at least three significant digits
// for values from 0.01 up, never an exponent, and no digits below 1 once
// the value is 100 or more (1234 µs, 45.7 µs, 3.46 µs, 0.512 µs).
func Num(v float64) string {
	a := math.Abs(v)
	var prec int
	switch {
	case a == 0:
		return "0"
	case a >= 99.95:
		prec = 0
	case a >= 9.995:
		prec = 1
	case a >= 0.9995:
		prec = 2
	default:
		prec = 3
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

func numPtr(v *float64) string {
	if v == nil {
		return Null
	}
	return Num(*v)
}

// Integer formats v rounded to a whole number (bytes, counts).
func Integer(v float64) string {
	return strconv.FormatFloat(math.Round(v), 'f', 0, 64)
}

// Percent formats a fraction (0..1) as a percentage with at most one
// decimal. It never rounds a rate that is not exactly 0 or 1 to "0%" or
// "100%": a resumption rate of 99.96% must not read as complete.
func Percent(frac float64) string {
	p := frac * 100
	s := strconv.FormatFloat(p, 'f', 1, 64)
	switch {
	case s == "100.0" && p < 100:
		return ">99.9%"
	case s == "0.0" && p > 0:
		return "<0.1%"
	}
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		s = s[:len(s)-2]
	}
	return s + "%"
}

// BufferSize formats a buffer size in bytes: "16 KiB" for whole KiB and
// MiB, plain bytes otherwise.
func BufferSize(n int) string {
	switch {
	case n == 0:
		return Null
	case n%(1<<20) == 0:
		return strconv.Itoa(n>>20) + " MiB"
	case n%(1<<10) == 0:
		return strconv.Itoa(n>>10) + " KiB"
	}
	return strconv.Itoa(n) + " B"
}

func OnOff(b *bool) string {
	switch {
	case b == nil:
		return Null
	case *b:
		return "on"
	}
	return "off"
}

// ThresholdPercent formats a gate threshold as it was likely given ("5%").
func ThresholdPercent(f float64) string {
	return fmt.Sprintf("%g%%", math.Round(f*100*1e6)/1e6)
}

func FiniteAll(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}
