package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tlsbench/tlsbench/results"
)

// hostile is text a hostile server (an alert's description, a
// certificate's subject) or a hostile results file can put in a record:
// a window title set by OSC, the screen cleared by CSI, the same by the
// C1 CSI, DEL, and bidirectional overrides and isolates that reorder
// what is shown.
const hostile = "\x1b]0;owned\x07\x1b[2J\u009b31m\x7f\u202eexe.txt\u2066x\u2069\x00"

// hostileFile writes the records of testdata/results.jsonl with hostile
// text in every field a report shows as text, and reads them back as a
// results file is read.
func hostileFile(t *testing.T) []results.Record {
	t.Helper()
	recs := loadRecords(t, "testdata/results.jsonl")
	for i := range recs {
		r := &recs[i]
		r.Name += "/" + hostile
		r.Notes = append(r.Notes, "the server said "+hostile)
		if r.Errors > 0 {
			r.ErrorsByKind = map[string]int64{"alert: " + hostile: r.Errors}
		}
		r.Target, r.Request = "127.0.0.1:1"+hostile, "GET /"+hostile
		r.Env.CPUModel, r.Env.Kernel = "cpu"+hostile, "kernel"+hostile
		r.Env.Peers = map[string]string{"peer" + hostile: "1.0" + hostile}
		if i == 1 {
			r.Verdict = "failed"
		}
	}
	var buf bytes.Buffer
	w := results.NewWriter(&buf)
	for i := range recs {
		if err := w.Write(&recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "hostile.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	back, err := results.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return back
}

// rawControl is the first control character, C1 control, bidirectional
// control or byte that is not UTF-8 in out, newlines apart; "" if none.
func rawControl(out []byte) string {
	for i := 0; i < len(out); {
		r, n := utf8.DecodeRune(out[i:])
		switch {
		case r == utf8.RuneError && n == 1,
			r < 0x20 && r != '\n', r >= 0x7f && r <= 0x9f,
			r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			lo, hi := max(i-30, 0), min(i+30, len(out))
			return string(out[lo:hi])
		}
		i += n
	}
	return ""
}

// TestHostileTextEscaped: no output of the report or the comparison
// passes a control character of a record's text to the terminal or the
// browser; each shows it as an escape.
func TestHostileTextEscaped(t *testing.T) {
	t.Parallel()
	recs := hostileFile(t)
	outputs := map[string]func(w *bytes.Buffer) error{}
	for _, f := range []Format{Table, Markdown, CSV, Benchfmt, HTML} {
		outputs[string(f)] = func(w *bytes.Buffer) error { return Render(w, f, recs) }
	}
	for _, f := range []Format{Table, Markdown, CSV} {
		outputs["compare "+string(f)] = func(w *bytes.Buffer) error {
			return RenderComparison(w, f, Compare(recs, recs, CompareOptions{}))
		}
	}
	outputs["html overlay"] = func(w *bytes.Buffer) error {
		return RenderHTML(w, Run{Name: "a" + hostile, Records: recs}, Run{Name: "b", Records: recs})
	}
	for name, render := range outputs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			if err := render(&buf); err != nil {
				t.Fatal(err)
			}
			if bad := rawControl(buf.Bytes()); bad != "" {
				t.Errorf("%s output holds a raw control character: %q", name, bad)
			}
			shown := `\x1b]0;owned\x07`
			if strings.Contains(name, "markdown") {
				shown = `\\x1b]0;owned\\x07` // a backslash is escaped
			}
			if name != "benchfmt" && !strings.Contains(buf.String(), shown) {
				t.Errorf("%s output does not show the escape sequence as text", name)
			}
		})
	}
}
