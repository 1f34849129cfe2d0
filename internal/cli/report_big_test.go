package cli_test

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/cli"
	"github.com/tlsbench/tlsbench/results"
)

// bigResults writes a results file of n records, made from the cases of
// the report's test data with a name each of their own and 50 times their
// samples: as many figures as a long run keeps of each case. It is made
// for the test, never kept.
func bigResults(t *testing.T, n int) string {
	t.Helper()
	tmpl, err := results.ReadFile("../../report/testdata/results.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "big.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for i := range n {
		r := tmpl[i%len(tmpl)]
		r.Name = fmt.Sprintf("%s/n%06d", r.Name, i)
		if len(r.SamplesUS) > 0 {
			const times = 50
			var s, h []float64
			for range times {
				s, h = append(s, r.SamplesUS...), append(h, r.HandshakeSamplesUS...)
			}
			if r.HandshakeSamplesUS == nil {
				h = nil
			}
			r.Iterations *= times
			r.SamplesUS, r.HandshakeSamplesUS = s, h
		}
		b, err := results.Marshal(&r)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
	}
	if err := errors.Join(w.Flush(), f.Close()); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReportMemory renders the table and the page of 5,000 records (22
// MB of results; with -short the page of 2,000) in a tlsbench process: its peak
// memory stays a few KiB a record (the report keeps a summary of each
// record, not the record, and the page draws and lists a bounded number
// of cases), and the page stays small.
func TestReportMemory(t *testing.T) {
	t.Parallel()
	if raceDetector {
		t.Skip("the race detector multiplies the memory measured")
	}
	n, formats := 5000, []string{"table", "html"}
	if testing.Short() {
		n, formats = 2000, []string{"html"}
	}
	in := bigResults(t, n)
	// The process and the page's charts, then at most 10 KiB a record
	// (a summary and its row take 5 to 7).
	maxRSS := int64(40<<10 + n*10)
	for _, format := range formats {
		c := struct {
			format  string
			maxSize int64 // bytes
		}{format, int64(n) * 400}
		if format == "html" {
			c.maxSize = 4 << 20
		}
		t.Run(c.format, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "report."+c.format)
			peakFile := filepath.Join(t.TempDir(), "peak")
			cmd := exec.Command(os.Args[0], "report", "--format", c.format, "-o", out, in)
			cmd.Env = append(os.Environ(), mainEnv+"=1", peakEnv+"="+peakFile)
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("report: %v: %s", err, b)
			}
			rss := readPeak(t, peakFile) // KiB
			fi, err := os.Stat(out)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s of %d records: peak RSS %d MiB, %d bytes", c.format, n, rss>>10, fi.Size())
			if rss > maxRSS {
				t.Errorf("peak RSS %d MiB, want at most %d MiB", rss>>10, maxRSS>>10)
			}
			if fi.Size() > c.maxSize {
				t.Errorf("the %s report is %d bytes, want at most %d", c.format, fi.Size(), c.maxSize)
			}
		})
	}
}

// peakEnv asks this test binary, run as tlsbench, to write its peak
// resident set (VmHWM, KiB) to the file it names before it exits. The
// child's rusage cannot tell it: Go starts a child with vfork, sharing
// this test process's memory until exec, and Linux counts that memory's
// peak into the child's ru_maxrss at exec, so a child of a test binary
// grown by other tests would be measured as large as it.
const peakEnv = "TLSBENCH_TEST_PEAK_FILE"

// writePeakIfAsked writes this process's VmHWM to the file peakEnv
// names, when it names one.
func writePeakIfAsked() {
	path := os.Getenv(peakEnv)
	if path == "" {
		return
	}
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			os.WriteFile(path, []byte(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB"))), 0o600)
		}
	}
}

// readPeak reads the peak (KiB) a child wrote with writePeakIfAsked.
func readPeak(t *testing.T, path string) int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the report's peak memory was not written: %v", err)
	}
	kib, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		t.Fatalf("peak memory %q: %v", b, err)
	}
	return kib
}

// TestReportInterrupt sends SIGINT and SIGTERM to a tlsbench process
// reading a large results file for a report: it stops within a second (interruptExit),
// with the exit status of an interrupted command, and writes no report.
func TestReportInterrupt(t *testing.T) {
	t.Parallel()
	in := bigResults(t, 5000)
	for _, c := range []struct {
		format string
		sig    os.Signal
	}{{"html", os.Interrupt}, {"table", syscall.SIGTERM}} {
		t.Run(c.format+"/"+c.sig.String(), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "report."+c.format)
			cmd, _, stderr := selfProcess(t, []string{mainEnv + "=1"}, "report", "--format", c.format, "-o", out, in)
			waitReading(t, cmd.Process.Pid, 2<<20)
			sent := time.Now()
			cmd.Process.Signal(c.sig)
			err := cmd.Wait()
			took := time.Since(sent)
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != cli.ExitInterrupted {
				t.Errorf("exit: %v, want exit status %d; stderr: %s", err, cli.ExitInterrupted, stderr.String())
			}
			if took > interruptExit() {
				t.Errorf("the report stopped %v after the signal, want within %v", took.Round(time.Millisecond), interruptExit())
			}
			if want := "tlsbench: interrupted; no report written\n"; stderr.String() != want {
				t.Errorf("stderr %q, want %q", stderr.String(), want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s written by an interrupted report", out)
			}
		})
	}
}

// waitReading waits until process pid has read n bytes (its signal
// handler is in place then: the command reads after it starts).
func waitReading(t *testing.T, pid int, n int64) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
		if err != nil {
			t.Fatalf("the process's reads: %v", err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "rchar: "); ok {
				if got, _ := strconv.ParseInt(v, 10, 64); got >= n {
					return
				}
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("the process read less than %d bytes in 30 s", n)
}
