package html

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tlsbench/tlsbench/report"
	"github.com/tlsbench/tlsbench/report/compare"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/stats"
)

// figure is one chart of the HTML report.
type figure struct {
	id      string // stable, for links and for the browser test
	title   string
	caption string
	svg     string
}

// chartSet is what the charts section shows: the figures that have data,
// and a sentence for each chart left out, saying why.
type chartSet struct {
	figures []figure
	missing []string
}

func (cs *chartSet) add(id, title, caption, svg, whyMissing string) {
	if svg == "" {
		cs.missing = append(cs.missing, title+": "+whyMissing)
		return
	}
	cs.figures = append(cs.figures, figure{id: id, title: title, caption: caption, svg: svg})
}

// labels assigns each series label a palette index in order of first
// appearance, so that a series keeps its color in every chart of a family
// and in both runs of an overlay.
type labels struct {
	index map[string]int
}

func (l *labels) of(label string) int {
	if l.index == nil {
		l.index = map[string]int{}
	}
	i, ok := l.index[label]
	if !ok {
		i = len(l.index)
		l.index[label] = i
	}
	return i
}

// handshakeSeries is the label of the series a handshake case belongs to:
// its name without "handshake/" and without the concurrency segment
// ("tls1.3/resume/mutual" for handshake/tls1.3/resume/mutual/c64), so that
// the cases of a matrix that differ only in concurrency form one line.
func handshakeSeries(r *results.Record) string {
	rest := strings.TrimPrefix(r.Name, "handshake/")
	seg := "c" + strconv.Itoa(r.Concurrency)
	parts := strings.Split(rest, "/")
	if i := slices.Index(parts, seg); i >= 0 && len(parts) > 1 {
		parts = slices.Delete(parts, i, i+1)
	}
	return strings.Join(parts, "/") + report.SideSuffix(r)
}

// throughputSeries is the label of a throughput case's series: all that
// identifies it except the buffer size, which is the x axis.
func throughputSeries(r *results.Record) string {
	parts := []string{"tls" + report.OrNull(r.TLSVersion)}
	if r.Cipher != "" {
		parts = append(parts, r.Cipher)
	}
	if r.Direction != "" {
		parts = append(parts, r.Direction)
	}
	if r.KTLSTX != nil || r.KTLSRX != nil {
		parts = append(parts, "kTLS "+report.OnOff(r.KTLSTX)+"/"+report.OnOff(r.KTLSRX))
	} else {
		parts = append(parts, "kTLS -")
	}
	return strings.Join(parts, " ") + report.SideSuffix(r)
}

// chartID makes a fragment identifier of s: lower-case letters, digits
// and dashes.
func chartID(s string) string {
	var sb strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			sb.WriteRune(r)
			dash = false
		} else if !dash && sb.Len() > 0 {
			sb.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(sb.String(), "-")
}

func runNames(runs []Run) []string {
	names := make([]string, len(runs))
	for i, r := range runs {
		names[i] = r.Name
	}
	return names
}

// versions are the TLS versions of the records of runs that keep
// returns true for, sorted.
func versions(runs []Run, keep func(r *results.Record) bool) []string {
	var vs []string
	for _, run := range runs {
		for i := range run.Records {
			r := &run.Records[i]
			if keep(r) && !slices.Contains(vs, r.TLSVersion) {
				vs = append(vs, r.TLSVersion)
			}
		}
	}
	slices.Sort(vs)
	return vs
}

func versionTitle(v string) string {
	if v == "" {
		return "unknown TLS version"
	}
	return "TLS " + v
}

// seriesBuilder collects the points of one chart by run and label, keeping
// the order in which series first appear.
type seriesBuilder struct {
	colors *labels
	series []xySeries
	index  map[[2]string]int
}

func (b *seriesBuilder) add(run int, label string, p xyPoint) {
	b.series[b.at(run, label)].points = append(b.series[b.at(run, label)].points, p)
}

// sideless is a series label without the side it ends with (" [b]").
func sideless(label string) string {
	for _, side := range []string{results.SideA, results.SideB, results.SideA2} {
		if l, ok := strings.CutSuffix(label, " ["+side+"]"); ok {
			return l
		}
	}
	return label
}

// setState marks a series of one case that is not a result.
func (b *seriesBuilder) setState(run int, label, state string) {
	b.series[b.at(run, label)].state = state
}

// at is the index of the series of run and label, added if new.
func (b *seriesBuilder) at(run int, label string) int {
	if b.index == nil {
		b.index = map[[2]string]int{}
	}
	key := [2]string{strconv.Itoa(run), label}
	i, ok := b.index[key]
	if !ok {
		i = len(b.series)
		b.index[key] = i
		// The sides of an interleaved run are its two runs here: a
		// case's series of side a and of side b share a color, told
		// apart by their line style, as a baseline and a candidate are.
		key := sideless(label)
		b.series = append(b.series, xySeries{label: label, key: key, color: b.colors.of(key), run: run})
	}
	return i
}

// done sorts each series by x, so that lines run left to right, and
// orders series by label and run so that baseline and candidate of a
// series are drawn together.
func (b *seriesBuilder) done() []xySeries {
	for i := range b.series {
		slices.SortStableFunc(b.series[i].points, func(p, q xyPoint) int {
			switch {
			case p.x < q.x:
				return -1
			case p.x > q.x:
				return 1
			}
			return 0
		})
	}
	slices.SortStableFunc(b.series, func(s, t xySeries) int {
		if s.color != t.color {
			return s.color - t.color
		}
		return s.run - t.run
	})
	return b.series
}

func runSuffix(runs []Run, run int) string {
	if len(runs) < 2 {
		return ""
	}
	return " (" + runs[run].Name + ")"
}

func concurrencyTick(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func bufferTick(v float64) string {
	if v == math.Trunc(v) && v > 0 && v < math.MaxInt32 {
		return strings.ReplaceAll(report.BufferSize(int(v)), " ", "\u00a0")
	}
	return plainNum(v)
}

func percentTick(v float64) string { return plainNum(v) + "%" }

// buildCharts derives every chart of the report from the records of runs
// (one run, or a baseline and a candidate overlaid) and from their
// comparison c (nil for one run).
func buildCharts(runs []Run, c *compare.Comparison) chartSet {
	var cs chartSet
	if c != nil && c.Paired {
		cs.addForest(c)
	}
	runs, beyond := chartRuns(runs)
	if beyond > 0 {
		cs.missing = append(cs.missing, fmt.Sprintf("%d more %s, beyond the first %d that the charts draw: the table output lists every case (tlsbench report FILE)",
			beyond, report.Plural(int64(beyond), "record", "records"), maxChartCases))
	}
	hsColors, latColors := &labels{}, &labels{}
	// Concurrency is the x axis of these charts: open-loop cases and
	// searches, which have a rate instead, get charts of their own, and
	// results without a closed-loop case get none of these.
	closed := versions(runs, report.ClosedLoop)
	for _, v := range closed {
		cs.addTimeChart(runs, v, hsColors)
	}
	if len(closed) > 0 || !anyRecord(runs, func(r *results.Record) bool { return report.OpenLoop(r) || report.SearchRecord(r) }) {
		cs.addResumptionChart(runs, hsColors)
		cs.addRateChart(runs, hsColors)
	}
	cs.addOpenLoopCharts(runs)
	cs.addKneeCharts(runs)
	cs.add("chart-cpu", "Client vs server CPU per handshake",
		"CPU time per handshake as the OS accounts it for each process; the memory transport runs both ends in one process, shown as \"process\".",
		cpuChart(runs), "no CPU measurements in these results")
	for _, v := range versions(runs, func(r *results.Record) bool { return report.ClosedLoop(r) || report.OpenLoop(r) }) {
		cs.addLatencyChart(runs, v, latColors)
	}
	if anyPhases(runs) {
		cs.add("chart-phases", "Phases of a handshake",
			"Median (p50) of each phase, per case: connect, the client's handshake and the wait for the first byte after it laid end to end, and under them the built-in server's own handshake time where it reported it. Medians of separate phases need not add up to the median total.",
			phaseChart(runs), "no case has the time of its phases")
	}
	cs.addThroughputChart(runs)
	return cs
}

// chartRuns are runs with at most maxChartCases cases (the first, in the
// order of the records; a case of both runs is one): a page of every case
// of a results file of thousands would be too large to open, and its
// lines too many to tell apart. beyond counts the cases not drawn. The
// cases that failed a gate or were not run stay: the charts draw them
// as such (stateOf), apart from the results.
func chartRuns(runs []Run) (kept []Run, beyond int) {
	kept = make([]Run, len(runs))
	drawn := map[string]bool{}
	for i, run := range runs {
		kept[i] = Run{Name: run.Name}
		for j := range run.Records {
			r := &run.Records[j]
			label := report.CaseLabel(r)
			if !drawn[label] && len(drawn) == maxChartCases {
				beyond++
				continue
			}
			drawn[label] = true
			kept[i].Records = append(kept[i].Records, *r)
		}
	}
	return kept, beyond
}

// maxChartCases is the most cases the charts draw.
const maxChartCases = 200

// eachRecord calls f with every record of runs and the index of its run.
func eachRecord(runs []Run, f func(run int, r *results.Record)) {
	for ri, run := range runs {
		for i := range run.Records {
			f(ri, &run.Records[i])
		}
	}
}

// addTimeChart adds the per-handshake time vs concurrency of TLS version v.
func (cs *chartSet) addTimeChart(runs []Run, v string, colors *labels) {
	b := &seriesBuilder{colors: colors}
	eachRecord(runs, func(ri int, r *results.Record) {
		if !report.ClosedLoop(r) || r.TLSVersion != v {
			return
		}
		if p, ok := statePoint(runs, ri, r, float64(r.Concurrency), report.Headline(r).Mean); ok {
			b.add(ri, handshakeSeries(r), p)
			return
		}
		errUS := math.NaN()
		h := report.Headline(r)
		tip := fmt.Sprintf("%s%s: %s", report.CaseLabel(r), runSuffix(runs, ri), timeQ.num(h.Mean))
		if h.Err != nil {
			errUS = *h.Err
			tip += " ± " + timeQ.num(errUS)
		}
		if h.Handshake {
			tip += fmt.Sprintf(" (wall %s per connection)", timeQ.num(r.MeanUS))
		} else {
			tip += " (wall time per connection)"
		}
		b.add(ri, handshakeSeries(r), xyPoint{x: float64(r.Concurrency), y: h.Mean, err: errUS, tip: tip})
	})
	c := &lineChart{
		xLabel: "concurrency (handshakes started at once)", yLabel: "connect + handshake (mean ± 99.9% error)",
		xAxis: axisLog2, yAxis: axisLinear, xTick: concurrencyTick, yTick: plainNum, yUnit: timeQ,
		series: b.done(), runs: runNames(runs),
	}
	cs.add("chart-time-"+chartID("tls"+v), "Per-handshake time vs concurrency, "+versionTitle(v),
		"Mean time per handshake of connect and TLS handshake: of each iteration, the time its waves took up to their last handshake over its handshakes, the exchange after the handshake left out (results written without this figure show their wall time per connection). Error bars are the 99.9% confidence interval of the mean. Full and resumed handshakes are separate lines."+stateCaption,
		c.svg(), "no case with a mean time and a concurrency of at least 1")
}

// addResumptionChart adds the resumption rate vs concurrency: resume cases
// only (a full case resumes nothing by design).
func (cs *chartSet) addResumptionChart(runs []Run, colors *labels) {
	b := &seriesBuilder{colors: colors}
	eachRecord(runs, func(ri int, r *results.Record) {
		if !report.ClosedLoop(r) || !r.Resume {
			return
		}
		if p, ok := statePoint(runs, ri, r, float64(r.Concurrency), r.ResumptionRate*100); ok {
			b.add(ri, handshakeSeries(r), p)
			return
		}
		tip := fmt.Sprintf("%s%s: client %s", report.CaseLabel(r), runSuffix(runs, ri), report.Percent(r.ResumptionRate))
		if r.ServerResumed != nil && r.Handshakes > 0 {
			tip += ", server " + report.Percent(float64(*r.ServerResumed)/float64(r.Handshakes))
		}
		b.add(ri, handshakeSeries(r), xyPoint{x: float64(r.Concurrency), y: r.ResumptionRate * 100, tip: tip})
	})
	c := &lineChart{
		xLabel: "concurrency", yLabel: "handshakes resumed (client)",
		xAxis: axisLog2, yAxis: axisLinear, xTick: concurrencyTick, yTick: percentTick, yFixedMax: 100,
		series: b.done(), runs: runNames(runs),
	}
	cs.add("chart-resumption", "Resumption rate vs concurrency",
		"Share of handshakes the client saw resumed, verified on every handshake. Anything below 100% means part of the \"resumed\" time is full handshakes."+stateCaption,
		c.svg(), "no resumed-handshake cases")
}

// addRateChart adds handshakes per second vs concurrency.
func (cs *chartSet) addRateChart(runs []Run, colors *labels) {
	b := &seriesBuilder{colors: colors}
	eachRecord(runs, func(ri int, r *results.Record) {
		if !report.ClosedLoop(r) {
			return
		}
		if p, ok := statePoint(runs, ri, r, float64(r.Concurrency), r.HandshakesPerSec); ok {
			b.add(ri, handshakeSeries(r), p)
			return
		}
		b.add(ri, handshakeSeries(r), xyPoint{x: float64(r.Concurrency), y: r.HandshakesPerSec,
			tip: fmt.Sprintf("%s%s: %s handshakes/s", report.CaseLabel(r), runSuffix(runs, ri), report.Num(r.HandshakesPerSec))})
	})
	c := &lineChart{
		xLabel: "concurrency", yLabel: "handshakes per second",
		xAxis: axisLog2, yAxis: axisLinear, xTick: concurrencyTick, yTick: plainNum,
		series: b.done(), runs: runNames(runs),
	}
	cs.add("chart-rate", "Connections per second vs concurrency",
		"Whole connections (handshake, request, answer, close) completed per second of wall time over the measured iterations: the rate the exchange after the handshake slows too."+stateCaption,
		c.svg(), "no handshake cases with a rate")
}

// addLatencyChart adds the latency percentile curves of TLS version v,
// from the HDR histograms.
func (cs *chartSet) addLatencyChart(runs []Run, v string, colors *labels) {
	b := &seriesBuilder{colors: colors}
	var unusable []string
	open := false
	eachRecord(runs, func(ri int, r *results.Record) {
		if !(report.ClosedLoop(r) || report.OpenLoop(r)) || r.TLSVersion != v {
			return
		}
		open = open || report.OpenLoop(r)
		if report.NotRun(r) {
			unusable = append(unusable, report.CaseLabel(r)+runSuffix(runs, ri)+" (not run)")
			return
		}
		pts, err := percentileCurve(r.Histogram)
		if err != nil {
			unusable = append(unusable, report.CaseLabel(r)+runSuffix(runs, ri)+" ("+err.Error()+")")
			return
		}
		label := strings.TrimPrefix(report.CaseLabel(r), "handshake/")
		for i, p := range pts {
			// Markers (with their tooltip) at p0, p90, p99, ... and at
			// the curve's end.
			p.tip = noMarker
			if p.x == math.Trunc(p.x) || i == len(pts)-1 {
				p.tip = fmt.Sprintf("%s%s: p%s %s", report.CaseLabel(r), runSuffix(runs, ri), strings.TrimSuffix(ninesLabel(p.x), "%"), timeQ.num(p.y))
				if st := stateOf(r); st != "" {
					p.tip += " (" + st + ": not a result)"
				}
			}
			b.add(ri, label, p)
		}
		if st := stateOf(r); st != "" {
			b.setState(ri, label, st)
		}
	})
	c := &lineChart{
		xLabel: "percentile", yLabel: "handshake latency (log scale)",
		xAxis: axisNines, yAxis: axisLog10, xTick: ninesLabel, yTick: plainNum, yUnit: timeQ,
		series: b.done(), runs: runNames(runs),
	}
	caption := "Latency of individual handshakes by percentile, from each case's HDR histogram (3 significant digits); the tail is where queueing under concurrency shows. A case that failed a gate is drawn grey and dotted, labelled FAILED: its figures are not a result."
	if open {
		caption += " Open-loop cases (a start rate) count from each connection's intended start."
	}
	if len(unusable) > 0 {
		caption += " Not shown: " + strings.Join(unusable, "; ") + "."
	}
	cs.add("chart-latency-"+chartID("tls"+v), "Handshake latency percentiles, "+versionTitle(v), caption,
		c.svg(), "no case has a latency histogram")
}

// addThroughputChart adds throughput vs buffer size, kTLS on and off, when
// there are throughput cases.
func (cs *chartSet) addThroughputChart(runs []Run) {
	b := &seriesBuilder{colors: &labels{}}
	anyTP := false
	eachRecord(runs, func(ri int, r *results.Record) {
		if r.Kind != results.KindThroughput {
			return
		}
		anyTP = true
		mbps := math.NaN()
		if r.MBps != nil {
			mbps = *r.MBps
		}
		if p, ok := statePoint(runs, ri, r, float64(r.BufferBytes), mbps); ok {
			b.add(ri, throughputSeries(r), p)
			return
		}
		if r.MBps == nil {
			return
		}
		b.add(ri, throughputSeries(r), xyPoint{x: float64(r.BufferBytes), y: *r.MBps,
			tip: fmt.Sprintf("%s%s: %s", report.CaseLabel(r), runSuffix(runs, ri), mbpsQ.num(*r.MBps))})
	})
	if !anyTP {
		return
	}
	c := &lineChart{
		xLabel: "buffer size", yLabel: "throughput",
		xAxis: axisLog2, yAxis: axisLinear, xTick: bufferTick, yTick: plainNum, yUnit: mbpsQ,
		series: b.done(), runs: runNames(runs),
	}
	cs.add("chart-throughput", "Throughput vs buffer size, kTLS on and off",
		"Bulk transfer rate by record/buffer size and cipher; kTLS tx/rx says whether the kernel did the record encryption."+stateCaption,
		c.svg(), "no throughput case has a rate and a buffer size")
}

// stateCaption ends the caption of a chart that draws the cases that are
// not results.
const stateCaption = " A case that failed a gate is drawn as a hatched grey square labelled FAILED, a case not run as a grey cross at the foot of the plot: neither is a result (see the results tables)."

// statePoint is the point of a record that is not a result, at x and,
// for a failed case, at y; ok is false for a result.
func statePoint(runs []Run, ri int, r *results.Record, x, y float64) (p xyPoint, ok bool) {
	st := stateOf(r)
	if st == "" {
		return xyPoint{}, false
	}
	tip := report.CaseLabel(r) + runSuffix(runs, ri) + ": "
	if st == stateNotRun {
		tip += "not run (see Notes)"
		y = math.NaN()
	} else {
		tip += "FAILED a gate (see Notes): its figures are not a result"
	}
	return xyPoint{x: x, y: y, err: math.NaN(), tip: tip, state: st}, true
}

// percentileCurve samples a case's latency distribution along a nines
// axis, from the minimum (x = 0) to the percentile that the number of
// latencies still resolves (x = log10(count), at most 99.999%).
func percentileCurve(hist string) ([]xyPoint, error) {
	if hist == "" {
		return nil, fmt.Errorf("no histogram")
	}
	l, err := stats.DecodeLatency(hist)
	if err != nil {
		return nil, fmt.Errorf("histogram unreadable")
	}
	n := l.Count()
	if n == 0 {
		return nil, fmt.Errorf("empty histogram")
	}
	top := math.Min(5, math.Max(1, math.Log10(float64(n))))
	var pts []xyPoint
	const step = 0.05
	for i := 0; ; i++ {
		// Round so that whole nines (x = 1, 2, ...) come out exact.
		x := math.Min(math.Round(float64(i)*step*100)/100, top)
		q := 100 * (1 - math.Pow(10, -x))
		pts = append(pts, xyPoint{x: x, y: l.PercentileUS(q)})
		if x >= top {
			break
		}
	}
	return pts, nil
}

// cpuChart is a bar per case and side (client, server, or the single
// process of the memory transport) of CPU µs per handshake. The steps of
// a search for a sustainable rate are cases of their own here (each
// measured its CPU at its rate), in the order of their rates; a case
// that failed a gate is drawn hatched, one not run by a placeholder.
func cpuChart(runs []Run) string {
	groups := []string{"client", "server", "process (both ends)"}
	get := []func(r *results.Record) *float64{
		func(r *results.Record) *float64 { return r.ClientCPUUS },
		func(r *results.Record) *float64 { return r.ServerCPUUS },
		func(r *results.Record) *float64 { return r.ProcessCPUUS },
	}
	var cats []string
	idx := map[string]int{}
	used := make([]bool, len(groups))
	type key struct {
		cat, run int
	}
	recs := map[key]*results.Record{}
	for ri, run := range runs {
		for _, r := range cpuRecords(run) {
			has := false
			for g, f := range get {
				if v := f(r); v != nil && report.FiniteAll(*v) {
					has, used[g] = true, true
				}
			}
			if !has && !report.NotRun(r) {
				continue
			}
			name := strings.TrimPrefix(report.CaseLabel(r), "handshake/")
			ci, ok := idx[name]
			if !ok {
				ci = len(cats)
				idx[name] = ci
				cats = append(cats, name)
			}
			recs[key{ci, ri}] = r
		}
	}
	if len(cats) == 0 {
		return ""
	}
	var gi []int
	for g := range groups {
		if used[g] {
			gi = append(gi, g)
		}
	}
	c := &barChart{xLabel: "CPU per handshake", xUnit: timeQ, categories: cats, runs: runNames(runs)}
	for _, g := range gi {
		c.groups = append(c.groups, groups[g])
	}
	c.value = make([][][]float64, len(cats))
	c.state = make([][]string, len(cats))
	for ci := range cats {
		c.value[ci] = make([][]float64, len(gi))
		c.state[ci] = make([]string, len(runs))
		for ri := range runs {
			if r := recs[key{ci, ri}]; r != nil {
				c.state[ci][ri] = stateOf(r)
			}
		}
		for j, g := range gi {
			c.value[ci][j] = make([]float64, len(runs))
			for ri := range runs {
				c.value[ci][j][ri] = math.NaN()
				if r := recs[key{ci, ri}]; r != nil {
					if v := get[g](r); v != nil {
						c.value[ci][j][ri] = *v
					}
				}
			}
		}
	}
	c.tip = func(ci, g, ri int) string {
		tip := fmt.Sprintf("%s%s: %s CPU %s per handshake", cats[ci], runSuffix(runs, ri), c.groups[g], timeQ.num(c.value[ci][g][ri]))
		if st := c.state[ci][ri]; st != "" {
			tip += " (" + st + ": not a result)"
		}
		return tip
	}
	return c.svg()
}

// cpuRecords are the records of run whose CPU per handshake the CPU chart
// draws: handshake cases, and the steps of each search by rate (a
// search's answer measured nothing itself).
func cpuRecords(run Run) []*results.Record {
	var out, steps []*results.Record
	for i := range run.Records {
		r := &run.Records[i]
		switch {
		case r.Kind == results.KindThroughput || r.Kind == results.KindRateSearch:
		case r.Kind == results.KindRateStep:
			steps = append(steps, r)
		default:
			out = append(out, r)
		}
	}
	for _, s := range report.RateSearches(steps) {
		out = append(out, s.Steps...)
	}
	return out
}

// anyRecord reports whether a record of runs satisfies f.
func anyRecord(runs []Run, f func(r *results.Record) bool) bool {
	found := false
	eachRecord(runs, func(_ int, r *results.Record) { found = found || f(r) })
	return found
}

// anyPhases reports whether a handshake record of runs has phases:
// results written before phases existed get no phase chart, not a
// missing one.
func anyPhases(runs []Run) bool {
	found := false
	eachRecord(runs, func(_ int, r *results.Record) {
		found = found || (r.Kind != results.KindThroughput && !report.SearchRecord(r) && len(r.Phases) > 0)
	})
	return found
}
