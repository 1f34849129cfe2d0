package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tlsbench/tlsbench/results"
)

// phaseColumns are the phases of a record in the order a handshake
// passes through them, with their column titles; the server's come
// after the client's.
var phaseColumns = []struct{ name, title string }{
	{results.PhaseConnect, "connect"},
	{results.PhaseHandshake, "handshake"},
	{results.PhaseFirstByte, "first byte"},
	{results.PhaseFirstResponse, firstResponseTitle},
	{results.PhaseExchange, exchangeTitle},
	{results.PhaseTotal, "total"},
	{results.PhaseServerHandshake, "server handshake"},
	{results.PhaseServerKey, "server key"},
	{results.PhaseServerSessionStore, "server session store"},
}

// phaseLegend says what the phase table's columns are.
var phaseLegend = []string{
	"p50 / p99 of each phase of single handshakes, µs: connect (from the connection's start), handshake (from the first byte the client wrote), first byte (from the end of the handshake to the first byte read after it), total (the latency of the Handshakes table)",
	"server handshake: the built-in server's own time from accept to the end of its handshake; server key and server session store: its key manager's time per handshake that used it and its session store's time per operation; absent for other servers",
}

// firstResponseTitle is the phase table's column of the first-response
// phase, and firstResponseNote what it means, said when it is shown.
const (
	firstResponseTitle = "first response"
	firstResponseNote  = "first response: from the connection's start to the first byte of the answer to the request (its time to first response byte, which TLS 1.3 early data cuts); over QUIC there is no connect, and the handshake runs from the dial"
	exchangeTitle      = "exchange"
	exchangeNote       = "exchange: from the end of the handshake to the end of the exchange after it (the request written, its answer read): in the wall time per connection, not in the handshake figure"
)

// phaseTable is one row per handshake case that has phases, one column
// per phase any of them has: "p50 / p99" in µs, "-" where a case lacks
// the phase and "none" where it was measured but never happened (a TLS
// 1.3 resumption does not use the server's key manager).
func phaseTable(recs []*results.Record) *table {
	var with []*results.Record
	used := map[string]bool{}
	for _, r := range recs {
		has := false
		for _, c := range phaseColumns {
			if _, ok := r.Phases[c.name]; ok {
				used[c.name], has = true, true
			}
		}
		if has {
			with = append(with, r)
		}
	}
	if len(with) == 0 {
		return nil
	}
	t := &table{cols: []column{{"name", "", alignLeft}}}
	var names []string
	for _, c := range phaseColumns {
		if used[c.name] {
			names = append(names, c.name)
			t.cols = append(t.cols, column{c.title, "p50 / p99 µs", alignRight})
		}
	}
	for _, r := range with {
		row := []string{caseLabel(r)}
		for _, name := range names {
			row = append(row, phaseCell(r.Phases, name))
		}
		t.rows = append(t.rows, row)
	}
	return t
}

func phaseCell(phases map[string]results.Phase, name string) string {
	p, ok := phases[name]
	switch {
	case !ok:
		return null
	case p.Count == 0:
		return "none"
	}
	return num(p.P50US) + " / " + num(p.P99US)
}

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
	c := &stackChart{xLabel: "µs (p50 of each phase)", segments: stackLabels, runs: runNames(runs)}
	idx := map[string]int{}
	eachRecord(runs, func(ri int, r *results.Record) {
		if r.Kind == results.KindThroughput || searchRecord(r) || !slices.ContainsFunc(clientStack, func(n string) bool { return r.Phases[n].Count > 0 }) {
			return
		}
		name := strings.TrimPrefix(caseLabel(r), "handshake/")
		ci, ok := idx[name]
		if !ok {
			ci = len(c.categories)
			idx[name] = ci
			c.categories = append(c.categories, name)
			c.bars = append(c.bars, make([][]stackBar, len(runs)))
		}
		client := stackBar{}
		for i, n := range clientStack {
			client.add(i, r.Phases[n])
		}
		bars := []stackBar{client}
		if p, ok := r.Phases[results.PhaseServerHandshake]; ok && p.Count > 0 {
			server := stackBar{}
			server.add(len(clientStack), p)
			bars = append(bars, server)
		}
		c.bars[ci][ri] = bars
	})
	c.tip = func(ci, ri int, seg stackSegment) string {
		return fmt.Sprintf("%s%s: %s p50 %s µs", c.categories[ci], runSuffix(runs, ri), stackLabels[seg.label], num(seg.value))
	}
	return c.svg()
}

// stackBar is one bar of a stacked chart: its segments, left to right.
type stackBar struct{ segs []stackSegment }

type stackSegment struct {
	label int // index into the chart's segments, which gives its color
	value float64
}

// add appends a phase's p50 as segment label; a phase that never
// happened adds nothing.
func (b *stackBar) add(label int, p results.Phase) {
	if p.Count > 0 && finiteAll(p.P50US) && p.P50US >= 0 {
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
	labelW := 0.0
	for ci, cat := range c.categories {
		labelW = math.Max(labelW, float64(len([]rune(cat)))*6.2)
		for _, bars := range c.bars[ci] {
			for _, b := range bars {
				totals = append(totals, b.total())
			}
		}
	}
	if len(totals) == 0 {
		return ""
	}
	const barH, rowGap = 11.0, 10.0
	left := math.Min(math.Max(labelW+12, plotLeft), 330)
	top := plotTop + 4
	bottom := top
	for ci := range c.categories {
		bottom += float64(c.rows(ci))*barH + rowGap
	}
	sx := newScale(axisLinear, totals, 0, left, plotRight, plainNum)
	var w svgWriter
	w.s(`<g class="axes">`, "\n")
	for _, t := range sx.ticks {
		if x, ok := sx.pos(t); ok {
			w.s(`<line class="grid" x1="`, f1(x), `" y1="`, f1(top), `" x2="`, f1(x), `" y2="`, f1(bottom), `"/>`, "\n")
			w.text(x, bottom+16, "middle", "tick", plainNum(t))
		}
	}
	w.s(`<line class="axis" x1="`, f1(left), `" y1="`, f1(top), `" x2="`, f1(left), `" y2="`, f1(bottom), `"/>`, "\n")
	y := top
	for ci, cat := range c.categories {
		rowH := float64(c.rows(ci))*barH + rowGap
		w.text(left-8, y+rowH/2+4, "end", "tick", cat)
		y += rowH
	}
	w.text((left+plotRight)/2, bottom+34, "middle", "label", c.xLabel)
	w.s("</g>\n")
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
	lh := w.legend(bottom+42, items, c.runs, true)
	return svgOpen(bottom+42+lh) + w.sb.String() + "</svg>\n"
}

// drawBar draws one bar's segments end to end from x = 0.
func (c *stackChart) drawBar(w *svgWriter, sx *scale, y, barH float64, ci, ri int, b stackBar) {
	at := 0.0
	for _, seg := range b.segs {
		x0, _ := sx.pos(at)
		at += seg.value
		x1, _ := sx.pos(at)
		attrs := `fill="` + color(seg.label) + `"`
		if dashed(ri, len(c.runs)) {
			attrs += ` fill-opacity="0.35" stroke="` + color(seg.label) + `" stroke-dasharray="3 2"`
		}
		w.s(`<rect class="mark bar" x="`, f1(x0), `" y="`, f1(y), `" width="`, f1(math.Max(x1-x0, 1)), `" height="`, f1(barH-1), `" `, attrs,
			`><title>`, esc(c.tip(ci, ri, seg)), "</title></rect>\n")
	}
}
