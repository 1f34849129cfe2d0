package html

import (
	"html"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tlsbench/tlsbench/report"
	"github.com/tlsbench/tlsbench/results"
)

// Charts of the HTML report are inline SVG written here, in Go: the page
// needs no script, no chart library to embed and keep up to date, and
// nothing from the network, and the same records always give the same
// bytes (which the golden test relies on). A chart is a figure with a
// caption and an svg whose data marks (lines, points, bars) carry the class
// "mark", so that a test can check that each chart drew something.

// palette is Tableau 10: distinguishable, and readable on white.
var palette = []string{
	"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
	"#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
}

func color(i int) string { return palette[i%len(palette)] }

// dashed reports whether run is drawn dashed: the baseline of an overlay.
// A single run, and the candidate, are solid.
func dashed(run, runs int) bool { return runs > 1 && run == 0 }

// axisKind is how an axis maps values to positions.
type axisKind int

const (
	axisLinear axisKind = iota // from 0 up; for times, rates and percentages
	axisLog2                   // concurrency, buffer sizes: ticks at the values present
	axisLog10                  // latency, which spans decades
	axisNines                  // percentiles, as x = -log10(1 - q/100): 0, 90, 99, 99.9 equally spaced
)

type xyPoint struct {
	x, y float64
	err  float64 // half-width of the error bar; 0 or NaN for none
	tip  string
	// state is "" for a result, or why the point is not one
	// (stateFailed, stateNotRun): it is drawn grey and labelled, apart
	// from its series' line. A case not run has no y. unlabelled leaves
	// out the state's label, for points of one case at one x.
	state      string
	unlabelled bool
}

type xySeries struct {
	label  string
	key    string // the label without its side: the legend's, the color's
	color  int
	run    int
	points []xyPoint
	// state is set for a series of one case that is not a result (a
	// percentile curve): its line is drawn grey and dotted, labelled.
	state string
}

type lineChart struct {
	xLabel, yLabel string
	xAxis, yAxis   axisKind
	xTick, yTick   func(float64) string
	// xUnit, yUnit, when set, label the ticks in the unit that suits
	// them (µs, ms, s), instead of xTick, yTick.
	xUnit, yUnit *quantity
	yFixedMax    float64 // when > 0 the linear y axis ends here (100 for %)
	series       []xySeries
	runs         []string // names of the runs, for the style legend
	refs         []refLine
}

// refLine is a reference drawn across the plot: a goal (horizontal, at a
// y value) or a point of the x axis (vertical), labelled where it is.
// Its class names what it marks ("slo", "sustained", "failed"), so that
// a test can find it; it is not a data mark.
type refLine struct {
	vertical bool
	value    float64
	label    string
	class    string
	dashed   bool
	// left puts a vertical line's label left of it, so that the labels
	// of two lines close together do not cover each other; row moves
	// it down by rows, for the lines of a second run.
	left bool
	row  int
}

// Geometry shared by every chart, in SVG user units (the svg scales to the
// page width through its viewBox: 1000 units are about the width of a
// laptop's window, so that the text keeps about its size).
const (
	chartW      = 1000.0
	plotLeft    = 92.0
	plotRight   = chartW - 24
	plotTop     = 14.0
	plotHeight  = 300.0
	legendRowH  = 20.0
	legendCharW = 7.2 // average width of a legend character at 12px
	labelCharW  = 6.8 // of a category label
)

// f1 formats a coordinate with one decimal: enough for the eye, and stable.
func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// transform maps a value to the axis's linear space; ok is false for a
// value the axis cannot show (zero or negative on a log axis).
func transform(a axisKind, v float64) (float64, bool) {
	if !report.FiniteAll(v) {
		return 0, false
	}
	switch a {
	case axisLog2:
		if v <= 0 {
			return 0, false
		}
		return math.Log2(v), true
	case axisLog10:
		if v <= 0 {
			return 0, false
		}
		return math.Log10(v), true
	}
	return v, true
}

// scale maps an axis's transformed domain [lo, hi] onto [p0, p1].
type scale struct {
	kind      axisKind
	lo, hi    float64 // transformed
	p0, p1    float64
	ticks     []float64 // untransformed
	tickLabel func(float64) string
}

func (s *scale) pos(v float64) (float64, bool) {
	t, ok := transform(s.kind, v)
	if !ok {
		return 0, false
	}
	p := s.p0 + (t-s.lo)/(s.hi-s.lo)*(s.p1-s.p0)
	// Values at the edge of float64 (a damaged or hostile results file)
	// are left out rather than written as NaN coordinates.
	return p, report.FiniteAll(p)
}

// niceStep is a round step (1, 2 or 5 times a power of ten) that divides
// span into about n intervals.
func niceStep(span float64, n int) float64 {
	if !(span > 0) || !report.FiniteAll(span) {
		return 1
	}
	raw := span / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	if !(mag > 0) || !report.FiniteAll(mag) { // subnormal span: no round step exists
		return raw
	}
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			return m * mag
		}
	}
	return 10 * mag
}

// newScale builds an axis for the values vs (already filtered to those the
// axis can show; at least one).
func newScale(kind axisKind, vs []float64, fixedMax float64, p0, p1 float64, label func(float64) string) *scale {
	if label == nil {
		label = plainNum
	}
	s := &scale{kind: kind, p0: p0, p1: p1, tickLabel: label}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		t, _ := transform(kind, v)
		lo, hi = math.Min(lo, t), math.Max(hi, t)
	}
	switch kind {
	case axisLinear:
		s.linearDomain(hi, fixedMax)
	case axisLog2:
		s.log2Domain(lo, hi, vs)
	case axisLog10:
		s.log10Domain(lo, hi)
	case axisNines:
		s.lo, s.hi = 0, math.Max(1, math.Ceil(hi-1e-9))
		for d := 0.0; d <= s.hi; d++ {
			s.ticks = append(s.ticks, d)
		}
	}
	return s
}

// linearDomain runs a linear axis from 0 to a round value at or above hi
// (and fixedMax, when set), with round ticks.
func (s *scale) linearDomain(hi, fixedMax float64) {
	top := hi
	if fixedMax > 0 {
		top = math.Max(top, fixedMax)
	}
	if !(top > 0) {
		top = 1
	}
	step := niceStep(top, 5)
	n := math.Ceil(top/step - 1e-9)
	s.lo, s.hi = 0, n*step
	if !report.FiniteAll(s.hi) || !(s.hi > 0) || n > 20 {
		// At the edge of float64 no round end exists.
		s.hi = top
		s.ticks = []float64{0, top}
		return
	}
	// Multiply rather than accumulate, and round to the step's decimals,
	// so that labels read 0.6 and not 0.6000000000000001.
	dec := math.Pow(10, math.Max(0, -math.Floor(math.Log10(step))))
	for i := 0.0; i <= n; i++ {
		v := i * step
		if r := math.Round(v*dec) / dec; report.FiniteAll(r) {
			v = r
		}
		s.ticks = append(s.ticks, v)
	}
}

// log2Domain pads the log2 span [lo, hi] of the values vs, with ticks at
// the values present.
func (s *scale) log2Domain(lo, hi float64, vs []float64) {
	if hi-lo < 1e-9 {
		lo, hi = lo-1, hi+1
	}
	pad := (hi - lo) * 0.06
	s.lo, s.hi = lo-pad, hi+pad
	uniq := slices.Compact(slices.Sorted(slices.Values(vs)))
	// Ticks at the values present, thinned if they would collide.
	stride := (len(uniq) + 11) / 12
	for i := 0; i < len(uniq); i += max(1, stride) {
		s.ticks = append(s.ticks, uniq[i])
	}
}

// log10Domain ends the log10 span [lo, hi] on round values (1, 2 or 5 times
// a power of ten) just outside the data, so that the curves fill the plot;
// ticks are those round values, or only the powers of ten when the data
// span more than three decades.
func (s *scale) log10Domain(lo, hi float64) {
	var steps []float64
	for d := math.Floor(lo) - 1; d <= math.Ceil(hi)+1; d++ {
		p := math.Pow(10, d)
		steps = append(steps, p, 2*p, 5*p)
	}
	bottom, top := steps[0], steps[len(steps)-1]
	for _, v := range steps {
		if math.Log10(v) <= lo+1e-9 {
			bottom = v
		}
	}
	for i := len(steps) - 1; i >= 0; i-- {
		if math.Log10(steps[i]) >= hi-1e-9 {
			top = steps[i]
		}
	}
	if top <= bottom {
		top = bottom * 10
	}
	s.lo, s.hi = math.Log10(bottom), math.Log10(top)
	decadesOnly := s.hi-s.lo > 3
	for _, v := range steps {
		l := math.Log10(v)
		if l < s.lo-1e-9 || l > s.hi+1e-9 {
			continue
		}
		if decadesOnly && math.Abs(l-math.Round(l)) > 1e-9 {
			continue
		}
		s.ticks = append(s.ticks, v)
	}
}

// plainNum labels a tick: the shortest decimal that reads back as t.
func plainNum(t float64) string { return strconv.FormatFloat(t, 'f', -1, 64) }

// ninesLabel labels a point of a nines axis as its percentile.
func ninesLabel(x float64) string {
	if x == 0 {
		return "0%"
	}
	q := 100 * (1 - math.Pow(10, -x))
	return strconv.FormatFloat(q, 'f', max(0, int(math.Round(x))-2), 64) + "%"
}

// svgWriter accumulates the markup of one chart.
type svgWriter struct{ sb strings.Builder }

func (w *svgWriter) s(parts ...string) {
	for _, p := range parts {
		w.sb.WriteString(p)
	}
}

// esc escapes text for element content and attribute values alike.
// Control characters (tab and newline kept), C1, bidirectional controls
// and bytes that are not UTF-8 are shown as escapes (results.PrintableLines):
// C0 controls are errors in HTML and forbidden in XML, and an override
// would reorder what a reader sees. The noncharacters U+FFFE and U+FFFF
// (which a results file can carry as JSON \u escapes) become U+FFFD, so
// that the page stays well-formed whatever the records hold.
func esc(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == 0xFFFE || r == 0xFFFF {
			return '\uFFFD'
		}
		return r
	}, results.PrintableLines(s))
	return html.EscapeString(s)
}

func (w *svgWriter) text(x, y float64, anchor, class, s string, extra ...string) {
	w.s(`<text x="`, f1(x), `" y="`, f1(y), `" text-anchor="`, anchor, `"`)
	if class != "" {
		w.s(` class="`, class, `"`)
	}
	for _, e := range extra {
		w.s(" ", e)
	}
	w.s(">", esc(s), "</text>\n")
}

type legendItem struct {
	label string
	color int
	bar   bool   // a filled square rather than a line
	state string // a series that is not a result: grey, dotted
}

// legend lays items out in rows under the plot and returns the height used.
func (w *svgWriter) legend(top float64, items []legendItem, runs []string, bars bool) float64 {
	x, y := plotLeft, top+legendRowH
	rows := 0
	place := func(width float64) {
		if x+width > chartW && x > plotLeft {
			x = plotLeft
			y += legendRowH
			rows++
		}
	}
	w.s(`<g class="legend">`, "\n")
	for _, it := range items {
		width := 28 + legendCharW*float64(len([]rune(it.label))) + 16
		place(width)
		switch {
		case it.bar && it.state != "":
			w.s(`<rect x="`, f1(x), `" y="`, f1(y-9), `" width="16" height="10" fill="`, hatch, `" stroke="#777"/>`, "\n")
		case it.bar:
			w.s(`<rect x="`, f1(x), `" y="`, f1(y-9), `" width="16" height="10" fill="`, color(it.color), `"/>`, "\n")
		case it.state != "":
			w.s(`<line x1="`, f1(x), `" y1="`, f1(y-4), `" x2="`, f1(x+20), `" y2="`, f1(y-4), `" stroke="#999" stroke-width="2.5" stroke-dasharray="2 3"/>`, "\n")
		default:
			w.s(`<line x1="`, f1(x), `" y1="`, f1(y-4), `" x2="`, f1(x+20), `" y2="`, f1(y-4), `" stroke="`, color(it.color), `" stroke-width="2.5"/>`, "\n")
		}
		w.text(x+26, y, "start", "", it.label)
		x += width
	}
	if len(runs) > 1 {
		// The style key: which line style is which run.
		for i, name := range runs {
			label := name
			width := 28 + legendCharW*float64(len([]rune(label))) + 16
			place(width)
			switch {
			case bars && dashed(i, len(runs)):
				w.s(`<rect x="`, f1(x), `" y="`, f1(y-9), `" width="16" height="10" fill="#333" fill-opacity="0.35" stroke="#333" stroke-dasharray="3 2"/>`, "\n")
			case bars:
				w.s(`<rect x="`, f1(x), `" y="`, f1(y-9), `" width="16" height="10" fill="#333"/>`, "\n")
			case dashed(i, len(runs)):
				w.s(`<line x1="`, f1(x), `" y1="`, f1(y-4), `" x2="`, f1(x+20), `" y2="`, f1(y-4), `" stroke="#333" stroke-width="2" stroke-dasharray="5 3"/>`, "\n")
			default:
				w.s(`<line x1="`, f1(x), `" y1="`, f1(y-4), `" x2="`, f1(x+20), `" y2="`, f1(y-4), `" stroke="#333" stroke-width="2"/>`, "\n")
			}
			w.text(x+26, y, "start", "", label)
			x += width
		}
	}
	w.s("</g>\n")
	return float64(rows+1)*legendRowH + 8
}

// svg renders the chart. It returns "" when no point can be drawn, so that
// the caller reports the chart as missing instead of showing an empty one.
func (c *lineChart) svg() string {
	xs, ys := c.drawable()
	if len(xs) == 0 {
		return ""
	}
	plotBottom := plotTop + plotHeight
	sx := newScale(c.xAxis, xs, 0, plotLeft, plotRight, c.xTick)
	sy := newScale(c.yAxis, ys, c.yFixedMax, plotBottom, plotTop, c.yTick)
	sx.useUnits(c.xUnit)
	sy.useUnits(c.yUnit)

	var w svgWriter
	w.axes(sx, sy, c.xLabel, c.yLabel)
	w.s(`<g class="plot">`, "\n")
	for _, s := range c.series {
		w.lineSeries(s, sx, sy, len(c.runs))
	}
	w.s("</g>\n")
	for _, r := range c.refs {
		w.ref(r, sx, sy)
	}

	var items []legendItem
	seen := map[string]bool{}
	for _, s := range c.series {
		if !seen[s.key] {
			seen[s.key] = true
			items = append(items, legendItem{label: s.key, color: s.color, state: s.state})
		}
	}
	if c.anyState() {
		items = append(items, legendItem{label: "FAILED, not run: not a result (see the results tables)", bar: true, state: stateFailed})
	}
	lh := w.legend(plotBottom+44, items, c.runs, false)
	height := plotBottom + 44 + lh
	return svgOpen(height) + w.sb.String() + "</svg>\n"
}

// anyState reports whether the chart draws a point or series that is
// not a result.
func (c *lineChart) anyState() bool {
	for _, s := range c.series {
		if s.state != "" {
			return true
		}
		for _, p := range s.points {
			if p.state != "" {
				return true
			}
		}
	}
	return false
}

// ref draws a reference line across the plot with its label, or nothing
// when its axis cannot place it.
func (w *svgWriter) ref(r refLine, sx, sy *scale) {
	plotBottom := plotTop + plotHeight
	dash := ""
	if r.dashed {
		dash = ` stroke-dasharray="6 4"`
	}
	w.s(`<g class="ref `, esc(r.class), `">`, "\n")
	if r.vertical {
		x, ok := sx.pos(r.value)
		if ok {
			w.s(`<line x1="`, f1(x), `" y1="`, f1(plotTop), `" x2="`, f1(x), `" y2="`, f1(plotBottom), `" stroke="#555" stroke-width="1.5"`, dash, `/>`, "\n")
			y := plotTop + 12 + 14*float64(r.row)
			if r.left {
				w.text(x-4, y, "end", "", r.label)
			} else {
				w.text(x+4, y, "start", "", r.label)
			}
		}
	} else if y, ok := sy.pos(r.value); ok {
		// Black, not a palette color: a goal is not a series. Its label
		// sits at the left, where the lowest rates rarely reach it.
		w.s(`<line x1="`, f1(plotLeft), `" y1="`, f1(y), `" x2="`, f1(plotRight), `" y2="`, f1(y), `" stroke="#111" stroke-width="1.5"`, dash, `/>`, "\n")
		w.text(plotLeft+6, y-5-14*float64(r.row), "start", "", r.label)
	}
	w.s("</g>\n")
}

// drawable returns the x and y values that the axes must show: every point
// both axes can place, the tops of its error bar, and the reference lines
// (a goal above every point must still be seen above them).
func (c *lineChart) drawable() (xs, ys []float64) {
	defer func() {
		if len(xs) == 0 {
			return // references alone are no chart
		}
		for _, r := range c.refs {
			if r.vertical {
				if _, ok := transform(c.xAxis, r.value); ok {
					xs = append(xs, r.value)
				}
			} else if _, ok := transform(c.yAxis, r.value); ok {
				ys = append(ys, r.value)
			}
		}
	}()
	for _, s := range c.series {
		for _, p := range s.points {
			_, okx := transform(c.xAxis, p.x)
			_, oky := transform(c.yAxis, p.y)
			if okx && p.state == stateNotRun {
				xs = append(xs, p.x) // drawn at the foot of the plot
				continue
			}
			if !okx || !oky {
				continue
			}
			xs = append(xs, p.x)
			ys = append(ys, p.y)
			if report.FiniteAll(p.err) && p.err > 0 {
				if _, ok := transform(c.yAxis, p.y+p.err); ok {
					ys = append(ys, p.y+p.err)
				}
			}
		}
	}
	return xs, ys
}

// axes draws the grid, the ticks and the labels of a line chart.
func (w *svgWriter) axes(sx, sy *scale, xLabel, yLabel string) {
	plotBottom := plotTop + plotHeight
	w.s(`<g class="axes">`, "\n")
	for _, t := range sy.ticks {
		y, ok := sy.pos(t)
		if !ok {
			continue
		}
		w.s(`<line class="grid" x1="`, f1(plotLeft), `" y1="`, f1(y), `" x2="`, f1(plotRight), `" y2="`, f1(y), `"/>`, "\n")
		w.text(plotLeft-6, y+4, "end", "tick", sy.tickLabel(t))
	}
	for _, t := range sx.ticks {
		x, ok := sx.pos(t)
		if !ok {
			continue
		}
		w.s(`<line class="tickmark" x1="`, f1(x), `" y1="`, f1(plotBottom), `" x2="`, f1(x), `" y2="`, f1(plotBottom+5), `"/>`, "\n")
		w.text(x, plotBottom+18, "middle", "tick", sx.tickLabel(t))
	}
	w.s(`<line class="axis" x1="`, f1(plotLeft), `" y1="`, f1(plotBottom), `" x2="`, f1(plotRight), `" y2="`, f1(plotBottom), `"/>`, "\n")
	w.s(`<line class="axis" x1="`, f1(plotLeft), `" y1="`, f1(plotTop), `" x2="`, f1(plotLeft), `" y2="`, f1(plotBottom), `"/>`, "\n")
	w.text((plotLeft+plotRight)/2, plotBottom+36, "middle", "label", xLabel)
	w.text(16, plotTop+plotHeight/2, "middle", "label", yLabel, `transform="rotate(-90 16 `+f1(plotTop+plotHeight/2)+`)"`)
	w.s("</g>\n")
}

// lineSeries draws one series: its line, and a marker (with its error bar)
// at each point that has a tooltip. A run drawn dashed has hollow markers.
// A point that is not a result is left out of the line and drawn grey
// and labelled (stateMarker); a series that is not one is drawn grey and
// dotted, labelled at its end.
func (w *svgWriter) lineSeries(s xySeries, sx, sy *scale, runs int) {
	stroke := color(s.color)
	dash := ""
	fill := stroke
	if dashed(s.run, runs) {
		dash = ` stroke-dasharray="5 3"`
		fill = "#fff"
	}
	class, pointClass := "mark line", "mark point"
	if s.state != "" {
		stroke, fill, dash = "#999", "#fff", ` stroke-dasharray="2 3"`
		class += " " + stateClass(s.state)
		pointClass += " " + stateClass(s.state)
	}
	var d strings.Builder
	n := 0
	var lastX, lastY float64
	for _, p := range s.points {
		x, okx := sx.pos(p.x)
		y, oky := sy.pos(p.y)
		if !okx || !oky || p.state != "" {
			continue
		}
		n++
		lastX, lastY = x, y
		if d.Len() == 0 {
			d.WriteString("M" + f1(x) + " " + f1(y))
		} else {
			d.WriteString(" L" + f1(x) + " " + f1(y))
		}
	}
	w.s(`<g class="series" data-label="`, esc(s.label), `" data-run="`, strconv.Itoa(s.run), `">`, "\n")
	if n > 1 {
		w.s(`<path class="`, class, `" d="`, d.String(), `" fill="none" stroke="`, stroke, `" stroke-width="2"`, dash, `/>`, "\n")
	}
	if n > 0 && s.state != "" {
		w.text(lastX-4, lastY-8, "end", "state", s.state)
	}
	for _, p := range s.points {
		x, okx := sx.pos(p.x)
		y, oky := sy.pos(p.y)
		if okx && p.state != "" {
			w.stateMarker(x, y, oky, p)
			continue
		}
		if !okx || !oky || p.tip == noMarker {
			continue
		}
		if report.FiniteAll(p.err) && p.err > 0 {
			w.errBar(x, p, sy, stroke)
		}
		w.s(`<circle class="`, pointClass, `" cx="`, f1(x), `" cy="`, f1(y), `" r="3.5" fill="`, fill, `" stroke="`, stroke, `" stroke-width="1.5"><title>`, esc(p.tip), "</title></circle>\n")
	}
	w.s("</g>\n")
}

// errBar draws the error bar of p at x, clipped to the bottom of the plot
// where it reaches below a log axis.
func (w *svgWriter) errBar(x float64, p xyPoint, sy *scale, stroke string) {
	plotBottom := plotTop + plotHeight
	hi, okh := sy.pos(p.y + p.err)
	lo, okl := sy.pos(p.y - p.err)
	if !okl { // below a log axis: clip to the bottom
		lo, okl = plotBottom, true
	}
	if !okh || !okl {
		return
	}
	lo = math.Min(lo, plotBottom)
	w.s(`<path class="errbar" d="M`, f1(x), " ", f1(hi), " V", f1(lo), " M", f1(x-4), " ", f1(hi), " H", f1(x+4),
		" M", f1(x-4), " ", f1(lo), " H", f1(x+4), `" stroke="`, stroke, `" stroke-width="1.2" fill="none"/>`, "\n")
}

func svgOpen(height float64) string {
	return `<svg viewBox="0 0 ` + f1(chartW) + " " + f1(height) + `" width="` + f1(chartW) + `" height="` + f1(height) + `" role="img">` + "\n"
}
