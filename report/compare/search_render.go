package compare

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tlsbench/tlsbench/report"
)

// searchCompareTable lays out the compared searches: each side's answer
// as the rates it lies between, the change of the highest rate met, and
// the verdict of the brackets; the items say what ended a search early.
func searchCompareTable(c *Comparison) (*report.Grid, []string) {
	t := &report.Grid{Cols: []report.Column{
		{Title: "name", Unit: "", Align: report.AlignLeft},
		{Title: "goal", Unit: "", Align: report.AlignLeft},
		{Title: "baseline", Unit: "sustainable rate", Align: report.AlignLeft},
		{Title: "candidate", Unit: "sustainable rate", Align: report.AlignLeft},
		{Title: "change", Unit: "highest met", Align: report.AlignRight},
		{Title: "verdict", Unit: "", Align: report.AlignLeft},
	}}
	var items []string
	for _, sc := range c.Searches {
		goal := report.OrNull(sc.Base.SLO)
		if sc.Cand.SLO != sc.Base.SLO {
			goal = report.OrNull(sc.Base.SLO) + " vs " + report.OrNull(sc.Cand.SLO)
		}
		change := report.Null
		if v := sc.Change; report.FiniteAll(v) {
			change = signedPercent(v)
		}
		t.Rows = append(t.Rows, []string{sc.Name, goal, bracketText(sc.Base), bracketText(sc.Cand), change, string(sc.Verdict)})
		for _, side := range []struct {
			name string
			s    SearchSide
		}{{c.BaseName, sc.Base}, {c.CandName, sc.Cand}} {
			if side.s.Limit != "" {
				items = append(items, fmt.Sprintf("%s (%s): the search ended before its bracket was narrow: %s", sc.Name, side.name, side.s.Limit))
			}
		}
	}
	items = append(items, "higher: the candidate met a rate the baseline failed; lower: it failed a rate the baseline met; brackets overlap: the answers' brackets overlap, and the searches cannot tell the two apart")
	return t, items
}

// searchSummary counts the searches by verdict, for the summary line.
func searchSummary(searches []SearchComparison) string {
	counts := map[SearchVerdict]int{}
	for _, sc := range searches {
		counts[sc.Verdict]++
	}
	var parts []string
	for _, v := range []SearchVerdict{RateHigher, RateLower, RateOverlap, RateNotComparable} {
		if n := counts[v]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, v))
		}
	}
	return fmt.Sprintf("sustainable rate of %d %s: %s", len(searches), report.Plural(int64(len(searches)), "search", "searches"), strings.Join(parts, ", "))
}

type searchSideJSON struct {
	SLO       string   `json:"slo"`
	Sustained *float64 `json:"rate_sustained"`
	Failed    *float64 `json:"rate_failed"`
	Limit     string   `json:"search_limit,omitempty"`
	Steps     int      `json:"steps"`
}

type searchJSON struct {
	Name      string         `json:"name"`
	Baseline  searchSideJSON `json:"baseline"`
	Candidate searchSideJSON `json:"candidate"`
	Change    *float64       `json:"change"`
	MinDrop   *float64       `json:"min_drop"`
	Verdict   SearchVerdict  `json:"verdict"`
}

func searchSideToJSON(s SearchSide) searchSideJSON {
	return searchSideJSON{SLO: s.SLO, Sustained: finite(s.Sustained), Failed: finite(s.Failed), Limit: s.Limit, Steps: s.Steps}
}

func searchToJSON(sc SearchComparison) searchJSON {
	return searchJSON{Name: sc.Name, Baseline: searchSideToJSON(sc.Base), Candidate: searchSideToJSON(sc.Cand),
		Change: finite(sc.Change), MinDrop: finite(sc.MinDrop), Verdict: sc.Verdict}
}

// searchCSVRow is a compared search as a row of the comparison CSV: kind
// rate-search, the highest rate each side met as its mean, in /s, and the
// brackets in the notes.
func searchCSVRow(sc SearchComparison) []string {
	row := make([]string, len(compareCSVHeader))
	set := func(col, v string) {
		for i, h := range compareCSVHeader {
			if h == col {
				row[i] = v
			}
		}
	}
	set("name", sc.Name)
	set("kind", "rate-search")
	set("unit", "/s")
	set("presence", "both")
	set("verdict", string(sc.Verdict))
	set("base_records", "1")
	set("cand_records", "1")
	set("base_mean", csvNum(sc.Base.Sustained))
	set("cand_mean", csvNum(sc.Cand.Sustained))
	set("change", csvNum(sc.Change))
	set("notes", "baseline "+bracketText(sc.Base)+"; candidate "+bracketText(sc.Cand))
	set("paired", strconv.FormatBool(false))
	return row
}
