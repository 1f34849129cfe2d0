package html

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/report"
	"github.com/tlsbench/tlsbench/results"
)

// verdictRecords are the first four handshake records of the testdata
// (TLS 1.3 and TLS 1.2, full and resumed): TLS 1.3's resumed case failed
// a gate, TLS 1.2's full case was not run.
func verdictRecords(t *testing.T) []results.Record {
	t.Helper()
	recs := loadRecords(t, resultsFile)[:4]
	recs[1].Verdict = report.VerdictFailed
	recs[1].Notes = []string{"resumption fell below --min-resumption 0.99"}
	nr := &recs[2]
	*nr = results.Record{Name: nr.Name, Kind: nr.Kind, TLSVersion: nr.TLSVersion, Concurrency: nr.Concurrency,
		KeyType: nr.KeyType, Transport: nr.Transport, Env: nr.Env, Notes: []string{"not runnable: for this test"}}
	return recs
}

// TestChartsDrawCasesThatAreNotResults: the page keeps every case, and
// its charts draw a case that failed a gate or was not run as such
// (hatched grey, labelled), never like a result.
func TestChartsDrawCasesThatAreNotResults(t *testing.T) {
	t.Parallel()
	recs := verdictRecords(t)
	var buf bytes.Buffer
	s := NewStream(&buf)
	for i := range recs {
		if err := s.Add(&recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if msg := s.LeftOut(); msg != "" {
		t.Errorf("LeftOut = %q, want nothing", msg)
	}
	const failed, notRun = "handshake/tls1.3/resume/c1", "handshake/tls1.2/full/c128"
	figs := map[string]*node{}
	for _, f := range parsePage(t, buf.Bytes()).all(func(n *node) bool { return n.name == "figure" }) {
		figs[f.attr("id")] = f
	}
	// marks returns the titles of the chart's marks of class, and of its
	// marks drawn as results (points and bars that are not hatched).
	marks := func(id, class string) (of, results []string) {
		f := figs[id]
		if f == nil {
			t.Fatalf("no chart %s", id)
		}
		for _, m := range f.all(func(n *node) bool { return n.hasClass("mark") }) {
			title := ""
			for _, c := range m.children {
				if c.name == "title" {
					title = c.text
				}
			}
			if m.hasClass(class) {
				of = append(of, title)
			}
			if !m.hasClass("failed") && !m.hasClass("notrun") {
				results = append(results, title)
			}
		}
		return of, results
	}
	for _, c := range []struct{ chart, class, name, label string }{
		{"chart-time-tls1-3", "failed", failed, "FAILED"},
		{"chart-resumption", "failed", failed, "FAILED"},
		{"chart-rate", "failed", failed, "FAILED"},
		{"chart-cpu", "failed", failed, "FAILED"},
		{"chart-time-tls1-2", "notrun", notRun, "not run"},
		{"chart-rate", "notrun", notRun, "not run"},
		{"chart-cpu", "notrun", notRun, "not run"},
	} {
		// The bar charts name a case without "handshake/".
		names := func(s string) bool { return strings.Contains(s, strings.TrimPrefix(c.name, "handshake/")+":") }
		of, res := marks(c.chart, c.class)
		if !slices.ContainsFunc(of, names) {
			t.Errorf("%s: no mark of class %s for %s; those of the class: %q", c.chart, c.class, c.name, of)
		}
		if slices.ContainsFunc(res, names) {
			t.Errorf("%s: %s is drawn as a result", c.chart, c.name)
		}
		labels := figs[c.chart].all(func(n *node) bool { return n.name == "text" && n.hasClass("state") })
		if !slices.ContainsFunc(labels, func(n *node) bool { return n.text == c.label }) {
			t.Errorf("%s: no label %q", c.chart, c.label)
		}
	}
}
