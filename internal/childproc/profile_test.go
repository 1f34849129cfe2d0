package childproc

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// checkPprof fails unless file holds a gzip-compressed, non-empty
// profile: what runtime/pprof writes.
func checkPprof(t *testing.T, file string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: not gzip: %v", file, err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil || len(raw) == 0 {
		t.Fatalf("%s: %d bytes decompressed, %v", file, len(raw), err)
	}
}

// TestServeProfiles drives the profile requests over a real Serve, in
// the order a parent might get wrong: stops without starts, second
// starts, relative and unwritable paths, and a CPU profile left running
// when the parent quits.
func TestServeProfiles(t *testing.T) {
	dir := t.TempDir()
	parent, child := net.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), child, map[string]int{"pid": 1}, func(reply func(any) error) error { return reply(struct{}{}) })
	}()
	parent.SetDeadline(time.Now().Add(time.Minute))
	r := bufio.NewReader(parent)
	if _, err := r.ReadBytes('\n'); err != nil { // hello
		t.Fatal(err)
	}
	ask := func(req string) string {
		t.Helper()
		if _, err := io.WriteString(parent, req+"\n"); err != nil {
			t.Fatal(err)
		}
		line, err := r.ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		var a answered
		if err := json.Unmarshal(line, &a); err != nil {
			t.Fatalf("%s: answer %q: %v", req, line, err)
		}
		return a.Error
	}
	cpu, cpu2 := filepath.Join(dir, "a.pprof"), filepath.Join(dir, "b.pprof")
	base, end := filepath.Join(dir, "base.pprof"), filepath.Join(dir, "end.pprof")
	for _, step := range []struct{ req, wantErr string }{
		{ReqCPUProfileStop, "no CPU profile is being written"},
		{ReqCPUProfileStart + " relative.pprof", "not absolute"},
		{ReqCPUProfileStart, "not absolute"},
		{ReqCPUProfileStart + " " + filepath.Join(dir, "missing", "x.pprof"), "no such file or directory"},
		{ReqCPUProfileStart + " " + cpu, ""},
		{ReqCPUProfileStart + " " + cpu2, "already being written"},
		{ReqCPUProfileStop, ""},
		{ReqCPUProfileStop, "no CPU profile is being written"},
		{ReqAllocProfileStop + " " + end, "no allocation profile was started"},
		{ReqAllocProfileStart + " " + filepath.Join(dir, "missing", "x.pprof"), "no such file or directory"},
		{ReqAllocProfileStart + " " + base, ""},
		{ReqAllocProfileStart + " " + base, "already started"},
		{ReqAllocProfileStop + " " + end, ""},
		{ReqCounters, ""},
		{"cpu-profile-startx " + cpu2, "unknown request"},
		{ReqCPUProfileStart + " " + cpu2, ""},
	} {
		got := ask(step.req)
		if step.wantErr == "" && got != "" || !strings.Contains(got, step.wantErr) {
			t.Errorf("%q: error %q, want %q", step.req, got, step.wantErr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "relative.pprof")); err == nil {
		t.Error("a relative path was written")
	}
	// The parent quits with the second CPU profile running: Serve ends
	// it, so that the file is complete.
	io.WriteString(parent, ReqQuit+"\n")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{cpu, cpu2, base, end} {
		checkPprof(t, f)
	}
	if fi, err := os.Stat(cpu); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("profile mode %v (%v), want 0600", fi.Mode(), err)
	}
}
