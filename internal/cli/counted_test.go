package cli_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/cli"
	"github.com/tlsbench/tlsbench/internal/peers"
	"github.com/tlsbench/tlsbench/internal/testbuild"
	"github.com/tlsbench/tlsbench/report/compare"
	"github.com/tlsbench/tlsbench/results"
)

// countedPrograms builds tlsbench, and a tlsbench whose server spends
// about 30,000 instructions more per handshake (the tag
// tlsbench_extrawork), without the race detector: under callgrind a
// race-built program runs several times slower.
func countedPrograms(t *testing.T) (plain, extra string) {
	t.Helper()
	peers.Require(t, "valgrind")
	dir := t.TempDir()
	return testbuild.Program(t, dir, "tlsbench", testbuild.Options{}),
		testbuild.Program(t, dir, "tlsbench-extrawork", testbuild.Options{Tags: []string{"tlsbench_extrawork"}})
}

// TestCountedRunCountsBothEnds: run --count instructions runs itself
// again under callgrind, so that the client's instructions are counted
// per iteration beside the server's. Against a side b whose server does
// about 1% more work per handshake, compare finds the server's count
// higher and the client's unchanged (its paired ratio within 0.5% of 1),
// and the run's exit status and output are the counted run's.
//
// 8 pairs of 30 handshakes: with 6 of 20, on a machine loaded by other
// packages' tests, the server's iterations spread by about 1% (the Go
// runtime's own work moves with the time a handshake takes under
// callgrind) and the interval reached below 1.
func TestCountedRunCountsBothEnds(t *testing.T) {
	t.Parallel()
	bin, extra := countedPrograms(t)
	out := filepath.Join(t.TempDir(), "r.jsonl")
	cmd := exec.Command(bin, "run", "--count", "instructions", "--tls", "1.3", "--resume", "off", "--concurrency", "1",
		"--handshakes", "30", "--iterations", "8", "--versus-server", extra, "--out", out, "--format", "json")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("run: %v; stderr: %s", err, stderr.String())
	}
	recs, err := results.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 {
		t.Fatalf("%d records, want side a's and side b's", len(recs))
	}
	for _, r := range recs {
		xs := r.ClientInstructionsSamples
		if len(xs) != len(r.SamplesUS) || r.ClientInstructionsPerHS == nil || *r.ClientInstructionsPerHS < 1e6 {
			t.Fatalf("side %s: client instructions %v per iteration, %v per handshake; want millions in each of %d iterations", r.Side, xs, r.ClientInstructionsPerHS, len(r.SamplesUS))
		}
		if r.Env.GOMAXPROCS != 1 {
			t.Errorf("side %s: env.gomaxprocs %d, want the counted run's 1", r.Side, r.Env.GOMAXPROCS)
		}
	}
	if !strings.Contains(stdout.String(), `"client_instructions_samples"`) {
		t.Errorf("stdout (the counted run's report) does not carry the client's counts:\n%.500s", stdout.String())
	}
	c, err := compare.ComparePaired(recs, compare.CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	srv, _ := c.Cases[0].Metric(results.MetricServerInstructions)
	cl, ok := c.Cases[0].Metric(results.MetricClientInstructions)
	t.Logf("server instructions b/a %.4f [%.4f, %.4f] %s; client %.4f [%.4f, %.4f] %s", srv.Ratio, srv.CILo, srv.CIHi, srv.Verdict, cl.Ratio, cl.CILo, cl.CIHi, cl.Verdict)
	if srv.Verdict != compare.Slower || !(srv.Ratio > 1.005 && srv.Ratio < 1.02) {
		t.Errorf("server instructions %+v, want higher by about 1%%", srv)
	}
	if !ok || cl.Verdict == compare.Slower || cl.Verdict == compare.Faster || cl.Ratio < 0.995 || cl.Ratio > 1.005 {
		t.Errorf("client instructions %v %+v, want unchanged, within 0.5%% of 1", ok, cl)
	}
}

// TestCountedRunStopsOnCtrlC: Ctrl-C reaches the run that waits for the
// counted one, which asks it to stop (a signal would abort callgrind):
// exit status 130, the old --out file kept, and no process of the
// counted run left.
func TestCountedRunStopsOnCtrlC(t *testing.T) {
	t.Parallel()
	bin, _ := countedPrograms(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "r.jsonl")
	os.WriteFile(out, []byte("old results\n"), 0o644)
	cmd := exec.Command(bin, "run", "--count", "instructions", "--tls", "1.3", "--resume", "off", "--concurrency", "1",
		"--warmup", "100000", "--out", out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	// The counted run makes the temporary file once it is under way.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if m, _ := filepath.Glob(out + ".partial-*"); len(m) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no temporary results file after 2 minutes; stderr: %s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(time.Second) // into the warm-up
	// As a terminal's Ctrl-C: SIGINT to the foreground process group,
	// which the counted run is not in.
	syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != cli.ExitInterrupted {
		t.Fatalf("wait: %v, want exit status %d; stderr: %s", err, cli.ExitInterrupted, stderr.String())
	}
	if !strings.Contains(stderr.String(), "interrupted") || strings.Contains(stderr.String(), "valgrind") {
		t.Errorf("stderr %q: want the counted run's interruption, and nothing of valgrind", stderr.String())
	}
	if b, _ := os.ReadFile(out); string(b) != "old results\n" {
		t.Errorf("--out file now holds %q, want the old results", b)
	}
	if m, _ := filepath.Glob(out + ".partial-*"); len(m) > 0 {
		t.Errorf("temporary files left: %v", m)
	}
	if b, _ := exec.Command("pgrep", "-f", bin).Output(); len(b) > 0 {
		t.Errorf("processes of the counted run left: %s", b)
	}
}
