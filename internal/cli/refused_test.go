package cli_test

import (
	"bytes"
	"crypto/tls"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/cli"
	"github.com/tlsbench/tlsbench/internal/testpki"
	"github.com/tlsbench/tlsbench/pki"
	"github.com/tlsbench/tlsbench/results"
)

// TestSIGTERMWhileTheTargetRefuses runs tlsbench as a process against a
// target that serves the first case and then stops listening, so that
// the second case's warm-up is refused every connection, and sends it
// SIGTERM there: it exits at once, not at the end of the warm-up's
// 5-second window, with status 130 and the first case's record in --out.
func TestSIGTERMWhileTheTargetRefuses(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("measures a case of 10 s first")
	}
	const window = 5 * time.Second
	dir := t.TempDir()
	addr, caFile, stop := echoTarget(t, dir)
	out := filepath.Join(dir, "r.jsonl")
	cmd := exec.Command(os.Args[0], "run", "--target", addr, "--ca", caFile, "--sni", "localhost",
		"--tls", "1.3", "--resume", "off", "--concurrency", "1,2", "--duration", window.String(),
		"--iterations", "1", "--warmup", "1", "--max-error-rate", "100%", "--format", "json", "--out", out)
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	waitForLines(t, out+".partial-*", 1)
	stop() // the second case's warm-up is refused from now on
	time.Sleep(300 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGTERM)
	signalled := time.Now()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var err error
	select {
	case err = <-exited:
	case <-time.After(time.Minute):
		t.Fatal("still running a minute after SIGTERM")
	}
	if took := time.Since(signalled); took > window/2 {
		t.Errorf("exited %v after SIGTERM: it went on connecting until the warm-up's window ended", took)
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != cli.ExitInterrupted {
		t.Fatalf("wait: %v, want exit status %d; stderr: %s", err, cli.ExitInterrupted, stderr.String())
	}
	recs, rerr := results.ReadFile(out)
	if rerr != nil || len(recs) != 1 || recs[0].Concurrency != 1 || recs[0].Handshakes == 0 {
		t.Fatalf("--out: %d records (%v), want the first case's, measured; stderr: %s", len(recs), rerr, stderr.String())
	}
}

// echoTarget is a TLS server on loopback that echoes what it reads, with
// its CA written into dir; stop closes its listener, after which the
// port refuses connections.
func echoTarget(t *testing.T, dir string) (addr, caFile string, stop func()) {
	t.Helper()
	cfg, ca := testpki.Server(t)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				io.Copy(c, c)
			}()
		}
	}()
	caFile = filepath.Join(dir, "ca.pem")
	if err := pki.WriteCertsPEM(caFile, ca.Root()); err != nil {
		t.Fatal(err)
	}
	return ln.Addr().String(), caFile, func() { ln.Close() }
}

// waitForLines waits until a file matching glob has n lines: a run has
// written n records.
func waitForLines(t *testing.T, glob string, n int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		matches, _ := filepath.Glob(glob)
		for _, m := range matches {
			if b, err := os.ReadFile(m); err == nil && bytes.Count(b, []byte("\n")) >= n {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no file %s with %d lines after 2 minutes", glob, n)
}
