package merge

import (
	"strings"
	"testing"
)

// TestMergeCostSamples: the shards' costs per iteration combine per
// iteration, weighted by each shard's handshakes in it, as the case's
// figures per handshake are; a cost one shard lacks is absent, and a list
// of another length than samples_us is refused, naming it.
func TestMergeCostSamples(t *testing.T) {
	t.Parallel()
	recs, _ := twoShards(t)
	// Iteration 0: 900 and 300 handshakes; 1: 1100 and 250.
	recs[0].ClientCPUSamplesUS, recs[1].ClientCPUSamplesUS = []float64{10, 20}, []float64{30, 40}
	recs[0].AllocSamplesBytes, recs[1].AllocSamplesBytes = []float64{1000, 1000}, []float64{2000, 3000}
	recs[0].ServerCPUSamplesUS = []float64{5, 5}
	got := mergeOne(t, Options{}, recs...)
	want := []float64{(10*900 + 30*300) / 1200.0, (20*1100 + 40*250) / 1350.0}
	if len(got.ClientCPUSamplesUS) != 2 || !near(got.ClientCPUSamplesUS[0], want[0]) || !near(got.ClientCPUSamplesUS[1], want[1]) {
		t.Errorf("client_cpu_samples_us %v, want %v", got.ClientCPUSamplesUS, want)
	}
	wantAlloc := []float64{(1000*900 + 2000*300) / 1200.0, (1000*1100 + 3000*250) / 1350.0}
	if len(got.AllocSamplesBytes) != 2 || !near(got.AllocSamplesBytes[0], wantAlloc[0]) || !near(got.AllocSamplesBytes[1], wantAlloc[1]) {
		t.Errorf("alloc_samples_bytes %v, want %v", got.AllocSamplesBytes, wantAlloc)
	}
	if got.ServerCPUSamplesUS != nil {
		t.Errorf("server_cpu_samples_us %v: one shard has none, so the union's is unknown", got.ServerCPUSamplesUS)
	}

	recs[1].ServerCPUSamplesUS = []float64{5}
	_, err := Merge(Options{}, Source{Name: "shards.jsonl", Records: recs})
	if err == nil || !strings.Contains(err.Error(), "server_cpu_samples_us") {
		t.Errorf("a list shorter than samples_us merged, or was refused without naming it: %v", err)
	}
}
