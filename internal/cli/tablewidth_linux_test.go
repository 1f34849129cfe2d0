package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tlsbench/tlsbench/internal/testchild"
)

// runOn runs the command line args in-process with stdout on w (a
// terminal, a pipe) and returns what it wrote there.
func runOn(t *testing.T, stdout *os.File, read *os.File, args ...string) string {
	t.Helper()
	done := make(chan []byte)
	go func() {
		var buf bytes.Buffer
		io.Copy(&buf, read) // until the writing end is closed (a terminal: EIO)
		done <- buf.Bytes()
	}()
	var stderr bytes.Buffer
	err := Run(context.Background(), args, stdout, &stderr)
	stdout.Close()
	out := strings.ReplaceAll(string(<-done), "\r\n", "\n") // the terminal's line ends
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

func onTerminal(t *testing.T, cols uint16, args ...string) string {
	t.Helper()
	master, tty := openPTY(t, cols)
	return runOn(t, tty, master, args...)
}

func onPipe(t *testing.T, args ...string) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return runOn(t, w, r, args...)
}

func widest(out string) (int, string) {
	n, widest := 0, ""
	for _, line := range strings.Split(out, "\n") {
		if m := utf8.RuneCountInString(line); m > n {
			n, widest = m, line
		}
	}
	return n, widest
}

// TestTableFitsTheTerminal runs tlsbench run with its table on a real
// terminal of 80 columns, which it must fit, saying what it left out;
// through a pipe the table is whole, as tlsbench report writes it, and
// as --wide writes it on a terminal; on one of 200 columns it fits too.
// Not parallel: it sets an environment variable (t.Setenv) for the child
// server.
func TestTableFitsTheTerminal(t *testing.T) {
	name, value, _ := strings.Cut(testchild.Env(), "=")
	t.Setenv(name, value) // the child server is this test binary
	dir := t.TempDir()
	plan := []string{"run", "--quick", "--handshakes", "32", "--tls", "1.3", "--concurrency", "1,8"}
	narrow := onTerminal(t, 80, append(plan, "--out", filepath.Join(dir, "a.jsonl"))...)
	if n, line := widest(narrow); n > 80 {
		t.Errorf("a line of %d characters on an 80-column terminal: %q\n%s", n, line, narrow)
	}
	for _, want := range []string{"\nHandshakes\n", "per handshake", "latency", "left out to fit 80 columns: ", "(--wide shows them)"} {
		if !strings.Contains(narrow, want) {
			t.Errorf("the table on 80 columns lacks %q:\n%s", want, narrow)
		}
	}

	b := filepath.Join(dir, "b.jsonl")
	whole := onPipe(t, append(plan, "--out", b)...)
	if strings.Contains(whole, "left out to fit") || !strings.Contains(whole, "stddev") || !strings.Contains(whole, "server session store") {
		t.Errorf("through a pipe the table is not whole:\n%s", whole)
	}
	if n, _ := widest(whole); n <= 200 {
		t.Errorf("the whole table is %d columns wide: too narrow to show the width does anything", n)
	}
	if again := onPipe(t, "report", b); again != whole {
		t.Errorf("tlsbench report through a pipe differs from the run's table:\n%s\nthe run's:\n%s", again, whole)
	}
	if wide := onTerminal(t, 80, "report", "--wide", b); wide != whole {
		t.Errorf("--wide on a terminal is not the whole table:\n%s\nwhole:\n%s", wide, whole)
	}
	at200 := onTerminal(t, 200, "report", b)
	if n, line := widest(at200); n > 200 {
		t.Errorf("a line of %d characters on a 200-column terminal: %q", n, line)
	}
	if !strings.Contains(at200, "stddev") || len(at200) <= len(onTerminal(t, 80, "report", b)) {
		t.Errorf("200 columns show no more than 80:\n%s", at200)
	}
}
