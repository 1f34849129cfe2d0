package report

import (
	"fmt"
	"math"
	"slices"

	"github.com/tlsbench/tlsbench/results"
)

// searchBlocks are, per search for a sustainable rate, a block with its
// goal and answer and a block with the table of its steps.
func searchBlocks(recs []*results.Record) []Block {
	var blocks []Block
	for _, s := range RateSearches(recs) {
		blocks = append(blocks, Block{Title: "Sustainable rate: " + s.Name, Items: s.answerItems()})
		if len(s.Steps) > 0 {
			t, legend := s.stepTable()
			blocks = append(blocks, Block{Title: "Steps of the search: " + s.Name, Table: t, Items: legend})
		}
	}
	return blocks
}

// answerItems say the goal, the answer with its bracket, and what ended
// the search when it ended before narrowing the bracket.
func (s *RateSearch) answerItems() []string {
	a := s.Answer
	if a == nil {
		return []string{fmt.Sprintf("no answer recorded: the results hold %d %s of this search but not its end (it may have been interrupted)",
			len(s.Steps), Plural(int64(len(s.Steps)), "step", "steps"))}
	}
	items := []string{"goal: " + goalText(a.SLO)}
	switch {
	case a.RateSustained != nil && a.RateFailed != nil:
		items = append(items, fmt.Sprintf("answer: %s/s sustained: the sustainable rate lies between %s/s (met) and %s/s (failed)",
			RateNum(*a.RateSustained), RateNum(*a.RateSustained), RateNum(*a.RateFailed)))
	case a.RateSustained != nil:
		items = append(items, fmt.Sprintf("answer: at least %s/s: the highest rate measured met the goal, and no rate measured failed it",
			RateNum(*a.RateSustained)))
	case a.RateFailed != nil:
		items = append(items, fmt.Sprintf("answer: none: no rate measured met the goal, down to %s/s (failed)", RateNum(*a.RateFailed)))
	default:
		items = append(items, "answer: none: no rate was measured")
	}
	if a.SearchLimit != "" {
		items = append(items, "the search ended before its bracket was narrow: "+a.SearchLimit)
	}
	n := a.Steps
	if n <= 0 {
		n = len(s.Steps) // an answer that does not count its steps
	}
	steps := fmt.Sprintf("%d %s measured", n, Plural(int64(n), "rate", "rates"))
	if len(s.Steps) != n {
		steps += fmt.Sprintf(", %d of them in these results", len(s.Steps))
	}
	return append(items, steps)
}

// goalText says a goal in words, or as it was written when it cannot be
// read.
func goalText(slo string) string {
	if g, ok := ParseGoal(slo); ok {
		return g.text()
	}
	return OrNull(slo)
}

// stepLegend says what the steps table's columns are.
var stepLegend = []string{
	"rate: connections started per second, asked for; achieved: started; latency from each connection's intended start; errors: share of connections that failed",
	"goal: whether the step met the goal (its percentile, its error share, and a schedule held); bracket: the rates the answer lies between",
}

// stepTable is one row per step, in rate order.
func (s *RateSearch) stepTable() (*Grid, []string) {
	g, ok := Goal{}, false
	if s.Answer != nil {
		g, ok = ParseGoal(s.Answer.SLO)
	} else if len(s.Steps) > 0 {
		g, ok = ParseGoal(s.Steps[0].SLO)
	}
	extra := ok && g.percentile != 50 && g.percentile != 99
	t := &Grid{Cols: []Column{
		{Title: "rate", Unit: "/s", Align: AlignRight},
		{Title: "achieved", Unit: "/s", Align: AlignRight, Rank: 2},
		{Title: "p50", Unit: "µs", Align: AlignRight, Rank: 2},
		{Title: "p99", Unit: "µs", Align: AlignRight, Rank: 1},
	}}
	if extra {
		t.Cols = append(t.Cols, Column{Title: g.Label(), Unit: "µs", Align: AlignRight})
	}
	t.Cols = append(t.Cols, []Column{
		{Title: "errors", Unit: "", Align: AlignRight, Rank: 2},
		{Title: "late", Unit: "", Align: AlignRight, Rank: 3},
		{Title: "dropped", Unit: "", Align: AlignRight, Rank: 3},
		{Title: "goal", Unit: "", Align: AlignLeft},
		{Title: "bracket", Unit: "", Align: AlignLeft, Rank: 1},
	}...)
	flags := make([][]string, len(s.Steps))
	for i, r := range s.Steps {
		row := []string{rateNumPtr(r.RateTarget), numPtr(r.RateAchieved), Num(r.P50US), Num(r.P99US)}
		if extra {
			row = append(row, numOrNull(PercentileUS(r, g.percentile)))
		}
		row = append(row, share(errorShare(r)), count(r.Late), count(r.Dropped), metCell(r.SLOMet), s.bracketCell(r))
		t.Rows = append(t.Rows, row)
		// A step is judged on its percentile, not on its windows'
		// mean: a short step's wide interval is no reason to flag it.
		flags[i] = slices.DeleteFunc(rowFlags(r, nil), func(f string) bool { return f == "noisy" })
	}
	return t, append(append([]string(nil), stepLegend...), rateFlagLegend(addFlags(t, flags))...)
}

// errorShare is the share of a record's connections that failed.
func errorShare(r *results.Record) float64 {
	if n := r.Handshakes + r.Errors; n > 0 {
		return float64(r.Errors) / float64(n)
	}
	return 0
}

func numOrNull(v float64) string {
	if math.IsNaN(v) {
		return Null
	}
	return Num(v)
}

// metCell marks a step that missed the goal loudly: it is what bounds
// the answer.
func metCell(met *bool) string {
	switch {
	case met == nil:
		return Null
	case *met:
		return "met"
	}
	return "NOT MET"
}

// bracketCell names the step's place in the answer: the highest rate
// that met the goal, or the lowest that failed it.
func (s *RateSearch) bracketCell(r *results.Record) string {
	if s.Answer == nil || r.RateTarget == nil {
		return ""
	}
	switch {
	case s.Answer.RateSustained != nil && *s.Answer.RateSustained == *r.RateTarget:
		return "highest met"
	case s.Answer.RateFailed != nil && *s.Answer.RateFailed == *r.RateTarget:
		return "lowest failed"
	}
	return ""
}
