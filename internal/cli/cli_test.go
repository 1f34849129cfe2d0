package cli_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/tlsbench/tlsbench/internal/cli"
	"github.com/tlsbench/tlsbench/internal/testbuild"
	"github.com/tlsbench/tlsbench/internal/testchild"
	"github.com/tlsbench/tlsbench/results"
)

// mainEnv makes this test binary run as tlsbench itself, for tests that
// need the real process (its exit status after a signal).
const mainEnv = "TLSBENCH_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	spinIfAsked()
	limitDescriptorsIfAsked()
	// The child server of `tlsbench run` is this test binary again.
	testchild.RunMainIfChild(cli.Main)
	if os.Getenv(mainEnv) == "1" {
		code := cli.Main(os.Args[1:])
		writePeakIfAsked()
		os.Exit(code)
	}
	testscript.Main(m, map[string]func(){
		"tlsbench": func() { os.Exit(cli.Main(os.Args[1:])) },
	})
}

// TestScripts runs the testscript goldens of testdata/script: the
// program's user-visible output, command by command.
//
// Under the race detector the scripts run a tlsbench built without it
// (scriptProgram): the race detector multiplies the CPU of each command
// and of the built-in server it starts, the scripts check what a user
// sees of the program, and the same code runs under the detector in this
// package's in-process tests and in runner's child servers.
func TestScripts(t *testing.T) {
	t.Parallel()
	bin := ""
	if raceDetector {
		bin = scriptProgram(t)
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv(strings.Split(testchild.Env(), "=")[0], "1")
			if bin != "" {
				env.Setenv("PATH", filepath.Dir(bin)+string(os.PathListSeparator)+env.Getenv("PATH"))
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"resultfields": cmdResultFields,
			"waitlines":    cmdWaitLines,
			"globcount":    cmdGlobCount,
			"pprof":        cmdPprof,
			"busyport":     cmdBusyPort,
		},
		RequireExplicitExec: true,
	})
}

// contractFields are the results-file field names docs/results.md promises.
var contractFields = []string{
	"name", "kind", "tls_version", "resume", "mutual", "concurrency", "key_type", "group",
	"transport", "handshakes", "errors", "resumed", "resumption_rate", "server_resumed",
	"mean_us", "error_us", "stddev_us", "median_us", "min_us", "max_us", "p50_us", "p90_us",
	"p99_us", "p999_us", "handshakes_per_sec", "client_cpu_us", "server_cpu_us",
	"alloc_bytes", "samples_us", "env",
}

// cmdResultFields checks that every line of a JSON lines file is a result
// with every contract field: resultfields FILE CASES.
func cmdResultFields(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: resultfields FILE CASES")
	}
	data := ts.ReadFile(args[0])
	recs, err := results.Decode(strings.NewReader(data))
	if err != nil {
		ts.Fatalf("%v", err)
	}
	if got := len(recs); got == 0 || args[1] != "" && itoa(got) != args[1] {
		ts.Fatalf("%d records, want %s", got, args[1])
	}
	for i, line := range strings.Split(strings.TrimSpace(data), "\n") {
		var m map[string]any
		if err := jsonUnmarshal([]byte(line), &m); err != nil {
			ts.Fatalf("line %d: %v", i+1, err)
		}
		for _, f := range contractFields {
			if _, ok := m[f]; !ok {
				ts.Fatalf("line %d (%v): no field %q", i+1, m["name"], f)
			}
		}
	}
}

// cmdWaitLines waits until a file matching GLOB has at least N lines (a
// run in the background has measured N cases): waitlines GLOB N.
func cmdWaitLines(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || neg {
		ts.Fatalf("usage: waitlines GLOB N")
	}
	want, err := strconv.Atoi(args[1])
	if err != nil {
		ts.Fatalf("waitlines: %v", err)
	}
	deadline := time.Now().Add(2 * time.Minute) // a loaded machine
	for time.Now().Before(deadline) {
		matches, _ := filepath.Glob(ts.MkAbs(args[0]))
		for _, m := range matches {
			if b, err := os.ReadFile(m); err == nil && bytes.Count(b, []byte("\n")) >= want {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	ts.Fatalf("no file %s with %d lines after 2 minutes", args[0], want)
}

// cmdGlobCount checks how many files match GLOB: globcount GLOB N.
func cmdGlobCount(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || neg {
		ts.Fatalf("usage: globcount GLOB N")
	}
	matches, err := filepath.Glob(ts.MkAbs(args[0]))
	if err != nil {
		ts.Fatalf("globcount: %v", err)
	}
	if strconv.Itoa(len(matches)) != args[1] {
		ts.Fatalf("%d files match %s (%v), want %s", len(matches), args[0], matches, args[1])
	}
}

// cmdBusyPort listens on a free loopback port until the script ends and
// puts its address in the environment: busyport VAR. A command told to
// listen there fails as on a port in use.
func cmdBusyPort(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: busyport VAR")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		ts.Fatalf("busyport: %v", err)
	}
	ts.Defer(func() { ln.Close() })
	ts.Setenv(args[0], ln.Addr().String())
}

// cmdPprof checks that each FILE is a profile as runtime/pprof writes
// them: gzip-compressed, not empty: pprof FILE...
func cmdPprof(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 0 || neg {
		ts.Fatalf("usage: pprof FILE...")
	}
	for _, f := range args {
		zr, err := gzip.NewReader(strings.NewReader(ts.ReadFile(f)))
		if err != nil {
			ts.Fatalf("%s: not gzip-compressed: %v", f, err)
		}
		raw, err := io.ReadAll(zr)
		if err != nil || len(raw) == 0 {
			ts.Fatalf("%s: %d bytes decompressed (%v)", f, len(raw), err)
		}
	}
}

// TestExitCodes pins the exit status and the one-line message of bad
// input: exit 2, naming the flag.
func TestExitCodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "afile"), nil, 0o600)
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{}, 2, "no command given"},
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{[]string{"run", "--tls", "1.4"}, 2, `--tls: unknown TLS version "1.4"`},
		{[]string{"run", "--resume", "maybe"}, 2, "--resume maybe: want off, on or off,on"},
		{[]string{"run", "--concurrency", "0"}, 2, "--concurrency:"},
		{[]string{"run", "--key", "dsa"}, 2, "--key:"},
		{[]string{"run", "--groups", "x448"}, 2, "--groups:"},
		{[]string{"run", "--format", "xml"}, 2, "--format:"},
		{[]string{"run", "--transport", "udp"}, 2, "--transport:"},
		{[]string{"run", "--min-resumption", "1.5"}, 2, "--min-resumption"},
		{[]string{"run", "--max-error-rate", "abc"}, 2, `--max-error-rate: "abc" is not a share between 0% and 100%`},
		{[]string{"run", "--max-error-rate", "101%"}, 2, "--max-error-rate:"},
		{[]string{"run", "--max-error-rate", "1.5"}, 2, "--max-error-rate:"},
		{[]string{"run", "--max-error-rate", "-0.1%"}, 2, "--max-error-rate:"},
		{[]string{"run", "--mode", "throughput", "--max-error-rate", "1%"}, 2, "--max-error-rate applies to handshake cases"},
		{[]string{"run", "--target", "127.0.0.1:9", "--request", "none", "--tls", "1.3", "--resume", "on"}, 2, "--request none never reads TLS 1.3 session tickets"},
		{[]string{"run", "--target", "127.0.0.1:9", "--request", "none", "--tls", "1.2,1.3", "--resume", "off,on"}, 2, "--request none never reads TLS 1.3 session tickets"},
		{[]string{"run", "--nope"}, 2, "unknown flag --nope"},
		{[]string{"run", "--iterations"}, 2, "--iterations needs a value"},
		{[]string{"run", "--out", filepath.Join(dir, "missing", "r.jsonl")}, 2, "--out:"},
		{[]string{"run", "--profile", filepath.Join(dir, "afile", "sub")}, 2, "--profile " + filepath.Join(dir, "afile", "sub") + ": cannot be created"},
		{[]string{"run", "--profile-alloc"}, 2, "--profile-alloc needs --profile"},
		{[]string{"serve", "--profile", filepath.Join(dir, "afile", "x.pprof")}, 2, "--profile " + filepath.Join(dir, "afile", "x.pprof") + ": cannot be written"},
		{[]string{"proxy", "--listen", "127.0.0.1:0", "--pki-dir", filepath.Join(dir, "ppki"), "--profile", filepath.Join(dir, "missing", "x.pprof")}, 2, "--profile " + filepath.Join(dir, "missing", "x.pprof") + ": cannot be written"},
		{[]string{"run", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"run", "--duration", "90ms", "--iterations", "10"}, 2, "--duration 90ms: split into 10 windows of 9ms, each shorter than the 10ms a window needs: lengthen --duration to at least 100ms or lower --iterations"},
		{[]string{"serve", "--listen", "nonsense"}, 2, "--listen"},
		{[]string{"serve", "--quic", "--early-data-policy", "maybe"}, 2, `--early-data-policy "maybe": must be accept, reject or single-use`},
		{[]string{"serve", "--early-data-policy", "reject"}, 2, "--early-data-policy applies to QUIC: add --quic"},
		{[]string{"serve", "--quic", "--tls", "1.2"}, 2, "--quic needs TLS 1.3: add 1.3 to --tls"},
		{[]string{"run", "--help"}, 0, ""},
		{[]string{"version"}, 0, ""},
	}
	for _, tt := range tests {
		checkExit(t, tt.args, tt.code, tt.msg)
	}
}

// TestInterruptKeepsResults cancels a run part-way, as Ctrl-C does: the
// cases measured so far are in --out and the exit status says
// interrupted.
// Not parallel: it sets an environment variable (t.Setenv) for the child server.
func TestInterruptKeepsResults(t *testing.T) {
	name, value, _ := strings.Cut(testchild.Env(), "=")
	t.Setenv(name, value) // the child server is this test binary
	out := filepath.Join(t.TempDir(), "r.jsonl")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw, _ := os.Pipe()
	defer pr.Close()
	done := make(chan error, 1)
	go func() {
		done <- cli.Run(ctx, []string{"run", "--tls", "1.2", "--resume", "off", "--concurrency", "1,2,3,4,5,6,7,8",
			"--handshakes", "8", "--case-time", "300ms", "--format", "json", "--out", out}, pw, os.Stderr)
		pw.Close()
	}()
	// Wait for two cases on stdout, then interrupt.
	buf := make([]byte, 1<<20)
	var got []byte
	for bytes.Count(got, []byte("\n")) < 2 {
		n, err := pr.Read(buf)
		if err != nil {
			t.Fatalf("run ended early: %v", <-done)
		}
		got = append(got, buf[:n]...)
	}
	cancel()
	err := <-done
	if cli.ExitCode(err) != cli.ExitInterrupted {
		t.Fatalf("exit %d (%v), want %d", cli.ExitCode(err), err, cli.ExitInterrupted)
	}
	recs, derr := results.ReadFile(out)
	if derr != nil {
		t.Fatal(derr)
	}
	if len(recs) < 2 || len(recs) >= 8 {
		t.Fatalf("%d records in --out, want the cases measured before the interrupt", len(recs))
	}
	// The child server is stopped after the case it interrupts has read
	// its counters: the last record has them too.
	for _, r := range recs {
		if r.ServerCPUUS == nil || r.ServerResumed == nil {
			t.Errorf("%s: server CPU %v, server resumed %v; want both measured", r.Name, r.ServerCPUUS, r.ServerResumed)
		}
	}
}

// TestCtrlCBeforeAnyCaseKeepsTheOldFile runs tlsbench as a process and
// sends it SIGINT while the first case warms up: exit status 130, and the
// existing --out file is left as it was, with no temporary file beside it.
func TestCtrlCBeforeAnyCaseKeepsTheOldFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "r.jsonl")
	os.WriteFile(out, []byte("old results\n"), 0o644)
	cmd := exec.Command(os.Args[0], "run", "--tls", "1.3", "--resume", "off", "--concurrency", "1", "--warmup", "100000", "--out", out)
	cmd.Env = append(os.Environ(), mainEnv+"=1", testchild.Env())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The temporary file is created before the run starts (and after
	// the signal handler is in place).
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if m, _ := filepath.Glob(out + ".partial-*"); len(m) > 0 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no temporary results file after 2 minutes; stderr: %s", stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != cli.ExitInterrupted {
		t.Fatalf("wait: %v, want exit status %d; stderr: %s", err, cli.ExitInterrupted, stderr.String())
	}
	if want := "tlsbench: interrupted; nothing was measured; " + out + " was left as it was\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	if b, _ := os.ReadFile(out); string(b) != "old results\n" {
		t.Errorf("--out file now holds %q, want the old results", b)
	}
	if m, _ := filepath.Glob(out + ".partial-*"); len(m) > 0 {
		t.Errorf("temporary files left: %v", m)
	}
}

// scriptProgram builds tlsbench without the race detector, for the
// scripts to run as tlsbench.
func scriptProgram(t *testing.T) string {
	return testbuild.Program(t, t.TempDir(), "tlsbench", testbuild.Options{})
}
