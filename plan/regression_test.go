package plan_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/results"
)

// TestAddRegressionGates: a bare percentage gates the time, METRIC=PCT a
// metric, several in one value or repeated; a wrong metric, percentage
// or a metric gated twice is an error of the setting that says why.
func TestAddRegressionGates(t *testing.T) {
	t.Parallel()
	gates, err := plan.AddRegressionGates(nil, "5%")
	if err != nil || !slices.Equal(gates, []plan.RegressionGate{{Metric: results.MetricWall, Threshold: 0.05}}) {
		t.Fatalf("5%%: %v %v", gates, err)
	}
	gates, err = plan.AddRegressionGates(gates, "server-cpu=10%, alloc=2.5%")
	want := []plan.RegressionGate{{results.MetricWall, 0.05}, {results.MetricServerCPU, 0.10}, {results.MetricAlloc, 0.025}}
	if err != nil || len(gates) != 3 || gates[1] != want[1] || gates[0] != want[0] || gates[2].Metric != results.MetricAlloc || gates[2].Threshold-0.025 > 1e-12 {
		t.Fatalf("server-cpu=10%%, alloc=2.5%%: %v %v, want %v", gates, err, want)
	}
	for _, tc := range []struct{ value, want string }{
		{"cpu=5%", `"cpu=5%": "cpu" is not a metric (want one of wall, client-cpu, server-cpu, proxy-cpu, alloc`},
		{"server-cpu=5", `"5" needs a % sign`},
		{"client-cpu=-1%", `"-1%" is not a percentage of 0% or more`},
		{"server-cpu=1%", `"server-cpu=1%" gates server-cpu a second time`},
		{"wall=1%", `gates wall a second time`},
	} {
		_, err := plan.AddRegressionGates(gates, tc.value)
		var pe *plan.Error
		if !errors.As(err, &pe) || pe.Setting == nil || pe.Setting.Name != "fail-on-regression" || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want an error of fail-on-regression containing %q", tc.value, err, tc.want)
		}
	}
}
