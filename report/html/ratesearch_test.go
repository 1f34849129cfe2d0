package html

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/results"
)

// TestRateCharts: rate cases are drawn against the rate, never at
// concurrency 0, and each search's knee has its goal and its bracket.
func TestRateCharts(t *testing.T) {
	t.Parallel()
	doc := parsePage(t, renderHTML(t, Run{Records: loadRecords(t, findRateFile)}))
	checkSVGNumbers(t, doc)
	var ids []string
	for _, f := range doc.all(func(n *node) bool { return n.name == "figure" && n.hasClass("chart") }) {
		ids = append(ids, f.attr("id"))
	}
	want := []string{"chart-openloop-latency-tls1-3", "chart-openloop-rate", "chart-knee-handshake-tls1-3-full-find-rate",
		"chart-knee-handshake-tls1-3-resume-find-rate", "chart-cpu", "chart-latency-tls1-3", "chart-phases"}
	if !slices.Equal(ids, want) {
		t.Errorf("charts %q, want %q", ids, want)
	}
	if m := doc.all(func(n *node) bool { return n.hasClass("missing") }); len(m) > 0 {
		t.Errorf("the page says %q: a file of rate cases has no concurrency chart to miss", m[0].allText())
	}
	knee := func(id string) *node {
		fs := doc.all(func(n *node) bool { return n.attr("id") == id })
		if len(fs) != 1 {
			t.Fatalf("no figure %s", id)
		}
		return fs[0]
	}
	refs := func(f *node, class string) []*node {
		return f.all(func(n *node) bool { return n.hasClass("ref") && n.hasClass(class) })
	}
	full := knee("chart-knee-handshake-tls1-3-full-find-rate")
	for _, c := range []string{"slo", "sustained", "failed"} {
		if len(refs(full, c)) != 1 {
			t.Errorf("full knee: %d %s lines, want 1", len(refs(full, c)), c)
		}
	}
	if slo := refs(full, "slo"); len(slo) == 0 || slo[0].allText() != "goal: p99 ≤ 20ms" {
		t.Errorf("goal lines %v, want one labelled goal: p99 ≤ 20ms", slo)
	}
	var labels []string
	for _, s := range full.all(func(n *node) bool { return n.hasClass("series") }) {
		labels = append(labels, s.attr("data-label"))
		if pts := s.all(func(n *node) bool { return n.hasClass("point") }); len(pts) != 8 {
			t.Errorf("%s: %d points, want one per step (8)", s.attr("data-label"), len(pts))
		}
	}
	if !slices.Equal(labels, []string{"p50", "p90", "p99", "p99.9"}) {
		t.Errorf("knee series %q", labels)
	}
	if n := len(doc.all(func(n *node) bool { return n.name == "td" && n.hasClass("slower") && n.text == "NOT MET" })); n != 4 {
		t.Errorf("%d step cells marked as missing the goal, want 4 (3 of the full search, 1 of the resumed)", n)
	}
	res := knee("chart-knee-handshake-tls1-3-resume-find-rate")
	if len(refs(res, "failed")) != 0 || len(refs(res, "sustained")) != 1 {
		t.Error("the resumed search failed no rate: its knee has a sustained line and no failed one")
	}
}

// TestRateChartsOverlay: with a baseline and a candidate, each knee draws
// both runs (the baseline dashed) and each run's bracket, labelled with
// its run.
func TestRateChartsOverlay(t *testing.T) {
	t.Parallel()
	doc := parsePage(t, renderHTML(t, Run{Name: "before", Records: loadRecords(t, findRateFile)}, Run{Name: "after", Records: candidateSearches(t)}))
	checkSVGNumbers(t, doc)
	figs := doc.all(func(n *node) bool { return n.name == "figure" && strings.HasPrefix(n.attr("id"), "chart-knee-") })
	if len(figs) != 2 {
		t.Fatalf("%d knee charts, want 2", len(figs))
	}
	full := figs[0]
	var base, cand int
	for _, m := range full.all(func(n *node) bool { return n.hasClass("point") }) {
		if m.attr("fill") == "#fff" {
			base++
		} else {
			cand++
		}
	}
	if base != 32 || cand != 32 {
		t.Errorf("%d baseline and %d candidate points, want 32 each (8 steps, 4 percentiles)", base, cand)
	}
	var labels []string
	for _, r := range full.all(func(n *node) bool { return n.hasClass("ref") && n.hasClass("sustained") }) {
		labels = append(labels, r.allText())
	}
	if !slices.Equal(labels, []string{"met 3250/s (before)", "met 2000/s (after)"}) {
		t.Errorf("sustained lines %q", labels)
	}
}

func TestFindRateGolden(t *testing.T) {
	t.Parallel()
	recs := loadRecords(t, findRateFile)
	t.Run("html", func(t *testing.T) {
		var sb strings.Builder
		outline(parsePage(t, renderHTML(t, Run{Name: "findrate.jsonl", Records: recs})), 0, &sb)
		checkGolden(t, filepath.Join("testdata", "findrate.html.outline.golden"), []byte(sb.String()))
	})
}

// TestStepsWithoutAnswer: an interrupted search leaves steps and no
// answer; the page draws the steps' goal even without an answer.
func TestStepsWithoutAnswer(t *testing.T) {
	t.Parallel()
	var recs []results.Record
	for _, r := range loadRecords(t, findRateFile) {
		if r.Kind == results.KindRateStep && strings.HasPrefix(r.Name, "handshake/tls1.3/full/find-rate/") {
			recs = append(recs, r)
		}
	}
	recs = recs[:3]
	// The steps' goal draws the line even without an answer.
	page := parsePage(t, renderHTML(t, Run{Records: recs}))
	if len(page.all(func(n *node) bool { return n.hasClass("ref") && n.hasClass("slo") })) != 1 {
		t.Error("no goal line in the knee of a search without an answer")
	}
}
