package cli

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/runner"
)

// TestFitLine: a status line never reaches the terminal's last column (it
// would wrap and leave stale lines); the case name gives way first, then
// the end of the line.
func TestFitLine(t *testing.T) {
	t.Parallel()
	head, tail := "[3/16] ", " measure 2/20  1234 hs/s  elapsed 5s  left ~40s"
	name := "handshake/tls1.3/resume/mutual/rsa-3072/keycache-off/x25519mlkem768/memory/c128"
	tests := []struct {
		width    int
		wantName string // a part of the name that must remain
		wantTail bool   // the tail is whole
	}{
		{0, name, true},   // width unknown: nothing cut
		{200, name, true}, // fits
		{len(head + name + tail), "", true},
		{100, "handshake/tls1.3", true},
		{80, "c128", true},
		{len(head+tail) + 14, "…", true},
		{40, "", false},
		{10, "", false},
		{1, "", false},
	}
	for _, tt := range tests {
		got := fitLine(head, name, tail, tt.width)
		n := utf8.RuneCountInString(got)
		if tt.width > 0 && n > tt.width-1 {
			t.Errorf("width %d: %d columns: %q", tt.width, n, got)
		}
		if !strings.Contains(got, tt.wantName) {
			t.Errorf("width %d: %q lacks %q", tt.width, got, tt.wantName)
		}
		if tt.wantTail != strings.HasSuffix(got, tail) {
			t.Errorf("width %d: %q: tail whole = %v, want %v", tt.width, got, !tt.wantTail, tt.wantTail)
		}
		if !strings.HasPrefix(got, head) && tt.width > len(head) {
			t.Errorf("width %d: %q lost the case counter", tt.width, got)
		}
	}
}

// TestProgressFitsTheTerminal: every status line written is narrower
// than the terminal, however long the case name.
func TestProgressFitsTheTerminal(t *testing.T) {
	t.Parallel()
	for _, width := range []int{20, 40, 60, 80, 132} {
		var buf bytes.Buffer
		p := newProgress(&buf, 16)
		p.live, p.width = true, func() int { return width }
		p.update(runner.CaseProgress{Index: 12, Total: 16, Progress: measure.Progress{
			Case: "handshake/tls1.3/resume/mutual/ecdsa-p384/keycache-off/x25519mlkem768/memory/c4096", Iteration: 17, Of: 20, HandshakesPerSec: 123456}})
		p.notice("a notice stays whole on its own line, however long it is")
		p.finish()
		for _, seg := range strings.Split(buf.String(), "\r\033[K") {
			status, _, _ := strings.Cut(seg, "\n") // a notice ends with a newline
			if strings.HasPrefix(status, "a notice") {
				continue
			}
			if n := utf8.RuneCountInString(status); n >= width {
				t.Errorf("width %d: status of %d columns: %q", width, n, status)
			}
		}
	}
}
