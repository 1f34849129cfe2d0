package scripts

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/testbuild"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/stats"
)

// The local proof of sharded runs: shards-local.sh runs N shards against
// one server and merges them; the merged records must be what the
// shards' records add up to, their percentiles drawn from the shards'
// histograms merged, never averaged.

// tlsbenchBinary builds the tlsbench program for a test, without the
// race detector.
func tlsbenchBinary(t *testing.T) string {
	return testbuild.Program(t, t.TempDir(), "tlsbench", testbuild.Options{})
}

// decodeFile reads a results file.
func decodeFile(t *testing.T, path string) []results.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := results.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return recs
}

// TestShardsLocalMergesExactly runs shards-local.sh with 2 and 3 shards.
// Not in parallel: each run already loads both CPUs of a small machine
// with its shards and server.
func TestShardsLocalMergesExactly(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the run takes about 15 seconds")
	}
	bin := tlsbenchBinary(t)
	for _, tc := range []struct {
		shards int
		// The wave is split 2,1 and 2,1,1: the shards making waves of
		// 2 queue twice as many handshakes on their CPUs as the others,
		// so their latencies differ, as the plan makes them differ.
		concurrency string
	}{{2, "3"}, {3, "4"}} {
		t.Run(fmt.Sprintf("N=%d", tc.shards), func(t *testing.T) {
			// The merge is checked exactly on every attempt; the premise
			// (shards whose latencies differ, so that averaging them
			// would be wrong) depends on the machine's load, so a run
			// that did not make them differ is run again, twice at most,
			// rather than taken as a failure of the merge.
			const attempts = 3
			for attempt := 1; ; attempt++ {
				differ := runShardsLocal(t, bin, tc.shards, tc.concurrency)
				if t.Failed() || differ {
					return
				}
				if attempt == attempts {
					t.Fatalf("in %d runs, at every percentile the shards' average stayed within 2%% of the merged value: the shards' latencies did not differ enough to show that a merge must not average them", attempts)
				}
				t.Logf("run %d: the shards' latencies did not differ enough; running again", attempt)
			}
		})
	}
}

// runShardsLocal runs shards-local.sh once with the given shards and
// concurrency, checks that the merged records are exactly the shards'
// combined, and reports whether the shards' latencies differed enough
// that averaging them would have been wrong.
func runShardsLocal(t *testing.T, bin string, nshards int, concurrency string) (differ bool) {
	t.Helper()
	dir := t.TempDir()
	if runtime.NumCPU() >= nshards {
		// The script pins shard 0 to the first CPU: a busy neighbour
		// there slows it as a busier machine would, so that its
		// latencies differ from the others' well beyond noise.
		stop := busy(t, 0)
		defer stop()
	}
	cmd := exec.Command("bash", "shards-local.sh", fmt.Sprint(nshards), "--tls", "1.3", "--resume", "off,on",
		"--concurrency", concurrency, "--duration", "1s", "--iterations", "4", "--warmup", "1",
		"--conn-timeout", "30s", "--max-error-rate", "100%", "--min-resumption", "0")
	cmd.Env = append(os.Environ(), "TLSBENCH="+bin, "SHARDS_DIR="+dir, "START_IN=3")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		// Exit 1 is a case that failed a gate on a loaded machine: its
		// records are still written and merged.
		t.Fatalf("shards-local.sh: %v\n%s", err, out)
	}
	shards := make([][]results.Record, nshards)
	for i := range shards {
		shards[i] = decodeFile(t, filepath.Join(dir, fmt.Sprintf("shard-%d.jsonl", i)))
	}
	merged := decodeFile(t, filepath.Join(dir, "merged.jsonl"))
	if len(merged) != 2 {
		t.Fatalf("%d merged records, want 2 (full and resumed)\n%s", len(merged), out)
	}
	differ = true
	for _, m := range merged {
		if !checkMerged(t, &m, shardsOf(t, m.Name, shards)) {
			t.Logf("%s: at every percentile the shards' average is within 2%% of the merged value", m.Name)
			differ = false
		}
	}
	return differ
}

// busy keeps CPU cpu busy (a process pinned to it, spinning) until the
// returned stop is called or the test ends.
func busy(t *testing.T, cpu int) (stop func()) {
	t.Helper()
	if _, err := exec.LookPath("taskset"); err != nil {
		t.Fatalf("taskset pins the shards and the busy neighbour: %v", err)
	}
	cmd := exec.Command("taskset", "-c", fmt.Sprint(cpu), "sh", "-c", "while :; do :; done")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop = func() { once.Do(func() { cmd.Process.Kill(); cmd.Wait() }) }
	t.Cleanup(stop)
	return stop
}

// shardsOf is each shard's record of the case name.
func shardsOf(t *testing.T, name string, shards [][]results.Record) []*results.Record {
	t.Helper()
	var out []*results.Record
	for i, recs := range shards {
		var found *results.Record
		for k := range recs {
			if recs[k].Name == name {
				found = &recs[k]
			}
		}
		if found == nil {
			t.Fatalf("shard %d has no record of %s", i, name)
		}
		if found.Shard == nil || *found.Shard != i || found.Shards != len(shards) {
			t.Fatalf("shard %d's record of %s says shard %v of %d", i, name, found.Shard, found.Shards)
		}
		out = append(out, found)
	}
	return out
}

// checkMerged compares a merged record with its shards' records, and
// reports whether the shards differed enough, at some percentile, that
// their average would be more than 2% off the merged value.
func checkMerged(t *testing.T, m *results.Record, shards []*results.Record) (averagingWrong bool) {
	t.Helper()
	var hs, resumed, errs int64
	combined := stats.NewLatency()
	for i, s := range shards {
		hs += s.Handshakes
		resumed += s.Resumed
		errs += s.Errors
		h, err := stats.DecodeLatency(s.Histogram)
		if err != nil {
			t.Fatalf("%s, shard %d: %v", m.Name, i, err)
		}
		combined.Merge(h)
	}
	if m.Handshakes != hs || m.Resumed != resumed || m.Errors != errs || m.Shard != nil || m.Shards != len(shards) || len(m.ShardRuns) != len(shards) {
		t.Errorf("%s: merged %d handshakes, %d resumed, %d errors (shard %v, shards %d, %d shard runs); the shards' sum %d, %d, %d of %d",
			m.Name, m.Handshakes, m.Resumed, m.Errors, m.Shard, m.Shards, len(m.ShardRuns), hs, resumed, errs, len(shards))
	}
	mh, err := stats.DecodeLatency(m.Histogram)
	if err != nil {
		t.Fatalf("%s: merged histogram: %v", m.Name, err)
	}
	if !sameHistogram(mh, combined) || mh.Count() != hs {
		t.Errorf("%s: the merged histogram (%d latencies) is not the shards' latencies recorded into one (%d)", m.Name, mh.Count(), combined.Count())
	}
	qs := []float64{50, 90, 99, 99.9}
	got := []float64{m.P50US, m.P90US, m.P99US, m.P999US}
	for k, q := range qs {
		want := combined.PercentileUS(q)
		if got[k] != want {
			t.Errorf("%s: merged p%v %v µs, the combined histogram's %v µs", m.Name, q, got[k], want)
		}
		var sum, lo, hi float64
		lo = math.Inf(1)
		for _, s := range shards {
			v := []float64{s.P50US, s.P90US, s.P99US, s.P999US}[k]
			sum += v
			lo, hi = min(lo, v), max(hi, v)
		}
		// (A percentile of the whole need not lie between the shards'
		// own: the rank of p99.9 rounds differently in 500 latencies
		// and in 1000, so the whole's can be the second of a shard's
		// two highest while each shard's is its lower one.)
		avg := sum / float64(len(shards))
		// Three significant digits: values within 0.1% share a bucket;
		// 2% is well beyond it.
		if math.Abs(avg-want) > 0.02*want {
			averagingWrong = true
		}
		t.Logf("%s: p%v merged %.0f µs, the shards' average %.0f µs (shards %.0f..%.0f)", m.Name, q, want, avg, lo, hi)
	}
	return averagingWrong
}

// sameHistogram reports whether a and b hold the same latencies, bucket
// by bucket.
func sameHistogram(a, b *stats.Latency) bool {
	d1, err1 := a.Sub(b)
	d2, err2 := b.Sub(a)
	return err1 == nil && err2 == nil && d1.Count() == 0 && d2.Count() == 0
}

// TestShardOutStdoutInterrupted: a shard writing its records to stdout
// (--out -), interrupted after its first case, exits 130 with that case's
// record whole on stdout and nothing else there.
func TestShardOutStdoutInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the run takes about 10 seconds")
	}
	t.Parallel()
	bin := tlsbenchBinary(t)
	dir := t.TempDir()
	srv := exec.Command(bin, "serve", "--listen", "127.0.0.1:0", "--pki-dir", filepath.Join(dir, "pki"), "--log-level", "warn")
	stdout, err := srv.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	addr, ok := strings.CutPrefix(line, "listening on ")
	if err != nil || !ok {
		t.Fatalf("serve: %q, %v", line, err)
	}
	addr, _, _ = strings.Cut(addr, " ")
	outPath := filepath.Join(dir, "out.jsonl")
	out, err := os.Create(outPath)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	at := time.Now().Add(time.Second).UTC().Format(time.RFC3339Nano)
	run := exec.Command(bin, "run", "--shard", "0/1", "--start-at", at, "--target", addr, "--ca", filepath.Join(dir, "pki", "ca.pem"),
		"--sni", "localhost", "--tls", "1.2,1.3", "--resume", "off", "--concurrency", "2", "--duration", "400ms", "--iterations", "2",
		"--warmup", "0", "--max-error-rate", "100%", "--out", "-")
	run.Stdout = out
	var stderr strings.Builder
	run.Stderr = &stderr
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		b, _ := os.ReadFile(outPath)
		if strings.Count(string(b), "\n") >= 1 {
			break
		}
		if time.Now().After(deadline) {
			run.Process.Kill()
			t.Fatalf("no record after 2 minutes; stderr:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	run.Process.Signal(syscall.SIGINT)
	err = run.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Fatalf("interrupted shard: %v, want exit 130; stderr:\n%s", err, stderr.String())
	}
	recs := decodeFile(t, outPath)
	if len(recs) < 1 || recs[0].Name != "handshake/tls1.2/full/c2" || recs[0].Shard == nil || recs[0].Handshakes == 0 {
		t.Fatalf("stdout after the interrupt: %d records (%+v)", len(recs), recs)
	}
	if !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("stderr does not say the run was interrupted:\n%s", stderr.String())
	}
}
