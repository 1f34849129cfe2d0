package compare

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/report"
	"github.com/tlsbench/tlsbench/results"
)

// TestCompareOnTheHandshake: compare judges the handshake figure when
// both sides have it, so a slower answer after the handshake is no
// change; against a side written without it, the wall time, and the
// comparison says which it used.
func TestCompareOnTheHandshake(t *testing.T) {
	t.Parallel()
	steady := []float64{100, 100.1, 100.2, 100.3, 100.4, 100.5, 100.6, 100.7, 100.8, 100.9}
	base := withHandshake(costRecord(false, steady), steady...)
	// The candidate's server answers later: the wall time doubles, the
	// handshake does not move.
	cand := withHandshake(costRecord(false, shift(steady, 2)), steady...)
	c := Compare([]results.Record{base}, []results.Record{cand}, CompareOptions{})
	if cc := c.Cases[0]; cc.Figure != FigureHandshake || cc.Verdict != NoChange || cc.Base.Mean != cc.Cand.Mean {
		t.Errorf("both with the handshake figure: %s on %q (means %v, %v), want no change on the handshake", cc.Verdict, cc.Figure, cc.Base.Mean, cc.Cand.Mean)
	}
	var buf bytes.Buffer
	RenderComparison(&buf, report.Table, c)
	if !strings.Contains(buf.String(), "figure:     connect + TLS handshake per handshake") {
		t.Errorf("comparison does not say its figure:\n%s", buf.String())
	}

	old := costRecord(false, shift(steady, 2))
	c = Compare([]results.Record{base}, []results.Record{old}, CompareOptions{})
	if cc := c.Cases[0]; cc.Figure != FigureWall || cc.Verdict != Slower {
		t.Errorf("candidate without the handshake figure: %s on %q, want slower on the wall time", cc.Verdict, cc.Figure)
	}
	buf.Reset()
	RenderComparison(&buf, report.Table, c)
	if !strings.Contains(buf.String(), "figure:     wall time per connection") {
		t.Errorf("comparison does not say it fell back to the wall time:\n%s", buf.String())
	}
}
