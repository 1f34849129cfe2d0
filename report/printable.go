package report

import "github.com/tlsbench/tlsbench/results"

// Every text the report shows may hold what a hostile server or results
// file put in a record (a case name, a note, a failure's reason): the
// text, Markdown and CSV outputs pass each string through
// results.Printable where it enters them, here, and the HTML page through
// esc, so that no control character or bidirectional override reaches a
// terminal or a browser as itself.

// printableDocument escapes, in place, every string d shows: the
// environment, titles, cells and items.
func printableDocument(d *Document) {
	for i, kv := range d.Env {
		d.Env[i] = KeyValue{results.Printable(kv.Key), results.Printable(kv.Value)}
	}
	d.EnvTitle, d.EnvNote = results.Printable(d.EnvTitle), results.Printable(d.EnvNote)
	for i := range d.Blocks {
		b := &d.Blocks[i]
		b.Title = results.Printable(b.Title)
		PrintableRow(b.Items)
		PrintableRow(b.Brief)
		if b.Table == nil {
			continue
		}
		for j := range b.Table.Cols {
			c := &b.Table.Cols[j]
			c.Title, c.Unit, c.Group = results.Printable(c.Title), results.Printable(c.Unit), results.Printable(c.Group)
		}
		for _, row := range b.Table.Rows {
			PrintableRow(row)
		}
	}
}

// PrintableRow escapes the cells of row in place and returns it.
func PrintableRow(row []string) []string {
	for i, s := range row {
		row[i] = results.Printable(s)
	}
	return row
}
