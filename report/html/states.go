package html

import (
	"github.com/tlsbench/tlsbench/report"
	"github.com/tlsbench/tlsbench/results"
)

// A case that failed a gate, or was not run, is not a result: its figures
// (a failed case has them) must not be read as one, so every chart draws
// it apart, hatched grey and labelled with its state, never like the
// results beside it.

// The states of a case that is not a result, as its marks are labelled.
const (
	stateFailed = "FAILED"
	stateNotRun = "not run"
)

// stateOf is a record's state: failed a gate, not run, or "" for a
// result.
func stateOf(r *results.Record) string {
	switch {
	case r.Verdict == report.VerdictFailed:
		return stateFailed
	case report.NotRun(r):
		return stateNotRun
	}
	return ""
}

// hatch is the fill of a mark that is not a result; the grey after it is
// the fallback where the pattern is missing (a chart copied out alone).
const hatch = `url(#hatch) #ccc`

// svgDefs is written once at the top of the page: the hatch pattern every
// chart shares (a pattern of one inline svg serves the whole document).
const svgDefs = `<svg class="defs" width="0" height="0" aria-hidden="true"><defs>
<pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#eeeeee"/><line x1="0" y1="0" x2="0" y2="6" stroke="#8c8c8c" stroke-width="2.5"/></pattern>
</defs></svg>
`

// xyPoint.tip of a point that is part of the line only: no marker is
// drawn for it (a percentile curve has a hundred points, and markers at
// each would hide the curve).
const noMarker = "\x00"

func stateClass(state string) string {
	if state == stateFailed {
		return "failed"
	}
	return "notrun"
}

// stateMarker draws a point that is not a result: a hatched square where
// it measured (a failed case's figures), or a cross at the foot of the
// plot (a case not run has none), labelled with its state.
func (w *svgWriter) stateMarker(x, y float64, hasY bool, p xyPoint) {
	if p.state == stateNotRun || !hasY {
		y = plotTop + plotHeight - 8
		w.s(`<path class="mark notrun" d="M`, f1(x-4), " ", f1(y-4), " L", f1(x+4), " ", f1(y+4), " M", f1(x-4), " ", f1(y+4), " L", f1(x+4), " ", f1(y-4),
			`" stroke="#888" stroke-width="2" fill="none"><title>`, esc(p.tip), "</title></path>\n")
	} else {
		w.s(`<rect class="mark failed" x="`, f1(x-5), `" y="`, f1(y-5), `" width="10" height="10" fill="`, hatch, `" stroke="#666" stroke-width="1.2"><title>`, esc(p.tip), "</title></rect>\n")
	}
	switch {
	case p.unlabelled:
	case x > plotRight-70: // no room right of it
		w.text(x-8, y-7, "end", "state", p.state)
	default:
		w.text(x+8, y-7, "start", "state", p.state)
	}
}
