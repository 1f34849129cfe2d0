package html

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
	outputs[string(report.HTML)] = func(w *bytes.Buffer) error { return RenderHTML(w, Run{Records: recs}) }
	outputs["html overlay"] = func(w *bytes.Buffer) error {
		return RenderHTML(w, Run{Name: "a" + hostile, Records: recs}, Run{Name: "b", Records: recs})
	}
	checkEscaped(t, outputs)
}
