package runner_test

import (
	"context"
	"crypto/tls"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/ktls"
	"github.com/tlsbench/tlsbench/internal/testchild"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/runner"
)

// TestProxyKTLSFallbackNoted: with the proxy's kernel TLS auto and a
// kernel that does not take it, the proxy relays both legs in user space
// and the record says so, leg by leg, with how many connections and why.
func TestProxyKTLSFallbackNoted(t *testing.T) {
	t.Parallel()
	if err := ktls.SupportedFor(tls.VersionTLS13, ktls.CipherAES128GCM, ktls.TX); err == nil {
		t.Skip("this kernel takes TLS 1.3 AES-128-GCM: the proxy does not fall back (the VM tests cover it)")
	}
	p := runner.ThroughputPlan{
		Versions: []uint16{tls.VersionTLS13}, Ciphers: []string{ktls.CipherAES128GCM}, Buffers: []int{16 << 10},
		KTLS: []ktls.Mode{ktls.ModeAuto}, Directions: []string{loadgen.DirectionDownload},
		Concurrency: []int{2}, Bytes: 256 << 10, Iterations: 2, Warmup: 1, ConnTimeout: 20 * time.Second,
		Proxy: builtinProxy, ChildEnv: []string{testchild.Env()},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	recs, err := collectRecs(t, func(emit func(*results.Record) error) error { return p.Run(ctx, emit) })
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	r := recs[0]
	if r.ProxyRelay != "client:user,origin:user" {
		t.Fatalf("relay %q, want user space on both legs", r.ProxyRelay)
	}
	notes := strings.Join(r.Notes, "; ")
	for _, want := range []string{
		"client leg of 2 of 2 connections: the kernel does not take this version and cipher",
		"origin leg of 2 of 2 connections: the kernel does not take this version and cipher",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %q do not say %q", notes, want)
		}
	}
}
