package runner_test

import (
	"context"
	"crypto/tls"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/ktls"
	"github.com/tlsbench/tlsbench/internal/testchild"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/runner"
)

// TestThroughputChildKilledMidCase kills the built-in proxy, or the
// built-in server behind it, (SIGKILL) during a throughput case's
// measured iterations: the record of what was measured before is kept,
// marked failed with the death in its notes, and the run fails.
func TestThroughputChildKilledMidCase(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, notice string
	}{
		{"proxy", `built-in proxy pid (\d+)`},
		{"server", `built-in server \(.*?\) pid (\d+)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			testThroughputChildKilled(t, regexp.MustCompile(tc.notice))
		})
	}
}

func testThroughputChildKilled(t *testing.T, pidRE *regexp.Regexp) {
	p := runner.ThroughputPlan{
		Versions: []uint16{tls.VersionTLS13}, Ciphers: []string{ktls.CipherAES128GCM}, Buffers: []int{16 << 10},
		KTLS: []ktls.Mode{ktls.ModeOff}, Directions: []string{loadgen.DirectionDownload},
		Concurrency: []int{1}, Bytes: 64 << 10, Iterations: 100_000, Warmup: 1, ConnTimeout: 20 * time.Second,
		Proxy: builtinProxy, ChildEnv: []string{testchild.Env()},
	}
	var (
		mu   sync.Mutex
		pid  int
		once sync.Once
	)
	p.Notice = func(s string) {
		if m := pidRE.FindStringSubmatch(s); m != nil {
			mu.Lock()
			pid, _ = strconv.Atoi(m[1])
			mu.Unlock()
		}
	}
	killed := make(chan struct{})
	p.Progress = func(tp runner.TransferProgress) {
		if tp.Warmup || tp.Iteration < 3 {
			return
		}
		once.Do(func() {
			mu.Lock()
			defer mu.Unlock()
			if pid <= 0 {
				t.Errorf("no pid in the notices")
				return
			}
			syscall.Kill(pid, syscall.SIGKILL)
			close(killed)
		})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	recs, err := collectRecs(t, func(emit func(*results.Record) error) error { return p.Run(ctx, emit) })
	select {
	case <-killed:
	default:
		t.Fatalf("nothing was killed: %v", err)
	}
	var pd *runner.ProxyDiedError
	var sd *runner.ServerDiedError
	if !errors.As(err, &pd) && !errors.As(err, &sd) {
		t.Fatalf("error %v (%T), want a death", err, err)
	}
	if len(recs) != 1 || recs[0].Iterations < 3 {
		t.Fatalf("%d records: want the killed case's, with the iterations measured before", len(recs))
	}
	rec := recs[0]
	if rec.Verdict != "failed" || !strings.Contains(strings.Join(rec.Notes, "; "), "SIGKILL") {
		t.Errorf("verdict %q, notes %q: want failed, saying what was killed", rec.Verdict, rec.Notes)
	}
}
