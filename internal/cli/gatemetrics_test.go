package cli

import (
	"slices"
	"testing"

	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/report/compare"
)

// TestGateMetricsAreCompares: every metric --fail-on-regression takes is
// one the comparison judges, and the other way round.
func TestGateMetricsAreCompares(t *testing.T) {
	t.Parallel()
	if got, want := plan.RegressionMetrics(), compare.Metrics(); !slices.Equal(got, want) {
		t.Errorf("the flag takes %v, the comparison judges %v", got, want)
	}
}
