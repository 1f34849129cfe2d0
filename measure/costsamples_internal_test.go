package measure

import (
	"errors"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/usage"
	"github.com/tlsbench/tlsbench/results"
)

// TestCostSamples: each kept iteration's costs per handshake, paired with
// its sample; a server read from /proc carries its tick, and a server
// reading lost in one iteration drops the server's list, not the others.
func TestCostSamples(t *testing.T) {
	t.Parallel()
	var c costSamples
	c.keep(10, span{Self: usage.Snapshot{CPU: 2 * time.Millisecond, AllocBytes: 5000},
		srv: ServerSnapshot{HasCPU: true, CPU: 20 * time.Millisecond, CPUTick: usage.ProcTick}})
	c.keep(20, span{Self: usage.Snapshot{CPU: 3 * time.Millisecond, AllocBytes: 8000},
		srv: ServerSnapshot{HasCPU: true, CPU: 30 * time.Millisecond, CPUTick: usage.ProcTick}, prxErr: errors.New("gone")})
	rec := results.Record{SamplesUS: []float64{1, 2}, ClientCPUUS: results.Float(1), ServerCPUUS: results.Float(1), ProxyCPUUS: results.Float(1)}
	c.record(&rec)
	if got := rec.ClientCPUSamplesUS; len(got) != 2 || got[0] != 200 || got[1] != 150 {
		t.Errorf("client %v, want [200 150] µs per handshake", got)
	}
	if got := rec.AllocSamplesBytes; len(got) != 2 || got[0] != 500 || got[1] != 400 {
		t.Errorf("alloc %v, want [500 400] bytes per handshake", got)
	}
	if got := rec.ServerCPUSamplesUS; len(got) != 2 || got[0] != 2000 || got[1] != 1500 || rec.ServerCPUTickUS == nil || *rec.ServerCPUTickUS != 10000 {
		t.Errorf("server %v tick %v, want [2000 1500] at 10000 µs", got, rec.ServerCPUTickUS)
	}
	if rec.ProxyCPUSamplesUS != nil || rec.ProxyCPUTickUS != nil {
		t.Errorf("proxy %v: a lost reading must drop the list", rec.ProxyCPUSamplesUS)
	}
	c.keep(10, span{srvErr: errors.New("closed")})
	rec.SamplesUS = []float64{1, 2, 3}
	c.record(&rec)
	if rec.ServerCPUSamplesUS != nil || len(rec.ClientCPUSamplesUS) != 3 {
		t.Errorf("server %v client %v after a lost server reading", rec.ServerCPUSamplesUS, rec.ClientCPUSamplesUS)
	}
}
