package compare

import (
	"fmt"
	"math"

	"github.com/tlsbench/tlsbench/report"
	"github.com/tlsbench/tlsbench/results"
)

// A search for a sustainable rate is one answer per side, a bracket
// [sustained, failed) found by measuring a handful of rates once each: no
// sample to test. Two searches are compared by their brackets alone: the
// candidate sustained more when it met a rate the baseline failed, less
// when it failed a rate the baseline met; otherwise the brackets overlap
// and the searches cannot tell the two apart.

// SearchVerdict is the outcome of comparing two searches.
type SearchVerdict string

const (
	// RateHigher: the candidate met a rate at or above the lowest the
	// baseline failed.
	RateHigher SearchVerdict = "higher"
	// RateLower: the candidate failed a rate at or below the highest the
	// baseline met.
	RateLower SearchVerdict = "lower"
	// RateOverlap: the brackets overlap; no difference the searches
	// resolve.
	RateOverlap SearchVerdict = "brackets overlap"
	// RateNotComparable: the goals differ, or a side found no answer.
	RateNotComparable SearchVerdict = "not comparable"
)

// SearchSide is one side's answer: the highest rate that met the goal
// and the lowest that failed it (NaN when none did), what ended the
// search early, and how many rates it measured.
type SearchSide struct {
	SLO               string
	Sustained, Failed float64
	Limit             string
	Steps             int
}

// SearchComparison compares the answers of one search on both sides.
type SearchComparison struct {
	Name       string
	Base, Cand SearchSide
	// Change is Cand.Sustained/Base.Sustained - 1: how much higher the
	// candidate's answer is; NaN when not comparable. MinDrop is the
	// least the sustainable rate fell by, 1 - Cand.Failed/Base.Sustained,
	// when the verdict is RateLower (the regression gate judges it); NaN
	// otherwise.
	Change, MinDrop float64
	Verdict         SearchVerdict
}

func searchSide(r *results.Record) SearchSide {
	s := SearchSide{SLO: r.SLO, Sustained: math.NaN(), Failed: math.NaN(), Limit: r.SearchLimit, Steps: r.Steps}
	if r.RateSustained != nil {
		s.Sustained = *r.RateSustained
	}
	if r.RateFailed != nil {
		s.Failed = *r.RateFailed
	}
	return s
}

// compareSearch judges the brackets of two answers of the same goal. A
// side that failed no rate has a bracket open above; one that met none,
// open below (from 0).
func compareSearch(name string, base, cand *results.Record) SearchComparison {
	sc := SearchComparison{Name: name, Base: searchSide(base), Cand: searchSide(cand),
		Change: math.NaN(), MinDrop: math.NaN(), Verdict: RateNotComparable}
	b, c := sc.Base, sc.Cand
	if b.SLO != c.SLO || math.IsNaN(b.Sustained) && math.IsNaN(b.Failed) || math.IsNaN(c.Sustained) && math.IsNaN(c.Failed) {
		return sc
	}
	if b.Sustained > 0 && c.Sustained > 0 {
		sc.Change = c.Sustained/b.Sustained - 1
	}
	switch {
	case c.Sustained >= b.Failed: // false when either is NaN
		sc.Verdict = RateHigher
	case c.Failed <= b.Sustained:
		sc.Verdict = RateLower
		sc.MinDrop = 1 - c.Failed/b.Sustained
	default:
		sc.Verdict = RateOverlap
	}
	return sc
}

// splitSearches takes the records of searches for a sustainable rate out
// of recs: their answers, by name, and how many steps there were. The
// steps are not compared one by one: each is one short measurement, and
// two searches need not have measured the same rates.
func splitSearches(recs []results.Record) (rest []results.Record, answers []*results.Record, steps int) {
	for i := range recs {
		switch recs[i].Kind {
		case results.KindRateSearch:
			answers = append(answers, &recs[i])
		case results.KindRateStep:
			steps++
		default:
			rest = append(rest, recs[i])
		}
	}
	return rest, answers, steps
}

// compareSearches pairs the answers of base and cand by name; an answer
// on one side only is listed as such.
func (c *Comparison) compareSearches(base, cand []*results.Record, baseSteps, candSteps int) {
	byName := map[string]*results.Record{}
	for _, r := range cand {
		if byName[r.Name] == nil {
			byName[r.Name] = r
		}
	}
	seen := map[string]bool{}
	for _, b := range base {
		if seen[b.Name] {
			continue
		}
		seen[b.Name] = true
		if cr := byName[b.Name]; cr != nil {
			c.Searches = append(c.Searches, compareSearch(b.Name, b, cr))
		} else {
			c.OnlyBase = append(c.OnlyBase, oneSided([]*results.Record{b}))
		}
	}
	for _, r := range cand {
		if !seen[r.Name] {
			seen[r.Name] = true
			c.OnlyCand = append(c.OnlyCand, oneSided([]*results.Record{r}))
		}
	}
	if baseSteps+candSteps > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("the steps of searches for a sustainable rate (%d in the baseline, %d in the candidate) are not compared one by one: each is one short measurement, and two searches need not measure the same rates; their answers are compared by their brackets",
			baseSteps, candSteps))
	}
}

// searchRegressions are the searches whose sustainable rate fell by at
// least threshold for certain: the candidate failed a rate that far below
// the highest the baseline met.
func (c *Comparison) searchRegressions(threshold float64) []*SearchComparison {
	var out []*SearchComparison
	for i := range c.Searches {
		sc := &c.Searches[i]
		if sc.Verdict == RateLower && !(sc.MinDrop < threshold) {
			out = append(out, sc)
		}
	}
	return out
}

// anySearchJudged reports whether a search was compared on its merits:
// a comparison of searches alone has judged something.
func (c *Comparison) anySearchJudged() bool {
	for _, sc := range c.Searches {
		if sc.Verdict != RateNotComparable {
			return true
		}
	}
	return false
}

// bracketText writes a side's answer as the rates it lies between.
func bracketText(s SearchSide) string {
	met, failed := !math.IsNaN(s.Sustained), !math.IsNaN(s.Failed)
	switch {
	case met && failed:
		return fmt.Sprintf("between %s/s (met) and %s/s (failed)", report.RateNum(s.Sustained), report.RateNum(s.Failed))
	case met:
		return fmt.Sprintf("at least %s/s (none failed)", report.RateNum(s.Sustained))
	case failed:
		return fmt.Sprintf("below %s/s (none met)", report.RateNum(s.Failed))
	}
	return "no answer"
}
