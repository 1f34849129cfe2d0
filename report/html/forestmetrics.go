package html

import (
	"strings"

	"github.com/tlsbench/tlsbench/report/compare"
	"github.com/tlsbench/tlsbench/results"
)

// addMetricForests adds, after the time's, a forest plot per cost metric
// (client, server and proxy CPU, allocations per handshake) that some
// case of c was judged on: the same marks, of that metric's paired ratio.
func (cs *chartSet) addMetricForests(c *compare.Comparison) {
	for _, m := range results.Metrics()[1:] {
		mc := metricComparison(c, m)
		if len(mc.Cases) == 0 {
			continue
		}
		label := compare.MetricLabel(m)
		cs.add("chart-ratio-"+m, "Side b / side a per case: "+label+" per handshake, with its 99.9% interval",
			"As the plot above, for the "+label+" per handshake of each iteration, read at the same boundaries as its time: a ratio above 1 costs side b more. A metric whose readings are too coarse for the case's iterations (a CPU time read from /proc in 10 ms ticks) is not resolved, drawn hatched grey.",
			forestChart(mc, "ratio of "+label+" side b / side a, with its 99.9% interval", true), "")
	}
}

// metricComparison is c with each case's figures those of metric m,
// leaving out the cases not judged on it.
func metricComparison(c *compare.Comparison, m string) *compare.Comparison {
	out := &compare.Comparison{Alpha: c.Alpha, Paired: c.Paired, MinEffect: c.MinEffect}
	for i := range c.Cases {
		cc := &c.Cases[i]
		if len(cc.Metrics) == 0 {
			continue
		}
		mc, ok := cc.Metric(m)
		if !ok {
			continue
		}
		row := compare.CaseComparison{Name: cc.Name, Kind: cc.Kind, Paired: true, Ratio: mc.Ratio, CILo: mc.CILo, CIHi: mc.CIHi,
			P: mc.P, Floor: mc.Floor, Verdict: mc.Verdict}
		if mc.Note != "" {
			// "server CPU not resolved: ..." is the verdict and why.
			row.Notes = []string{strings.TrimPrefix(mc.Note, compare.MetricLabel(m)+" ")}
		}
		out.Cases = append(out.Cases, row)
	}
	return out
}
