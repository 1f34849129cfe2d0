package report

import (
	"slices"

	"github.com/tlsbench/tlsbench/results"
)

// addQUICColumns adds, after the resumption column, what QUIC and early
// data cases measure, when some record is one: the share of the early
// data offered that the server accepted, as the client saw it and as
// the server counted ("100%/100%"; "none offered" when the sessions did
// not permit any: 1-RTT resumptions, not 0-RTT), and the median time
// from the dial to the first byte of the answer, which 0-RTT cuts.
// Tables of runs without them stay as they were.
func addQUICColumns(t *Grid, recs []*results.Record) {
	at := slices.IndexFunc(t.Cols, func(c Column) bool { return c.Title == "resumed" }) + 1
	if at == 0 || !slices.ContainsFunc(recs, func(r *results.Record) bool { return r.QUICVersion != "" || r.EarlyData != nil }) {
		return
	}
	t.Cols = slices.Insert(t.Cols, at, Column{Title: "0-RTT", Unit: "accepted", Align: AlignRight, Rank: 3}, Column{Title: "1st response", Unit: "p50 µs", Align: AlignRight, Rank: 4})
	for i, r := range recs {
		cells := []string{earlyCell(r), firstResponseCell(r)}
		if NotRun(r) {
			cells = []string{Null, Null}
		}
		t.Rows[i] = slices.Insert(t.Rows[i], at, cells...)
	}
}

// earlyCell is the share of the offered early data that the server
// accepted: the client's view, and the server's count when known.
func earlyCell(r *results.Record) string {
	switch {
	case r.EarlyData == nil || !*r.EarlyData:
		if r.QUICVersion != "" {
			return "off"
		}
		return Null
	case r.EarlyDataOffered == nil || r.EarlyDataAccepted == nil:
		return Null
	case *r.EarlyDataOffered == 0:
		return "none offered"
	}
	offered := float64(*r.EarlyDataOffered)
	s := Percent(float64(*r.EarlyDataAccepted) / offered)
	if r.ServerEarlyDataAccepted != nil {
		s += "/" + Percent(float64(*r.ServerEarlyDataAccepted)/offered)
		if *r.ServerEarlyDataAccepted != *r.EarlyDataAccepted {
			s += "!"
		}
	}
	return s
}

// firstResponseCell is the median time to the first byte of the answer.
func firstResponseCell(r *results.Record) string {
	p, ok := r.Phases[results.PhaseFirstResponse]
	if !ok || p.Count == 0 {
		return Null
	}
	return Num(p.P50US)
}
