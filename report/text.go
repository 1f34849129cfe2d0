package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// WriteText lays d out for a terminal: the environment as "key: value"
// lines, tables with padded columns (numbers right-aligned, units in a
// second header line), footnotes as indented lists. It writes every
// column, however wide: see [WriteTextLayout] for a width.
func WriteText(w io.Writer, d Document) error {
	return WriteTextLayout(w, d, Layout{})
}

// WriteTextLayout lays d out as WriteText does, within l's width: a
// table wider than it shows the columns that matter and names the others
// under it, a table of detail that does not fit is left out and named at
// the end, and long lines of text are wrapped.
func WriteTextLayout(w io.Writer, d Document, l Layout) error {
	printableDocument(&d)
	bw := bufio.NewWriter(w)
	writeEnv(bw, d.Env, l.Width)
	if d.EnvNote != "" {
		writeLines(bw, wrap(d.EnvNote, l.Width, "note: ", "      "))
	}
	var skipped []string
	first := true
	for _, b := range d.Blocks {
		var tl tableLayout
		if b.Table != nil {
			tl = layTable(b.Table, l.Width)
			if b.Detail && !tl.fits(l.Width) {
				skipped = append(skipped, tableName(b.Title))
				continue
			}
		}
		if !first || len(d.Env) > 0 {
			bw.WriteString("\n")
		}
		first = false
		writeBlock(bw, b, tl, l)
	}
	if len(skipped) > 0 {
		s := fmt.Sprintf("left out to fit %d columns: %s", l.Width, strings.Join(unbroken(skipped), "; "))
		if l.Wider != "" {
			s += " (" + l.Wider + " shows them)"
		}
		bw.WriteString("\n")
		writeLines(bw, wrap(s, l.Width, "", "  "))
	}
	writeTargetSummary(bw, d, l.Width)
	return bw.Flush()
}

// writeBlock writes a block: its title, its table laid out by tl, the
// lines under a narrowed table, and its items, in their brief form where
// the full one would take more than a line.
func writeBlock(bw *bufio.Writer, b Block, tl tableLayout, l Layout) {
	indent := ""
	if b.Title != "" {
		writeLines(bw, wrap(b.Title, l.Width, "", "  "))
		indent = "  "
	}
	if b.Table != nil {
		var sb strings.Builder
		tl.write(&sb, b.Table)
		bw.WriteString(sb.String())
		for _, n := range tl.notes(b.Table, l.Width, l.Wider) {
			writeLines(bw, wrap(n, l.Width, "  ", "    "))
		}
	}
	for i, item := range b.Items {
		if l.Width > 0 && i < len(b.Brief) && b.Brief[i] != "" && runes(indent+item) > l.Width {
			item = b.Brief[i]
		}
		writeLines(bw, wrap(item, l.Width, indent, indent+"  "))
	}
}

func writeLines(bw *bufio.Writer, lines []string) {
	for _, s := range lines {
		bw.WriteString(strings.ReplaceAll(s, nbsp, " ") + "\n")
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

// writeEnv writes the environment a key a line, or, laid out to a
// terminal's width, as one paragraph ("tlsbench 0.1.0; go go1.26 …"),
// the few lines a screen has being the tables'.
func writeEnv(bw *bufio.Writer, env []KeyValue, width int) {
	if width > 0 && len(env) > 0 {
		parts := make([]string, len(env))
		for i, kv := range env {
			parts[i] = kv.Key + " " + kv.Value
		}
		writeLines(bw, wrap(strings.Join(parts, "; "), width, "", "  "))
		return
	}
	w := 0
	for _, kv := range env {
		w = max(w, utf8.RuneCountInString(kv.Key)+1)
	}
	for _, kv := range env {
		writeLines(bw, wrap(kv.Value, width, pad(kv.Key+":", w, AlignLeft)+" ", strings.Repeat(" ", w+1)))
	}
}
