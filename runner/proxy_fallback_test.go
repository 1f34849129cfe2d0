package runner_test

import (
	"context"
	"crypto/tls"
	"errors"
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
	// A kernel without TLS at all is named as the direct path names it
	// (no TLS ULP, CONFIG_TLS), not guessed at beside a missing cipher.
	why := "the kernel does not take this version and cipher"
	if errors.Is(ktls.Supported(), ktls.ErrNoKernelTLS) {
		why = "the kernel has no TLS ULP (built without CONFIG_TLS, or its module not loaded: modprobe tls)"
	}
	for _, want := range []string{"client leg of 2 of 2 connections: " + why, "origin leg of 2 of 2 connections: " + why} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %q do not say %q", notes, want)
		}
	}
	if strings.Contains(notes, "has no TLS)") {
		t.Errorf("notes %q guess at the kernel's TLS instead of saying what it lacks", notes)
	}
}
