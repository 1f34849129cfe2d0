package cli_test

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestServeProfileEndsOnSignal: serve --profile's file is a complete
// profile once serve ends on Ctrl-C or SIGTERM, which end it normally
// (exit 0), in place of an older file of that name, with nothing left
// beside it; and serve says where it went.
func TestServeProfileEndsOnSignal(t *testing.T) {
	t.Parallel()
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		tmp := t.TempDir()
		file := filepath.Join(tmp, "serve.pprof")
		if err := os.WriteFile(file, []byte("an older profile\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd, out, stderr := serveProcess(t, tmp, "--listen", "127.0.0.1:0", "--profile", file)
		for out.Scan() && !strings.HasPrefix(out.Text(), "CA certificate: ") {
		}
		cmd.Process.Signal(sig)
		if err := cmd.Wait(); err != nil {
			t.Fatalf("after %v: %v; stderr: %s", sig, err, stderr)
		}
		if !strings.Contains(stderr.String(), "CPU profile written to "+file) {
			t.Errorf("after %v: stderr %q does not say where the profile went", sig, stderr)
		}
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatalf("after %v: %s is not gzip: %v", sig, file, err)
		}
		if raw, err := io.ReadAll(zr); err != nil || len(raw) == 0 {
			t.Errorf("after %v: %d bytes in the profile, %v", sig, len(raw), err)
		}
		f.Close()
		if left, _ := filepath.Glob(file + ".partial-*"); len(left) > 0 {
			t.Errorf("after %v: %v left beside the profile", sig, left)
		}
	}
}
