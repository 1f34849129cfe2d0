package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/stats"
)

// RateSearch is one search for a sustainable rate as the records tell it:
// its answer (nil when the results hold only its steps, e.g. a search
// that was interrupted) and its steps, in rate order.
type RateSearch struct {
	Name   string // the search's case name, side included
	Answer *results.Record
	Steps  []*results.Record
}

// stepSearchName is the name of the search a step belongs to: the step's
// name without its last segment (/r<rate>).
func stepSearchName(r *results.Record) string {
	if i := strings.LastIndex(r.Name, "/"); i >= 0 {
		return r.Name[:i]
	}
	return r.Name
}

// RateSearches groups the search records of recs by search, in order of
// first appearance; the sides of an interleaved run stay apart.
func RateSearches(recs []*results.Record) []*RateSearch {
	var out []*RateSearch
	byKey := map[string]*RateSearch{}
	get := func(name string, r *results.Record) *RateSearch {
		key := name + SideSuffix(r)
		s := byKey[key]
		if s == nil {
			s = &RateSearch{Name: key}
			byKey[key] = s
			out = append(out, s)
		}
		return s
	}
	for _, r := range recs {
		switch r.Kind {
		case results.KindRateSearch:
			s := get(r.Name, r)
			if s.Answer == nil {
				s.Answer = r
			}
		case results.KindRateStep:
			s := get(stepSearchName(r), r)
			s.Steps = append(s.Steps, r)
		}
	}
	for _, s := range out {
		slices.SortStableFunc(s.Steps, func(a, b *results.Record) int { return cmpRate(stepRate(a), stepRate(b)) })
	}
	return out
}

// stepRate is the rate a step offered; NaN when the record lacks it.
func stepRate(r *results.Record) float64 {
	if r.RateTarget == nil {
		return math.NaN()
	}
	return *r.RateTarget
}

// cmpRate orders rates, unknown ones last.
func cmpRate(a, b float64) int {
	switch {
	case math.IsNaN(a) && math.IsNaN(b):
		return 0
	case math.IsNaN(a):
		return 1
	case math.IsNaN(b):
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Goal is a search's latency and error goal, read from the record's slo
// ("p99=20ms,error=0.1%"), so that the report can show and draw it.
type Goal struct {
	percentile float64 // 99 for p99
	LatencyUS  float64
	maxErrors  float64 // a share, 0..1
	// latency and errors are the terms' values as written ("20ms",
	// "0.1%"): the report says the goal in the user's own words.
	Latency, errors string
}

// ParseGoal reads an slo as the command line writes it; ok is false when
// it cannot (a report then shows the text as it is, and draws no line).
func ParseGoal(s string) (g Goal, ok bool) {
	g.maxErrors, g.errors = 0.001, "0.1%" // what a goal without an error term allows
	for _, term := range strings.Split(s, ",") {
		name, value, found := strings.Cut(strings.TrimSpace(term), "=")
		if !found {
			return Goal{}, false
		}
		switch {
		case name == "error":
			v, err := strconv.ParseFloat(strings.TrimSuffix(value, "%"), 64)
			if err != nil || !strings.HasSuffix(value, "%") || !(v >= 0 && v <= 100) {
				return Goal{}, false
			}
			g.maxErrors, g.errors = v/100, value
		case strings.HasPrefix(name, "p"):
			p, err := strconv.ParseFloat(name[1:], 64)
			d, derr := time.ParseDuration(value)
			if err != nil || derr != nil || !(p > 0 && p < 100) || d <= 0 {
				return Goal{}, false
			}
			g.percentile, g.LatencyUS, g.Latency = p, float64(d)/float64(time.Microsecond), value
		default:
			return Goal{}, false
		}
	}
	return g, g.LatencyUS > 0
}

// label is the goal's percentile as a column title: "p99.9".
func (g Goal) Label() string { return "p" + strconv.FormatFloat(g.percentile, 'f', -1, 64) }

// text says the goal in words.
func (g Goal) text() string {
	return fmt.Sprintf("%s at most %s (latency from each connection's intended start), at most %s of connections failed",
		g.Label(), g.Latency, g.errors)
}

// share writes a fraction as a percentage with two significant digits, so
// that 0.13% is not read as within a goal of 0.1%.
func share(f float64) string {
	p := f * 100
	if p == 0 || !FiniteAll(p) {
		return strconv.FormatFloat(p, 'f', -1, 64) + "%"
	}
	dec := max(0, min(6, 1-int(math.Floor(math.Log10(math.Abs(p))))))
	return strconv.FormatFloat(p, 'f', dec, 64) + "%"
}

// PercentileUS is r's latency at percentile q: from the record's own
// fields when it has that percentile, else from its histogram; NaN when
// neither says.
func PercentileUS(r *results.Record, q float64) float64 {
	switch q {
	case 50:
		return r.P50US
	case 90:
		return r.P90US
	case 99:
		return r.P99US
	case 99.9:
		return r.P999US
	}
	if r.Histogram == "" {
		return math.NaN()
	}
	l, err := stats.DecodeLatency(r.Histogram)
	if err != nil || l.Count() == 0 {
		return math.NaN()
	}
	return l.PercentileUS(q)
}
