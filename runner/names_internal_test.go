package runner

import (
	"testing"

	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/plan"
)

// TestPlanNamesTheLoadGeneratorsValues: the plan names the directions
// and the built-in proxy's wires as the load generator takes them.
func TestPlanNamesTheLoadGeneratorsValues(t *testing.T) {
	t.Parallel()
	for _, p := range [][2]string{
		{plan.DirectionDownload, loadgen.DirectionDownload},
		{plan.DirectionUpload, loadgen.DirectionUpload},
		{plan.DirectionBoth, loadgen.DirectionBoth},
		{plan.RequestHTTP, loadgen.ThroughputRequestHTTP},
	} {
		if p[0] != p[1] {
			t.Errorf("plan says %q, the load generator %q", p[0], p[1])
		}
	}
}
