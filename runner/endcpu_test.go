package runner_test

import (
	"context"
	"testing"

	"github.com/tlsbench/tlsbench/report/compare"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/runner"
)

// endPlan is an interleaved plan of full handshakes long enough for the
// signed-rank test: 20 rounds.
func endPlan() runner.Plan {
	p := versusPlan()
	p.Resume = []bool{false}
	p.Iterations, p.Handshakes = 20, 16
	return p
}

// pairedEnds runs p and compares its sides, case by case, with floor
// the smallest change called one (MinEffect).
func pairedEnds(t *testing.T, p runner.Plan, floor float64) *compare.Comparison {
	t.Helper()
	recs := collect(t, 2*len(p.Cases()), func(emit func(*results.Record) error) error {
		return runner.Run(context.Background(), p, emit)
	})
	for _, r := range recs {
		n := len(r.SamplesUS)
		if len(r.ClientCPUSamplesUS) != n || len(r.ServerCPUSamplesUS) != n || len(r.AllocSamplesBytes) != n || r.ServerCPUTickUS != nil {
			t.Fatalf("%s side %s: %d samples, %d client CPU, %d server CPU, %d allocations, server tick %v: want one of each per iteration, read to the microsecond",
				r.Name, r.Side, n, len(r.ClientCPUSamplesUS), len(r.ServerCPUSamplesUS), len(r.AllocSamplesBytes), r.ServerCPUTickUS)
		}
	}
	c, err := compare.ComparePaired(recs, compare.CompareOptions{MinEffect: floor})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Cases) == 0 {
		t.Fatal("no case compared")
	}
	return c
}

func changed(mc compare.MetricComparison) bool {
	return mc.Verdict == compare.Slower || mc.Verdict == compare.Faster
}

// TestVersusSelfFlagsNoEnd: an A/A run of two built-in servers flags no
// end's cost. Not parallel (nor is the next): the client's CPU is the
// process's, which other tests running in it would add to.
func TestVersusSelfFlagsNoEnd(t *testing.T) {
	c := pairedEnds(t, endPlan(), 0.10)
	for _, cc := range c.Cases {
		for _, m := range []string{results.MetricClientCPU, results.MetricServerCPU, results.MetricAlloc} {
			mc, ok := cc.Metric(m)
			if !ok || changed(mc) {
				t.Errorf("%s: %s compared %v: %+v, want no change", cc.Name, m, ok, mc)
			}
		}
	}
}

// TestVersusServerCostOnServer: side b's server decrypts its key on
// every handshake (key-cache off): its CPU is flagged (about 3x, the
// time about 2x), the client's is not. The client's CPU is its
// process's, part of which goes with the time rather than the handshakes
// (waking for the slower server's answers, the runtime's background
// work): it rises 5-25% per handshake here, so the floor is set at 50%,
// and the client's interval must lie wholly below the server's.
func TestVersusServerCostOnServer(t *testing.T) {
	p := endPlan()
	useP12Identity(t, &p)
	p.Versus.Settings = []runner.VersusSetting{{Name: "key-cache", Value: "off"}}
	c := pairedEnds(t, p, 0.50)
	for _, cc := range c.Cases {
		srv, _ := cc.Metric(results.MetricServerCPU)
		cli, ok := cc.Metric(results.MetricClientCPU)
		if srv.Verdict != compare.Slower || !(srv.CILo > 2) {
			t.Errorf("%s: server CPU %+v, want higher on side b", cc.Name, srv)
		}
		if !ok || changed(cli) || !(cli.CIHi < srv.CILo) {
			t.Errorf("%s: client CPU %+v, want no change", cc.Name, cli)
		}
		t.Logf("%s: server CPU %.2fx [%.2f, %.2f], client CPU %.2fx [%.2f, %.2f] p=%.3f %s, wall %.2fx", cc.Name, srv.Ratio, srv.CILo, srv.CIHi, cli.Ratio, cli.CILo, cli.CIHi, cli.P, cli.Verdict, cc.Ratio)
	}
}
