package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/runner"
)

// planOf is the budgets of n cases of each long.
func planOf(n int, each time.Duration) []caseBudget {
	b := make([]caseBudget, n)
	for i := range b {
		b[i].fixed = each
	}
	return b
}

// TestProgressOnlyOnATerminal: on a terminal the status line shows the
// case n of m, the phase, live handshakes/s, elapsed and remaining time
// (from the plan before any case has finished, never unknown); anywhere
// else nothing is written, so piped output stays clean.
func TestProgressOnlyOnATerminal(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	p := newProgress(&buf, planOf(4, 3*time.Second)) // a bytes.Buffer is no terminal
	p.update(runner.CaseProgress{Index: 1, Total: 4, Progress: measure.Progress{Case: "handshake/tls1.3/full/c1", Iteration: 2, Of: 20, HandshakesPerSec: 812}})
	p.notice("built-in server started")
	p.finish()
	if buf.Len() != 0 {
		t.Fatalf("progress wrote %q to a non-terminal", buf.String())
	}

	p.live = true // as on a terminal
	p.update(runner.CaseProgress{Index: 1, Total: 4, Progress: measure.Progress{Case: "handshake/tls1.3/full/c1", Warmup: true, Iteration: 1, Of: 2, HandshakesPerSec: 700}})
	p.caseDone(&results.Record{Name: "handshake/tls1.3/full/c1"})
	p.update(runner.CaseProgress{Index: 2, Total: 4, Progress: measure.Progress{Case: "handshake/tls1.3/resume/c1", Iteration: 3, Of: 20, HandshakesPerSec: 1234}})
	out := buf.String()
	for _, want := range []string{"[1/4] handshake/tls1.3/full/c1 warm-up 1/2", "[2/4] handshake/tls1.3/resume/c1 measure 3/20", "1234 hs/s", "elapsed"} {
		if !strings.Contains(out, want) {
			t.Errorf("status %q lacks %q", out, want)
		}
	}
	for _, line := range strings.Split(out, "\r\033[K")[1:] {
		if !strings.Contains(line, "left ~") || strings.Contains(line, "?") {
			t.Errorf("status without a time estimate: %q", line)
		}
	}
}
