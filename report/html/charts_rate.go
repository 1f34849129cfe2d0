package html

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tlsbench/tlsbench/report"
	"github.com/tlsbench/tlsbench/results"
)

// rateSeries is the label of an open-loop case's series: its name without
// "handshake/" and without the rate segment (r2000), which is the x axis.
func rateSeries(r *results.Record) string {
	parts := strings.Split(strings.TrimPrefix(r.Name, "handshake/"), "/")
	if n := len(parts); n > 1 && strings.HasPrefix(parts[n-1], "r") {
		if _, err := strconv.ParseFloat(parts[n-1][1:], 64); err == nil {
			parts = parts[:n-1]
		}
	}
	return strings.Join(parts, "/") + report.SideSuffix(r)
}

func rateTick(v float64) string { return report.RateNum(v) }

// addOpenLoopCharts adds, per TLS version, the latency of open-loop cases
// (p50 and p99 from the intended start) against the rate offered, and
// once the handshakes completed per second against it: concurrency means
// nothing for these cases, the rate is their axis.
func (cs *chartSet) addOpenLoopCharts(runs []Run) {
	colors := &labels{}
	for _, v := range versions(runs, report.OpenLoop) {
		b := &seriesBuilder{colors: colors}
		eachRecord(runs, func(ri int, r *results.Record) {
			if !report.OpenLoop(r) || r.TLSVersion != v {
				return
			}
			for _, q := range []struct {
				name string
				us   float64
			}{{"p50", r.P50US}, {"p99", r.P99US}} {
				if p, ok := statePoint(runs, ri, r, *r.RateTarget, q.us); ok {
					b.add(ri, rateSeries(r)+" "+q.name, p)
					continue
				}
				b.add(ri, rateSeries(r)+" "+q.name, xyPoint{x: *r.RateTarget, y: q.us,
					tip: fmt.Sprintf("%s%s: %s %s from the intended start", report.CaseLabel(r), runSuffix(runs, ri), q.name, timeQ.num(q.us))})
			}
		})
		c := &lineChart{
			xLabel: "offered rate (connections started per second)", yLabel: "latency from intended start (log scale)",
			xAxis: axisLinear, yAxis: axisLog10, xTick: rateTick, yTick: plainNum, yUnit: timeQ,
			series: b.done(), runs: runNames(runs),
		}
		cs.add("chart-openloop-latency-"+chartID("tls"+v), "Latency vs offered rate, "+versionTitle(v),
			"Median and 99th percentile of single handshakes of open-loop cases, counted from each connection's intended start: where the server cannot keep up, connections queue and the latency climbs."+stateCaption,
			c.svg(), "no open-loop case has a latency")
	}
	if !anyRecord(runs, report.OpenLoop) {
		return
	}
	b := &seriesBuilder{colors: colors}
	eachRecord(runs, func(ri int, r *results.Record) {
		if p, ok := statePoint(runs, ri, r, 0, r.HandshakesPerSec); ok && report.OpenLoop(r) {
			p.x = *r.RateTarget
			b.add(ri, rateSeries(r), p)
		} else if report.OpenLoop(r) {
			b.add(ri, rateSeries(r), xyPoint{x: *r.RateTarget, y: r.HandshakesPerSec,
				tip: fmt.Sprintf("%s%s: %s handshakes/s at %s/s offered", report.CaseLabel(r), runSuffix(runs, ri), report.Num(r.HandshakesPerSec), report.RateNum(*r.RateTarget))})
		}
	})
	c := &lineChart{
		xLabel: "offered rate (connections started per second)", yLabel: "handshakes per second",
		xAxis: axisLinear, yAxis: axisLinear, xTick: rateTick, yTick: plainNum,
		series: b.done(), runs: runNames(runs),
	}
	cs.add("chart-openloop-rate", "Handshakes per second vs offered rate",
		"Completed handshakes per second of open-loop cases against the rate asked for: below the diagonal the server, or the generator, did not keep up."+stateCaption,
		c.svg(), "no open-loop case has a rate")
}

// kneePercentiles are the latency percentiles a knee chart draws.
var kneePercentiles = []float64{50, 90, 99, 99.9}

// addKneeCharts adds, per search for a sustainable rate, the knee: the
// latency percentiles of each step against the rate it offered, with the
// goal's latency as a horizontal line and the answer's bracket marked.
func (cs *chartSet) addKneeCharts(runs []Run) {
	var names []string
	byName := map[string][]*report.RateSearch{} // one per run, nil where absent
	for ri, run := range runs {
		var recs []*results.Record
		for i := range run.Records {
			recs = append(recs, &run.Records[i])
		}
		for _, s := range report.RateSearches(recs) {
			if byName[s.Name] == nil {
				names = append(names, s.Name)
				byName[s.Name] = make([]*report.RateSearch, len(runs))
			}
			byName[s.Name][ri] = s
		}
	}
	for _, name := range names {
		c := kneeChart(runs, byName[name])
		cs.add("chart-knee-"+chartID(name), "Latency vs offered rate: "+name,
			"Latency percentiles of each step of the search, from its histogram and counted from each connection's intended start, against the rate it offered. The black horizontal line is the goal's latency; the solid vertical line the highest rate that met the goal, the dashed one the lowest that failed it: the sustainable rate lies between them. A step that failed a gate (it could not hold its rate, dropped connections, or failed too many) is drawn as hatched grey squares labelled FAILED, apart from the lines: its latencies are not a result.",
			c.svg(), "no step of the search has a latency")
	}
}

// kneeChart is the knee of one search, over the runs that have it.
func kneeChart(runs []Run, searches []*report.RateSearch) *lineChart {
	b := &seriesBuilder{colors: &labels{}}
	c := &lineChart{
		xLabel: "offered rate (connections started per second)", yLabel: "latency from intended start (log scale)",
		xAxis: axisLinear, yAxis: axisLog10, xTick: rateTick, yTick: plainNum, yUnit: timeQ, runs: runNames(runs),
	}
	for ri, s := range searches {
		if s == nil {
			continue
		}
		for _, r := range s.Steps {
			if r.RateTarget == nil {
				continue
			}
			for _, q := range kneePercentiles {
				us := report.PercentileUS(r, q)
				label := "p" + strconv.FormatFloat(q, 'f', -1, 64)
				p := xyPoint{x: *r.RateTarget, y: us,
					tip: fmt.Sprintf("%s/s%s: %s %s, goal %s", report.RateNum(*r.RateTarget), runSuffix(runs, ri), label, timeQ.num(us), metWord(r.SLOMet))}
				if r.Verdict == report.VerdictFailed {
					p.state = stateFailed
					p.tip += " (FAILED a gate: not a result)"
					// One label, at the top percentile, for the step.
					p.unlabelled = q != kneePercentiles[len(kneePercentiles)-1]
				}
				b.add(ri, label, p)
			}
		}
		c.refs = append(c.refs, kneeRefs(s, runSuffix(runs, ri), ri)...)
	}
	c.series = b.done()
	return c
}

// kneeRefs are a search's goal line and its bracket, labelled with the
// run they belong to when two runs are drawn.
func kneeRefs(s *report.RateSearch, suffix string, row int) []refLine {
	var refs []refLine
	slo := ""
	if s.Answer != nil {
		slo = s.Answer.SLO
	} else if len(s.Steps) > 0 {
		slo = s.Steps[0].SLO
	}
	if g, ok := report.ParseGoal(slo); ok {
		refs = append(refs, refLine{value: g.LatencyUS, class: "slo", row: row, label: "goal: " + g.Label() + " ≤ " + g.Latency + suffix})
	}
	if a := s.Answer; a != nil {
		if a.RateSustained != nil && !math.IsNaN(*a.RateSustained) {
			refs = append(refs, refLine{vertical: true, value: *a.RateSustained, class: "sustained", left: true, row: row, label: "met " + report.RateNum(*a.RateSustained) + "/s" + suffix})
		}
		if a.RateFailed != nil && !math.IsNaN(*a.RateFailed) {
			refs = append(refs, refLine{vertical: true, value: *a.RateFailed, class: "failed", dashed: true, row: row, label: "failed " + report.RateNum(*a.RateFailed) + "/s" + suffix})
		}
	}
	return refs
}

func metWord(met *bool) string {
	switch {
	case met == nil:
		return "not judged"
	case *met:
		return "met"
	}
	return "not met"
}
