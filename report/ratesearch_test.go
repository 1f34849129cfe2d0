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
}

// blockOf returns the block of d titled title.
func blockOf(t *testing.T, d Document, title string) Block {
	t.Helper()
	for _, b := range d.Blocks {
		if b.Title == title {
			return b
		}
	}
	var titles []string
	for _, b := range d.Blocks {
		titles = append(titles, b.Title)
	}
	t.Fatalf("no block %q; blocks: %q", title, titles)
	return Block{}
}

// TestSustainableRateAnswer checks what a reader looks for first: the
// answer, its bracket, why a search ended early, and which steps failed.
func TestSustainableRateAnswer(t *testing.T) {
	t.Parallel()
	d := BuildDocument(loadRecords(t, findRateFile))
	full := blockOf(t, d, "Sustainable rate: handshake/tls1.3/full/find-rate").Items
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
	res := blockOf(t, d, "Sustainable rate: handshake/tls1.3/resume/find-rate").Items
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
	d := BuildDocument(loadRecords(t, findRateFile))
	tb := blockOf(t, d, "Steps of the search: handshake/tls1.3/full/find-rate").Table
	col := func(tb *Grid, title string) int {
		i := slices.IndexFunc(tb.Cols, func(c Column) bool { return c.Title == title })
		if i < 0 {
			t.Fatalf("no column %q", title)
		}
		return i
	}
	rate, goalCol, bracket := col(tb, "rate"), col(tb, "goal"), col(tb, "bracket")
	var rates []string
	for _, row := range tb.Rows {
		rates = append(rates, row[rate])
	}
	if want := []string{"500", "1000", "2000", "3000", "3250", "3375", "3500", "4000"}; !slices.Equal(rates, want) {
		t.Errorf("rates %q, want %q", rates, want)
	}
	want := map[string][2]string{"3250": {"met", "highest met"}, "3375": {"NOT MET", "lowest failed"}, "4000": {"NOT MET", ""}, "500": {"met", ""}}
	for _, row := range tb.Rows {
		if w, ok := want[row[rate]]; ok && (row[goalCol] != w[0] || row[bracket] != w[1]) {
			t.Errorf("%s/s: goal %q bracket %q, want %q %q", row[rate], row[goalCol], row[bracket], w[0], w[1])
		}
	}
	if slices.ContainsFunc(tb.Cols, func(c Column) bool { return c.Title == "p99.9" }) {
		t.Error("a p99 goal got a p99.9 column")
	}
	rt := blockOf(t, d, "Steps of the search: handshake/tls1.3/resume/find-rate").Table
	p := col(rt, "p99.9")
	if got := rt.Rows[0][p]; got != "485" {
		t.Errorf("p99.9 of the first resumed step %q, want 485 (its record's p999_us)", got)
	}
	if got := rt.Rows[3][col(rt, "flags")]; got != "FAILED" {
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
	d := BuildDocument(recs)
	items := blockOf(t, d, "Sustainable rate: handshake/tls1.3/full/find-rate").Items
	if len(items) != 1 || !strings.HasPrefix(items[0], "no answer recorded: the results hold 3 steps") {
		t.Errorf("items %q", items)
	}
	tb := blockOf(t, d, "Steps of the search: handshake/tls1.3/full/find-rate").Table
	if len(tb.Rows) != 3 {
		t.Errorf("%d step rows, want 3", len(tb.Rows))
	}
}

// TestOpenLoopTable checks that open-loop cases have their own table with
// the schedule's figures, and that closed-loop cases' table is the one it
// was without them.
func TestOpenLoopTable(t *testing.T) {
	t.Parallel()
	closed := loadRecords(t, resultsFile)
	mixed := append(slices.Clone(closed), loadRecords(t, findRateFile)...)
	before, after := blockOf(t, BuildDocument(closed), "Handshakes"), blockOf(t, BuildDocument(mixed), "Handshakes")
	if !slices.EqualFunc(before.Table.Rows, after.Table.Rows, slices.Equal) || !slices.Equal(before.Items, after.Items) {
		t.Error("adding open-loop and search records changed the closed-loop table")
	}
	ol := blockOf(t, BuildDocument(mixed), "Open-loop handshakes")
	if len(ol.Table.Rows) != 2 {
		t.Fatalf("%d open-loop rows, want the 2 cases (steps belong to their search)", len(ol.Table.Rows))
	}
	row := strings.Join(ol.Table.Rows[1], "|")
	for _, want := range []string{"handshake/tls1.3/full/r2000", "2000 / 2000", "1179", "4127", "1176 / 2433", "11.0 / 48.0"} {
		if !strings.Contains(row, want) {
			t.Errorf("row %q lacks %q", row, want)
		}
	}
	if !slices.ContainsFunc(ol.Items, func(s string) bool { return strings.Contains(s, "from each connection's intended start") }) {
		t.Errorf("legend %q does not say latency counts from the intended start", ol.Items)
	}
	phases := blockOf(t, BuildDocument(mixed), "Phases of a handshake")
	if !slices.Contains(phases.Items, openLoopPhaseNote) {
		t.Errorf("the phase legend does not say where an open-loop total starts: %q", phases.Items)
	}
	if phases := blockOf(t, BuildDocument(closed), "Phases of a handshake"); slices.Contains(phases.Items, openLoopPhaseNote) {
		t.Error("the phase legend of closed-loop cases speaks of open-loop ones")
	}
	if strings.Contains(strings.Join(ol.Items, " "), "wall time") {
		t.Errorf("the open-loop legend speaks of wall time per handshake: %q", ol.Items)
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
		g, ok := ParseGoal(tc.in)
		if ok != tc.ok || ok && (g.percentile != tc.p || g.LatencyUS != tc.lat || g.maxErrors != tc.errs) {
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
