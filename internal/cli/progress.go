package cli

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"
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
	started time.Time
	eta     *estimate
	// width is the terminal's width in columns, asked on every update
	// (the window may be resized); 0 when unknown.
	width func() int
	now   func() time.Time
}

// newProgress shows the progress of a run of the cases budgets (none:
// only notices and logs).
func newProgress(stderr io.Writer, budgets []caseBudget) *progress {
	now := time.Now()
	p := &progress{w: stderr, live: isTerminal(stderr), started: now, eta: newEstimate(budgets, now),
		width: func() int { return 0 }, now: time.Now}
	if f, ok := stderr.(*os.File); ok && p.live {
		p.width = func() int { return terminalWidth(f.Fd()) }
	}
	return p
}

func (p *progress) update(cp runner.CaseProgress) {
	p.status(cp.Index, cp.Total, cp.Case, cp.Warmup, cp.Iteration, cp.Of, fmt.Sprintf("%.0f hs/s", cp.HandshakesPerSec))
}

// status rewrites the status line: case n of m, phase, iteration, the
// live rate, elapsed time and the estimate of the time left.
func (p *progress) status(index, total int, name string, warmup bool, it, of int, rate string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	p.eta.iteration(index, now)
	if !p.live {
		return
	}
	phase := "measure"
	if warmup {
		phase = "warm-up"
	}
	count := fmt.Sprintf("%d/%d", it, of)
	if it > of {
		// Past the planned iterations, towards the target error.
		count = fmt.Sprintf("%d (towards the target error)", it)
	}
	line := statusLine{
		cases: fmt.Sprintf("[%d/%d]", index, total), name: command.Printable(name),
		phase: phase + " " + count, rate: rate, elapsed: "elapsed " + shortDuration(now.Sub(p.started)),
		left: shortDuration(p.eta.left(now)),
	}
	fmt.Fprintf(p.w, "\r\033[K%s", line.fit(p.width()))
}

// statusLine is the status line's parts: the case counter and the time
// left, which every width shows; the case's name, which is shortened to
// fit; and its phase, rate and elapsed time, left out in turn (elapsed
// first) when the name would otherwise be cut too short.
type statusLine struct {
	cases, name, phase, rate, elapsed, left string
}

// fit is the status line in fewer than width columns (0: any length). A
// line as wide as the terminal wraps, and "\r\033[K" then clears only its
// last row, leaving stale lines above.
func (l statusLine) fit(width int) string {
	tries := []struct {
		parts   []string
		left    string
		minName int
	}{
		{[]string{l.phase, l.rate, l.elapsed}, "left ~" + l.left, 20},
		{[]string{l.phase, l.rate}, "left ~" + l.left, 20},
		{[]string{l.phase}, "left ~" + l.left, 20},
		{nil, "left ~" + l.left, 8},
		{nil, "~" + l.left, 2},
	}
	limit := width - 1 // the last column would wrap on some terminals
	if width <= 0 {
		limit = math.MaxInt
	}
	for _, t := range tries {
		tail := " " + strings.Join(append(t.parts, t.left), "  ")
		room := limit - runes(l.cases) - 1 - runes(tail)
		if n := runes(l.name); n <= room || room >= t.minName {
			return l.cases + " " + shorten(l.name, room) + tail
		}
	}
	line := l.cases + " ~" + l.left
	if runes(line) > limit {
		line = string([]rune(line)[:max(limit, 0)])
	}
	return line
}

// shorten cuts s to n runes with an ellipsis: in the middle when there is
// room (a case name's start and its concurrency stay readable), else at
// its end.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n < 12 {
		return string(r[:max(n-1, 0)]) + "…"
	}
	keep := n - 1
	front := keep - keep/3
	return string(r[:front]) + "…" + string(r[len(r)-(keep-front):])
}

func runes(s string) int { return utf8.RuneCountInString(s) }

func (p *progress) caseDone(rec *results.Record) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.eta.caseDone(rec, p.now())
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
