package report

import (
	"math"
	"slices"
	"strconv"

	"github.com/tlsbench/tlsbench/results"
)

// The full/resumed table: full and resumed handshake cases paired by
// their parameters, with the ratio of their handshake figures and of
// their connection figures.

// ratioTable pairs full and resumed handshake cases and shows how much
// cheaper resumption is: mean(full)/mean(resumed) of the handshake
// figure, and beside it the same ratio of the wall time per connection,
// marked where the two disagree (the exchange after the handshake, not
// TLS, sets that one). When several cases share a key (for example
// different groups), they are paired by group; cases without a partner
// are left out. It returns nil when nothing pairs, and the legend.
func ratioTable(recs []*results.Record) (*Grid, []string) {
	order, buckets := ratioBuckets(recs)
	t := &Grid{Cols: []Column{
		{Title: "full", Unit: "", Align: AlignLeft},
		{Title: "resumed", Unit: "", Align: AlignLeft},
		{Title: "full", Unit: "µs", Align: AlignRight},
		{Title: "resumed", Unit: "µs", Align: AlignRight},
		{Title: "full/resumed", Unit: "handshake", Align: AlignRight},
		{Title: "full/resumed", Unit: "connection", Align: AlignRight},
		{Title: "resumption", Unit: "client", Align: AlignRight},
	}}
	disagree := false
	for _, k := range order {
		b := buckets[k]
		for _, p := range pairs(b.full, b.resumed) {
			full, resumed := pairHeadlines(p[0], p[1])
			hs, conn := ratioOf(full.Mean, resumed.Mean), ratioOf(p[0].MeanUS, p[1].MeanUS)
			hsCell, connCell := ratioCell(hs), ratioCell(conn)
			if !math.IsNaN(hs) && !math.IsNaN(conn) && !ratiosAgree(hs, conn) {
				connCell += "!"
				disagree = true
			}
			t.Rows = append(t.Rows, []string{CaseLabel(p[0]), CaseLabel(p[1]), Num(full.Mean), Num(resumed.Mean), hsCell, connCell, Percent(p[1].ResumptionRate)})
		}
	}
	if len(t.Rows) == 0 {
		return nil, nil
	}
	legend := []string{ratioLegend}
	if disagree {
		legend = append(legend, ratioDisagreeNote)
	}
	return t, legend
}

// ratioLegend and ratioDisagreeNote say which ratio is which.
const (
	ratioLegend       = "full/resumed: handshake, of connect + TLS handshake (what resumption saves in TLS); connection, of the wall time per whole connection (the exchange after the handshake and its answer included)"
	ratioDisagreeNote = "!: the connection's ratio disagrees with the handshake's by more than 10%: what the server does after the handshake (its answer, a delayed ACK), not TLS, moves it; read the handshake's (see Notes)"
)

// ratioOf is a/b, NaN when b is not above 0.
func ratioOf(a, b float64) float64 {
	if !(b > 0) {
		return math.NaN()
	}
	return a / b
}

// ratioCell writes a ratio as "2.58x", unknown when NaN.
func ratioCell(r float64) string {
	if math.IsNaN(r) {
		return Null
	}
	return strconv.FormatFloat(r, 'f', 2, 64) + "x"
}

// ratioBucket holds the full and the resumed cases of one pairKey.
type ratioBucket struct{ full, resumed []*results.Record }

// ratioBuckets sorts recs into full and resumed cases by pairKey, the
// keys in order of first appearance.
func ratioBuckets(recs []*results.Record) ([]pairKey, map[pairKey]*ratioBucket) {
	buckets := map[pairKey]*ratioBucket{}
	var order []pairKey
	for _, r := range recs {
		k := pairKeyOf(r)
		b := buckets[k]
		if b == nil {
			b = &ratioBucket{}
			buckets[k] = b
			order = append(order, k)
		}
		if r.Resume {
			b.resumed = append(b.resumed, r)
		} else {
			b.full = append(b.full, r)
		}
	}
	return order, buckets
}

func pairs(full, resumed []*results.Record) [][2]*results.Record {
	if len(full) == 1 && len(resumed) == 1 {
		return [][2]*results.Record{{full[0], resumed[0]}}
	}
	var out [][2]*results.Record
	used := make([]bool, len(resumed))
	for _, f := range full {
		for i, r := range resumed {
			if !used[i] && r.Group == f.Group {
				used[i] = true
				out = append(out, [2]*results.Record{f, r})
				break
			}
		}
	}
	return out
}

// flagRatios marks the rows of the full/resumed table (made by
// ratioTable from recs, one row per pair in the same order) whose full or
// resumed case failed a gate or was not run: their ratio is not a result.
// A case not run has no figures: its cells, and the ratio, are unknown.
func flagRatios(t *Grid, recs []*results.Record) {
	col := func(title, unit string) int {
		return slices.IndexFunc(t.Cols, func(c Column) bool { return c.Title == title && c.Unit == unit })
	}
	ratio, conn := col("full/resumed", "handshake"), col("full/resumed", "connection")
	full, resumed, rate := col("full", "µs"), col("resumed", "µs"), col("resumption", "client")
	order, buckets := ratioBuckets(recs)
	var flags [][]string
	var pairsShown [][2]*results.Record
	for _, k := range order {
		b := buckets[k]
		for _, p := range pairs(b.full, b.resumed) {
			flags = append(flags, ratioFlags(p))
			pairsShown = append(pairsShown, p)
		}
	}
	if len(flags) != len(t.Rows) {
		return // not the table of these records
	}
	blank := func(row []string, i int) {
		if i >= 0 {
			row[i] = Null
		}
	}
	for i, p := range pairsShown {
		if NotRun(p[0]) {
			blank(t.Rows[i], full)
			blank(t.Rows[i], ratio)
			blank(t.Rows[i], conn)
		}
		if NotRun(p[1]) {
			blank(t.Rows[i], resumed)
			blank(t.Rows[i], rate)
			blank(t.Rows[i], ratio)
			blank(t.Rows[i], conn)
		}
	}
	addFlags(t, flags)
}

// ratioFlags names the sides of a full/resumed pair without a result:
// "FAILED" when both failed a gate, "full FAILED", "resumed not run", ...
func ratioFlags(p [2]*results.Record) []string {
	state := func(r *results.Record) string {
		switch {
		case NotRun(r):
			return "not run"
		case r.Verdict == VerdictFailed:
			return "FAILED"
		}
		return ""
	}
	full, resumed := state(p[0]), state(p[1])
	switch {
	case full != "" && full == resumed:
		return []string{"both " + full}
	case full != "" && resumed != "":
		return []string{"full " + full + ", resumed " + resumed}
	case full != "":
		return []string{"full " + full}
	case resumed != "":
		return []string{"resumed " + resumed}
	}
	return nil
}
