package report

import (
	"bufio"
	"io"
	"strings"
	"unicode/utf8"
)

// WriteText lays d out for a terminal: the environment as "key: value"
// lines, tables with padded columns (numbers right-aligned, units in a
// second header line), footnotes as indented lists.
func WriteText(w io.Writer, d Document) error {
	printableDocument(&d)
	bw := bufio.NewWriter(w)
	width := 0
	for _, kv := range d.Env {
		width = max(width, utf8.RuneCountInString(kv.Key)+1)
	}
	for _, kv := range d.Env {
		bw.WriteString(pad(kv.Key+":", width, AlignLeft) + " " + kv.Value + "\n")
	}
	if d.EnvNote != "" {
		bw.WriteString("note: " + d.EnvNote + "\n")
	}
	for i, b := range d.Blocks {
		if i > 0 || len(d.Env) > 0 {
			bw.WriteString("\n")
		}
		if b.Title != "" {
			bw.WriteString(b.Title + "\n")
		}
		if b.Table != nil {
			writeTextTable(bw, b.Table)
		}
		for _, item := range b.Items {
			if b.Title != "" {
				bw.WriteString("  ")
			}
			bw.WriteString(item + "\n")
		}
	}
	writeTargetSummary(bw, d)
	return bw.Flush()
}

func writeTextTable(bw *bufio.Writer, t *Grid) {
	widths := make([]int, len(t.Cols))
	hasUnits := false
	for i, c := range t.Cols {
		widths[i] = max(utf8.RuneCountInString(c.Title), utf8.RuneCountInString(c.Unit))
		hasUnits = hasUnits || c.Unit != ""
	}
	for _, row := range t.Rows {
		for i, cell := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	line := func(cells func(i int) string) {
		var sb strings.Builder
		for i, c := range t.Cols {
			if i > 0 {
				sb.WriteString("  ")
			}
			sb.WriteString(pad(cells(i), widths[i], c.Align))
		}
		bw.WriteString(strings.TrimRight(sb.String(), " ") + "\n")
	}
	line(func(i int) string { return t.Cols[i].Title })
	if hasUnits {
		line(func(i int) string { return t.Cols[i].Unit })
	}
	for _, row := range t.Rows {
		line(func(i int) string { return row[i] })
	}
}

func pad(s string, width int, a Align) string {
	n := width - utf8.RuneCountInString(s)
	if n <= 0 {
		return s
	}
	if a == AlignRight {
		return strings.Repeat(" ", n) + s
	}
	return s + strings.Repeat(" ", n)
}
