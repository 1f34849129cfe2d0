package runner_test

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/testchild"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/runner"
)

// TestServerKilledMidRun kills the real child server (SIGKILL) during a
// case's measured iterations, after a hostile client made it write a line
// on stderr: the run fails naming the case, the signal and that line, and
// the iterations measured before the kill are still emitted.
func TestServerKilledMidRun(t *testing.T) {
	t.Parallel()
	p := runner.Plan{
		Versions:      []uint16{tls.VersionTLS13},
		Resume:        []bool{false},
		Concurrency:   []int{1, 2},
		Handshakes:    16,
		Iterations:    1_000_000, // only the kill ends the first case
		Warmup:        1,
		MinResumption: 0.99,
		ConnTimeout:   10 * time.Second,
		ChildEnv:      []string{testchild.Env()},
	}
	var (
		mu   sync.Mutex
		pid  int
		addr string
	)
	notice := regexp.MustCompile(`pid (\d+) on (\S+)`)
	p.Notice = func(s string) {
		if m := notice.FindStringSubmatch(s); m != nil {
			mu.Lock()
			pid, _ = strconv.Atoi(m[1])
			addr = m[2]
			mu.Unlock()
		}
	}
	recs, err := runKilling(t, p, func() {
		mu.Lock()
		defer mu.Unlock()
		// Not TLS: the server logs the refused handshake.
		if c, err := net.Dial("tcp", addr); err == nil {
			c.SetDeadline(time.Now().Add(10 * time.Second))
			c.Write([]byte("this is not a ClientHello\r\n\r\n"))
			// The server closes it after writing its log line,
			// which the parent reads to the end before it sees
			// the child's exit.
			io.Copy(io.Discard, c)
			c.Close()
		}
		syscall.Kill(pid, syscall.SIGKILL)
	})
	for _, want := range []string{"handshake/tls1.3/full/c1", "SIGKILL", "does not look like a TLS handshake"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error %q is not one line", err)
	}
	if len(recs) != 1 {
		t.Fatalf("%d records, want the killed case's", len(recs))
	}
	rec := recs[0]
	if rec.Name != "handshake/tls1.3/full/c1" || rec.Iterations < 3 || rec.Handshakes != int64(rec.Iterations*16) {
		t.Errorf("record %s: %d iterations, %d handshakes; want at least the 3 measured before the kill", rec.Name, rec.Iterations, rec.Handshakes)
	}
	// The iteration cut short by the kill is dropped; at most the one
	// connection in flight at concurrency 1 failed in a kept one.
	if rec.Errors > 1 {
		t.Errorf("record counts %d errors (%v): the failures after the kill were measured", rec.Errors, rec.ErrorsByKind)
	}
	if !strings.Contains(strings.Join(rec.Notes, "; "), "SIGKILL") {
		t.Errorf("notes %q do not say the server was killed", rec.Notes)
	}
	// Cut short by the server's death, the record must not pass for a
	// valid measurement.
	if rec.Verdict != "failed" {
		t.Errorf("verdict %q, want failed: the server died during the case", rec.Verdict)
	}
}

// runKilling runs p and calls kill once, when a case has measured three
// iterations; it fails the test unless kill ran and the run then failed
// with a server's death, and returns the records and that error.
func runKilling(t *testing.T, p runner.Plan, kill func()) ([]results.Record, error) {
	t.Helper()
	var once sync.Once
	killed := make(chan struct{})
	p.Progress = func(cp runner.CaseProgress) {
		if cp.Progress.Warmup || cp.Progress.Iteration < 3 {
			return
		}
		once.Do(func() {
			kill()
			close(killed)
		})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var recs []results.Record
	err := runner.Run(ctx, p, func(r *results.Record) error {
		recs = append(recs, *r)
		return nil
	})
	select {
	case <-killed:
	default:
		t.Fatalf("the server was never killed: %v", err)
	}
	var died *runner.ServerDiedError
	if !errors.As(err, &died) {
		t.Fatalf("error %v (%T), want a server's death", err, err)
	}
	return recs, err
}
