package html

import (
	"fmt"
	"math"
	"strings"

	"github.com/tlsbench/tlsbench/report"
	"github.com/tlsbench/tlsbench/report/compare"
)

// The forest plot of an interleaved run: per case the paired ratio side
// b / side a as a point, its 99.9% interval as a line through it, a line
// at 1 (no change) and the band of changes called within noise (the
// floor: the minimum effect, or the noise floor measured in the run from
// side a2 when larger). It shows at a glance what the comparison table
// says row by row: which intervals leave the band, and on which side.

const forestRowH = 26.0

// forestRightW is the room right of the plot for each row's verdict.
const forestRightW = 190.0

// addForest adds the forest plot of the paired comparison c.
func (cs *chartSet) addForest(c *compare.Comparison) {
	cs.add("chart-ratio", "Side b / side a per case, with its 99.9% interval",
		"Each row is a case measured on both sides: the point is the ratio side b / side a (the geometric mean of the per-round ratios of the interleaved iterations), the line through it its 99.9% confidence interval. The vertical line is 1, no change; the shaded band is the floor, the smallest change called faster or slower: the minimum effect, or the noise floor measured in the run (side a2 against side a) where larger. For a time a ratio above 1 is slower, for a throughput faster. A case that could not be judged (not comparable, a side that failed a gate, too few pairs) is drawn hatched grey and labelled.",
		forestChart(c, "ratio side b / side a, with its 99.9% interval", false), "no case was measured on both sides")
	cs.addMetricForests(c)
}

// forestChart draws c's cases, or "" when it has none, with axis under
// the plot; cost says the ratios are of a cost (more is "higher", not
// "slower").
func forestChart(c *compare.Comparison, axis string, cost bool) string {
	if len(c.Cases) == 0 {
		return ""
	}
	names := make([]string, len(c.Cases))
	vals := []float64{1}
	for i := range c.Cases {
		cc := &c.Cases[i]
		names[i] = strings.TrimPrefix(cc.Name, "handshake/")
		for _, v := range []float64{cc.Ratio, cc.CILo, cc.CIHi, 1 - cc.Floor, 1 + cc.Floor} {
			if report.FiniteAll(v) && v > 0 {
				vals = append(vals, v)
			}
		}
	}
	left := categoryLeft(names)
	right := plotRight - forestRightW
	top := plotTop + 4
	bottom := top + forestRowH*float64(len(c.Cases))
	sx := ratioScale(vals, left, right)

	var w svgWriter
	w.barAxes(sx, top, bottom, left, axis)
	for i, name := range names {
		w.text(left-8, top+forestRowH*float64(i)+forestRowH/2+4, "end", "tick", name)
	}
	w.s(`<g class="plot">`, "\n")
	for i := range c.Cases {
		w.forestRow(&c.Cases[i], sx, top+forestRowH*float64(i), right, cost)
	}
	if x, ok := sx.pos(1); ok {
		w.s(`<line class="ref one" x1="`, f1(x), `" y1="`, f1(top), `" x2="`, f1(x), `" y2="`, f1(bottom), `" stroke="#222" stroke-width="1.5"/>`, "\n")
	}
	w.s("</g>\n")
	lh := w.forestLegend(bottom + 42)
	return svgOpen(bottom+42+lh) + w.sb.String() + "</svg>\n"
}

// ratioScale is a linear axis over the ratios vs, padded, with round
// ticks.
func ratioScale(vs []float64, p0, p1 float64) *scale {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	pad := math.Max((hi-lo)*0.06, 0.005)
	lo, hi = math.Max(0, lo-pad), hi+pad
	s := &scale{kind: axisLinear, lo: lo, hi: hi, p0: p0, p1: p1, tickLabel: plainNum}
	step := niceStep(hi-lo, 6)
	dec := math.Pow(10, math.Max(0, -math.Floor(math.Log10(step))))
	for t := math.Ceil(lo/step) * step; t <= hi+1e-12; t += step {
		s.ticks = append(s.ticks, math.Round(t*dec)/dec)
	}
	return s
}

// verdictColor is the color of a judged case's point and interval.
func verdictColor(v compare.Verdict) string {
	switch v {
	case compare.Slower:
		return "#b03a2e"
	case compare.Faster:
		return "#1e7d45"
	}
	return "#4e79a7"
}

// forestRow draws one case at the row starting at y: its floor band, and
// its interval and point, or a hatched bar when it was not judged; its
// verdict at the right.
func (w *svgWriter) forestRow(cc *compare.CaseComparison, sx *scale, y, right float64, cost bool) {
	mid := y + forestRowH/2
	if cc.Floor > 0 {
		x0, ok0 := sx.pos(1 - cc.Floor)
		x1, ok1 := sx.pos(1 + cc.Floor)
		if ok0 && ok1 {
			w.s(`<rect class="floor" x="`, f1(x0), `" y="`, f1(y), `" width="`, f1(x1-x0), `" height="`, f1(forestRowH), `" fill="#dfe7f1"/>`, "\n")
		}
	}
	tip := forestTip(cc)
	x, ok := sx.pos(cc.Ratio)
	label := string(cc.Verdict)
	if cost && cc.Verdict == compare.Slower {
		label = "higher"
	} else if cost && cc.Verdict == compare.Faster {
		label = "lower"
	}
	switch {
	case !ok:
		w.s(`<rect class="mark unjudged" x="`, f1(sx.p0), `" y="`, f1(mid-5), `" width="`, f1(right-sx.p0), `" height="10" fill="`, hatch, `" stroke="#999"><title>`, esc(tip), "</title></rect>\n")
	case cc.Verdict == compare.TooFewSamples || !report.FiniteAll(cc.CILo, cc.CIHi):
		w.s(`<circle class="mark point unjudged" cx="`, f1(x), `" cy="`, f1(mid), `" r="4.5" fill="`, hatch, `" stroke="#777" stroke-width="1.5"><title>`, esc(tip), "</title></circle>\n")
	default:
		col := verdictColor(cc.Verdict)
		lo, _ := sx.pos(cc.CILo)
		hi, _ := sx.pos(cc.CIHi)
		w.s(`<path class="mark ci" d="M`, f1(lo), " ", f1(mid), " H", f1(math.Max(hi, lo+1)), " M", f1(lo), " ", f1(mid-5), " V", f1(mid+5), " M", f1(hi), " ", f1(mid-5), " V", f1(mid+5),
			`" stroke="`, col, `" stroke-width="2" fill="none"><title>`, esc(tip), "</title></path>\n")
		w.s(`<circle class="mark point" cx="`, f1(x), `" cy="`, f1(mid), `" r="4.5" fill="`, col, `" stroke="#fff" stroke-width="1"><title>`, esc(tip), "</title></circle>\n")
		label += " " + signedPct(cc.Ratio-1)
	}
	if cc.Verdict == compare.Slower || cc.Verdict == compare.Faster {
		w.text(right+10, mid+4, "start", "verdict "+string(cc.Verdict), label)
	} else {
		w.text(right+10, mid+4, "start", "state", label)
	}
}

// forestTip is a row's tooltip: the case, its ratio and interval, its
// floor, its verdict and why.
func forestTip(cc *compare.CaseComparison) string {
	var parts []string
	if report.FiniteAll(cc.Ratio) {
		r := fmt.Sprintf("ratio %.3f", cc.Ratio)
		if report.FiniteAll(cc.CILo, cc.CIHi) {
			r += fmt.Sprintf(" (99.9%% interval %.3f–%.3f)", cc.CILo, cc.CIHi)
		}
		parts = append(parts, r)
		if cc.Floor > 0 {
			floor := "±" + strings.TrimPrefix(signedPct(cc.Floor), "+") + " floor"
			if cc.FloorMeasured {
				floor += " (measured, side a2)"
			}
			parts = append(parts, floor)
		}
	}
	verdict := string(cc.Verdict)
	var notes []string
	for _, n := range cc.Notes {
		if strings.HasPrefix(n, verdict+":") {
			verdict = n // the note says the verdict, and why
			continue
		}
		notes = append(notes, n)
	}
	parts = append(parts, verdict)
	tip := cc.Name + ": " + strings.Join(parts, ", ")
	if len(notes) > 0 {
		tip += "; " + strings.Join(notes, "; ")
	}
	return tip
}

func signedPct(f float64) string {
	return fmt.Sprintf("%+.1f%%", 100*f)
}

// forestLegend explains the marks of the forest plot, under it.
func (w *svgWriter) forestLegend(top float64) float64 {
	y := top + legendRowH
	x := plotLeft
	w.s(`<g class="legend">`, "\n")
	w.s(`<circle cx="`, f1(x+10), `" cy="`, f1(y-4), `" r="4.5" fill="#4e79a7"/>`, "\n",
		`<path d="M`, f1(x), " ", f1(y-4), " H", f1(x+20), `" stroke="#4e79a7" stroke-width="2"/>`, "\n")
	w.text(x+26, y, "start", "", "ratio and its 99.9% interval (red: slower, green: faster)")
	x += 430
	w.s(`<rect x="`, f1(x), `" y="`, f1(y-10), `" width="20" height="12" fill="#dfe7f1"/>`, "\n")
	w.text(x+26, y, "start", "", "floor: within noise")
	x += 170
	w.s(`<rect x="`, f1(x), `" y="`, f1(y-9), `" width="20" height="10" fill="`, hatch, `" stroke="#999"/>`, "\n")
	w.text(x+26, y, "start", "", "not judged")
	w.s("</g>\n")
	return legendRowH + 8
}
