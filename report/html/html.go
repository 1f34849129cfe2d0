package html

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/tlsbench/tlsbench/report"
	"github.com/tlsbench/tlsbench/report/compare"
	"github.com/tlsbench/tlsbench/results"
)

// Run is one results file of an HTML report.
type Run struct {
	// Name identifies the run in the page, e.g. its file name; it may be
	// empty for a single run.
	Name    string
	Records []results.Record
}

// RenderHTML writes the HTML report of one run, or of two overlaid: the
// first is the baseline, the second the candidate. With two runs the page
// adds their comparison ([Compare]) and draws the baseline dashed and the
// candidate solid in every chart.
//
// The page is one self-contained file that works offline: styles and
// charts (inline SVG) are in the file, there is no script, and a
// Content-Security-Policy of default-src 'none' keeps a browser from
// fetching anything, so opening a report never reaches the network and
// looks the same in years. Like every format it is derived from the
// records alone and is byte-for-byte reproducible.
//
// One interleaved run (records that name a side, from run --versus,
// --versus-server or --versus-self) is drawn as its sides overlaid, side
// a as the baseline and side b as the candidate, with their paired
// comparison ([ComparePaired]); its side a2, the A/A measurement, sets
// the noise floor and is listed with the results. An interleaved run is
// its own comparison: it is not overlaid with another file.
func RenderHTML(w io.Writer, runs ...Run) error {
	if len(runs) < 1 || len(runs) > 2 {
		return fmt.Errorf("report: an HTML report shows one run or two (baseline and candidate), not %d", len(runs))
	}
	hw := &htmlWriter{w: bufio.NewWriter(w), roles: []string{"baseline", "candidate"}}
	if len(runs) == 2 {
		for _, r := range runs {
			if report.Interleaved(r.Records) {
				return fmt.Errorf("report: %s holds an interleaved run, whose sides are compared within it: render it alone", orName(r.Name, "one file"))
			}
		}
	}
	runs = slices.Clone(runs) // names are filled in below; the caller's slice stays as it was
	if len(runs) == 1 && report.Interleaved(runs[0].Records) {
		hw.paired = runs[0]
		runs, hw.extra = splitSides(runs[0].Records)
		hw.roles = []string{"side a", "side b", "side a2"}
	}
	if len(runs) == 2 {
		if runs[0].Name == "" {
			runs[0].Name = "baseline"
		}
		if runs[1].Name == "" || runs[1].Name == runs[0].Name {
			runs[1].Name = "candidate"
		}
	}
	hw.page(runs)
	return hw.w.Flush()
}

type htmlWriter struct {
	w *bufio.Writer
	// roles name the runs shown: baseline and candidate, or the sides
	// of an interleaved run.
	roles []string
	// paired is the interleaved run shown, when it is one (its records
	// hold every side); extra are its runs beyond side a and side b
	// (side a2), listed with the results but not drawn.
	paired Run
	extra  []Run
}

func orName(name, instead string) string {
	if name == "" {
		return instead
	}
	return name
}

// splitSides makes one run of each side of an interleaved run: side a
// and side b (either may be empty), and side a2 when there is one.
func splitSides(recs []results.Record) (ab, a2 []Run) {
	bySide := map[string][]results.Record{}
	for _, r := range recs {
		bySide[r.Side] = append(bySide[r.Side], r)
	}
	b := "side b"
	if v := report.VersusOf(recs); v != "" {
		b += " (" + v + ")"
	}
	ab = []Run{{Name: "side a", Records: bySide[results.SideA]}, {Name: b, Records: bySide[results.SideB]}}
	if len(bySide[results.SideA2]) > 0 {
		a2 = []Run{{Name: "side a2 (side a again: the noise floor)", Records: bySide[results.SideA2]}}
	}
	return ab, a2
}

func (h *htmlWriter) s(parts ...string) {
	for _, p := range parts {
		h.w.WriteString(p)
	}
}

// pageStyle is the page's only style sheet. It uses no url(), @import or
// web font: the system's fonts only. The content takes the window's width
// up to a wide screen's: charts are drawn at the full width, and a table
// wider than that scrolls in its own box (.scroll), with a shadow at the
// edge that has more, so that the page never scrolls sideways.
const pageStyle = `:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #222; margin: 0; background: #fff; }
header, main, nav { max-width: 1640px; margin: 0 auto; padding: 0 20px; }
header { padding-top: 16px; }
h1 { font-size: 22px; margin: 8px 0; }
h2 { font-size: 18px; margin: 28px 0 10px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
h3 { font-size: 15px; margin: 18px 0 6px; }
h1, h2, h3, p, li, summary, figcaption { overflow-wrap: anywhere; }
nav ul { list-style: none; padding: 0; margin: 8px 0; display: flex; flex-wrap: wrap; gap: 4px 16px; }
nav a, a { color: #1f5fa8; }
.runs { color: #555; margin: 0; }
.scroll { overflow-x: auto; max-width: 100%; margin: 6px 0 10px;
  background: linear-gradient(to right, #fff 30%, rgba(255,255,255,0)) left / 40px 100% no-repeat local,
    linear-gradient(to left, #fff 30%, rgba(255,255,255,0)) right / 40px 100% no-repeat local,
    radial-gradient(farthest-side at 0 50%, rgba(0,0,0,.22), rgba(0,0,0,0)) left / 12px 100% no-repeat scroll,
    radial-gradient(farthest-side at 100% 50%, rgba(0,0,0,.22), rgba(0,0,0,0)) right / 12px 100% no-repeat scroll; }
table { border-collapse: collapse; margin: 0; font-variant-numeric: tabular-nums; }
th, td { padding: 3px 6px; border-bottom: 1px solid #eee; vertical-align: top; }
th { text-align: left; background: #f6f6f6; font-weight: 600; }
th .unit { display: block; font-weight: normal; color: #666; font-size: 12px; white-space: nowrap; }
td.num, th.num { text-align: right; }
td.num { white-space: nowrap; }
tbody td:first-child { min-width: 14em; }
td.verdict { white-space: nowrap; }
td.slower, td.failed { color: #b03a2e; font-weight: 600; }
td.faster { color: #1e7d45; font-weight: 600; }
ul.items { margin: 4px 0 10px; padding-left: 22px; }
.warning { border: 2px solid #c0392b; background: #fdecea; padding: 6px 12px; margin: 12px 0; }
.warning h3 { color: #a93226; margin-top: 6px; }
.note { color: #7a5b00; }
.missing { color: #666; font-style: italic; }
figure.chart { margin: 14px 0 30px; }
figure.chart figcaption { font-size: 15px; font-weight: 600; margin-bottom: 4px; }
figure.chart svg { display: block; width: 100%; height: auto; }
figure.chart details { max-width: 900px; color: #444; }
figure.chart summary { font-weight: normal; color: #555; }
svg text { font: 12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; fill: #333; }
svg text.label { font-size: 13px; fill: #444; }
svg text.state { font-size: 11px; font-weight: 600; fill: #666; }
svg text.verdict { font-weight: 600; }
svg text.slower { fill: #b03a2e; }
svg text.faster { fill: #1e7d45; }
svg.defs { position: absolute; width: 0; height: 0; overflow: hidden; }
svg .grid { stroke: #e6e6e6; stroke-width: 1; }
svg .axis, svg .tickmark { stroke: #888; stroke-width: 1; }
details { margin: 6px 0; }
summary { cursor: pointer; font-weight: 600; }
`

func (h *htmlWriter) page(runs []Run) {
	title := "tlsbench report"
	if len(runs) == 2 {
		title = "tlsbench: " + runs[0].Name + " vs " + runs[1].Name
	} else if runs[0].Name != "" {
		title = "tlsbench report: " + runs[0].Name
	}
	var c *compare.Comparison
	if len(runs) == 2 {
		c = h.compared(runs)
	}
	charts := buildCharts(runs, c)

	h.s("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n",
		`<meta name="viewport" content="width=device-width, initial-scale=1"/>`, "\n",
		`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'"/>`, "\n",
		`<meta name="generator" content="tlsbench report"/>`, "\n",
		"<title>", esc(title), "</title>\n<style>\n", pageStyle, "</style>\n</head>\n<body>\n")
	h.s(svgDefs)
	h.header(title, runs)
	h.nav(runs, charts)
	// Charts first: they are what a reader looks for; the tables and
	// their notes follow.
	h.s("<main>\n")
	h.charts(runs, charts)
	if c != nil {
		h.comparison(c)
	}
	h.results(runs)
	if c != nil {
		h.comparisonEnv(c)
	} else {
		h.environment(runs[0])
	}
	h.s("</main>\n</body>\n</html>\n")
}

// compared is the comparison of the two runs shown: the sides of an
// interleaved run, or a baseline and a candidate.
func (h *htmlWriter) compared(runs []Run) *compare.Comparison {
	if h.paired.Records != nil {
		// Interleaved records always hold a side (RenderHTML checked).
		c, _ := compare.ComparePaired(h.paired.Records, compare.CompareOptions{})
		return c
	}
	return compare.Compare(runs[0].Records, runs[1].Records, compare.CompareOptions{BaseName: runs[0].Name, CandName: runs[1].Name})
}

// header writes the title and the runs shown, with their number of cases.
func (h *htmlWriter) header(title string, runs []Run) {
	h.s("<header>\n<h1>", esc(title), "</h1>\n")
	h.s(`<p class="runs">`)
	for i, run := range runs {
		if i > 0 {
			h.s("; ")
		}
		role := ""
		if len(runs) == 2 && h.paired.Records == nil {
			role = h.roles[i] + ": "
		}
		name := run.Name
		if name == "" {
			name = "results"
		}
		h.s(esc(role+name), " (", strconv.Itoa(len(run.Records)), " ", report.Plural(int64(len(run.Records)), "case", "cases"), ")")
	}
	h.s("</p>\n</header>\n")
}

// nav writes the table of contents: the sections and every chart.
func (h *htmlWriter) nav(runs []Run, charts chartSet) {
	h.s("<nav>\n<ul>\n")
	h.s(`<li><a href="#charts">Charts</a></li>`, "\n")
	for _, f := range charts.figures {
		h.s(`<li><a href="#`, f.id, `">`, esc(f.title), "</a></li>\n")
	}
	if len(runs) == 2 {
		h.s(`<li><a href="#comparison">Comparison</a></li>`, "\n")
	}
	h.s(`<li><a href="#results">Results</a></li>`, "\n")
	h.s(`<li><a href="#environment">Environment</a></li>`, "\n")
	h.s("</ul>\n</nav>\n")
}

// environment writes the environment section of one run.
func (h *htmlWriter) environment(run Run) {
	h.s(`<section id="environment">`, "\n<h2>Environment</h2>\n")
	d := report.BuildDocument(run.Records)
	if len(d.Env) == 0 {
		h.s(`<p class="missing">no results</p>`, "\n")
	} else {
		t := &report.Grid{Cols: []report.Column{{Title: "", Unit: "", Align: report.AlignLeft}, {Title: "", Unit: "", Align: report.AlignLeft}}}
		for _, kv := range d.Env {
			t.Rows = append(t.Rows, []string{kv.Key, kv.Value})
		}
		h.table(t, "environment")
	}
	if d.EnvNote != "" {
		h.items([]string{"note: " + d.EnvNote}, "note")
	}
	h.s("</section>\n")
}

// comparisonEnv writes the environment section of a comparison: both
// runs' environments side by side.
func (h *htmlWriter) comparisonEnv(c *compare.Comparison) {
	h.s(`<section id="environment">`, "\n<h2>Environment</h2>\n")
	blk := compare.CompareEnvBlock(c)
	if blk.Table != nil {
		h.table(blk.Table, "environment")
	}
	h.items(blk.Items, "note")
	h.s("</section>\n")
}

// comparison writes the comparison section of a baseline and a candidate
// run, or of the sides of an interleaved run.
func (h *htmlWriter) comparison(c *compare.Comparison) {
	h.s(`<section id="comparison">`, "\n<h2>Comparison</h2>\n")
	d := compare.BuildCompareDocument(c)
	if c.Paired {
		h.s(`<p>`, esc(fmt.Sprintf("Side b (%s) against side a, measured in one run with their iterations interleaved: Wilcoxon signed-rank test on the per-round ratios at alpha %s, and the 99.9%% interval of the ratio excluding 1; ratio is side b/side a. A significant change no larger than %s, or than the noise floor measured in the run (side a2) when larger, is within noise.",
			c.CandName, compare.FormatAlpha(c.Alpha), report.Percent(c.MinEffect))), "</p>\n")
	} else {
		h.s(`<p>`, esc(fmt.Sprintf("Candidate %s against baseline %s: Mann-Whitney U test on the per-iteration samples at alpha %s; ratio is candidate/baseline.",
			c.CandName, c.BaseName, compare.FormatAlpha(c.Alpha))), "</p>\n")
	}
	for _, b := range d.Blocks {
		if b.Title == "Environment" {
			continue
		}
		h.block(b, strings.HasPrefix(b.Title, "WARNING"))
	}
	h.s("</section>\n")
}

// results writes the results tables of each run.
func (h *htmlWriter) results(runs []Run) {
	h.s(`<section id="results">`, "\n<h2>Results</h2>\n")
	runs = append(slices.Clip(runs), h.extra...)
	for i, run := range runs {
		d := report.BuildDocument(run.Records)
		if len(runs) > 1 {
			summary := run.Name // a side names itself
			if h.paired.Records == nil {
				summary = [2]string{"Baseline", "Candidate"}[i] + ": " + run.Name
			}
			h.s("<details open=\"\">\n<summary>", esc(summary), "</summary>\n")
		}
		for _, b := range d.Blocks {
			h.block(b, false)
		}
		if len(runs) > 1 {
			h.s("</details>\n")
		}
	}
	h.s("</section>\n")
}

// charts writes the charts section: every figure, its title above it,
// what it shows folded under it (a <details>, which needs no script),
// then the charts that could not be drawn and why.
func (h *htmlWriter) charts(runs []Run, charts chartSet) {
	h.s(`<section id="charts">`, "\n<h2>Charts</h2>\n")
	if len(runs) == 2 {
		who := func(i int) string {
			if h.paired.Records != nil {
				return runs[i].Name // a side names itself
			}
			return h.roles[i] + " (" + runs[i].Name + ")"
		}
		h.s("<p>", esc("Dashed lines, hollow points and pale bars: "+who(0)+"; solid: "+who(1)+". Hover a point for its value."), "</p>\n")
	}
	for _, f := range charts.figures {
		h.s(`<figure class="chart" id="`, f.id, `">`, "\n<figcaption>", esc(f.title), "</figcaption>\n", f.svg,
			"<details>\n<summary>About this chart</summary>\n<p>", esc(f.caption), "</p>\n</details>\n</figure>\n")
	}
	for _, m := range charts.missing {
		h.s(`<p class="missing">Not drawn: `, esc(m), ".</p>\n")
	}
	h.s("</section>\n")
}

// block writes a titled table or list of the text document as HTML.
func (h *htmlWriter) block(b report.Block, warning bool) {
	if warning {
		h.s(`<div class="warning">`, "\n")
	}
	if b.Title != "" {
		h.s("<h3>", esc(b.Title), "</h3>\n")
	}
	if b.Table != nil {
		h.table(b.Table, "")
	}
	h.items(b.Items, "")
	if warning {
		h.s("</div>\n")
	}
}

func (h *htmlWriter) items(items []string, class string) {
	if len(items) == 0 {
		return
	}
	h.s(`<ul class="items`)
	if class != "" {
		h.s(" ", class)
	}
	h.s(`">`, "\n")
	for _, it := range items {
		h.s("<li>", esc(it), "</li>\n")
	}
	h.s("</ul>\n")
}

func (h *htmlWriter) table(t *report.Grid, class string) {
	rows := t.Rows[:min(len(t.Rows), maxHTMLRows)]
	units, rows := scaleUnits(t.Cols, rows)
	// The wrapper scrolls a table wider than the page, so that the page
	// itself never does.
	h.s(`<div class="scroll"><table`)
	if class != "" {
		h.s(` class="`, class, `"`)
	}
	h.s(">\n")
	header := false
	for _, c := range t.Cols {
		header = header || c.Title != ""
	}
	if header {
		h.s("<thead><tr>")
		for i, c := range t.Cols {
			h.s("<th")
			if c.Align == report.AlignRight {
				h.s(` class="num"`)
			}
			h.s(">", esc(c.Title))
			if units[i] != "" {
				h.s(`<span class="unit">`, esc(units[i]), "</span>")
			}
			h.s("</th>")
		}
		h.s("</tr></thead>\n")
	}
	h.s("<tbody>\n")
	for _, row := range rows {
		h.s("<tr>")
		for i, cell := range row {
			text := esc(cell)
			if i == 0 {
				// A case's name may break after a slash, so that a
				// table narrows before it scrolls.
				text = strings.ReplaceAll(text, "/", "/<wbr/>")
			}
			h.s(cellOpen(t.Cols, i, cell), text, "</td>")
		}
		h.s("</tr>\n")
	}
	h.s("</tbody>\n</table></div>\n")
	if n := len(t.Rows) - maxHTMLRows; n > 0 {
		h.s(`<p class="missing">`, strconv.Itoa(n), " more ", report.Plural(int64(n), "row", "rows"),
			" not shown: the page shows the first ", strconv.Itoa(maxHTMLRows),
			" of a table; the table output lists every case (tlsbench report FILE).</p>\n")
	}
}

// scaleUnits returns the unit of each column and the rows, with the
// columns of times and sizes in the unit that suits their values.
func scaleUnits(cols []report.Column, rows [][]string) ([]string, [][]string) {
	units := make([]string, len(cols))
	out := make([][]string, len(rows))
	for r, row := range rows {
		out[r] = slices.Clone(row)
	}
	for i, c := range cols {
		cells := make([]string, len(rows))
		for r, row := range rows {
			if i < len(row) {
				cells[r] = row[i]
			}
		}
		var scaled []string
		units[i], scaled = scaleColumn(c.Unit, cells)
		for r := range out {
			if i < len(out[r]) {
				out[r][i] = scaled[r]
			}
		}
	}
	return units, out
}

// cellOpen is the opening tag of cell i of a row.
func cellOpen(cols []report.Column, i int, cell string) string {
	switch {
	case i < len(cols) && cols[i].Align == report.AlignRight:
		return `<td class="num">`
	case i < len(cols) && cols[i].Title == "goal" && cell == "NOT MET":
		// A step of a search that missed its goal: what bounds the
		// answer, as loud as a regression.
		return `<td class="verdict slower">`
	case i < len(cols) && cols[i].Title == "verdict":
		// Color the verdicts of a comparison, so that the eye finds the
		// regressions first.
		class := "verdict"
		switch {
		case strings.HasPrefix(cell, string(compare.Slower)):
			class += " slower"
		case strings.HasPrefix(cell, string(compare.Faster)):
			class += " faster"
		}
		return `<td class="` + class + `">`
	case strings.Contains(cell, "FAILED") || cell == "not run":
		return `<td class="failed">`
	}
	return "<td>"
}

// maxHTMLRows is the most rows a table of the page shows, so that the
// page of a results file of thousands of cases stays small enough to
// open.
const maxHTMLRows = 1000
