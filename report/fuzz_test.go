package report

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/tlsbench/tlsbench/results"
)

// FuzzReport renders whatever results.Decode accepts in every format, as
// an HTML overlay and as a comparison: a results file is input from
// anywhere, and no record it holds (huge or zero values, markup and
// control characters in names, broken histograms, one-sided cases) may
// crash a report or break the page's markup.
func FuzzReport(f *testing.F) {
	for _, path := range []string{resultsFile, candidateFile} {
		if b, err := os.ReadFile(path); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{
		`{"name":"handshake/tls1.3/full/c0","kind":"handshake","concurrency":0,"mean_us":1e308,"error_us":1e308,"samples_us":[1e308,1e308],"histogram":"HISTFAAAAB"}`,
		`{"name":"<b>&","kind":"handshake","concurrency":-8,"resume":true,"resumed":5,"handshakes":2,"samples_us":[0,0,0]}` + "\n" + `{"name":"<b>&","kind":"throughput","mbps":0,"buffer_bytes":-1}`,
		`{"name":"t","kind":"throughput","mbps":5e-324,"buffer_bytes":1,"client_cpu_pct":-1}`,
		`{"name":"h","kind":"handshake","tls_version":"\u0001","client_cpu_us":-5,"process_cpu_us":0,"handshakes_per_sec":-1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, _ := results.Decode(bytes.NewReader(data))
		if len(recs) == 0 || len(recs) > 64 {
			return
		}
		for _, fm := range Formats() {
			if err := Render(io.Discard, fm, recs); err != nil {
				t.Fatalf("Render(%s): %v", fm, err)
			}
		}
		half := recs[:len(recs)/2]
		checkSVGNumbers(t, parsePage(t, renderHTML(t, Run{Name: "a", Records: recs})))
		checkSVGNumbers(t, parsePage(t, renderHTML(t, Run{Name: "a", Records: half}, Run{Name: "b", Records: recs})))
		c := Compare(half, recs, CompareOptions{})
		for _, fm := range CompareFormats() {
			if err := RenderComparison(io.Discard, fm, c); err != nil {
				t.Fatalf("RenderComparison(%s): %v", fm, err)
			}
		}
		_ = c.CheckRegressions(0)
	})
}
