package report

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tlsbench/tlsbench/results"
)

// defaultFile is the records of a default run (16 cases) on a busy
// machine: every case noisy, every case with notes.
var defaultFile = filepath.Join("testdata", "default.jsonl")

func renderWidth(t testing.TB, recs []results.Record, width int) string {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteTextLayout(&buf, BuildDocument(recs), Layout{Width: width, Wider: "--wide"}); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// The table laid out to 80 columns, and the default run's whole and at
// 80 columns.
func TestGoldenWidths(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file, golden string
		width        int
	}{
		{resultsFile, "table.80.golden", 80},
		{defaultFile, "default.table.golden", 0},
		{defaultFile, "default.table.80.golden", 80},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			t.Parallel()
			checkGolden(t, filepath.Join("testdata", tc.golden), []byte(renderWidth(t, loadRecords(t, tc.file), tc.width)))
		})
	}
	// The whole table is the table format's own.
	recs := loadRecords(t, resultsFile)
	if got := renderWidth(t, recs, 0); got != string(render(t, Table, recs)) {
		t.Error("the layout of unlimited width is not the table format's")
	}
}

// Every line fits the width, whatever the results.
func TestLinesFitTheWidth(t *testing.T) {
	t.Parallel()
	files := map[string][]results.Record{"hostile": hostileFile(t)}
	for _, file := range []string{resultsFile, defaultFile, pairedFile, findRateFile} {
		files[filepath.Base(file)] = loadRecords(t, file)
	}
	for name, recs := range files {
		for _, width := range []int{60, 80, 100, 132} {
			out := renderWidth(t, recs, width)
			for i, line := range strings.Split(out, "\n") {
				if n := utf8.RuneCountInString(line); n > width {
					t.Errorf("%s at %d columns: line %d has %d: %q", name, width, i+1, n, line)
				}
			}
		}
	}
}

// The default run fits a screen at 80 columns: the cases' rows, a few
// lines of legend and the notes, said once each.
func TestDefaultRunFitsAScreen(t *testing.T) {
	t.Parallel()
	recs := loadRecords(t, defaultFile)
	out := renderWidth(t, recs, 80)
	for _, tc := range []struct {
		title string
		most  int
	}{{"Handshakes", len(recs) + 12}, {"Notes", 12}} {
		_, block, _ := strings.Cut(out, "\n"+tc.title+"\n")
		block, _, _ = strings.Cut(block, "\n\n")
		if n := strings.Count(block, "\n") + 2; n > tc.most {
			t.Errorf("%s: %d lines at 80 columns, want at most %d:\n%s", tc.title, n, tc.most, block)
		}
	}
	if n := strings.Count(out, "other load on the machine"); n != 1 {
		t.Errorf("the note on other load said %d times, want once:\n%s", n, out)
	}
}

// At 80 columns no figure is lost unsaid: each column of each table is
// shown or named as left out, with what shows it; each table of detail
// left out is named. Whole, every cell of every row is on its row's line.
func TestNoFigureLost(t *testing.T) {
	t.Parallel()
	for _, file := range []string{resultsFile, defaultFile, findRateFile} {
		recs := loadRecords(t, file)
		d := BuildDocument(recs)
		narrow := unwrap(renderWidth(t, recs, 80))
		whole := renderWidth(t, recs, 0)
		for _, b := range d.Blocks {
			if b.Table == nil {
				continue
			}
			checkWholeRows(t, b.Table, whole)
			l := layTable(b.Table, 80)
			if b.Detail && !l.fits(80) {
				if top := strings.ReplaceAll(narrow, "\n  ", " "); !strings.Contains(top, "left out to fit 80 columns:") || !strings.Contains(top, tableName(b.Title)) {
					t.Errorf("%s: the table %q is left out unsaid", file, b.Title)
				}
				continue
			}
			left := l.leftOut(b.Table)
			for i, c := range b.Table.Cols {
				if !slices.Contains(l.cols, i) && !slices.Contains(left, c.Title) && !slices.ContainsFunc(left, func(s string) bool { return strings.HasPrefix(s, c.Title+" (") }) {
					t.Errorf("%s: %s: column %q neither shown nor named", file, b.Title, c.Title)
				}
			}
			if len(left) > 0 && !strings.Contains(narrow, "left out to fit 80 columns: "+strings.Join(left, ", ")+" (--wide shows them)") {
				t.Errorf("%s: %s: the columns left out (%v) are not named:\n%s", file, b.Title, left, narrow)
			}
		}
	}
}

// checkWholeRows checks that each row of t is a line of out holding its
// cells in order.
func checkWholeRows(t *testing.T, tab *Grid, out string) {
	t.Helper()
	lines := strings.Split(out, "\n")
rows:
	for _, row := range tab.Rows {
		for _, line := range lines {
			rest, ok := line, true
			for _, cell := range PrintableRow(slices.Clone(row)) {
				i := strings.Index(rest, cell)
				if i < 0 {
					ok = false
					break
				}
				rest = rest[i+len(cell):]
			}
			if ok {
				continue rows
			}
		}
		t.Errorf("no line holds the cells of row %q", row)
	}
}

// unwrap joins the lines wrapped under a table back into one.
func unwrap(out string) string {
	return strings.ReplaceAll(out, "\n    ", " ")
}

// A narrow table keeps its name and headline, loses the common start of
// its names, and names the columns it leaves out; the whole one keeps
// everything.
func TestLayTable(t *testing.T) {
	t.Parallel()
	tab := &Grid{Cols: []Column{
		{Title: "name"}, {Title: "mean", Unit: "µs", Align: AlignRight, Group: "per handshake"},
		{Title: "stddev", Unit: "µs", Align: AlignRight, Group: "per handshake", Rank: 2},
		{Title: "p99", Unit: "µs", Align: AlignRight, Rank: 1}, {Title: "alloc", Unit: "B/hs", Align: AlignRight, Rank: 3},
	}, Rows: [][]string{
		{"handshake/tls1.3/full/c1", "399", "4.85", "668", "38211"},
		{"handshake/tls1.3/resume/c1", "81.3", "2.44", "266", "21533"},
	}}
	for _, tc := range []struct {
		width   int
		cols    []int
		prefix  string
		stacked bool
	}{
		{0, []int{0, 1, 2, 3, 4}, "", false},
		{60, []int{0, 1, 2, 3, 4}, "", false},
		{40, []int{0, 1, 2, 3, 4}, "handshake/tls1.3/", false},
		{32, []int{0, 1, 2, 3}, "handshake/tls1.3/", false},
		{24, []int{0, 1, 2}, "handshake/tls1.3/", false}, // stddev taken back: the group is as wide
		{16, []int{0, 1}, "handshake/tls1.3/", true},
		{8, []int{0, 1}, "handshake/tls1.3/", true},
	} {
		l := layTable(tab, tc.width)
		if !slices.Equal(l.cols, tc.cols) || l.prefix != tc.prefix || l.stacked != tc.stacked {
			t.Errorf("width %d: columns %v, prefix %q, stacked %v; want %v, %q, %v", tc.width, l.cols, l.prefix, l.stacked, tc.cols, tc.prefix, tc.stacked)
		}
		var sb strings.Builder
		l.write(&sb, tab)
		for _, line := range strings.Split(strings.TrimSuffix(sb.String(), "\n"), "\n") {
			if n := utf8.RuneCountInString(line); tc.width >= 16 && n > tc.width {
				t.Errorf("width %d: line %q", tc.width, line)
			}
		}
		if tc.width == 24 && !strings.Contains(sb.String(), "per handshake\n") {
			t.Errorf("width 24: the group's title is not over its column:\n%s", sb.String())
		}
	}
}

func TestWrap(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text  string
		width int
		want  []string
	}{
		{"a b c", 0, []string{"  a b c"}},
		{"aaa bbb ccc", 9, []string{"  aaa bbb", "    ccc"}},
		{"aaaaaaaaaaaaaa b", 8, []string{"  aaaaaa", "    aaaa", "    aaaa", "    b"}},
		// Column names are not broken.
		{strings.Join(unbroken([]string{"left", "client CPU", "server CPU"}), ", "), 18,
			[]string{"  left,", "    client" + nbsp + "CPU,", "    server" + nbsp + "CPU"}},
	} {
		if got := wrap(tc.text, tc.width, "  ", "    "); !slices.Equal(got, tc.want) {
			t.Errorf("wrap(%q, %d) = %q, want %q", tc.text, tc.width, got, tc.want)
		}
	}
}
