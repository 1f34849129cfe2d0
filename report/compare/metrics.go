package compare

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tlsbench/tlsbench/report"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/stats"
)

// A case is judged on its time per handshake (the case's own verdict)
// and, where both sides' records hold them, on the costs of each end per
// handshake, iteration by iteration: a change to a TLS stack usually
// lands on one end, and the time, which mixes the client's work, the
// server's and the waits between them, can hide where.

// DefaultInstructionsMinEffect is the smallest change of an instruction
// count called higher or lower when --min-effect is not given. Counts
// move far less than times between runs of the same work: the paired
// ratios of an A/A run in instruction mode stay within 0.2% of 1 and
// their geometric mean within 0.1% (BENCHMARKS.md), so the time's 2%
// would hide the changes the count is there to show.
const DefaultInstructionsMinEffect = 0.003

// NotResolved: the metric's readings are too coarse for the case's
// iterations (see MinTicks): it is not judged, rather than judging the
// rounding of its readings.
const NotResolved Verdict = "not resolved"

// MinTicks is how many steps of its resolution (a CPU time read from
// /proc moves in 10 ms ticks) the median iteration of both sides must
// measure for a metric to be judged. A reading is off by up to a tick at
// each boundary, so with 10 ticks an iteration's figure is within about
// 10% of the truth, an error the paired test then averages over the
// iterations; with fewer, iterations read as 0 or 1 tick and their ratios
// are the rounding's.
const MinTicks = 10

// MetricComparison is one cost metric of a case compared between the
// sides (side b against side a, or the candidate against the baseline).
type MetricComparison struct {
	Metric string
	// N is how many pairs (interleaved) or samples per side were used.
	N int
	// Ratio is the paired geometric mean ratio (interleaved) or the
	// ratio of the means; CILo and CIHi its 99.9% interval (interleaved
	// only; NaN otherwise); P the test's p-value; Change is Ratio-1.
	Ratio, CILo, CIHi, P, Change float64
	// Floor is the smallest change called higher or lower: MinEffect, or
	// the A/A interval of side a2 on this metric when that is larger.
	Floor   float64
	Verdict Verdict
	// Note says why the metric was not judged, when it was not.
	Note string
}

// metricOf is what a metric's per-iteration values and the resolution
// of their readings are in a record.
// A count's ratio is written to 4 decimals (fine), a time's to 2.
var metricOf = map[string]struct {
	samples func(*results.Record) []float64
	tick    func(*results.Record) *float64
	label   string
	fine    bool
}{
	results.MetricClientCPU:          {func(r *results.Record) []float64 { return r.ClientCPUSamplesUS }, nil, "client CPU", false},
	results.MetricServerCPU:          {func(r *results.Record) []float64 { return r.ServerCPUSamplesUS }, func(r *results.Record) *float64 { return r.ServerCPUTickUS }, "server CPU", false},
	results.MetricProxyCPU:           {func(r *results.Record) []float64 { return r.ProxyCPUSamplesUS }, func(r *results.Record) *float64 { return r.ProxyCPUTickUS }, "proxy CPU", false},
	results.MetricAlloc:              {func(r *results.Record) []float64 { return r.AllocSamplesBytes }, nil, "allocations", false},
	results.MetricServerInstructions: {func(r *results.Record) []float64 { return r.ServerInstructionsSamples }, nil, "server instructions", true},
	results.MetricClientInstructions: {func(r *results.Record) []float64 { return r.ClientInstructionsSamples }, nil, "client instructions", true},
}

// MetricLabel is a metric's name as reports write it.
func MetricLabel(m string) string {
	if m == results.MetricWall {
		return "wall"
	}
	return metricOf[m].label
}

// metricSamples pools the metric's values of recs, nil when a record
// lacks them (a pool with a hole is not the case's).
func metricSamples(recs []*results.Record, metric string) []float64 {
	var xs []float64
	for _, r := range recs {
		s := metricOf[metric].samples(r)
		if len(s) == 0 {
			return nil
		}
		xs = append(xs, s...)
	}
	return xs
}

// medianTicks is how many steps of its resolution the median iteration
// of recs measured of the metric; +Inf when its readings are fine.
func medianTicks(recs []*results.Record, metric string) (float64, float64) {
	tickOf := metricOf[metric].tick
	if tickOf == nil {
		return math.Inf(1), 0
	}
	var ticks []float64
	tick := 0.0
	for _, r := range recs {
		t := tickOf(r)
		if t == nil || *t <= 0 {
			continue
		}
		tick = max(tick, *t)
	}
	if tick == 0 {
		return math.Inf(1), 0
	}
	for _, r := range recs {
		n := float64(perIteration(r))
		for i, x := range metricOf[metric].samples(r) {
			if i < len(r.SampleHandshakes) {
				n = float64(r.SampleHandshakes[i])
			}
			ticks = append(ticks, x*n/tick)
		}
	}
	if len(ticks) == 0 {
		return 0, tick
	}
	slices.Sort(ticks)
	return ticks[len(ticks)/2], tick
}

// compareMetrics compares the cost metrics both sides of cc hold (a2,
// when given, is an interleaved run's second side a: the noise floor).
func (c *Comparison) compareMetrics(cc *CaseComparison, a, b, a2 []*results.Record) {
	if cc.Kind != results.KindHandshake || cc.Verdict == NotComparable || cc.Verdict == OtherLoad {
		return
	}
	for _, m := range results.Metrics()[1:] {
		ax, bx := metricSamples(a, m), metricSamples(b, m)
		if ax == nil || bx == nil {
			continue
		}
		mc := MetricComparison{Metric: m, Ratio: math.NaN(), CILo: math.NaN(), CIHi: math.NaN(), P: math.NaN(), Change: math.NaN(), Floor: c.MinEffect}
		if metricOf[m].fine {
			mc.Floor = c.InstructionsMinEffect
		}
		if why := unresolved(a, b, m); why != "" {
			mc.Verdict, mc.Note = NotResolved, why
			cc.Metrics = append(cc.Metrics, mc)
			continue
		}
		if c.Paired {
			c.judgeMetricPaired(&mc, ax, bx, metricSamples(a2, m))
		} else {
			c.judgeMetricSeparate(&mc, ax, bx)
		}
		cc.Metrics = append(cc.Metrics, mc)
	}
}

// unresolved says why metric m cannot be judged at its resolution, ""
// when it can.
func unresolved(a, b []*results.Record, m string) string {
	ta, tick := medianTicks(a, m)
	tb, tickB := medianTicks(b, m)
	tick = max(tick, tickB)
	if min(ta, tb) >= MinTicks {
		return ""
	}
	return fmt.Sprintf("%s not resolved: its readings move in steps of %s ms, and the median iteration measured %s and %s of them on the two sides (%d are needed to judge it); measure more handshakes per iteration (--handshakes)",
		MetricLabel(m), strconv.FormatFloat(tick/1e3, 'f', -1, 64), tickCount(ta), tickCount(tb), MinTicks)
}

func tickCount(t float64) string {
	if math.IsInf(t, 1) {
		return "any number"
	}
	return strconv.FormatFloat(t, 'f', 1, 64)
}

// judgeMetricPaired judges a metric of an interleaved run as judgePaired
// judges the time: the signed-rank test and the 99.9% interval of the
// paired ratio, against the floor (raised by side a2's interval, a2x).
func (c *Comparison) judgeMetricPaired(mc *MetricComparison, ax, bx, a2x []float64) {
	if len(ax) != len(bx) {
		mc.Verdict = NotComparable
		mc.Note = fmt.Sprintf("%s not comparable: side a has %d values and side b %d", MetricLabel(mc.Metric), len(ax), len(bx))
		return
	}
	if len(a2x) == len(ax) {
		if st := stats.ComparePaired(ax, a2x, c.Alpha); !math.IsNaN(st.Lo) && !math.IsNaN(st.Hi) {
			mc.Floor = max(mc.Floor, math.Abs(st.Lo-1), math.Abs(st.Hi-1))
		}
	}
	st := stats.ComparePaired(ax, bx, c.Alpha)
	mc.N, mc.Ratio, mc.CILo, mc.CIHi, mc.P, mc.Change = st.N, st.Ratio, st.Lo, st.Hi, st.P, st.Ratio-1
	excludesOne := mc.CILo > 1 || mc.CIHi < 1
	switch {
	case st.N == 0 || st.TooFew:
		mc.Verdict = TooFewSamples
		mc.P, mc.CILo, mc.CIHi = math.NaN(), math.NaN(), math.NaN()
	case mc.P <= c.Alpha && excludesOne:
		mc.Verdict = directedChange(mc.Change, mc.Floor)
	default:
		mc.Verdict = NoChange
	}
}

// judgeMetricSeparate judges a metric of two separate runs as
// compareCase judges the time: the U test on the two sides' values.
func (c *Comparison) judgeMetricSeparate(mc *MetricComparison, bx, cx []float64) {
	st := stats.Compare(bx, cx, c.Alpha)
	mc.N, mc.Ratio, mc.P, mc.Change = min(len(bx), len(cx)), st.Ratio, st.P, st.Ratio-1
	switch {
	case math.IsNaN(mc.P) || math.IsNaN(mc.Ratio):
		mc.Verdict = TooFewSamples
		mc.P = math.NaN()
	case mc.P <= c.Alpha:
		mc.Verdict = directedChange(mc.Change, mc.Floor)
	case st.TooFew:
		mc.Verdict = TooFewSamples
	default:
		mc.Verdict = NoChange
	}
}

// directedChange is the verdict of a significant change of a cost:
// slower (it costs more) or faster beyond the floor, within noise inside.
func directedChange(change, floor float64) Verdict {
	switch {
	case math.Abs(change) <= floor || change == 0:
		return WithinNoise
	case change > 0:
		return Slower
	}
	return Faster
}

// Metric is cc's comparison on metric m (results.MetricWall: the case's own),
// and false when cc has none.
func (cc *CaseComparison) Metric(m string) (MetricComparison, bool) {
	if m == results.MetricWall {
		return MetricComparison{Metric: m, N: min(cc.Base.N, cc.Cand.N), Ratio: cc.Ratio, CILo: cc.CILo, CIHi: cc.CIHi, P: cc.P,
			Change: cc.Slowdown, Floor: cc.Floor, Verdict: cc.Verdict}, true
	}
	for _, mc := range cc.Metrics {
		if mc.Metric == m {
			return mc, true
		}
	}
	return MetricComparison{}, false
}

// metricsBlock says, one line a case, where each case's change is: the
// metrics that changed with their ratios, then those that did not, the
// time last. Nil when no case has a cost metric.
func metricsBlock(c *Comparison) []report.Block {
	var items []string
	for i := range c.Cases {
		if cc := &c.Cases[i]; len(cc.Metrics) > 0 {
			items = append(items, cc.Name+": "+metricsLine(cc, c.Paired))
		}
	}
	if len(items) == 0 {
		return nil
	}
	title := "Where the change is (each end's cost per handshake, side b against side a: the change, the paired ratio and its 99.9% interval)"
	if !c.Paired {
		title = "Where the change is (each end's cost per handshake, the candidate against the baseline: the change, the ratio of the means and the U test's p)"
	}
	return []report.Block{{Title: title, Items: items}}
}

// metricsLine is cc's metrics in words: "server CPU +112% (2.12x,
// 1.98-2.27), client CPU unchanged, wall +41%".
func metricsLine(cc *CaseComparison, paired bool) string {
	var changed, others []string
	for _, mc := range cc.Metrics {
		text := MetricLabel(mc.Metric) + " " + metricText(mc, paired)
		if mc.Verdict == Slower || mc.Verdict == Faster {
			changed = append(changed, text)
		} else {
			others = append(others, text)
		}
	}
	wall, _ := cc.Metric(results.MetricWall)
	label := "wall"
	if cc.Figure == FigureHandshake {
		label = "handshake time"
	}
	wallText := label + " " + verdictWord(wall.Verdict)
	if wall.Verdict == Slower || wall.Verdict == Faster {
		wallText = label + " " + signedPercent(wall.Change)
	}
	return strings.Join(append(append(changed, others...), wallText), ", ")
}

// metricText is a metric's outcome: its change with the ratio and its
// interval (or p) when it changed, a word otherwise.
func metricText(mc MetricComparison, paired bool) string {
	if mc.Verdict != Slower && mc.Verdict != Faster {
		return verdictWord(mc.Verdict)
	}
	digits, change := 2, signedPercent(mc.Change)
	if metricOf[mc.Metric].fine {
		digits, change = 4, finePercent(mc.Change)
	}
	ratio := strconv.FormatFloat(mc.Ratio, 'f', digits, 64) + "x"
	if paired {
		return fmt.Sprintf("%s (%s, %s-%s)", change, ratio, strconv.FormatFloat(mc.CILo, 'f', digits, 64), strconv.FormatFloat(mc.CIHi, 'f', digits, 64))
	}
	return fmt.Sprintf("%s (%s, p=%s)", change, ratio, pValue(mc.P))
}

// finePercent is a change of a count, to 0.01%: "+1.02%".
func finePercent(f float64) string {
	s := strconv.FormatFloat(f*100, 'f', 2, 64)
	if f > 0 && s != "0.00" {
		s = "+" + s
	}
	return s + "%"
}

// verdictWord is a verdict of no change in a metrics line.
func verdictWord(v Verdict) string {
	switch v {
	case NoChange, WithinNoise:
		return "unchanged"
	case Slower:
		return "higher"
	case Faster:
		return "lower"
	}
	return string(v)
}

type metricJSON struct {
	Metric  string   `json:"metric"`
	N       int      `json:"n"`
	Ratio   *float64 `json:"ratio"`
	CILo    *float64 `json:"ci_lo"`
	CIHi    *float64 `json:"ci_hi"`
	P       *float64 `json:"p"`
	Change  *float64 `json:"change"`
	Floor   float64  `json:"floor"`
	Verdict Verdict  `json:"verdict"`
	Note    string   `json:"note,omitempty"`
}

func metricsToJSON(ms []MetricComparison) []metricJSON {
	var out []metricJSON
	for _, m := range ms {
		out = append(out, metricJSON{Metric: m.Metric, N: m.N, Ratio: finite(m.Ratio), CILo: finite(m.CILo), CIHi: finite(m.CIHi),
			P: finite(m.P), Change: finite(m.Change), Floor: m.Floor, Verdict: m.Verdict, Note: m.Note})
	}
	return out
}
