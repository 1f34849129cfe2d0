package html

import (
	"strings"
	"testing"
)

// TestMetricForest: a case judged on its server CPU gets a forest plot of
// that metric beside the time's, its change labelled as a cost; a metric
// no case holds gets none.
func TestMetricForest(t *testing.T) {
	t.Parallel()
	recs := loadRecords(t, pairedFile)
	n := 0
	for i := range recs {
		r := &recs[i]
		if r.Name != "handshake/tls1.3/full/c8" {
			continue
		}
		f := 100.0
		if r.Side == "b" {
			f = 300
		}
		r.ServerCPUSamplesUS = make([]float64, len(r.SamplesUS))
		for j := range r.ServerCPUSamplesUS {
			r.ServerCPUSamplesUS[j] = f * (1 + 0.01*float64(j%3))
		}
		n++
	}
	if n < 2 {
		t.Fatalf("%d records of the case, want its two sides", n)
	}
	page := parsePage(t, renderHTML(t, Run{Records: recs}))
	figs := page.all(func(n *node) bool { return n.name == "figure" && n.attr("id") == "chart-ratio-server-cpu" })
	if len(figs) != 1 {
		t.Fatalf("%d server CPU forest plots, want 1", len(figs))
	}
	var labels []string
	for _, v := range figs[0].all(func(n *node) bool { return n.hasClass("verdict") }) {
		labels = append(labels, v.text)
	}
	if len(labels) != 1 || !strings.HasPrefix(labels[0], "higher +") {
		t.Errorf("verdicts %q, want one case higher", labels)
	}
	if others := page.all(func(n *node) bool { return n.attr("id") == "chart-ratio-client-cpu" }); len(others) != 0 {
		t.Error("a client CPU plot without client CPU samples")
	}
}
