package html

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"testing"

	"github.com/tlsbench/tlsbench/report"
	"github.com/tlsbench/tlsbench/report/compare"
	"github.com/tlsbench/tlsbench/results"
)

// FuzzReport renders whatever results.Decode accepts in every format, as
// an HTML overlay and as a comparison: a results file is input from
// anywhere, and no record it holds (huge or zero values, markup and
// control characters in names, broken histograms, one-sided cases) may
// crash a report or break the page's markup, and no comparison may make
// a number out of a value that is not there (see
// checkComparisonInvariants); an interleaved run is compared pair by pair
// too.
func FuzzReport(f *testing.F) {
	for _, path := range []string{resultsFile, candidateFile, pairedFile, findRateFile} {
		if b, err := os.ReadFile(path); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{
		`{"name":"handshake/tls1.3/full/c0","kind":"handshake","concurrency":0,"mean_us":1e308,"error_us":1e308,"samples_us":[1e308,1e308],"histogram":"HISTFAAAAB"}`,
		`{"name":"<b>&","kind":"handshake","concurrency":-8,"resume":true,"resumed":5,"handshakes":2,"samples_us":[0,0,0]}` + "\n" + `{"name":"<b>&","kind":"throughput","mbps":0,"buffer_bytes":-1}`,
		`{"name":"t","kind":"throughput","mbps":5e-324,"buffer_bytes":1,"client_cpu_pct":-1}`,
		// Complete records: the same case in another group, the
		// candidate's samples all zero.
		`{"name":"handshake/tls1.3/full/c8","kind":"handshake","tls_version":"1.3","resume":false,"mutual":false,"concurrency":8,"key_type":"ecdsa-p256","group":"X25519","transport":"tcp","handshakes":640,"errors":0,"resumed":0,"resumption_rate":0,"server_resumed":null,"iterations":2,"mean_us":420,"error_us":null,"stddev_us":1,"median_us":420,"min_us":419,"max_us":421,"p50_us":400,"p90_us":500,"p99_us":600,"p999_us":700,"handshakes_per_sec":2400,"client_cpu_us":null,"server_cpu_us":null,"alloc_bytes":38000,"samples_us":[419,421],"env":{}}
{"name":"handshake/tls1.3/full/c8","kind":"handshake","tls_version":"1.3","resume":false,"mutual":false,"concurrency":8,"key_type":"ecdsa-p256","group":"P-256","transport":"tcp","handshakes":640,"errors":0,"resumed":0,"resumption_rate":0,"server_resumed":null,"iterations":2,"mean_us":0,"error_us":null,"stddev_us":1,"median_us":0,"min_us":0,"max_us":0,"p50_us":400,"p90_us":500,"p99_us":600,"p999_us":700,"handshakes_per_sec":2400,"client_cpu_us":null,"server_cpu_us":null,"alloc_bytes":38000,"samples_us":[0,0],"env":{}}`,
		`{"name":"h","kind":"handshake","tls_version":"\u0001","client_cpu_us":-5,"process_cpu_us":0,"handshakes_per_sec":-1}`,
		// Searches for a sustainable rate: steps without a rate, at the
		// edges of float64, under an answer with a broken goal; an answer
		// without steps; a step whose name has no segment to strip.
		`{"name":"x/find-rate/r1","kind":"rate-step","rate_target":1e308,"p99_us":-1,"slo":"p99=1e300h","slo_met":false,"histogram":"HISTFAAAAB"}
{"name":"x/find-rate/r0","kind":"rate-step","slo":"p99=20ms","slo_met":true,"p50_us":0}
{"name":"x/find-rate","kind":"rate-search","slo":"p=,error=%","rate_sustained":-5,"rate_failed":5e-324,"steps":-3}`,
		`{"name":"<r>","kind":"rate-search","slo":"p99.9=1ns","rate_sustained":1e308,"search_limit":"<b>"}` + "\n" + `{"name":"<r>","kind":"rate-step","rate_target":0,"slo":"p50=1ns,error=100%"}`,
		`{"name":"handshake/tls1.3/full/r2","kind":"handshake","rate_target":-2,"rate_achieved":1e308,"late":-1,"p50_us":5e-324,"p99_us":1e308,"handshakes_per_sec":1e308}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, _ := results.Decode(bytes.NewReader(data))
		if len(recs) == 0 || len(recs) > 64 {
			return
		}
		for _, fm := range report.Formats() {
			var err error
			if fm == report.HTML {
				err = RenderHTML(io.Discard, Run{Records: recs})
			} else {
				err = report.Render(io.Discard, fm, recs)
			}
			if err != nil {
				t.Fatalf("Render(%s): %v", fm, err)
			}
		}
		half := recs[:len(recs)/2]
		checkSVGNumbers(t, parsePage(t, renderHTML(t, Run{Name: "a", Records: recs})))
		if report.Interleaved(recs) {
			// An interleaved run is its own comparison: no overlay.
			if err := RenderHTML(io.Discard, Run{Name: "a", Records: half}, Run{Name: "b", Records: recs}); err == nil {
				t.Fatal("RenderHTML overlaid an interleaved run with another")
			}
		} else {
			checkSVGNumbers(t, parsePage(t, renderHTML(t, Run{Name: "a", Records: half}, Run{Name: "b", Records: recs})))
		}
		c := compare.Compare(half, recs, compare.CompareOptions{})
		for _, fm := range compare.CompareFormats() {
			if err := compare.RenderComparison(io.Discard, fm, c); err != nil {
				t.Fatalf("RenderComparison(%s): %v", fm, err)
			}
		}
		checkComparisonInvariants(t, c)
		if report.Interleaved(recs) {
			pc, err := compare.ComparePaired(recs, compare.CompareOptions{})
			if err != nil {
				t.Fatalf("ComparePaired: %v", err)
			}
			for _, fm := range compare.CompareFormats() {
				if err := compare.RenderComparison(io.Discard, fm, pc); err != nil {
					t.Fatalf("RenderComparison(%s) of a paired comparison: %v", fm, err)
				}
			}
			checkComparisonInvariants(t, pc)
			for _, cc := range pc.Cases {
				if !math.IsNaN(cc.P) && !(cc.P >= 0 && cc.P <= 1) || (cc.Verdict == compare.Slower || cc.Verdict == compare.Faster) && !(cc.CILo > 1 || cc.CIHi < 1) {
					t.Errorf("%s: p %v, verdict %q with interval %v..%v", cc.Name, cc.P, cc.Verdict, cc.CILo, cc.CIHi)
				}
			}
		}
	})
}

// checkComparisonInvariants: a side without samples never yields a change
// (a missing value is never "-100%"); a pair whose sides measured
// different work has no ratio, change or p-value, and the gate neither
// fails it as a regression or an untested case nor passes a comparison
// made only of such pairs.
func checkComparisonInvariants(t *testing.T, c *compare.Comparison) {
	t.Helper()
	for _, cc := range c.Cases {
		if (cc.Base.N == 0 || cc.Cand.N == 0) && !math.IsNaN(cc.Change) {
			t.Errorf("%s: change %v from a side without samples", cc.Name, cc.Change)
		}
		if len(cc.Mismatch) > 0 {
			if cc.Verdict != compare.NotComparable || !math.IsNaN(cc.Ratio) || !math.IsNaN(cc.Change) || !math.IsNaN(cc.P) {
				t.Errorf("%s: differs in %q but verdict %q ratio %v change %v p %v", cc.Name, cc.Mismatch, cc.Verdict, cc.Ratio, cc.Change, cc.P)
			}
		}
	}
	err := c.CheckRegressions(0)
	var re *compare.RegressionError
	if !errors.As(err, &re) {
		if n := len(c.Mismatched()); n > 0 && n == len(c.Cases) {
			t.Errorf("the gate passed with every pair not comparable")
		}
		return
	}
	for _, cc := range append(append([]*compare.CaseComparison{}, re.Cases...), re.Untested...) {
		if len(cc.Mismatch) > 0 {
			t.Errorf("%s: not comparable, yet judged by the gate", cc.Name)
		}
	}
}
