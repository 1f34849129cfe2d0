package runner

import (
	"testing"

	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/server"
)

// TestBenchmarkMaxConns: the built-in server a run starts never caps
// its connections below what a case of the plan opens at once, at the
// largest concurrency and the largest in-flight cap the plan allows,
// over QUIC too (whose connections count against the same cap).
func TestBenchmarkMaxConns(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		p    Plan
		peak int
	}{
		{Plan{Concurrency: []int{1, 8, 64, 128}}, 128},
		{Plan{Concurrency: []int{4096}}, 4096},
		{Plan{Concurrency: []int{64, 2048}, Transports: []string{TransportTCP, TransportQUIC}}, 2048},
		{Plan{Rates: []float64{100}}, measure.DefaultMaxInflight},
		{Plan{Rates: []float64{100}, MaxInflight: plan.MaxInflight}, plan.MaxInflight},
	} {
		if got := tt.p.peakConns(); got != tt.peak {
			t.Errorf("peakConns(%+v) = %d, want %d", tt.p, got, tt.peak)
		}
		if c := benchmarkMaxConns(tt.p.peakConns()); c < tt.peak || c > server.MaxMaxConns {
			t.Errorf("benchmarkMaxConns(%d) = %d, want at least the peak and at most %d", tt.peak, c, server.MaxMaxConns)
		}
	}
}
