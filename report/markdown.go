package report

import (
	"bufio"
	"io"
	"strings"
)

// writeMarkdown renders d as GitHub-flavoured Markdown: the environment as a
// list, each table as a pipe table (numbers right-aligned, units in the
// header), footnotes as lists under a heading.
func writeMarkdown(w io.Writer, d document) error {
	printableDocument(&d)
	bw := bufio.NewWriter(w)
	first := true
	sep := func() {
		if !first {
			bw.WriteString("\n")
		}
		first = false
	}
	if len(d.env) > 0 {
		sep()
		title := d.envTitle
		if title == "" {
			title = "Environment"
		}
		bw.WriteString("### " + title + "\n\n")
		for _, kv := range d.env {
			bw.WriteString("- **" + kv.key + ":** " + mdEscape(kv.value) + "\n")
		}
		if d.envNote != "" {
			bw.WriteString("\n> **Note:** " + mdEscape(d.envNote) + "\n")
		}
	}
	for _, b := range d.blocks {
		sep()
		if b.title != "" {
			bw.WriteString("### " + b.title + "\n\n")
		}
		if b.table != nil {
			writeMarkdownTable(bw, b.table)
			if len(b.items) > 0 {
				bw.WriteString("\n") // a list right under a table would be read as a row
			}
		}
		for _, item := range b.items {
			if b.title != "" {
				bw.WriteString("- ")
			}
			bw.WriteString(mdEscape(item) + "\n")
		}
	}
	return bw.Flush()
}

func writeMarkdownTable(bw *bufio.Writer, t *table) {
	head := make([]string, len(t.cols))
	rule := make([]string, len(t.cols))
	for i, c := range t.cols {
		head[i] = mdCell(c.title)
		if c.unit != "" {
			head[i] += " (" + mdCell(c.unit) + ")"
		}
		rule[i] = ":---"
		if c.align == alignRight {
			rule[i] = "---:"
		}
	}
	mdRow(bw, head)
	mdRow(bw, rule)
	for _, row := range t.rows {
		cells := make([]string, len(row))
		for i, c := range row {
			cells[i] = mdCell(c)
		}
		mdRow(bw, cells)
	}
}

func mdRow(bw *bufio.Writer, cells []string) {
	bw.WriteString("| " + strings.Join(cells, " | ") + " |\n")
}

// mdCell escapes text for a table cell, where a pipe ends the cell.
func mdCell(s string) string {
	return strings.ReplaceAll(mdEscape(s), "|", `\|`)
}

// mdEscape keeps text from being read as emphasis, code or HTML. Underscores
// are left alone: inside words (TLS_AES_128_GCM_SHA256) GitHub does not read
// them as emphasis.
var mdEscape = strings.NewReplacer(
	`\`, `\\`, "*", `\*`, "`", "\\`", "<", "&lt;",
).Replace
