package cli

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/runner"
)

// openPTY opens a pseudo-terminal of the given width: the master, to read
// what is written, and the terminal itself.
func openPTY(t *testing.T, cols uint16) (master, tty *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close() })
	if err := unix.IoctlSetWinsize(int(tty.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: cols}); err != nil {
		t.Fatal(err)
	}
	return master, tty
}

// TestProgressOnARealTerminal: on a 40-column terminal, the status line of
// a long case name is cut to fit, as the terminal itself reports its width:
// the name is shortened, the counter and the time left remain.
func TestProgressOnARealTerminal(t *testing.T) {
	t.Parallel()
	master, tty := openPTY(t, 40)
	if got := terminalWidth(tty.Fd()); got != 40 {
		t.Fatalf("terminal width %d, want 40", got)
	}
	p := newProgress(tty, planOf(4, 3*time.Second))
	if !p.live {
		t.Fatal("a terminal is not taken as one")
	}
	p.update(runner.CaseProgress{Index: 1, Total: 4, Progress: measure.Progress{
		Case: "handshake/tls1.3/resume/mutual/rsa-3072/x25519mlkem768/c128", Iteration: 3, Of: 20, HandshakesPerSec: 812}})
	tty.Write([]byte("\n")) // ends the read below
	master.SetReadDeadline(time.Now().Add(10 * time.Second))
	var got []byte
	buf := make([]byte, 4096)
	for !strings.Contains(string(got), "\n") {
		n, err := master.Read(buf)
		if err != nil {
			t.Fatalf("reading the terminal: %v (got %q)", err, got)
		}
		got = append(got, buf[:n]...)
	}
	line := strings.TrimRight(string(got), "\r\n")
	line = line[strings.LastIndex(line, "\033[K")+len("\033[K"):]
	if n := utf8.RuneCountInString(line); n >= 40 || n < 30 {
		t.Errorf("status of %d columns on a 40-column terminal: %q", n, line)
	}
	if !strings.HasPrefix(line, "[1/4] handshake") || !strings.Contains(line, "…") {
		t.Errorf("status %q lost its start, or its case name is not shortened", line)
	}
	if !regexp.MustCompile(`left ~\d+s$`).MatchString(line) {
		t.Errorf("status %q lost the time left", line)
	}
}
