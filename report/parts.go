package report

import (
	"strconv"

	"github.com/tlsbench/tlsbench/results"
)

// partsLegend says what the table of a mix's parts holds.
var partsLegend = []string{
	"a mix of full and resumed handshakes, split by what each handshake did: its handshakes, the client's and the server's CPU µs per handshake of the part, and the p50 / p99 of its total latency and of its client handshake phase",
	"CPU per part: each connection's own work measured on its thread, plus an equal share per handshake of the rest of the process's CPU, so that the parts add up to the whole; " + Null + " where the whole's CPU is unknown, or the server is not the built-in one",
}

// partsTable is one row per part of each mix record (none without
// mixes).
func partsTable(recs []*results.Record) *Grid {
	t := &Grid{Cols: []Column{{Title: "name", Unit: "", Align: AlignLeft}, {Title: "part", Unit: "", Align: AlignLeft}, {Title: "handshakes", Unit: "", Align: AlignRight},
		{Title: "client CPU", Unit: "µs/hs", Align: AlignRight}, {Title: "server CPU", Unit: "µs/hs", Align: AlignRight},
		{Title: "total", Unit: "p50 / p99 µs", Align: AlignRight}, {Title: "handshake", Unit: "p50 / p99 µs", Align: AlignRight}}}
	for _, r := range recs {
		for _, name := range []string{results.PartFull, results.PartResumed} {
			p, ok := r.Parts[name]
			if !ok {
				continue
			}
			t.Rows = append(t.Rows, []string{CaseLabel(r), name, strconv.FormatInt(p.Handshakes, 10),
				numPtr(p.ClientCPUUS), numPtr(p.ServerCPUUS),
				phaseCell(p.Phases, results.PhaseTotal), phaseCell(p.Phases, results.PhaseHandshake)})
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return t
}
