package report

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/tlsbench/tlsbench/results"
)

// findRateFile holds two open-loop cases and two searches for a
// sustainable rate: one that narrowed its bracket over eight steps, one
// that ended at the load generator's own limit (written by
// testdata/genfindrate).
const findRateFile = "testdata/findrate.jsonl"

func TestFindRateGolden(t *testing.T) {
	t.Parallel()
	recs := loadRecords(t, findRateFile)
	for _, f := range Formats() {
		if f == HTML {
			continue // its structure is pinned by the outline below
		}
		t.Run(string(f), func(t *testing.T) {
			checkGolden(t, filepath.Join("testdata", "findrate."+string(f)+".golden"), render(t, f, recs))
		})
	}
	t.Run("html", func(t *testing.T) {
		var sb strings.Builder
		outline(parsePage(t, renderHTML(t, Run{Name: "findrate.jsonl", Records: recs})), 0, &sb)
		checkGolden(t, filepath.Join("testdata", "findrate.html.outline.golden"), []byte(sb.String()))
	})
}

// blockOf returns the block of d titled title.
func blockOf(t *testing.T, d document, title string) block {
	t.Helper()
	for _, b := range d.blocks {
		if b.title == title {
			return b
		}
	}
	var titles []string
	for _, b := range d.blocks {
		titles = append(titles, b.title)
	}
	t.Fatalf("no block %q; blocks: %q", title, titles)
	return block{}
}

// TestSustainableRateAnswer checks what a reader looks for first: the
// answer, its bracket, why a search ended early, and which steps failed.
func TestSustainableRateAnswer(t *testing.T) {
	t.Parallel()
	d := buildDocument(loadRecords(t, findRateFile))
	full := blockOf(t, d, "Sustainable rate: handshake/tls1.3/full/find-rate").items
	for _, want := range []string{
		"goal: p99 at most 20ms (latency from each connection's intended start), at most 0.1% of connections failed",
		"answer: 3250/s sustained: the sustainable rate lies between 3250/s (met) and 3375/s (failed)",
		"8 rates measured",
	} {
		if !slices.Contains(full, want) {
			t.Errorf("full search: no %q in %q", want, full)
		}
	}
	if slices.ContainsFunc(full, func(s string) bool { return strings.Contains(s, "ended before") }) {
		t.Errorf("full search narrowed its bracket, yet the report says it ended early: %q", full)
	}
	res := blockOf(t, d, "Sustainable rate: handshake/tls1.3/resume/find-rate").items
	for _, want := range []string{
		"answer: at least 4000/s: the highest rate measured met the goal, and no rate measured failed it",
		"the search ended before its bracket was narrow: the load generator could not hold 8000/s: its CPU was saturated",
	} {
		if !slices.Contains(res, want) {
			t.Errorf("resumed search: no %q in %q", want, res)
		}
	}
}

// TestStepTable checks the steps' table: rate order (not the order
// measured), failed steps marked, the bracket's ends named, and the
// goal's own percentile as a column when it is not already one.
func TestStepTable(t *testing.T) {
	t.Parallel()
	d := buildDocument(loadRecords(t, findRateFile))
	tb := blockOf(t, d, "Steps of the search: handshake/tls1.3/full/find-rate").table
	col := func(tb *table, title string) int {
		i := slices.IndexFunc(tb.cols, func(c column) bool { return c.title == title })
		if i < 0 {
			t.Fatalf("no column %q", title)
		}
		return i
	}
	rate, goalCol, bracket := col(tb, "rate"), col(tb, "goal"), col(tb, "bracket")
	var rates []string
	for _, row := range tb.rows {
		rates = append(rates, row[rate])
	}
	if want := []string{"500", "1000", "2000", "3000", "3250", "3375", "3500", "4000"}; !slices.Equal(rates, want) {
		t.Errorf("rates %q, want %q", rates, want)
	}
	want := map[string][2]string{"3250": {"met", "highest met"}, "3375": {"NOT MET", "lowest failed"}, "4000": {"NOT MET", ""}, "500": {"met", ""}}
	for _, row := range tb.rows {
		if w, ok := want[row[rate]]; ok && (row[goalCol] != w[0] || row[bracket] != w[1]) {
			t.Errorf("%s/s: goal %q bracket %q, want %q %q", row[rate], row[goalCol], row[bracket], w[0], w[1])
		}
	}
	if slices.ContainsFunc(tb.cols, func(c column) bool { return c.title == "p99.9" }) {
		t.Error("a p99 goal got a p99.9 column")
	}
	rt := blockOf(t, d, "Steps of the search: handshake/tls1.3/resume/find-rate").table
	p := col(rt, "p99.9")
	if got := rt.rows[0][p]; got != "485" {
		t.Errorf("p99.9 of the first resumed step %q, want 485 (its record's p999_us)", got)
	}
	if got := rt.rows[3][col(rt, "flags")]; got != "FAILED" {
		t.Errorf("the step the generator could not hold is flagged %q, want FAILED", got)
	}
}

// TestStepsWithoutAnswer: an interrupted search leaves steps and no
// answer; the report says so instead of making one up.
func TestStepsWithoutAnswer(t *testing.T) {
	t.Parallel()
	var recs []results.Record
	for _, r := range loadRecords(t, findRateFile) {
		if r.Kind == results.KindRateStep && strings.HasPrefix(r.Name, "handshake/tls1.3/full/find-rate/") {
			recs = append(recs, r)
		}
	}
	recs = recs[:3]
	d := buildDocument(recs)
	items := blockOf(t, d, "Sustainable rate: handshake/tls1.3/full/find-rate").items
	if len(items) != 1 || !strings.HasPrefix(items[0], "no answer recorded: the results hold 3 steps") {
		t.Errorf("items %q", items)
	}
	tb := blockOf(t, d, "Steps of the search: handshake/tls1.3/full/find-rate").table
	if len(tb.rows) != 3 {
		t.Errorf("%d step rows, want 3", len(tb.rows))
	}
	// The steps' goal draws the line even without an answer.
	page := parsePage(t, renderHTML(t, Run{Records: recs}))
	if len(page.all(func(n *node) bool { return n.hasClass("ref") && n.hasClass("slo") })) != 1 {
		t.Error("no goal line in the knee of a search without an answer")
	}
}

// TestOpenLoopTable checks that open-loop cases have their own table with
// the schedule's figures, and that closed-loop cases' table is the one it
// was without them.
func TestOpenLoopTable(t *testing.T) {
	t.Parallel()
	closed := loadRecords(t, resultsFile)
	mixed := append(slices.Clone(closed), loadRecords(t, findRateFile)...)
	before, after := blockOf(t, buildDocument(closed), "Handshakes"), blockOf(t, buildDocument(mixed), "Handshakes")
	if !slices.EqualFunc(before.table.rows, after.table.rows, slices.Equal) || !slices.Equal(before.items, after.items) {
		t.Error("adding open-loop and search records changed the closed-loop table")
	}
	ol := blockOf(t, buildDocument(mixed), "Open-loop handshakes")
	if len(ol.table.rows) != 2 {
		t.Fatalf("%d open-loop rows, want the 2 cases (steps belong to their search)", len(ol.table.rows))
	}
	row := strings.Join(ol.table.rows[1], "|")
	for _, want := range []string{"handshake/tls1.3/full/r2000", "2000 / 2000", "1179", "4127", "1176 / 2433", "11.0 / 48.0"} {
		if !strings.Contains(row, want) {
			t.Errorf("row %q lacks %q", row, want)
		}
	}
	if !slices.ContainsFunc(ol.items, func(s string) bool { return strings.Contains(s, "from each connection's intended start") }) {
		t.Errorf("legend %q does not say latency counts from the intended start", ol.items)
	}
	phases := blockOf(t, buildDocument(mixed), "Phases of a handshake")
	if !slices.Contains(phases.items, openLoopPhaseNote) {
		t.Errorf("the phase legend does not say where an open-loop total starts: %q", phases.items)
	}
	if phases := blockOf(t, buildDocument(closed), "Phases of a handshake"); slices.Contains(phases.items, openLoopPhaseNote) {
		t.Error("the phase legend of closed-loop cases speaks of open-loop ones")
	}
	if strings.Contains(strings.Join(ol.items, " "), "wall time") {
		t.Errorf("the open-loop legend speaks of wall time per handshake: %q", ol.items)
	}
}

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

func TestParseGoal(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in     string
		ok     bool
		p, lat float64
		errs   float64
	}{
		{"p99=20ms,error=0.1%", true, 99, 20000, 0.001},
		{"p99.9=1.5s", true, 99.9, 1.5e6, 0.001},
		{"error=1%,p50=500us", true, 50, 500, 0.01},
		{"p99=20", false, 0, 0, 0},
		{"p100=20ms", false, 0, 0, 0},
		{"error=0.1%", false, 0, 0, 0},
		{"p99=20ms,error=0.1", false, 0, 0, 0},
		{"p99=20ms,burst=3", false, 0, 0, 0},
		{"", false, 0, 0, 0},
	} {
		g, ok := parseGoal(tc.in)
		if ok != tc.ok || ok && (g.percentile != tc.p || g.latencyUS != tc.lat || g.maxErrors != tc.errs) {
			t.Errorf("parseGoal(%q) = %+v, %v", tc.in, g, ok)
		}
	}
}

func TestShare(t *testing.T) {
	t.Parallel()
	for in, want := range map[float64]string{0: "0%", 0.0013: "0.13%", 0.001: "0.10%", 0.26: "26%", 1: "100%", 0.000015: "0.0015%"} {
		if got := share(in); got != want {
			t.Errorf("share(%v) = %q, want %q", in, got, want)
		}
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

// TestBenchfmtRateRecords: open-loop cases and steps give one line per
// window with the window's latency, never a time per handshake; a
// search's answer, which has no figures, gives none.
func TestBenchfmtRateRecords(t *testing.T) {
	t.Parallel()
	recs := loadRecords(t, findRateFile)
	r := benchfmt.NewReader(bytes.NewReader(render(t, Benchfmt, recs)), "findrate.txt")
	lines := 0
	for r.Scan() {
		switch res := r.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Errorf("syntax error: %v", res)
		case *benchfmt.Result:
			lines++
			if strings.HasSuffix(string(res.Name.Full()), "/find-rate") {
				t.Errorf("%s: a line for a search's answer", res.Name.Full())
			}
			if _, ok := res.Value("sec/op"); ok {
				t.Errorf("%s: a time per handshake for an open-loop window", res.Name.Full())
			}
			for _, unit := range []string{"latency-sec", "rate-target/s", "handshakes/s", "late", "dropped"} {
				if _, ok := res.Value(unit); !ok {
					t.Errorf("%s: no %s", res.Name.Full(), unit)
				}
			}
		}
	}
	want := 0
	for _, rec := range recs {
		// A step that failed a gate is left out: benchstat would take
		// its windows for valid ones.
		if rec.Kind != results.KindRateSearch && rec.Verdict == "" {
			want += len(rec.SamplesUS)
		}
	}
	if lines != want || want == 0 {
		t.Errorf("%d lines, want one per window of the steps that passed their gates: %d", lines, want)
	}
	if r.Units().GetBetter("latency-sec") != -1 {
		t.Error("latency is not marked lower is better")
	}
}
