package server_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/internal/servertest"
	"github.com/tlsbench/tlsbench/server"
)

// TestChildProfiles asks a real child server for its profiles over the
// control channel, around real handshakes, and for what it must refuse:
// a stop before a start, a path it cannot write, a second start. The
// channel stays usable after each refusal.
func TestChildProfiles(t *testing.T) {
	t.Parallel()
	files, ca := writeIdentity(t)
	child, err := server.StartChild(context.Background(), servertest.ChildOptions(server.Options{Identities: []server.IdentityFiles{files}}))
	if err != nil {
		t.Fatal(err)
	}
	defer child.Close()
	dir := t.TempDir()
	cpu, base, end := filepath.Join(dir, "s.pprof"), filepath.Join(dir, "s.alloc.base.pprof"), filepath.Join(dir, "s.alloc.pprof")
	refused := func(what string, err error, want string) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "the built-in server") {
			t.Errorf("%s: %v, want an error naming the server and %q", what, err, want)
		}
	}
	refused("stop before start", child.StopCPUProfile(), "no CPU profile is being written")
	refused("unwritable", child.StartCPUProfile(filepath.Join(dir, "missing", "s.pprof")), "no such file or directory")
	refused("relative", child.StartCPUProfile("s.pprof"), "not absolute")
	refused("line break", child.StartCPUProfile(filepath.Join(dir, "a\nquit")), "line break")
	if err := child.StartCPUProfile(cpu); err != nil {
		t.Fatal(err)
	}
	refused("second start", child.StartCPUProfile(cpu+"2"), "already being written")
	if err := child.StartAllocProfile(base); err != nil {
		t.Fatal(err)
	}
	for range 20 {
		c, err := tls.Dial("tcp", child.Hello().Addr, &tls.Config{RootCAs: ca.Pool(), ServerName: "localhost"})
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte("x"))
		c.Read(make([]byte, 1))
		c.Close()
	}
	if err := child.StopAllocProfile(end); err != nil {
		t.Fatal(err)
	}
	if err := child.StopCPUProfile(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{cpu, base, end} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if raw, err := io.ReadAll(zr); err != nil || len(raw) == 0 {
			t.Errorf("%s: %d bytes, %v", f, len(raw), err)
		}
	}
	if got, err := child.Counters(); err != nil || got.Handshakes != 20 {
		t.Errorf("counters after the profiles: %+v, %v; want 20 handshakes", got, err)
	}
	if err := child.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
}
