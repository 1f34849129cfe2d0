package report

import (
	"fmt"
	"math"
	"slices"

	"github.com/tlsbench/tlsbench/results"
)

// searchBlocks are, per search for a sustainable rate, a block with its
// goal and answer and a block with the table of its steps.
func searchBlocks(recs []*results.Record) []block {
	var blocks []block
	for _, s := range rateSearches(recs) {
		blocks = append(blocks, block{title: "Sustainable rate: " + s.name, items: s.answerItems()})
		if len(s.steps) > 0 {
			t, legend := s.stepTable()
			blocks = append(blocks, block{title: "Steps of the search: " + s.name, table: t, items: legend})
		}
	}
	return blocks
}

// answerItems say the goal, the answer with its bracket, and what ended
// the search when it ended before narrowing the bracket.
func (s *rateSearch) answerItems() []string {
	a := s.answer
	if a == nil {
		return []string{fmt.Sprintf("no answer recorded: the results hold %d %s of this search but not its end (it may have been interrupted)",
			len(s.steps), plural(int64(len(s.steps)), "step", "steps"))}
	}
	items := []string{"goal: " + goalText(a.SLO)}
	switch {
	case a.RateSustained != nil && a.RateFailed != nil:
		items = append(items, fmt.Sprintf("answer: %s/s sustained: the sustainable rate lies between %s/s (met) and %s/s (failed)",
			rateNum(*a.RateSustained), rateNum(*a.RateSustained), rateNum(*a.RateFailed)))
	case a.RateSustained != nil:
		items = append(items, fmt.Sprintf("answer: at least %s/s: the highest rate measured met the goal, and no rate measured failed it",
			rateNum(*a.RateSustained)))
	case a.RateFailed != nil:
		items = append(items, fmt.Sprintf("answer: none: no rate measured met the goal, down to %s/s (failed)", rateNum(*a.RateFailed)))
	default:
		items = append(items, "answer: none: no rate was measured")
	}
	if a.SearchLimit != "" {
		items = append(items, "the search ended before its bracket was narrow: "+a.SearchLimit)
	}
	n := a.Steps
	if n <= 0 {
		n = len(s.steps) // an answer that does not count its steps
	}
	steps := fmt.Sprintf("%d %s measured", n, plural(int64(n), "rate", "rates"))
	if len(s.steps) != n {
		steps += fmt.Sprintf(", %d of them in these results", len(s.steps))
	}
	return append(items, steps)
}

// goalText says a goal in words, or as it was written when it cannot be
// read.
func goalText(slo string) string {
	if g, ok := parseGoal(slo); ok {
		return g.text()
	}
	return orNull(slo)
}

// stepLegend says what the steps table's columns are.
var stepLegend = []string{
	"rate: connections started per second, asked for; achieved: started; latency from each connection's intended start; errors: share of connections that failed",
	"goal: whether the step met the goal (its percentile, its error share, and a schedule held); bracket: the rates the answer lies between",
}

// stepTable is one row per step, in rate order.
func (s *rateSearch) stepTable() (*table, []string) {
	g, ok := goal{}, false
	if s.answer != nil {
		g, ok = parseGoal(s.answer.SLO)
	} else if len(s.steps) > 0 {
		g, ok = parseGoal(s.steps[0].SLO)
	}
	extra := ok && g.percentile != 50 && g.percentile != 99
	t := &table{cols: []column{
		{"rate", "/s", alignRight},
		{"achieved", "/s", alignRight},
		{"p50", "µs", alignRight},
		{"p99", "µs", alignRight},
	}}
	if extra {
		t.cols = append(t.cols, column{g.label(), "µs", alignRight})
	}
	t.cols = append(t.cols, []column{
		{"errors", "", alignRight},
		{"late", "", alignRight},
		{"dropped", "", alignRight},
		{"goal", "", alignLeft},
		{"bracket", "", alignLeft},
	}...)
	flags := make([][]string, len(s.steps))
	for i, r := range s.steps {
		row := []string{rateNumPtr(r.RateTarget), numPtr(r.RateAchieved), num(r.P50US), num(r.P99US)}
		if extra {
			row = append(row, numOrNull(percentileUS(r, g.percentile)))
		}
		row = append(row, share(errorShare(r)), count(r.Late), count(r.Dropped), metCell(r.SLOMet), s.bracketCell(r))
		t.rows = append(t.rows, row)
		// A step is judged on its percentile, not on its windows'
		// mean: a short step's wide interval is no reason to flag it.
		flags[i] = slices.DeleteFunc(rowFlags(r), func(f string) bool { return f == "noisy" })
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
		return null
	}
	return num(v)
}

// metCell marks a step that missed the goal loudly: it is what bounds
// the answer.
func metCell(met *bool) string {
	switch {
	case met == nil:
		return null
	case *met:
		return "met"
	}
	return "NOT MET"
}

// bracketCell names the step's place in the answer: the highest rate
// that met the goal, or the lowest that failed it.
func (s *rateSearch) bracketCell(r *results.Record) string {
	if s.answer == nil || r.RateTarget == nil {
		return ""
	}
	switch {
	case s.answer.RateSustained != nil && *s.answer.RateSustained == *r.RateTarget:
		return "highest met"
	case s.answer.RateFailed != nil && *s.answer.RateFailed == *r.RateTarget:
		return "lowest failed"
	}
	return ""
}
