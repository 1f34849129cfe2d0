package html

import (
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/report"
)

// TestReportKeepsSidesApart: the page of an interleaved run names each
// record's side.
func TestReportKeepsSidesApart(t *testing.T) {
	t.Parallel()
	recs := loadRecords(t, pairedFile)
	want := map[report.Format][]string{
		report.HTML: {"handshake/tls1.3/full/c8 [b]", "tls1.3/full [b]"},
	}
	for f, wants := range want {
		out := string(renderHTML(t, Run{Records: recs}))
		for _, w := range wants {
			if !strings.Contains(out, w) {
				t.Errorf("%s lacks %q", f, w)
			}
		}
	}
}

// TestSidesShareColors: the series of a case's side a and side b are one
// color, told apart by their line style, as baseline and candidate are.
func TestSidesShareColors(t *testing.T) {
	t.Parallel()
	page := parsePage(t, renderHTML(t, Run{Records: loadRecords(t, pairedFile)}))
	stroke := map[string]string{}
	for _, g := range page.all(func(n *node) bool { return n.hasClass("series") }) {
		for _, c := range g.children {
			if c.hasClass("point") {
				stroke[g.attr("data-label")] = c.attr("stroke")
			}
		}
	}
	a, b := stroke["tls1.3/full [a]"], stroke["tls1.3/full [b]"]
	if a == "" || a != b {
		t.Errorf("tls1.3/full is drawn in %q on side a and %q on side b, want one color", a, b)
	}
	if stroke["tls1.3/resume [a]"] == a {
		t.Errorf("tls1.3/resume and tls1.3/full share a color")
	}
}
