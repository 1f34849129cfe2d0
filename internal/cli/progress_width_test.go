package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/runner"
)

// TestStatusLineFits: at every width a status line is narrower than the
// terminal (a line as wide wraps and leaves stale lines), and keeps the
// case counter and the time left; the case name is what is cut, with an
// ellipsis, then the phase, rate and elapsed time give way.
func TestStatusLineFits(t *testing.T) {
	t.Parallel()
	long := "handshake/tls1.3/resume/mutual/rsa-3072/keycache-off/x25519mlkem768/memory/c128"
	line := statusLine{cases: "[12/16]", phase: "measure 17/20", rate: "123456 hs/s", elapsed: "elapsed 1m5s", left: "2m30s"}
	tests := []struct {
		width int
		name  string
		want  []string // what must remain besides the counter and the time left
		cut   bool     // the name is shortened
	}{
		{20, long, []string{"h"}, true},
		{40, long, []string{"handshake/tl", "y/c128 left ~2m30s"}, true},
		{80, long, []string{"handshake/tls1.3/re", "c128", "measure 17/20", "123456 hs/s", "left ~2m30s"}, true},
		{200, long, []string{long, "measure 17/20", "123456 hs/s", "elapsed 1m5s", "left ~2m30s"}, false},
		{0, long, []string{long, "elapsed 1m5s"}, false}, // width unknown: nothing cut
		{20, "h/c1", []string{"h/c1"}, false},
		{40, "handshake/tls1.3/c8", []string{"handshake/tls1.3/c8 left ~2m30s"}, false},
		{80, "handshake/tls1.3/full/c8", []string{"handshake/tls1.3/full/c8 measure 17/20  123456 hs/s  left ~2m30s"}, false},
		{100, "handshake/tls1.3/full/c8", []string{"handshake/tls1.3/full/c8 measure 17/20  123456 hs/s  elapsed 1m5s  left ~2m30s"}, false},
	}
	for _, tt := range tests {
		l := line
		l.name = tt.name
		got := l.fit(tt.width)
		if n := utf8.RuneCountInString(got); tt.width > 0 && n >= tt.width {
			t.Errorf("width %d: %d columns: %q", tt.width, n, got)
		}
		if !strings.HasPrefix(got, "[12/16] ") {
			t.Errorf("width %d: %q lost the case counter", tt.width, got)
		}
		if !strings.HasSuffix(got, "~2m30s") {
			t.Errorf("width %d: %q lost the time left", tt.width, got)
		}
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("width %d: %q lacks %q", tt.width, got, w)
			}
		}
		if cut := strings.Contains(got, "…"); cut != tt.cut {
			t.Errorf("width %d: %q: name cut %v, want %v", tt.width, got, cut, tt.cut)
		}
	}
}

// TestProgressFitsTheTerminal: every status line written is narrower
// than the terminal, however long the case name, and keeps the case
// counter and the time left; a hostile name's control characters are
// shown escaped.
func TestProgressFitsTheTerminal(t *testing.T) {
	t.Parallel()
	for _, name := range []string{
		"handshake/tls1.3/resume/mutual/ecdsa-p384/keycache-off/x25519mlkem768/memory/c4096",
		"handshake/\033[2J\033]0;owned\a/tls1.3/full/c8",
	} {
		for _, width := range []int{20, 40, 60, 80, 132, 200} {
			var buf bytes.Buffer
			p := newProgress(&buf, planOf(16, 3*time.Second))
			p.live, p.width = true, func() int { return width }
			p.update(runner.CaseProgress{Index: 12, Total: 16, Progress: measure.Progress{
				Case: name, Iteration: 17, Of: 20, HandshakesPerSec: 123456}})
			p.notice("a notice stays whole on its own line, however long it is")
			p.finish()
			for _, seg := range strings.Split(buf.String(), "\r\033[K")[1:] {
				status, _, _ := strings.Cut(seg, "\n") // a notice ends with a newline
				if strings.HasPrefix(status, "a notice") || status == "" {
					continue
				}
				if n := utf8.RuneCountInString(status); n >= width {
					t.Errorf("width %d: status of %d columns: %q", width, n, status)
				}
				if !strings.HasPrefix(status, "[12/16] ") || !strings.Contains(status, "~") {
					t.Errorf("width %d: status %q lacks the case counter or the time left", width, status)
				}
				if strings.ContainsAny(status, "\033\a") {
					t.Errorf("width %d: control characters written: %q", width, status)
				}
			}
		}
	}
}
