package cli

import (
	"testing"

	"github.com/tlsbench/tlsbench/report/compare"
	"github.com/tlsbench/tlsbench/results"
)

// TestGateMetricsAreCompares: every metric --fail-on-regression takes is
// one the comparison judges: it has a label and a way to read it.
func TestGateMetricsAreCompares(t *testing.T) {
	t.Parallel()
	for _, m := range results.Metrics() {
		if compare.MetricLabel(m) == "" {
			t.Errorf("--fail-on-regression takes %q, which the comparison does not judge", m)
		}
	}
}
