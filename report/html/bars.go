package html

import (
	"math"

	"github.com/tlsbench/tlsbench/report"
)

// barChart is a horizontal grouped bar chart: one row per category (a
// case), one bar per group (client, server CPU) and run.
type barChart struct {
	xLabel     string
	xUnit      *quantity
	categories []string
	groups     []string
	runs       []string
	// value[category][group][run]; NaN for unknown (no bar).
	value [][][]float64
	// state[category][run] is "" for a result, or why the case is not
	// one: its bars are hatched grey and labelled, or (not run) a
	// placeholder stands for them.
	state [][]string
	tip   func(cat, group, run int) string
}

func (c *barChart) stateOf(cat, run int) string {
	if cat < len(c.state) && run < len(c.state[cat]) {
		return c.state[cat][run]
	}
	return ""
}

func (c *barChart) svg() string {
	var vals []float64
	for _, byGroup := range c.value {
		for _, byRun := range byGroup {
			for _, v := range byRun {
				if report.FiniteAll(v) && v >= 0 {
					vals = append(vals, v)
				}
			}
		}
	}
	if len(vals) == 0 {
		return ""
	}
	const barH, rowGap = 11.0, 10.0
	left := categoryLeft(c.categories)
	bars := len(c.groups) * len(c.runs)
	rowH := float64(bars)*barH + rowGap
	top := plotTop + 4
	bottom := top + rowH*float64(len(c.categories))
	sx := newScale(axisLinear, vals, 0, left, plotRight, plainNum)
	sx.useUnits(c.xUnit)

	var w svgWriter
	w.barAxes(sx, top, bottom, left, c.xLabel)
	for i, cat := range c.categories {
		y := top + rowH*float64(i) + rowH/2 + 4
		w.text(left-8, y, "end", "tick", cat)
	}
	w.s(`<g class="plot">`, "\n")
	anyState := false
	for i := range c.categories {
		row := top + rowH*float64(i) + rowGap/2
		for r := range c.runs {
			st := c.stateOf(i, r)
			anyState = anyState || st != ""
			end := left
			for g := range c.groups {
				// A group's bars together: baseline and candidate of
				// the client's CPU, then of the server's.
				y := row + float64(g*len(c.runs)+r)*barH
				v := c.value[i][g][r]
				if !report.FiniteAll(v) || v < 0 {
					continue
				}
				x1, _ := sx.pos(v)
				attrs := `fill="` + color(g) + `"`
				class := "mark bar"
				switch {
				case st != "":
					attrs = `fill="` + hatch + `" stroke="#777"`
					class += " " + stateClass(st)
				case dashed(r, len(c.runs)):
					attrs = `fill="` + color(g) + `" fill-opacity="0.35" stroke="` + color(g) + `" stroke-dasharray="3 2"`
				}
				// A zero value still gets a sliver, so that "measured as
				// 0" and "not measured" look different.
				w.s(`<rect class="`, class, `" x="`, f1(left), `" y="`, f1(y), `" width="`, f1(math.Max(x1-left, 1)), `" height="`, f1(barH-1), `" `, attrs, `><title>`, esc(c.tip(i, g, r)), "</title></rect>\n")
				end = math.Max(end, left+math.Max(x1-left, 1))
			}
			if st != "" {
				w.statePlaceholder(st, c.categories[i]+runSuffixOf(c.runs, r)+": "+st+" (see Notes)", left, end, row+float64(r)*barH, barH)
			}
		}
	}
	w.s("</g>\n")
	items := make([]legendItem, len(c.groups))
	for g, name := range c.groups {
		items[g] = legendItem{label: name, color: g, bar: true}
	}
	if anyState {
		items = append(items, legendItem{label: "FAILED, not run: not a result (see the results tables)", bar: true, state: stateFailed})
	}
	lh := w.legend(bottom+42, items, c.runs, true)
	return svgOpen(bottom+42+lh) + w.sb.String() + "</svg>\n"
}

// runSuffixOf names run r of names in a label, when there are two.
func runSuffixOf(names []string, r int) string {
	if len(names) < 2 {
		return ""
	}
	return " (" + names[r] + ")"
}

// categoryLeft is where the bars of a bar chart start: right of the
// longest category label, within bounds.
func categoryLeft(categories []string) float64 {
	labelW := 0.0
	for _, cat := range categories {
		labelW = math.Max(labelW, float64(len([]rune(cat)))*labelCharW)
	}
	return math.Min(math.Max(labelW+12, plotLeft), 440)
}

// barAxes draws the grid, ticks and label of a horizontal bar chart.
func (w *svgWriter) barAxes(sx *scale, top, bottom, left float64, label string) {
	w.s(`<g class="axes">`, "\n")
	for _, t := range sx.ticks {
		x, ok := sx.pos(t)
		if !ok {
			continue
		}
		w.s(`<line class="grid" x1="`, f1(x), `" y1="`, f1(top), `" x2="`, f1(x), `" y2="`, f1(bottom), `"/>`, "\n")
		w.text(x, bottom+16, "middle", "tick", sx.tickLabel(t))
	}
	w.s(`<line class="axis" x1="`, f1(left), `" y1="`, f1(top), `" x2="`, f1(left), `" y2="`, f1(bottom), `"/>`, "\n")
	w.text((left+plotRight)/2, bottom+34, "middle", "label", label)
	w.s("</g>\n")
}

// statePlaceholder labels the bars of a case that is not a result, after
// their end; a case not run, which has no bars, gets a hatched
// placeholder of its own.
func (w *svgWriter) statePlaceholder(state, tip string, left, end, y, h float64) {
	if end <= left {
		end = left + 36
		w.s(`<rect class="mark notrun" x="`, f1(left), `" y="`, f1(y), `" width="36" height="`, f1(h-1), `" fill="`, hatch, `" stroke="#999"><title>`, esc(tip), "</title></rect>\n")
	}
	w.text(end+6, y+h/2+4, "start", "state", state)
}
