package cli

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/tlsbench/tlsbench/internal/cli/command"
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
	// width is the terminal's width in columns, asked on every update
	// (the window may be resized); 0 when unknown.
	width func() int
}

func newProgress(stderr io.Writer, total int) *progress {
	p := &progress{w: stderr, live: isTerminal(stderr), total: total, started: time.Now(), width: func() int { return 0 }}
	if f, ok := stderr.(*os.File); ok && p.live {
		p.width = func() int { return terminalWidth(f.Fd()) }
	}
	return p
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
	head := fmt.Sprintf("[%d/%d] ", index, total)
	count := fmt.Sprintf("%d/%d", it, of)
	if it > of {
		// Past the planned iterations, towards the target error.
		count = fmt.Sprintf("%d (towards the target error)", it)
	}
	tail := fmt.Sprintf(" %s %s  %s  elapsed %s  left ~%s", phase, count, rate, elapsed.Round(time.Second), eta)
	fmt.Fprintf(p.w, "\r\033[K%s", fitLine(head, command.Printable(name), tail, p.width()))
}

// fitLine joins head, name and tail into a status line of fewer than
// width columns (width 0: any length). A line as wide as the terminal
// wraps, and "\r\033[K" then clears only its last row, leaving stale
// lines above: the case name is shortened in the middle first (its
// start and its concurrency stay readable), then the line is cut.
func fitLine(head, name, tail string, width int) string {
	line := head + name + tail
	if width <= 0 {
		return line
	}
	limit := width - 1 // the last column would wrap on some terminals
	n := utf8.RuneCountInString(line)
	if n <= limit {
		return line
	}
	const minName = 12
	if keep := utf8.RuneCountInString(name) - (n - limit) - 1; keep >= minName {
		r := []rune(name)
		front := keep - keep/3
		return head + string(r[:front]) + "…" + string(r[len(r)-(keep-front):]) + tail
	}
	return string([]rune(line)[:max(limit, 0)])
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
	fmt.Fprintf(p.w, "\r\033[K%s\n", command.Printable(msg))
}

// log prints a line on stderr whether or not it is a terminal (on one,
// above the status line).
func (p *progress) log(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.live {
		fmt.Fprint(p.w, "\r\033[K")
	}
	fmt.Fprintln(p.w, command.Printable(msg))
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
