package report

import (
	"bytes"
	"testing"

	"github.com/tlsbench/tlsbench/results"
)

// TestTrimKeepsWhatEachFormatShows: a trimmed record renders the table
// and markdown of a run as the whole record does (the page: see
// report/html), and keeps its
// samples where a comparison needs them.
func TestTrimKeepsWhatEachFormatShows(t *testing.T) {
	t.Parallel()
	recs := loadRecords(t, "testdata/results.jsonl")
	for _, f := range []Format{Table, Markdown} {
		t.Run(string(f), func(t *testing.T) {
			t.Parallel()
			trimmed := make([]results.Record, len(recs))
			for i := range recs {
				r := decoded(t, &recs[i])
				Trim(&r, f, false)
				if r.SamplesUS != nil || r.HandshakeSamplesUS != nil {
					t.Errorf("%s: samples kept", r.Name)
				}
				trimmed[i] = r
			}
			var whole, trim bytes.Buffer
			if err := Render(&whole, f, recs); err != nil {
				t.Fatal(err)
			}
			if err := Render(&trim, f, trimmed); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(whole.Bytes(), trim.Bytes()) {
				t.Errorf("the %s of trimmed records differs from that of the records", f)
			}
		})
	}
	for _, c := range []struct {
		name    string
		side    string
		overlay bool
	}{{"side", results.SideA, false}, {"overlay", "", true}} {
		r := decoded(t, &recs[0])
		r.Side = c.side
		Trim(&r, HTML, c.overlay)
		if len(r.SamplesUS) == 0 || r.Histogram == "" {
			t.Errorf("%s: samples or histogram dropped, which the comparison reads", c.name)
		}
	}
}
