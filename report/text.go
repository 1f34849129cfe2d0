package report

import (
	"bufio"
	"io"
	"strings"
	"unicode/utf8"
)

// writeText lays d out for a terminal: the environment as "key: value"
// lines, tables with padded columns (numbers right-aligned, units in a
// second header line), footnotes as indented lists.
func writeText(w io.Writer, d document) error {
	printableDocument(&d)
	bw := bufio.NewWriter(w)
	width := 0
	for _, kv := range d.env {
		width = max(width, utf8.RuneCountInString(kv.key)+1)
	}
	for _, kv := range d.env {
		bw.WriteString(pad(kv.key+":", width, alignLeft) + " " + kv.value + "\n")
	}
	if d.envNote != "" {
		bw.WriteString("note: " + d.envNote + "\n")
	}
	for i, b := range d.blocks {
		if i > 0 || len(d.env) > 0 {
			bw.WriteString("\n")
		}
		if b.title != "" {
			bw.WriteString(b.title + "\n")
		}
		if b.table != nil {
			writeTextTable(bw, b.table)
		}
		for _, item := range b.items {
			if b.title != "" {
				bw.WriteString("  ")
			}
			bw.WriteString(item + "\n")
		}
	}
	return bw.Flush()
}

func writeTextTable(bw *bufio.Writer, t *table) {
	widths := make([]int, len(t.cols))
	hasUnits := false
	for i, c := range t.cols {
		widths[i] = max(utf8.RuneCountInString(c.title), utf8.RuneCountInString(c.unit))
		hasUnits = hasUnits || c.unit != ""
	}
	for _, row := range t.rows {
		for i, cell := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	line := func(cells func(i int) string) {
		var sb strings.Builder
		for i, c := range t.cols {
			if i > 0 {
				sb.WriteString("  ")
			}
			sb.WriteString(pad(cells(i), widths[i], c.align))
		}
		bw.WriteString(strings.TrimRight(sb.String(), " ") + "\n")
	}
	line(func(i int) string { return t.cols[i].title })
	if hasUnits {
		line(func(i int) string { return t.cols[i].unit })
	}
	for _, row := range t.rows {
		line(func(i int) string { return row[i] })
	}
}

func pad(s string, width int, a align) string {
	n := width - utf8.RuneCountInString(s)
	if n <= 0 {
		return s
	}
	if a == alignRight {
		return strings.Repeat(" ", n) + s
	}
	return s + strings.Repeat(" ", n)
}
