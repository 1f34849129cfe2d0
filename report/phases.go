package report

import (
	"github.com/tlsbench/tlsbench/results"
)

// phaseColumns are the phases of a record in the order a handshake
// passes through them, with their column titles; the server's come
// after the client's.
var phaseColumns = []struct{ name, title string }{
	{results.PhaseConnect, "connect"},
	{results.PhaseHandshake, "handshake"},
	{results.PhaseFirstByte, "first byte"},
	{results.PhaseFirstResponse, firstResponseTitle},
	{results.PhaseExchange, exchangeTitle},
	{results.PhaseTotal, "total"},
	{results.PhaseServerHandshake, "server handshake"},
	{results.PhaseServerKey, "server key"},
	{results.PhaseServerSessionStore, "server session store"},
}

// phaseLegend says what the phase table's columns are.
var phaseLegend = []string{
	"p50 / p99 of each phase of single handshakes, µs: connect (from the connection's start), handshake (from the first byte the client wrote), first byte (from the end of the handshake to the first byte read after it), total (the latency of the Handshakes table)",
	"server handshake: the built-in server's own time from accept to the end of its handshake; server key and server session store: its key manager's time per handshake that used it and its session store's time per operation; absent for other servers",
}

// firstResponseTitle is the phase table's column of the first-response
// phase, and firstResponseNote what it means, said when it is shown.
const (
	firstResponseTitle = "first response"
	firstResponseNote  = "first response: from the connection's start to the first byte of the answer to the request (its time to first response byte, which TLS 1.3 early data cuts); over QUIC there is no connect, and the handshake runs from the dial"
	exchangeTitle      = "exchange"
	exchangeNote       = "exchange: from the end of the handshake to the end of the exchange after it (the request written, its answer read): in the wall time per connection, not in the handshake figure"
)

// phaseTable is one row per handshake case that has phases, one column
// per phase any of them has: "p50 / p99" in µs, "-" where a case lacks
// the phase and "none" where it was measured but never happened (a TLS
// 1.3 resumption does not use the server's key manager).
func phaseTable(recs []*results.Record) *Grid {
	var with []*results.Record
	used := map[string]bool{}
	for _, r := range recs {
		has := false
		for _, c := range phaseColumns {
			if _, ok := r.Phases[c.name]; ok {
				used[c.name], has = true, true
			}
		}
		if has {
			with = append(with, r)
		}
	}
	if len(with) == 0 {
		return nil
	}
	t := &Grid{Cols: []Column{{Title: "name", Unit: "", Align: AlignLeft}}}
	var names []string
	for _, c := range phaseColumns {
		if used[c.name] {
			names = append(names, c.name)
			t.Cols = append(t.Cols, Column{Title: c.title, Unit: "p50 / p99 µs", Align: AlignRight})
		}
	}
	for _, r := range with {
		row := []string{CaseLabel(r)}
		for _, name := range names {
			row = append(row, phaseCell(r.Phases, name))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func phaseCell(phases map[string]results.Phase, name string) string {
	p, ok := phases[name]
	switch {
	case !ok:
		return Null
	case p.Count == 0:
		return "none"
	}
	return Num(p.P50US) + " / " + Num(p.P99US)
}
