package compare

import (
	"bytes"
	"testing"

	"github.com/tlsbench/tlsbench/report"
)

// TestHostileTextEscaped: no output of the report or the comparison
// passes a control character of a record's text to the terminal or the
// browser; each shows it as an escape.
func TestHostileTextEscaped(t *testing.T) {
	t.Parallel()
	recs := hostileFile(t)
	outputs := map[string]func(w *bytes.Buffer) error{}
	for _, f := range []report.Format{report.Table, report.Markdown, report.CSV} {
		outputs["compare "+string(f)] = func(w *bytes.Buffer) error {
			return RenderComparison(w, f, Compare(recs, recs, CompareOptions{}))
		}
	}
	checkEscaped(t, outputs)
}
