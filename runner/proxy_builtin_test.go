package runner_test

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/ktls"
	"github.com/tlsbench/tlsbench/internal/testchild"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/runner"
)

// builtinProxy is the built-in proxy for tests: the child is this test
// binary acting as tlsbench.
var builtinProxy = runner.Proxy{URL: runner.ProxyBuiltin}

func collectRecs(t *testing.T, run func(emit func(*results.Record) error) error) ([]results.Record, error) {
	t.Helper()
	var recs []results.Record
	err := run(func(r *results.Record) error { recs = append(recs, *r); return nil })
	return recs, err
}

// TestHandshakeThroughBuiltinProxy: bumped handshakes through the built-in
// proxy child, full and resumed, with the mint cache on and off. Resumption
// is checked on the client's leg (the client's DidResume, and the proxy's
// own count must agree); the mint cache decides how many certificates the
// proxy signs.
func TestHandshakeThroughBuiltinProxy(t *testing.T) {
	t.Parallel()
	p := runner.Plan{
		Versions: []uint16{tls.VersionTLS13, tls.VersionTLS12}, Resume: []bool{false, true}, Concurrency: []int{2},
		Handshakes: 8, Iterations: 2, Warmup: 1, MinResumption: 0.99, ConnTimeout: 20 * time.Second,
		Proxy: builtinProxy, MintCache: []bool{true, false}, ChildEnv: []string{testchild.Env()},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var notices []string
	var mu sync.Mutex
	p.Notice = func(s string) { mu.Lock(); notices = append(notices, s); mu.Unlock() }
	recs, err := collectRecs(t, func(emit func(*results.Record) error) error { return runner.Run(ctx, p, emit) })
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 8 {
		t.Fatalf("%d records, want 8", len(recs))
	}
	proxies := 0
	for _, n := range notices {
		if strings.Contains(n, "built-in proxy pid") {
			proxies++
		}
	}
	// Resume is the inner axis: the proxy restarts whenever the mint
	// cache or the origin sessions (on in resume cases only) change.
	if proxies != 8 {
		t.Errorf("%d proxies started, want one per run of cases with one mint cache and resume setting: %q", proxies, notices)
	}
	for _, r := range recs {
		if r.Proxy != "builtin" || r.MintCache == nil || r.ProxyMints == nil || r.ProxyMintHits == nil || r.ProxyResumed == nil || r.ProxyCPUUS == nil {
			t.Fatalf("%s: proxy fields missing: %+v", r.Name, r)
		}
		if r.Handshakes != 16 || r.Errors != 0 || r.Verdict != "" {
			t.Errorf("%s: %d handshakes, %d errors, verdict %q", r.Name, r.Handshakes, r.Errors, r.Verdict)
		}
		if r.Resume && (r.Resumed != r.Handshakes || *r.ProxyResumed != r.Resumed) {
			t.Errorf("%s: client resumed %d, proxy %d of %d", r.Name, r.Resumed, *r.ProxyResumed, r.Handshakes)
		}
		if !r.Resume && (r.Resumed != 0 || *r.ProxyResumed != 0) {
			t.Errorf("%s: a full-handshake case resumed %d/%d", r.Name, r.Resumed, *r.ProxyResumed)
		}
		// Every bumped client handshake that is not resumed needs a
		// certificate: minted, or a hit in the cache. Go's TLS 1.2
		// server looks its certificate up before it decides to resume,
		// so there every handshake does.
		full := r.Handshakes - r.Resumed
		if r.TLSVersion == "1.2" {
			full = r.Handshakes
		}
		if *r.MintCache {
			if *r.ProxyMints != 0 || *r.ProxyMintHits != full {
				t.Errorf("%s: cache on, %d mints and %d hits for %d certificate lookups (the warm-up minted the one host)", r.Name, *r.ProxyMints, *r.ProxyMintHits, full)
			}
		} else if *r.ProxyMints != full || *r.ProxyMintHits != 0 {
			t.Errorf("%s: cache off, %d mints and %d hits for %d certificate lookups", r.Name, *r.ProxyMints, *r.ProxyMintHits, full)
		}
		if !strings.Contains(r.Name, "/proxy-builtin/") || !strings.Contains(r.Name, "mintcache-"+map[bool]string{true: "on", false: "off"}[*r.MintCache]) {
			t.Errorf("name %s", r.Name)
		}
	}
}

// TestThroughputThroughBuiltinProxy moves data both ways through the
// built-in proxy with read fill off and on: byte-exact (the client checks
// every byte it receives, the server every byte it is sent), the proxy's
// relay in user space on both legs with its kTLS off, its CPU per MB.
func TestThroughputThroughBuiltinProxy(t *testing.T) {
	t.Parallel()
	p := runner.ThroughputPlan{
		Versions: []uint16{tls.VersionTLS13}, Ciphers: []string{ktls.CipherAES128GCM}, Buffers: []int{16 << 10},
		KTLS: []ktls.Mode{ktls.ModeOff}, Directions: []string{loadgen.DirectionDownload, loadgen.DirectionUpload},
		Concurrency: []int{2}, Bytes: 512 << 10, Iterations: 2, Warmup: 1, ConnTimeout: 20 * time.Second,
		Proxy: builtinProxy, ReadFill: []bool{false, true}, ChildEnv: []string{testchild.Env()},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	recs, err := collectRecs(t, func(emit func(*results.Record) error) error { return p.Run(ctx, emit) })
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 {
		t.Fatalf("%d records, want 4", len(recs))
	}
	for _, r := range recs {
		if r.Proxy != "builtin" || r.ReadFill == nil || r.ProxyCPUUS == nil || r.MBps == nil {
			t.Fatalf("%s: proxy fields missing: %+v", r.Name, r)
		}
		if r.ProxyRelay != "client:user,origin:user" {
			t.Errorf("%s: relay %q, want user space on both legs (kTLS off)", r.Name, r.ProxyRelay)
		}
		if r.Extra["bytes"] != float64(2*2*512<<10) {
			t.Errorf("%s: %v bytes moved, want every byte of 2 iterations x 2 connections", r.Name, r.Extra["bytes"])
		}
		if r.Params["read_fill"] != map[bool]string{true: "on", false: "off"}[*r.ReadFill] || r.BufferBytes != 16<<10 {
			t.Errorf("%s: params %v", r.Name, r.Params)
		}
		if *r.KTLSTX || *r.KTLSRX {
			t.Errorf("%s: client and server run user-space TLS through a proxy", r.Name)
		}
	}
}

// TestBuiltinProxyKilledMidCase kills the built-in proxy (SIGKILL) during
// a case: that case fails naming the proxy and how it ended, what it
// measured before is kept, and the next case runs through a new proxy.
func TestBuiltinProxyKilledMidCase(t *testing.T) {
	t.Parallel()
	p := runner.Plan{
		Versions: []uint16{tls.VersionTLS13}, Resume: []bool{false}, Concurrency: []int{1},
		MintCache: []bool{true, false}, Handshakes: 8, Iterations: 1000, Warmup: 1, CaseTime: 5 * time.Second,
		ConnTimeout: 20 * time.Second, Proxy: builtinProxy, ChildEnv: []string{testchild.Env()},
	}
	var (
		mu   sync.Mutex
		pids []int
		once sync.Once
	)
	pidRE := regexp.MustCompile(`built-in proxy pid (\d+)`)
	p.Notice = func(s string) {
		if m := pidRE.FindStringSubmatch(s); m != nil {
			n, _ := strconv.Atoi(m[1])
			mu.Lock()
			pids = append(pids, n)
			mu.Unlock()
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	p.Progress = func(cp runner.CaseProgress) {
		mu.Lock()
		defer mu.Unlock()
		if cp.Index == 1 && !cp.Progress.Warmup && cp.Progress.Iteration == 1 {
			once.Do(func() { syscall.Kill(pids[0], syscall.SIGKILL) })
		}
	}
	recs, err := collectRecs(t, func(emit func(*results.Record) error) error { return runner.Run(ctx, p, emit) })
	var died *runner.ProxyDiedError
	if !errors.As(err, &died) {
		t.Fatalf("error %v (%T), want the proxy's death", err, err)
	}
	for _, want := range []string{"handshake/proxy-builtin/tls1.3/full/mintcache-on/c1", "proxy", "killed"} {
		if !strings.Contains(died.Error(), want) {
			t.Errorf("error %q does not say %q", died, want)
		}
	}
	if len(recs) < 1 || recs[0].Iterations < 1 || !strings.Contains(strings.Join(recs[0].Notes, " "), "killed") {
		t.Fatalf("records %d: the killed case's measured iterations must be kept, with the death in its notes", len(recs))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(pids) != 2 || len(recs) != 2 || recs[1].Handshakes < 16 {
		t.Fatalf("proxies %v, %d records: the second case must run through a new proxy", pids, len(recs))
	}
	if recs[0].Verdict != "failed" || recs[1].Verdict != "" {
		t.Errorf("verdicts %q and %q: the case the proxy's death cut short must be failed, the next one not", recs[0].Verdict, recs[1].Verdict)
	}
}

// TestTargetThroughBuiltinProxy: an external target reached through the
// built-in proxy, which verifies it with the target's CA (--ca) while the
// client trusts the proxy's; resumption holds on the client's leg.
func TestTargetThroughBuiltinProxy(t *testing.T) {
	t.Parallel()
	_, _, f := testpki.ServerFiles(t)
	cert, err := tls.LoadX509KeyPair(f.Cert, f.Key)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() { // a ping echo server
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.SetDeadline(time.Now().Add(30 * time.Second))
				b := make([]byte, 1)
				if _, err := c.Read(b); err == nil {
					c.Write(b)
				}
				c.Read(b)
			}()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	p := runner.Plan{
		Versions: []uint16{tls.VersionTLS13}, Resume: []bool{false, true}, Concurrency: []int{2},
		Handshakes: 8, Iterations: 2, Warmup: 1, MinResumption: 0.99, ConnTimeout: 20 * time.Second,
		Target: runner.Target{Addr: "localhost:" + port, CAFile: f.CA}, Proxy: builtinProxy, ChildEnv: []string{testchild.Env()},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	recs, err := collectRecs(t, func(emit func(*results.Record) error) error { return runner.Run(ctx, p, emit) })
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[1].Resumed != 16 || *recs[1].ProxyResumed != 16 || recs[0].Target != "localhost:"+port || recs[0].Proxy != "builtin" {
		t.Fatalf("records %+v", recs)
	}
}
