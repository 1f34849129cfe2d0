package report

import (
	"bytes"
	"testing"
)

// TestHostileTextEscaped: no output of the report or the comparison
// passes a control character of a record's text to the terminal or the
// browser; each shows it as an escape.
func TestHostileTextEscaped(t *testing.T) {
	t.Parallel()
	recs := hostileFile(t)
	outputs := map[string]func(w *bytes.Buffer) error{}
	for _, f := range []Format{Table, Markdown, CSV, Benchfmt} {
		outputs[string(f)] = func(w *bytes.Buffer) error { return Render(w, f, recs) }
	}
	checkEscaped(t, outputs)
}
