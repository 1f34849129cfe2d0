package html

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/tlsbench/tlsbench/report"
)

// Figures are recorded in one unit (µs, bytes, MB/s) whatever their size;
// the page shows them in the unit that suits their size, so that an axis
// tick reads "500 ms" rather than "500000 µs". An axis of a linear scale
// takes one unit for all its ticks (the largest tick's), so that the ticks
// read as a ruler; a log axis, whose ticks span decades, takes each tick's
// own.

// unitStep is one unit of a quantity: its name and how many of the
// recorded unit it holds.
type unitStep struct {
	factor float64
	name   string
}

// quantity is what a figure measures: its units, smallest (the recorded
// one) first, and what it is per ("/s", "/hs").
type quantity struct {
	units []unitStep
	per   string
}

var (
	// timeQ: recorded in µs.
	timeQ = &quantity{units: []unitStep{{1, "µs"}, {1e3, "ms"}, {1e6, "s"}}}
	// bytesQ: recorded in bytes; decimal units, as MB/s is.
	bytesQ = &quantity{units: []unitStep{{1, "B"}, {1e3, "KB"}, {1e6, "MB"}, {1e9, "GB"}}}
	// mbpsQ: recorded in MB/s.
	mbpsQ = &quantity{units: []unitStep{{1e-3, "KB"}, {1, "MB"}, {1e3, "GB"}}, per: "/s"}
)

// unitFor is the largest unit of which ref is at least one.
func (q *quantity) unitFor(ref float64) unitStep {
	u := q.units[0]
	for _, s := range q.units[1:] {
		if math.Abs(ref) >= s.factor*0.9995 {
			u = s
		}
	}
	return u
}

// tick labels an axis value in unit u: the shortest decimal of the value
// rounded to six significant digits (ticks are round numbers).
func (q *quantity) tick(v float64, u unitStep) string {
	if v == 0 {
		return "0"
	}
	x, err := strconv.ParseFloat(strconv.FormatFloat(v/u.factor, 'g', 6, 64), 64)
	if err != nil {
		x = v / u.factor
	}
	return plainNum(x) + "\u00a0" + u.name + q.per
}

// num formats a measurement in the unit that suits it, for a tooltip.
func (q *quantity) num(v float64) string {
	if !report.FiniteAll(v) {
		return report.Null
	}
	u := q.unitFor(v)
	return report.Num(v/u.factor) + " " + u.name + q.per
}

// useUnits makes the scale label its ticks in q's units.
func (s *scale) useUnits(q *quantity) {
	if q == nil {
		return
	}
	if s.kind != axisLinear {
		s.tickLabel = func(v float64) string { return q.tick(v, q.unitFor(v)) }
		return
	}
	top := 0.0
	for _, t := range s.ticks {
		top = math.Max(top, math.Abs(t))
	}
	u := q.unitFor(top)
	s.tickLabel = func(v float64) string { return q.tick(v, u) }
}

// columnUnits are the units of the tables' columns that the page scales:
// the unit as the table states it, the recorded one within it, and its
// quantity.
var columnUnits = []struct {
	recorded string
	q        *quantity
}{
	{"µs", timeQ},
	{"B", bytesQ},
}

// cellNumbers matches a cell of numbers only: one, or several joined by
// " ± ", " / " or "–" (mean ± error, p50 / p99, a range).
var cellNumbers = regexp.MustCompile(`^-?[0-9]+(?:\.[0-9]+)?(?:(?: ± | / |–)-?[0-9]+(?:\.[0-9]+)?)*$`)

var number = regexp.MustCompile(`-?[0-9]+(?:\.[0-9]+)?`)

// columnScaleMin is the largest value of a column below which it keeps
// the recorded unit: four digits read well, five do not.
const columnScaleMin = 10000

// scaleColumn returns a column's unit and cells in the unit that suits
// its largest value, when its unit is a time in µs or a size in bytes and
// every cell is numbers (or unknown); otherwise it returns them as they
// are.
func scaleColumn(unit string, cells []string) (string, []string) {
	for _, cu := range columnUnits {
		words := strings.Fields(unit)
		at := -1
		for i, w := range words {
			if w == cu.recorded || strings.HasPrefix(w, cu.recorded+"/") {
				at = i
			}
		}
		if at < 0 {
			continue
		}
		top := 0.0
		for _, c := range cells {
			if c == report.Null || c == "" {
				continue
			}
			if !cellNumbers.MatchString(c) {
				return unit, cells
			}
			for _, n := range number.FindAllString(c, -1) {
				v, _ := strconv.ParseFloat(n, 64)
				top = math.Max(top, math.Abs(v))
			}
		}
		if top < columnScaleMin {
			return unit, cells
		}
		u := cu.q.unitFor(top)
		words[at] = u.name + strings.TrimPrefix(words[at], cu.recorded)
		out := make([]string, len(cells))
		for i, c := range cells {
			out[i] = number.ReplaceAllStringFunc(c, func(n string) string {
				v, _ := strconv.ParseFloat(n, 64)
				return report.Num(v / u.factor)
			})
		}
		return strings.Join(words, " "), out
	}
	return unit, cells
}
