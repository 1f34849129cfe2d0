package cli_test

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func leftovers(t *testing.T, tmp string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(tmp, "tlsbench-serve-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestServeRemovesTemporaryPKI: the temporary directory with the
// generated private key is gone however serve ends: a failed start, Ctrl-C
// (SIGINT), SIGTERM, a closed terminal (SIGHUP) and SIGQUIT.
func TestServeRemovesTemporaryPKI(t *testing.T) {
	t.Parallel()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	failures := [][]string{
		{"--listen", busy.Addr().String()},
		{"--listen", "127.0.0.1:0", "--mutual", "--client-ca", filepath.Join(t.TempDir(), "missing.pem")},
	}
	for _, args := range failures {
		tmp := t.TempDir()
		cmd, _, stderr := serveProcess(t, tmp, args...)
		err := cmd.Wait()
		if code := cmd.ProcessState.ExitCode(); code != 2 {
			t.Errorf("serve %v: exit %d (%v), want 2; stderr: %s", args, code, err, stderr)
		}
		if m := leftovers(t, tmp); len(m) > 0 {
			t.Errorf("serve %v failed to start and left %v behind", args, m)
		}
	}
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT} {
		tmp := t.TempDir()
		cmd, out, stderr := serveProcess(t, tmp, "--listen", "127.0.0.1:0")
		for out.Scan() && !strings.HasPrefix(out.Text(), "CA certificate: ") {
		}
		if m := leftovers(t, tmp); len(m) != 1 {
			t.Fatalf("serve is running, temporary PKI directories %v, want one; stderr: %s", m, stderr)
		}
		cmd.Process.Signal(sig)
		cmd.Wait()
		if m := leftovers(t, tmp); len(m) > 0 {
			t.Errorf("after %v: %v left behind; stderr: %s", sig, m, stderr)
		}
	}
}

// TestServeRemovesStalePKI: a serve killed with SIGKILL cannot remove its
// temporary PKI; the next serve removes it at start (its lock is free),
// and says so, and keeps its own until it stops.
func TestServeRemovesStalePKI(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	started := func() (*exec.Cmd, *syncBuffer) {
		cmd, out, stderr := serveProcess(t, tmp, "--listen", "127.0.0.1:0")
		for out.Scan() && !strings.HasPrefix(out.Text(), "CA certificate: ") {
		}
		return cmd, stderr
	}
	first, _ := started()
	first.Process.Kill()
	first.Wait()
	stale := leftovers(t, tmp)
	if len(stale) != 1 {
		t.Fatalf("after SIGKILL: %v, want the killed server's directory", stale)
	}
	// Killed a while ago: a directory made in the last minute is kept
	// whatever, as its maker may not yet hold its lock.
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(stale[0], old, old); err != nil {
		t.Fatal(err)
	}
	second, stderr := started()
	if m := leftovers(t, tmp); len(m) != 1 || m[0] == stale[0] {
		t.Errorf("second server running: %v, want its own directory only (not %s); stderr: %s", m, stale[0], stderr)
	}
	second.Process.Signal(syscall.SIGTERM)
	second.Wait() // and the copying of its stderr
	if !strings.Contains(stderr.String(), "removed a temporary PKI left by a server stopped before it could remove it") ||
		!strings.Contains(stderr.String(), stale[0]) {
		t.Errorf("stderr does not say what was removed: %s", stderr)
	}
	if m := leftovers(t, tmp); len(m) > 0 {
		t.Errorf("after SIGTERM: %v left behind", m)
	}
}
