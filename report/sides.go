package report

import (
	"fmt"
	"math"
	"strconv"

	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/stats"
)

// caseLabel is how a report names a record: its case name and, in an
// interleaved run, its side ("handshake/tls1.3/full/c8 [b]"), so that the
// sides of one case are never read, paired or charted as one.
func caseLabel(r *results.Record) string { return r.Name + sideSuffix(r) }

func sideSuffix(r *results.Record) string {
	if r.Side == "" {
		return ""
	}
	return " [" + r.Side + "]"
}

// sidesItems explains the sides of an interleaved run, once, under the
// environment.
func sidesItems(recs []results.Record) []string {
	if !Interleaved(recs) {
		return nil
	}
	versus := versusOf(recs)
	if versus == "" {
		versus = "not recorded"
	}
	items := []string{
		"[a]: " + sideAName(recs) + "; [b]: " + versus,
		"the sides' iterations alternated in one run (a b, b a, …); compare them with tlsbench compare on this file",
	}
	for i := range recs {
		if recs[i].Side == results.SideA2 {
			items = append(items, "[a2]: a second instance of side a, the noise floor of the run")
			break
		}
	}
	return items
}

// achievedErrors is, for every record measured towards a target error,
// the precision it reached, as a fraction: its error over its mean, or
// in an interleaved run, for side b and a2, the relative half-width of
// the interval of its ratio to side a (what the target was held to).
func achievedErrors(recs []*results.Record) map[*results.Record]float64 {
	out := map[*results.Record]float64{}
	sideA := map[string]*results.Record{}
	for _, r := range recs {
		if r.Side == results.SideA {
			sideA[r.Name] = r
		}
	}
	for _, r := range recs {
		if r.TargetError == nil || r.Side == results.SideA && hasOtherSide(recs, r) {
			// Side a's precision is judged with the other sides'
			// ratios to it: their rows carry it.
			continue
		}
		a := sideA[r.Name]
		h := headline(r)
		var ha caseFigure
		if a != nil {
			ha = headline(a)
		}
		switch {
		case r.Side != "" && r.Side != results.SideA && a != nil && ha.handshake == h.handshake && len(ha.samples) == len(h.samples):
			out[r] = stats.ComparePaired(ha.samples, h.samples, 0).RelError
		case h.err != nil && h.mean > 0:
			out[r] = *h.err / h.mean
		default:
			out[r] = math.NaN()
		}
	}
	return out
}

// errorCell is the error in µs; with a target error, also the precision
// reached ("4.2 (1.8%)"), marked "!" when it is above the target.
func errorCell(r *results.Record, achieved map[*results.Record]float64) string {
	s := numPtr(headline(r).err)
	e, ok := achieved[r]
	if !ok {
		return s
	}
	if math.IsNaN(e) {
		return s + " (" + null + ")"
	}
	s += " (" + strconv.FormatFloat(e*100, 'f', 1, 64) + "%"
	if r.Side != "" && r.Side != results.SideA {
		s += " of b/a"
	}
	s += ")"
	if e > *r.TargetError {
		s += "!"
	}
	return s
}

// targetItems lists the cases that stopped before reaching their target
// error: the time limit or the iteration cap came first.
func targetItems(recs []*results.Record, achieved map[*results.Record]float64) []string {
	var items []string
	for _, r := range recs {
		e, ok := achieved[r]
		if !ok || r.Side == results.SideA && hasOtherSide(recs, r) {
			continue // side a's precision is judged with side b's ratio
		}
		var by string
		switch r.StoppedBy {
		case results.StoppedCaseTime:
			by = "the case time (--case-time) ran out"
		case results.StoppedIterationCap:
			by = fmt.Sprintf("it reached the most iterations a case may measure (%d)", results.MaxIterations)
		default:
			continue
		}
		if !(e > *r.TargetError) && !math.IsNaN(e) {
			continue
		}
		reached := "unknown"
		if !math.IsNaN(e) {
			reached = strconv.FormatFloat(e*100, 'f', 1, 64) + "%"
		}
		items = append(items, fmt.Sprintf("%s: %s after %d iterations, target %s: %s first; measure longer or accept the wider interval",
			caseLabel(r), reached, r.Iterations, thresholdPercent(*r.TargetError), by))
	}
	return items
}

func hasOtherSide(recs []*results.Record, a *results.Record) bool {
	for _, r := range recs {
		if r.Name == a.Name && r.Side != "" && r.Side != results.SideA {
			return true
		}
	}
	return false
}
