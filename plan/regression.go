package plan

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tlsbench/tlsbench/results"
)

// RegressionGate is one gate of --fail-on-regression: the metric it
// judges and the largest increase it lets pass, a fraction (0.05: 5%).
type RegressionGate struct {
	Metric    string
	Threshold float64
}

// AddRegressionGates reads one value of --fail-on-regression into the
// gates given before it (have): gates separated by commas, each PCT (the
// time's) or METRIC=PCT, the percentage with its sign ("5%"). A metric
// may be gated once. Its errors are *Error of the setting.
func AddRegressionGates(have []RegressionGate, s string) ([]RegressionGate, error) {
	setting := Lookup(Compare, "fail-on-regression")
	out := slices.Clone(have)
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		metric, pct, ok := strings.Cut(item, "=")
		if !ok {
			metric, pct = results.MetricWall, item
		}
		metric = strings.TrimSpace(metric)
		if !slices.Contains(results.Metrics(), metric) {
			return nil, Errorf(setting, nil, "%q: %q is not a metric (want one of %s, e.g. server-cpu=5%%)", item, metric, strings.Join(results.Metrics(), ", "))
		}
		frac, err := parsePercent(pct)
		if err != "" {
			return nil, Errorf(setting, nil, "%q %s", pct, err)
		}
		if i := slices.IndexFunc(out, func(g RegressionGate) bool { return g.Metric == metric }); i >= 0 {
			return nil, Errorf(setting, nil, "%q gates %s a second time: give each metric once", item, metric)
		}
		out = append(out, RegressionGate{Metric: metric, Threshold: frac})
	}
	return out, nil
}

// parsePercent reads "5%" as 0.05; the reason when it cannot.
func parsePercent(s string) (float64, string) {
	num, ok := strings.CutSuffix(strings.TrimSpace(s), "%")
	if !ok {
		return 0, "needs a % sign, e.g. 5%"
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, "is not a percentage of 0% or more, e.g. 5%"
	}
	return v / 100, ""
}
