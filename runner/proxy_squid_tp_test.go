package runner_test

import (
	"context"
	"crypto/tls"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/ktls"
	"github.com/tlsbench/tlsbench/internal/testchild"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/runner"
	"github.com/tlsbench/tlsbench/server"
)

// TestThroughputThroughSquid downloads and uploads through real Squid
// bumping TLS, over HTTP (which Squid parses): every byte is checked at
// the receiving end, Squid's CPU comes from its process tree.
func TestThroughputThroughSquid(t *testing.T) {
	t.Parallel()
	sq, id := squidOrigin(t)
	p := runner.ThroughputPlan{
		Versions: []uint16{tls.VersionTLS13}, Ciphers: []string{ktls.CipherAES128GCM}, Buffers: []int{16 << 10},
		KTLS: []ktls.Mode{ktls.ModeOff}, Directions: []string{loadgen.DirectionDownload, loadgen.DirectionUpload},
		Concurrency: []int{2}, Bytes: 1 << 20, Iterations: 2, Warmup: 1, ConnTimeout: 30 * time.Second,
		Proxy:    runner.Proxy{URL: sq.URL(), CAFile: sq.CAFile(), PID: sq.PID()},
		ChildEnv: []string{testchild.Env()},
	}
	p.Server.Identities = []server.IdentityFiles{id}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var recs []results.Record
	if err := p.Run(ctx, func(r *results.Record) error { recs = append(recs, *r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 {
		t.Fatalf("%d records, want 2", len(recs))
	}
	for i, dir := range []string{"download", "upload"} {
		r := recs[i]
		want := "throughput/proxy-url/tls1.3/aes128gcm/16k/" + dir + "/http/ktls-off/c2"
		if r.Name != want || r.Request != "http" || r.Proxy != sq.URL() || r.Errors != 0 || r.MBps == nil {
			t.Fatalf("record %s (want %s): request %q proxy %q errors %d", r.Name, want, r.Request, r.Proxy, r.Errors)
		}
		if r.Extra["bytes"] != float64(2*2*(1<<20)) {
			t.Errorf("%s: %v bytes moved, want every byte of 2 iterations x 2 connections", r.Name, r.Extra["bytes"])
		}
		// Squid's CPU comes in clock ticks (10 ms): a few megabytes may
		// cost none that the kernel counted, but it is known.
		if _, ok := r.Extra["proxy_cpu_s_per_gb"]; r.ProxyCPUUS == nil || *r.ProxyCPUUS < 0 || !ok {
			t.Errorf("%s: Squid's CPU: %v, extra %v", r.Name, r.ProxyCPUUS, r.Extra)
		}
		if r.ProxyRelay != "" || r.ProxyMints != nil {
			t.Errorf("%s: Squid reports no counts: relay %q", r.Name, r.ProxyRelay)
		}
	}
}
