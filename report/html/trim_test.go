package html

import (
	"bytes"
	"testing"

	"github.com/tlsbench/tlsbench/report"
	"github.com/tlsbench/tlsbench/results"
)

// TestTrimKeepsWhatEachFormatShows: a trimmed record renders the page of
// a run as the whole record does.
func TestTrimKeepsWhatEachFormatShows(t *testing.T) {
	t.Parallel()
	recs := loadRecords(t, resultsFile)
	for _, f := range []report.Format{report.HTML} {
		t.Run(string(f), func(t *testing.T) {
			t.Parallel()
			trimmed := make([]results.Record, len(recs))
			for i := range recs {
				r := decoded(t, &recs[i])
				report.Trim(&r, f, false)
				if r.SamplesUS != nil || r.HandshakeSamplesUS != nil {
					t.Errorf("%s: samples kept", r.Name)
				}
				trimmed[i] = r
			}
			var whole, trim bytes.Buffer
			if err := RenderHTML(&whole, Run{Records: recs}); err != nil {
				t.Fatal(err)
			}
			if err := RenderHTML(&trim, Run{Records: trimmed}); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(whole.Bytes(), trim.Bytes()) {
				t.Errorf("the %s of trimmed records differs from that of the records", f)
			}
		})
	}
}
