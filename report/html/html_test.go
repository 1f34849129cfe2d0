package html

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/report/compare"
	"github.com/tlsbench/tlsbench/results"
)

func renderHTML(t testing.TB, runs ...Run) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := RenderHTML(&buf, runs...); err != nil {
		t.Fatalf("RenderHTML: %v", err)
	}
	return buf.Bytes()
}

func overlayRuns(t testing.TB) []Run {
	return []Run{
		{Name: "results.jsonl", Records: loadRecords(t, resultsFile)},
		{Name: "candidate.jsonl", Records: loadRecords(t, candidateFile)},
	}
}

// node is an element of a parsed page.
type node struct {
	name     string
	attrs    map[string]string
	children []*node
	text     string // character data directly inside, trimmed
}

func (n *node) attr(k string) string { return n.attrs[k] }

func (n *node) hasClass(c string) bool { return slices.Contains(strings.Fields(n.attrs["class"]), c) }

func (n *node) walk(f func(*node)) {
	f(n)
	for _, c := range n.children {
		c.walk(f)
	}
}

func (n *node) all(pred func(*node) bool) []*node {
	var out []*node
	n.walk(func(m *node) {
		if pred(m) {
			out = append(out, m)
		}
	})
	return out
}

func (n *node) allText() string {
	var sb strings.Builder
	n.walk(func(m *node) {
		if m.text != "" {
			if sb.Len() > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(m.text)
		}
	})
	return sb.String()
}

// parsePage parses the page as XML. The page is written to be well-formed
// XML as well as HTML (void elements self-closed, every attribute quoted,
// only numeric entities), so that a strict parser reading it is itself a
// check that no markup is broken, whatever the records held.
func parsePage(t testing.TB, page []byte) *node {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(page))
	root := &node{name: "#document"}
	stack := []*node{root}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("page is not well-formed: %v", err)
		}
		top := stack[len(stack)-1]
		switch tok := tok.(type) {
		case xml.StartElement:
			n := &node{name: tok.Name.Local, attrs: map[string]string{}}
			for _, a := range tok.Attr {
				n.attrs[a.Name.Local] = a.Value
			}
			top.children = append(top.children, n)
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if s := strings.Join(strings.Fields(string(tok)), " "); s != "" {
				if top.text != "" {
					top.text += " "
				}
				top.text += s
			}
		}
	}
	if len(stack) != 1 {
		t.Fatalf("page ends with %d open elements", len(stack)-1)
	}
	return root
}

// outline describes the page's structure, one element per line, for the
// structure golden: headings, sections and their ids, tables by header and
// size, and each chart by its data marks and series, not by coordinates.
func outline(n *node, depth int, sb *strings.Builder) {
	if n.name == "#document" {
		for _, c := range n.children {
			outline(c, depth, sb)
		}
		return
	}
	line := strings.Repeat("  ", depth) + n.name
	if id := n.attr("id"); id != "" {
		line += "#" + id
	}
	for _, c := range strings.Fields(n.attr("class")) {
		line += "." + c
	}
	short := func(s string, max int) string {
		if r := []rune(s); len(r) > max {
			return string(r[:max]) + "…"
		}
		return s
	}
	switch n.name {
	case "style":
		sb.WriteString(line + "\n")
		return
	case "meta":
		keys := []string{}
		for k := range n.attrs {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			line += fmt.Sprintf(" %s=%q", k, n.attrs[k])
		}
		sb.WriteString(line + "\n")
		return
	case "table":
		var head []string
		rows := 0
		for _, tr := range n.all(func(m *node) bool { return m.name == "tr" }) {
			if ths := tr.all(func(m *node) bool { return m.name == "th" }); len(ths) > 0 {
				for _, th := range ths {
					head = append(head, th.allText())
				}
			} else {
				rows++
			}
		}
		sb.WriteString(fmt.Sprintf("%s [%d rows] %s\n", line, rows, strings.Join(head, " | ")))
		return
	case "svg":
		marks := map[string]int{}
		var keys []string
		var series []string
		errbars, legend := 0, 0
		n.walk(func(m *node) {
			switch {
			case m.hasClass("mark"):
				k := m.name + "." + strings.Join(strings.Fields(m.attr("class")), ".")
				if marks[k] == 0 {
					keys = append(keys, k)
				}
				marks[k]++
			case m.hasClass("errbar"):
				errbars++
			case m.hasClass("series"):
				series = append(series, m.attr("data-label")+" ["+m.attr("data-run")+"]")
			case m.hasClass("legend"):
				legend += len(m.all(func(x *node) bool { return x.name == "text" }))
			}
		})
		slices.Sort(keys)
		var parts []string
		for _, k := range keys {
			parts = append(parts, fmt.Sprintf("%s=%d", k, marks[k]))
		}
		sb.WriteString(fmt.Sprintf("%s marks: %s; error bars: %d; legend entries: %d\n", line, strings.Join(parts, " "), errbars, legend))
		if len(series) > 0 {
			sb.WriteString(strings.Repeat("  ", depth+1) + "series: " + strings.Join(series, ", ") + "\n")
		}
		return
	case "h1", "h2", "h3", "summary", "a", "b", "title", "figcaption":
		line += " " + fmt.Sprintf("%q", n.allText())
		sb.WriteString(line + "\n")
		return
	case "p", "li":
		line += " " + fmt.Sprintf("%q", short(n.allText(), 70))
		sb.WriteString(line + "\n")
		return
	}
	sb.WriteString(line + "\n")
	for _, c := range n.children {
		outline(c, depth+1, sb)
	}
}

// checkSVGNumbers fails the test for a coordinate that is not a number:
// a chart must leave out what it cannot place, not write NaN or Inf.
func checkSVGNumbers(t testing.TB, doc *node) {
	t.Helper()
	for _, svg := range doc.all(func(n *node) bool { return n.name == "svg" }) {
		svg.walk(func(n *node) {
			for _, a := range []string{"x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "width", "height", "d", "viewBox", "transform"} {
				if v := n.attr(a); strings.Contains(v, "NaN") || strings.Contains(v, "Inf") {
					t.Fatalf("<%s %s=%q>", n.name, a, v)
				}
			}
		})
	}
}

// TestChartExtremes draws values at the edges of float64 and of the axes
// (subnormal, huge, zero, negative): nothing may become a NaN coordinate.
func TestChartExtremes(t *testing.T) {
	t.Parallel()
	var recs []results.Record
	for i, v := range []float64{5e-324, 1e-300, 0, -5, 1, 1e300, 1.7e308} {
		r := hs("handshake/tls1.3/full/c"+strconv.Itoa(i), v, v)
		r.Concurrency = []int{1, 0, -1, 8, 1 << 30, 64, 128}[i]
		r.ErrorUS = results.Float(v)
		r.HandshakesPerSec = v
		r.ClientCPUUS = results.Float(v)
		r.Resume = true
		r.ResumptionRate = v
		recs = append(recs, r)
		recs = append(recs, results.Record{Name: "throughput/" + strconv.Itoa(i), Kind: results.KindThroughput, BufferBytes: r.Concurrency, MBps: results.Float(v)})
	}
	for _, runs := range [][]Run{{{Records: recs}}, {{Records: recs[:3]}, {Records: recs}}} {
		doc := parsePage(t, renderHTML(t, runs...))
		checkSVGNumbers(t, doc)
		if len(doc.all(func(n *node) bool { return n.hasClass("mark") })) == 0 {
			t.Error("no marks drawn at all")
		}
	}
}

// TestHTMLStructure pins the page's structure (sections, tables, charts and
// their series and marks) for one run and for an overlay; html.golden, from
// TestGolden, pins the bytes of the one-run page.
func TestHTMLStructure(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		golden string
		runs   []Run
	}{
		{"html.outline.golden", []Run{{Name: "results.jsonl", Records: loadRecords(t, resultsFile)}}},
		{"html-overlay.outline.golden", overlayRuns(t)},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			var sb strings.Builder
			outline(parsePage(t, renderHTML(t, tc.runs...)), 0, &sb)
			checkGolden(t, filepath.Join("testdata", tc.golden), []byte(sb.String()))
		})
	}
}

// wantCharts are the charts testdata/results.jsonl has data for.
var wantCharts = []string{
	"chart-time-tls1-2", "chart-time-tls1-3", "chart-resumption", "chart-rate", "chart-cpu",
	"chart-latency-tls1-2", "chart-latency-tls1-3", "chart-phases", "chart-throughput",
}

func TestHTMLCharts(t *testing.T) {
	t.Parallel()
	for name, runs := range map[string][]Run{
		"single":  {{Records: loadRecords(t, resultsFile)}},
		"overlay": overlayRuns(t),
	} {
		t.Run(name, func(t *testing.T) {
			doc := parsePage(t, renderHTML(t, runs...))
			checkSVGNumbers(t, doc)
			figs := doc.all(func(n *node) bool { return n.name == "figure" && n.hasClass("chart") })
			var ids []string
			for _, f := range figs {
				ids = append(ids, f.attr("id"))
				svgs := f.all(func(n *node) bool { return n.name == "svg" })
				if len(svgs) != 1 {
					t.Errorf("%s: %d svg elements, want 1", f.attr("id"), len(svgs))
					continue
				}
				marks := svgs[0].all(func(n *node) bool { return n.hasClass("mark") })
				if len(marks) == 0 {
					t.Errorf("%s: no data marks", f.attr("id"))
				}
				for _, m := range marks {
					if m.name == "path" && !strings.Contains(m.attr("d"), "L") {
						t.Errorf("%s: line path %q has no segment", f.attr("id"), m.attr("d"))
					}
				}
				if name == "overlay" {
					// Both runs are drawn: some marks are the baseline's
					// (hollow or dashed), some the candidate's.
					var base, cand int
					for _, m := range marks {
						if m.attr("fill") == "#fff" || m.attr("stroke-dasharray") != "" {
							base++
						} else {
							cand++
						}
					}
					if base == 0 || cand == 0 {
						t.Errorf("%s: %d baseline and %d candidate marks; want both", f.attr("id"), base, cand)
					}
				}
			}
			if !slices.Equal(ids, wantCharts) {
				t.Errorf("charts %q, want %q", ids, wantCharts)
			}
			if missing := doc.all(func(n *node) bool { return n.hasClass("missing") }); len(missing) > 0 {
				t.Errorf("testdata has data for every chart, but the page says %q", missing[0].allText())
			}
		})
	}
}

// TestHTMLSelfContained checks that the page can fetch nothing: no
// script, no external reference of any kind, and a Content-Security-Policy
// that forbids loading anything should something slip in.
func TestHTMLSelfContained(t *testing.T) {
	t.Parallel()
	for _, page := range [][]byte{renderHTML(t, Run{Records: loadRecords(t, resultsFile)}), renderHTML(t, overlayRuns(t)...)} {
		s := strings.ToLower(string(page))
		for _, bad := range []string{"<script", "<link", "<iframe", "<img", "<object", "<embed", " src=", "url(", "@import", "http:", "https:", "//fonts", "xlink:href"} {
			if strings.Contains(s, bad) {
				t.Errorf("page contains %q", bad)
			}
		}
		for _, href := range regexp.MustCompile(`href="([^"]*)"`).FindAllStringSubmatch(s, -1) {
			if !strings.HasPrefix(href[1], "#") {
				t.Errorf("link %q leaves the page", href[1])
			}
		}
		if !strings.Contains(s, `<meta http-equiv="content-security-policy" content="default-src 'none'; style-src 'unsafe-inline'"/>`) {
			t.Error("page has no Content-Security-Policy forbidding fetches")
		}
	}
}

func TestHTMLDeterministic(t *testing.T) {
	t.Parallel()
	a, b := renderHTML(t, overlayRuns(t)...), renderHTML(t, overlayRuns(t)...)
	if !bytes.Equal(a, b) {
		t.Error("two renders of the same records differ")
	}
}

// TestHTMLEscaping renders records whose text fields hold markup and
// control characters: the page must show them as text and stay
// well-formed.
func TestHTMLEscaping(t *testing.T) {
	t.Parallel()
	evil := `</title><script>alert("x")</script>&amp;` + "\x01\x7f\uffff"
	r := hs("handshake/"+evil+"/c1", 100, 110, 105)
	r.Group = evil
	r.Notes = []string{evil}
	r.Env = results.Env{CPUModel: evil, Peers: map[string]string{evil: evil}}
	r.ClientCPUUS = results.Float(50)
	page := renderHTML(t, Run{Name: evil, Records: []results.Record{r}}, Run{Name: "b", Records: []results.Record{r}})
	if bytes.Contains(page, []byte("<script")) {
		t.Error("markup from a record reached the page unescaped")
	}
	doc := parsePage(t, page)
	if !strings.Contains(doc.allText(), `<script>alert("x")</script>&amp;`) {
		t.Error("the record's text is not shown as text")
	}
}

func TestHTMLMissingData(t *testing.T) {
	t.Parallel()
	// A record without CPU, histogram or resumption: those charts are
	// left out with a reason, and no empty chart is drawn.
	r := hs("handshake/tls1.3/full/c1", 100, 110, 105)
	doc := parsePage(t, renderHTML(t, Run{Records: []results.Record{r}}))
	var ids []string
	for _, f := range doc.all(func(n *node) bool { return n.name == "figure" }) {
		ids = append(ids, f.attr("id"))
	}
	if want := []string{"chart-time-tls1-3", "chart-rate"}; !slices.Equal(ids, want) {
		t.Errorf("charts %q, want %q", ids, want)
	}
	var missing []string
	for _, p := range doc.all(func(n *node) bool { return n.hasClass("missing") }) {
		missing = append(missing, p.allText())
	}
	for _, want := range []string{"no resumed-handshake cases", "no CPU measurements", "no case has a latency histogram"} {
		if !slices.ContainsFunc(missing, func(s string) bool { return strings.Contains(s, want) }) {
			t.Errorf("no note says %q; notes: %q", want, missing)
		}
	}
	if slices.ContainsFunc(missing, func(s string) bool { return strings.Contains(s, "Throughput") }) {
		t.Error("a file without throughput cases mentions a missing throughput chart")
	}
}

func TestHTMLRuns(t *testing.T) {
	t.Parallel()
	if err := RenderHTML(io.Discard); err == nil {
		t.Error("RenderHTML without runs succeeded")
	}
	r := Run{Records: loadRecords(t, resultsFile)}
	if err := RenderHTML(io.Discard, r, r, r); err == nil {
		t.Error("RenderHTML with three runs succeeded")
	}
	// The overlay names its two sides even when the caller did not.
	page := string(renderHTML(t, r, r))
	if !strings.Contains(page, "baseline: baseline") || !strings.Contains(page, "candidate: candidate") {
		t.Error("unnamed runs of an overlay are not called baseline and candidate")
	}
}

func TestHandshakeSeries(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		c    int
		want string
	}{
		{"handshake/tls1.3/resume/c64", 64, "tls1.3/resume"},
		{"handshake/tls1.2/full/rsa-2048/x25519/memory/c8", 8, "tls1.2/full/rsa-2048/x25519/memory"},
		{"handshake/tls1.3/full/c1/memory", 1, "tls1.3/full/memory"},
		{"handshake/tls1.3/full/c1/memory", 8, "tls1.3/full/c1/memory"},
		{"c8", 8, "c8"},
	} {
		r := results.Record{Name: tc.name, Concurrency: tc.c}
		if got := handshakeSeries(&r); got != tc.want {
			t.Errorf("handshakeSeries(%q, c%d) = %q, want %q", tc.name, tc.c, got, tc.want)
		}
	}
}

// TestHTMLInterleaved: one file of an interleaved run is drawn as its
// sides overlaid, with the paired comparison (signed-rank test, floor
// from side a2) instead of Mann-Whitney on pooled records, and its side
// a2 listed with the results; overlaying it with another file is refused.
func TestHTMLInterleaved(t *testing.T) {
	t.Parallel()
	recs := loadRecords(t, pairedFile)
	page := string(renderHTML(t, Run{Name: "ab.jsonl", Records: recs}))
	for _, want := range []string{
		"Wilcoxon signed-rank test on the per-round ratios",
		`<summary>side a</summary>`,
		`<summary>side a2 (side a again: the noise floor)</summary>`,
		"within noise",
		"ratio is side b/side a",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page of an interleaved run does not say %q", want)
		}
	}
	if strings.Contains(page, "Mann-Whitney") {
		t.Error("the page of an interleaved run compares its sides as unpaired runs")
	}
	// The verdicts are those of the paired comparison.
	c := pairedTestdata(t, compare.CompareOptions{})
	for _, cc := range c.Cases {
		if cc.Verdict == compare.Slower && !strings.Contains(page, string(compare.Slower)) {
			t.Errorf("%s: verdict %q not on the page", cc.Name, cc.Verdict)
		}
	}
	other := Run{Name: "other.jsonl", Records: loadRecords(t, resultsFile)}
	err := RenderHTML(io.Discard, other, Run{Name: "ab.jsonl", Records: recs})
	if err == nil || !strings.Contains(err.Error(), "ab.jsonl holds an interleaved run") {
		t.Errorf("overlaying an interleaved run with another file: %v", err)
	}
}
