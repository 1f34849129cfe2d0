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
func printableDocument(d *document) {
	for i, kv := range d.env {
		d.env[i] = keyValue{results.Printable(kv.key), results.Printable(kv.value)}
	}
	d.envTitle, d.envNote = results.Printable(d.envTitle), results.Printable(d.envNote)
	for i := range d.blocks {
		b := &d.blocks[i]
		b.title = results.Printable(b.title)
		printableRow(b.items)
		if b.table == nil {
			continue
		}
		for j := range b.table.cols {
			c := &b.table.cols[j]
			c.title, c.unit = results.Printable(c.title), results.Printable(c.unit)
		}
		for _, row := range b.table.rows {
			printableRow(row)
		}
	}
}

// printableRow escapes the cells of row in place and returns it.
func printableRow(row []string) []string {
	for i, s := range row {
		row[i] = results.Printable(s)
	}
	return row
}
