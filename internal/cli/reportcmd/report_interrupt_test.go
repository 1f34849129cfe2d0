package reportcmd_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/cli/command"
	"github.com/tlsbench/tlsbench/internal/cli/reportcmd"
	"github.com/tlsbench/tlsbench/results"
)

// TestReportInterruptWritesNothingAfter: a report interrupted while it
// renders writes nothing to stderr once the command has returned, where
// the caller writes its own message (the rendering, left to finish by
// itself, is not waited for). The note of what benchfmt leaves out is
// the rendering's one write to stderr: the test's stderr interrupts the
// command when that note comes and holds it until the command returns
// or a moment has passed; a note that comes only after the return is
// one the abandoned rendering wrote.
func TestReportInterruptWritesNothingAfter(t *testing.T) {
	t.Parallel()
	recs, err := results.ReadFile("../../../report/testdata/results.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	failed := recs[0]
	failed.Name += "/failed"
	failed.Verdict = "failed"
	in := filepath.Join(t.TempDir(), "r.jsonl")
	var data []byte
	for _, r := range []results.Record{recs[0], failed} {
		b, err := results.Marshal(&r)
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, b...)
	}
	if err := os.WriteFile(in, data, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &interruptingWriter{cancel: cancel, returned: make(chan struct{})}
	var stdout bytes.Buffer
	err = reportcmd.Report(ctx, []string{"--format", "benchfmt", in}, &stdout, stderr)
	stderr.mark()
	close(stderr.returned)
	stderr.wait()
	if code := command.ExitCode(err); code != command.ExitInterrupted && code != 0 {
		t.Fatalf("exit %d (%v), want %d or 0", code, err, command.ExitInterrupted)
	}
	if late := stderr.lateWrites(); late != "" {
		t.Errorf("written to stderr after the command returned: %q", late)
	}
}

// interruptingWriter is a stderr that interrupts the command (cancel)
// at the note of what a format leaves out, and then waits for the
// command to return, at most a moment, before it takes the note.
type interruptingWriter struct {
	cancel   context.CancelFunc
	returned chan struct{}
	writing  sync.WaitGroup

	mu    sync.Mutex
	done  bool // the command returned
	late  strings.Builder
	early strings.Builder
}

func (w *interruptingWriter) Write(p []byte) (int, error) {
	w.writing.Add(1)
	defer w.writing.Done()
	if bytes.Contains(p, []byte("leaves out")) {
		w.cancel()
		select {
		case <-w.returned:
		case <-time.After(200 * time.Millisecond):
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		w.late.Write(p)
	} else {
		w.early.Write(p)
	}
	return len(p), nil
}

func (w *interruptingWriter) mark() {
	w.mu.Lock()
	w.done = true
	w.mu.Unlock()
}

// wait waits for a held note: a rendering that writes at all has begun
// its write before the command returned, as the write interrupted it.
func (w *interruptingWriter) wait() { w.writing.Wait() }

func (w *interruptingWriter) lateWrites() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.late.String()
}
