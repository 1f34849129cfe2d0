package report

import (
	"bufio"
	"io"
	"strings"
)

// WriteMarkdown renders d as GitHub-flavoured Markdown: the environment as a
// list, each table as a pipe table (numbers right-aligned, units in the
// header), footnotes as lists under a heading.
func WriteMarkdown(w io.Writer, d Document) error {
	printableDocument(&d)
	bw := bufio.NewWriter(w)
	first := true
	sep := func() {
		if !first {
			bw.WriteString("\n")
		}
		first = false
	}
	if len(d.Env) > 0 {
		sep()
		title := d.EnvTitle
		if title == "" {
			title = "Environment"
		}
		bw.WriteString("### " + title + "\n\n")
		for _, kv := range d.Env {
			bw.WriteString("- **" + kv.Key + ":** " + mdEscape(kv.Value) + "\n")
		}
		if d.EnvNote != "" {
			bw.WriteString("\n> **Note:** " + mdEscape(d.EnvNote) + "\n")
		}
	}
	for _, b := range d.Blocks {
		sep()
		if b.Title != "" {
			bw.WriteString("### " + b.Title + "\n\n")
		}
		if b.Table != nil {
			writeMarkdownTable(bw, b.Table)
			if len(b.Items) > 0 {
				bw.WriteString("\n") // a list right under a table would be read as a row
			}
		}
		for _, item := range b.Items {
			if b.Title != "" {
				bw.WriteString("- ")
			}
			bw.WriteString(mdEscape(item) + "\n")
		}
	}
	writeMarkdownTargetSummary(bw, d)
	return bw.Flush()
}

func writeMarkdownTable(bw *bufio.Writer, t *Grid) {
	head := make([]string, len(t.Cols))
	rule := make([]string, len(t.Cols))
	for i, c := range t.Cols {
		head[i] = mdCell(c.Title)
		if c.Group != "" {
			// No line above the titles: each carries its group.
			head[i] = mdCell(c.Group + " " + c.Title)
		}
		if c.Unit != "" {
			head[i] += " (" + mdCell(c.Unit) + ")"
		}
		rule[i] = ":---"
		if c.Align == AlignRight {
			rule[i] = "---:"
		}
	}
	mdRow(bw, head)
	mdRow(bw, rule)
	for _, row := range t.Rows {
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
