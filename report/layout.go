package report

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// A Layout says how wide a text report may be. The full report is as
// wide as its widest table (some hundreds of columns); a terminal is
// not, and a line it wraps breaks every column under it.
type Layout struct {
	// Width is the most characters a line may hold; 0 is unlimited:
	// every column of every table, as a file or a pipe gets it.
	Width int
	// Wider says what shows what a narrow layout leaves out ("--wide"),
	// where it leaves something out; "" says nothing of it.
	Wider string
}

// A narrow layout of a table that is wider than the width: first the
// names lose the beginning every row shares, then the columns of the
// highest rank go, one at a time, until the table fits; when even the
// columns of rank 0 do not, each row's name takes a line of its own
// above its figures. A line under the table names what it left out.

// tableLayout is how one table is laid out.
type tableLayout struct {
	cols    []int    // the columns shown, in order
	names   []string // the name column's cells, shortened by prefix
	prefix  string   // the beginning left off every name
	stacked bool     // each name on a line above its figures
	widths  []int    // of every column, by index; those shown only
	whole   int      // the width of the whole table
	width   int      // the most a line may take, 0 for no limit
}

// hasNames reports whether the table's first column names its rows'
// cases, which a narrow layout may shorten.
func hasNames(t *Grid) bool { return len(t.Cols) > 0 && t.Cols[0].Title == "name" }

// layTable fits t into width (0: everything).
func layTable(t *Grid, width int) tableLayout {
	l := tableLayout{cols: make([]int, len(t.Cols)), width: width}
	for i := range t.Cols {
		l.cols[i] = i
	}
	if hasNames(t) {
		for _, row := range t.Rows {
			l.names = append(l.names, row[0])
		}
	}
	l.measure(t)
	l.whole = l.total()
	if width <= 0 || l.whole <= width {
		return l
	}
	if hasNames(t) {
		if p := namePrefix(l.names); p != "" {
			l.prefix = p
			for i := range l.names {
				l.names[i] = strings.TrimPrefix(l.names[i], p)
			}
			l.measure(t)
		}
	}
	for l.total() > width {
		drop := -1
		for k, i := range l.cols {
			if r := t.Cols[i].Rank; r > 0 && (drop < 0 || r >= t.Cols[l.cols[drop]].Rank) {
				drop = k
			}
		}
		if drop < 0 {
			l.stacked = hasNames(t)
			break
		}
		l.cols = slices.Delete(l.cols, drop, drop+1)
		l.measure(t)
	}
	l.refill(t, width)
	return l
}

// refill takes back, the most important first, the columns left out
// that fit in what the last one left out freed.
func (l *tableLayout) refill(t *Grid, width int) {
	if l.stacked {
		return
	}
	var out []int
	for i := range t.Cols {
		if !slices.Contains(l.cols, i) {
			out = append(out, i)
		}
	}
	slices.SortStableFunc(out, func(a, b int) int { return t.Cols[a].Rank - t.Cols[b].Rank })
	for _, i := range out {
		before := slices.Clone(l.cols)
		l.cols = append(l.cols, i)
		slices.Sort(l.cols)
		l.measure(t)
		if l.total() > width {
			l.cols = before
			l.measure(t)
		}
	}
}

// cell is row r's cell of column i as the layout shows it.
func (l *tableLayout) cell(t *Grid, r, i int) string {
	if i == 0 && l.names != nil {
		return l.names[r]
	}
	return t.Rows[r][i]
}

// measure sets the widths of the columns shown: their title, unit and
// cells, and a group's title over the columns it heads (the last of them
// widened when it is longer).
func (l *tableLayout) measure(t *Grid) {
	l.widths = make([]int, len(t.Cols))
	for _, i := range l.cols {
		c := t.Cols[i]
		l.widths[i] = max(runes(c.Title), runes(c.Unit))
		for r := range t.Rows {
			l.widths[i] = max(l.widths[i], runes(l.cell(t, r, i)))
		}
	}
	for _, g := range l.groups(t) {
		span := -2
		for _, i := range g.cols {
			span += l.widths[i] + 2
		}
		if n := runes(g.title); n > span {
			l.widths[g.cols[len(g.cols)-1]] += n - span
		}
	}
}

// shown are the columns on the figures' line: all shown but the name
// when it has a line of its own.
func (l *tableLayout) shown() []int {
	if l.stacked {
		return l.cols[1:]
	}
	return l.cols
}

// total is the width of the table's widest line.
func (l *tableLayout) total() int {
	n := -2
	for _, i := range l.shown() {
		n += l.widths[i] + 2
	}
	if l.stacked {
		n += 2
	}
	return n
}

// group is a run of adjacent columns shown under one group title.
type group struct {
	title string
	cols  []int
}

// groups are the runs of adjacent columns shown that share a group.
func (l *tableLayout) groups(t *Grid) []group {
	var gs []group
	prev := ""
	for _, i := range l.shown() {
		g := t.Cols[i].Group
		switch {
		case g == "":
		case g == prev:
			gs[len(gs)-1].cols = append(gs[len(gs)-1].cols, i)
		default:
			gs = append(gs, group{g, []int{i}})
		}
		prev = g
	}
	return gs
}

// leftOut names the columns the layout does not show.
func (l *tableLayout) leftOut(t *Grid) []string {
	var out []string
	for i, c := range t.Cols {
		if slices.Contains(l.cols, i) {
			continue
		}
		name := c.Title
		if slices.ContainsFunc(t.Cols, func(o Column) bool { return o.Title == c.Title && o != c }) && c.Unit != "" {
			name += " (" + c.Unit + ")"
		}
		out = append(out, name)
	}
	return out
}

// write writes the table's lines.
func (l *tableLayout) write(sb *strings.Builder, t *Grid) {
	indent := ""
	if l.stacked {
		indent = "  "
	}
	line := func(cells func(i int) string) {
		var b strings.Builder
		b.WriteString(indent)
		for k, i := range l.shown() {
			if k > 0 {
				b.WriteString("  ")
			}
			b.WriteString(pad(cells(i), l.widths[i], t.Cols[i].Align))
		}
		sb.WriteString(strings.TrimRight(b.String(), " ") + "\n")
	}
	if gs := l.groups(t); len(gs) > 0 {
		sb.WriteString(l.groupLine(gs, indent) + "\n")
	}
	line(func(i int) string { return t.Cols[i].Title })
	if slices.ContainsFunc(l.shown(), func(i int) bool { return t.Cols[i].Unit != "" }) {
		line(func(i int) string { return t.Cols[i].Unit })
	}
	for r := range t.Rows {
		if l.stacked {
			for _, s := range wrap(l.cell(t, r, 0), l.width, "", "  ") {
				sb.WriteString(s + "\n")
			}
		}
		line(func(i int) string { return l.cell(t, r, i) })
	}
}

// groupLine is the line above the titles: each group's title at the
// start of its columns, and a rule to the end of them, so that the
// columns it heads are seen.
func (l *tableLayout) groupLine(gs []group, indent string) string {
	at := map[int]int{} // where each column shown starts
	pos := runes(indent)
	for _, i := range l.shown() {
		at[i] = pos
		pos += l.widths[i] + 2
	}
	var b strings.Builder
	n := 0
	for _, g := range gs {
		first, last := g.cols[0], g.cols[len(g.cols)-1]
		span := at[last] + l.widths[last] - at[first]
		b.WriteString(strings.Repeat(" ", at[first]-n))
		title := g.title
		if rest := span - runes(title); rest >= 2 {
			title += " " + strings.Repeat("─", rest-1)
		}
		b.WriteString(title)
		n = at[first] + runes(title)
	}
	return b.String()
}

// notes are the lines under a narrowed table: what it shortened and
// what it left out.
func (l *tableLayout) notes(t *Grid, width int, wider string) []string {
	var out []string
	if l.prefix != "" {
		out = append(out, "name: "+l.prefix+" left off the start of each")
	}
	if left := l.leftOut(t); len(left) > 0 {
		s := fmt.Sprintf("left out to fit %d columns: %s", width, strings.Join(unbroken(left), ", "))
		if wider != "" {
			s += " (" + wider + " shows them)"
		}
		out = append(out, s)
	}
	return out
}

// tableName is how the line that names a table left out calls it: its
// title without what it says in brackets.
func tableName(title string) string {
	name, _, _ := strings.Cut(title, " (")
	return name
}

// fits reports whether the whole table fits in width.
func (l *tableLayout) fits(width int) bool { return width <= 0 || l.whole <= width }

// namePrefix is the beginning, whole segments up to a "/", that every
// name shares and none is left empty by losing.
func namePrefix(names []string) string {
	if len(names) == 0 {
		return ""
	}
	p := names[0]
	for _, n := range names[1:] {
		for !strings.HasPrefix(n, p) {
			p = p[:len(p)-1]
		}
	}
	p = p[:strings.LastIndex(p, "/")+1]
	for _, n := range names {
		if n == p {
			return ""
		}
	}
	return p
}

// wrap breaks text into lines of at most width characters (0: one line),
// the first after first, the others after rest; a word longer than a
// line is cut.
func wrap(text string, width int, first, rest string) []string {
	if width <= 0 || runes(first)+runes(text) <= width {
		return []string{first + text}
	}
	var lines []string
	cur, empty := first, true
	for _, w := range strings.Fields(text) {
		for {
			room := width - runes(cur)
			if !empty {
				room--
			}
			if runes(w) <= room {
				if !empty {
					cur += " "
				}
				cur, empty = cur+w, false
				break
			}
			if !empty {
				lines = append(lines, cur)
				cur, empty = rest, true
				continue
			}
			// A word longer than a whole line: cut.
			r := []rune(w)
			room = max(room, 1)
			lines = append(lines, cur+string(r[:room]))
			cur, w = rest, string(r[room:])
		}
	}
	return append(lines, cur)
}

// nbsp stands for a space within a name that wrap must not break at:
// the writer writes a space for it.
const nbsp = "\x01"

// unbroken are names whose spaces wrap does not break at.
func unbroken(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strings.ReplaceAll(n, " ", nbsp)
	}
	return out
}

func runes(s string) int { return utf8.RuneCountInString(s) }
