package report

import (
	"math"
	"strconv"

	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/stats"
)

// CaseLabel is how a report names a record: its case name and, in an
// interleaved run, its side ("handshake/tls1.3/full/c8 [b]"), so that the
// sides of one case are never read, paired or charted as one.
func CaseLabel(r *results.Record) string { return r.Name + SideSuffix(r) }

func SideSuffix(r *results.Record) string {
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
	versus := VersusOf(recs)
	if versus == "" {
		versus = "not recorded"
	}
	items := []string{
		"[a]: " + SideAName(recs) + "; [b]: " + versus,
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
		h := Headline(r)
		var ha CaseFigure
		if a != nil {
			ha = Headline(a)
		}
		switch {
		case r.Side != "" && r.Side != results.SideA && a != nil && ha.Handshake == h.Handshake && len(ha.Samples) == len(h.Samples):
			out[r] = stats.ComparePaired(ha.Samples, h.Samples, 0).RelError
		case h.Err != nil && h.Mean > 0:
			out[r] = *h.Err / h.Mean
		default:
			out[r] = math.NaN()
		}
	}
	return out
}

// errorCell is the error in µs; with a target error, also the precision
// reached ("4.2 (1.8%)"), marked "!" when it missed the target.
func errorCell(r *results.Record, achieved map[*results.Record]float64) string {
	s := numPtr(Headline(r).Err)
	e, ok := achieved[r]
	if !ok {
		return s
	}
	if math.IsNaN(e) {
		return s + " (" + Null + ")!" // unknown: missed (missedTarget)
	}
	s += " (" + strconv.FormatFloat(e*100, 'f', 1, 64) + "%"
	if r.Side != "" && r.Side != results.SideA {
		s += " of b/a"
	}
	s += ")"
	if missedTarget(r, e) {
		s += "!"
	}
	return s
}

func hasOtherSide(recs []*results.Record, a *results.Record) bool {
	for _, r := range recs {
		if r.Name == a.Name && r.Side != "" && r.Side != results.SideA {
			return true
		}
	}
	return false
}

// Interleaved reports whether recs come from an interleaved A/B run
// (their records name a side).
func Interleaved(recs []results.Record) bool {
	for i := range recs {
		if recs[i].Side != "" {
			return true
		}
	}
	return false
}

// SideAName says what side a measured: the run's --target, or its
// built-in server.
func SideAName(recs []results.Record) string {
	for i := range recs {
		if r := &recs[i]; r.Side == results.SideA {
			if r.Target != "" {
				return r.Target
			}
			return "the built-in server"
		}
	}
	return "the run's own server or target"
}

func VersusOf(recs []results.Record) string {
	for i := range recs {
		if recs[i].Versus != "" {
			return recs[i].Versus
		}
	}
	return ""
}
