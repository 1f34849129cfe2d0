package compare

import (
	"fmt"
	"math"

	"github.com/tlsbench/tlsbench/report"
	"github.com/tlsbench/tlsbench/results"
)

// Two separate runs measured while other processes took part of the
// machine compare that load as much as the change: a run made while
// others took half the CPUs is slower for that alone, by more than most
// changes being measured. Such a pair is not judged (unless allowed); an
// interleaved run, whose sides share the load round by round, is judged
// from its pairing and is not concerned.

// OtherLoad: a side of the pair was measured under other load (see
// CaseComparison.Load); it is not judged, and the regression gate leaves
// it out.
const OtherLoad Verdict = "not judged (other load)"

// The machine's load that makes a sequential comparison unjudgeable, the
// thresholds of the records' own notes: other processes taking
// otherLoadShare of the CPUs or more, or a machine saturated
// (saturatedShare busy) that the benchmark alone did not saturate.
const (
	otherLoadShare = 0.1
	saturatedShare = 0.9
)

// sideLoad is the load a side was measured under: the largest other
// share and machine busy of its pooled records (nil when none recorded
// it), and whether that load is too much to judge it.
type sideLoad struct {
	other, busy *float64
	loaded      bool
}

func loadOf(recs []*results.Record) sideLoad {
	var l sideLoad
	for _, r := range recs {
		if o := r.OtherCPUShare; o != nil && (l.other == nil || *o > *l.other) {
			l.other = o
		}
		if b := r.MachineBusy; b != nil && (l.busy == nil || *b > *l.busy) {
			l.busy = b
		}
		if o := r.OtherCPUShare; o != nil && *o > 0 {
			busy := 0.0
			if r.MachineBusy != nil {
				busy = *r.MachineBusy
			}
			if *o >= otherLoadShare || busy >= saturatedShare && busy-*o < saturatedShare {
				l.loaded = true
			}
		}
	}
	return l
}

func (l sideLoad) text() string {
	if l.other == nil {
		return report.Null
	}
	return fmt.Sprintf("%.0f%%", 100**l.other)
}

// applyLoad marks a pair of which a side was measured under other load:
// not judged (its ratio, change and p-value withdrawn, as they would
// read the load as the change), or, when allowed, judged with a note. A
// pair already not comparable stays so.
func applyLoad(cc *CaseComparison, base, cand []*results.Record, allow bool) {
	b, c := loadOf(base), loadOf(cand)
	if !b.loaded && !c.loaded || cc.Verdict == NotComparable {
		return
	}
	cc.Load = "other load: " + b.text() + " / " + c.text()
	why := fmt.Sprintf("other processes took %s of the CPUs in the baseline and %s in the candidate (other_cpu_share)", b.text(), c.text())
	if saturated(b) || saturated(c) {
		why += ", the machine saturated"
	}
	why += ": two separate runs cannot tell that load from the change"
	if allow {
		cc.Notes = append(cc.Notes, "judged although "+why)
		return
	}
	cc.Verdict = OtherLoad
	cc.Ratio, cc.RatioSD, cc.P, cc.Change, cc.Slowdown = math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()
	cc.Notes = append(cc.Notes, "not judged: "+why+"; measure both sides interleaved in one run (tlsbench run --versus-self or --versus), or judge anyway with --allow-load")
}

func saturated(l sideLoad) bool { return l.busy != nil && *l.busy >= saturatedShare }

// NotJudged returns the pairs left unjudged because a side was measured
// under other load (Verdict OtherLoad).
func (c *Comparison) NotJudged() []*CaseComparison {
	var out []*CaseComparison
	for i := range c.Cases {
		if cc := &c.Cases[i]; cc.Verdict == OtherLoad {
			out = append(out, cc)
		}
	}
	return out
}

// notJudgedTitle heads the list of pairs not judged for other load.
func notJudgedTitle(n int) string {
	return fmt.Sprintf("WARNING: %d %s not judged: a side was measured while other processes took %.0f%% or more of the machine, or saturated it (left out of the regression gate; --allow-load judges them anyway)",
		n, report.Plural(int64(n), "pair is", "pairs are"), 100*otherLoadShare)
}

func notJudgedItems(cases []*CaseComparison) []string {
	items := make([]string, len(cases))
	for i, cc := range cases {
		items[i] = cc.Name + ": " + cc.Load + " (baseline / candidate)"
	}
	return items
}
