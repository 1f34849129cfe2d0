package runner_test

import (
	"context"
	"crypto/tls"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/testchild"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/runner"
)

// TestProxyLatencySpansBothLegs: at concurrency 1 an iteration's mean is
// the time of one connection, which through a proxy includes the CONNECT
// (answered after the proxy's handshake with the server). The latency
// percentiles must cover it too: p99 at least the smallest iteration
// mean, p50 within a factor of the mean.
func TestProxyLatencySpansBothLegs(t *testing.T) {
	t.Parallel()
	p := runner.Plan{
		Versions: []uint16{tls.VersionTLS13}, Resume: []bool{false}, Concurrency: []int{1},
		Handshakes: 24, Iterations: 3, Warmup: 1, ConnTimeout: 20 * time.Second,
		Proxy: builtinProxy, ChildEnv: []string{testchild.Env()},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	recs, err := collectRecs(t, func(emit func(*results.Record) error) error { return runner.Run(ctx, p, emit) })
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	r := recs[0]
	if r.P99US < r.MinUS {
		t.Errorf("p99 %.0f µs below the smallest iteration mean %.0f µs: the percentiles leave out the proxy's leg", r.P99US, r.MinUS)
	}
	if r.P50US < r.MeanUS/2 || r.P50US > r.MeanUS*2 {
		t.Errorf("p50 %.0f µs not within a factor 2 of the mean per connection %.0f µs", r.P50US, r.MeanUS)
	}
}
