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
