package cli

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/runner"
)

// progress shows a live status line on stderr when stderr is a terminal,
// and nothing otherwise, so that piped or redirected output stays clean.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	live    bool
	total   int
	started time.Time
	done    int
}

func newProgress(stderr io.Writer, total int) *progress {
	return &progress{w: stderr, live: isTerminal(stderr), total: total, started: time.Now()}
}

func (p *progress) update(cp runner.CaseProgress) {
	p.status(cp.Index, cp.Total, cp.Case, cp.Warmup, cp.Iteration, cp.Of, fmt.Sprintf("%.0f hs/s", cp.HandshakesPerSec))
}

// status rewrites the status line: case n of m, phase, iteration, the
// live rate, elapsed time and, once a case has finished, an estimate of
// the time left.
func (p *progress) status(index, total int, name string, warmup bool, it, of int, rate string) {
	if !p.live {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	phase := "measure"
	if warmup {
		phase = "warm-up"
	}
	elapsed := time.Since(p.started)
	eta := "?"
	if p.done > 0 {
		eta = (elapsed / time.Duration(p.done) * time.Duration(p.total-p.done)).Round(time.Second).String()
	}
	fmt.Fprintf(p.w, "\r\033[K[%d/%d] %s %s %d/%d  %s  elapsed %s  left ~%s",
		index, total, name, phase, it, of, rate, elapsed.Round(time.Second), eta)
}

func (p *progress) caseDone(*results.Record) {
	p.mu.Lock()
	p.done++
	p.mu.Unlock()
}

// notice prints a remark on its own line (only on a terminal: the
// results carry everything a script needs).
func (p *progress) notice(msg string) {
	if !p.live {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "\r\033[K%s\n", msg)
}

func (p *progress) finish() {
	if !p.live {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprint(p.w, "\r\033[K")
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	return fdIsTerminal(f.Fd())
}
