package html

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tlsbench/tlsbench/report"
	"github.com/tlsbench/tlsbench/results"
)

// The stacked phase chart: the client's phases of a median handshake
// laid end to end, and the server's own handshake beside them.
var (
	clientStack = []string{results.PhaseConnect, results.PhaseHandshake, results.PhaseFirstByte}
	stackLabels = []string{"connect", "handshake", "first byte", "server handshake"}
)

// phaseChart draws, per handshake case and run, a bar of the p50s of
// connect, handshake and first byte stacked, and under it a bar of the
// server's handshake p50 when the server reported it.
func phaseChart(runs []Run) string {
	c := &stackChart{xLabel: "p50 of each phase", segments: stackLabels, runs: runNames(runs)}
	idx := map[string]int{}
	eachRecord(runs, func(ri int, r *results.Record) {
		if r.Kind == results.KindThroughput || report.SearchRecord(r) || !slices.ContainsFunc(clientStack, func(n string) bool { return r.Phases[n].Count > 0 }) {
			return
		}
		name := strings.TrimPrefix(report.CaseLabel(r), "handshake/")
		ci, ok := idx[name]
		if !ok {
			ci = len(c.categories)
			idx[name] = ci
			c.categories = append(c.categories, name)
			c.bars = append(c.bars, make([][]stackBar, len(runs)))
		}
		client := stackBar{state: stateOf(r)}
		for i, n := range clientStack {
			client.add(i, r.Phases[n])
		}
		bars := []stackBar{client}
		if p, ok := r.Phases[results.PhaseServerHandshake]; ok && p.Count > 0 {
			server := stackBar{state: client.state}
			server.add(len(clientStack), p)
			bars = append(bars, server)
		}
		c.bars[ci][ri] = bars
	})
	c.tip = func(ci, ri int, seg stackSegment) string {
		return fmt.Sprintf("%s%s: %s p50 %s", c.categories[ci], runSuffix(runs, ri), stackLabels[seg.label], timeQ.num(seg.value))
	}
	return c.svg()
}

// stackBar is one bar of a stacked chart: its segments, left to right.
type stackBar struct {
	segs []stackSegment
	// state is "" for a result, or why the case is not one: its
	// segments are hatched grey, and labelled.
	state string
}

type stackSegment struct {
	label int // index into the chart's segments, which gives its color
	value float64
}

// add appends a phase's p50 as segment label; a phase that never
// happened adds nothing.
func (b *stackBar) add(label int, p results.Phase) {
	if p.Count > 0 && report.FiniteAll(p.P50US) && p.P50US >= 0 {
		b.segs = append(b.segs, stackSegment{label, p.P50US})
	}
}

func (b stackBar) total() float64 {
	sum := 0.0
	for _, s := range b.segs {
		sum += s.value
	}
	return sum
}

// stackChart is a horizontal stacked bar chart: per category (a case)
// and run, one or more bars of segments.
type stackChart struct {
	xLabel     string
	categories []string
	segments   []string // segment names, by label index
	runs       []string
	bars       [][][]stackBar // [category][run] bars
	tip        func(cat, run int, seg stackSegment) string
}

// rows returns the number of bars of category ci, over its runs.
func (c *stackChart) rows(ci int) int {
	n := 0
	for _, bars := range c.bars[ci] {
		n += len(bars)
	}
	return max(n, 1)
}

func (c *stackChart) svg() string {
	var totals []float64
	for ci := range c.categories {
		for _, bars := range c.bars[ci] {
			for _, b := range bars {
				totals = append(totals, b.total())
			}
		}
	}
	if len(totals) == 0 {
		return ""
	}
	const barH, rowGap = 12.0, 10.0
	left := categoryLeft(c.categories)
	top := plotTop + 4
	bottom := top
	for ci := range c.categories {
		bottom += float64(c.rows(ci))*barH + rowGap
	}
	sx := newScale(axisLinear, totals, 0, left, plotRight, plainNum)
	sx.useUnits(timeQ)
	var w svgWriter
	w.barAxes(sx, top, bottom, left, c.xLabel)
	y := top
	for ci, cat := range c.categories {
		rowH := float64(c.rows(ci))*barH + rowGap
		w.text(left-8, y+rowH/2+4, "end", "tick", cat)
		y += rowH
	}
	w.s(`<g class="plot">`, "\n")
	y = top + rowGap/2
	for ci := range c.categories {
		drawn := 0
		for ri, bars := range c.bars[ci] {
			for _, b := range bars {
				c.drawBar(&w, sx, y, barH, ci, ri, b)
				y += barH
				drawn++
			}
		}
		y += float64(c.rows(ci)-drawn)*barH + rowGap
	}
	w.s("</g>\n")
	items := make([]legendItem, len(c.segments))
	for i, name := range c.segments {
		items[i] = legendItem{label: name, color: i, bar: true}
	}
	if c.anyState() {
		items = append(items, legendItem{label: "FAILED: not a result (see the results tables)", bar: true, state: stateFailed})
	}
	lh := w.legend(bottom+42, items, c.runs, true)
	return svgOpen(bottom+42+lh) + w.sb.String() + "</svg>\n"
}

func (c *stackChart) anyState() bool {
	for _, byRun := range c.bars {
		for _, bars := range byRun {
			for _, b := range bars {
				if b.state != "" {
					return true
				}
			}
		}
	}
	return false
}

// drawBar draws one bar's segments end to end from x = 0.
func (c *stackChart) drawBar(w *svgWriter, sx *scale, y, barH float64, ci, ri int, b stackBar) {
	at := 0.0
	for _, seg := range b.segs {
		x0, _ := sx.pos(at)
		at += seg.value
		x1, _ := sx.pos(at)
		attrs := `fill="` + color(seg.label) + `"`
		class := "mark bar"
		switch {
		case b.state != "":
			attrs = `fill="` + hatch + `" stroke="#777"`
			class += " " + stateClass(b.state)
		case dashed(ri, len(c.runs)):
			attrs += ` fill-opacity="0.35" stroke="` + color(seg.label) + `" stroke-dasharray="3 2"`
		}
		w.s(`<rect class="`, class, `" x="`, f1(x0), `" y="`, f1(y), `" width="`, f1(math.Max(x1-x0, 1)), `" height="`, f1(barH-1), `" `, attrs,
			`><title>`, esc(c.tip(ci, ri, seg)), "</title></rect>\n")
	}
	if b.state != "" {
		end, _ := sx.pos(at)
		w.text(end+6, y+barH/2+3, "start", "state", b.state)
	}
}
