package report

import (
	"math"
	"strconv"
	"strings"

	"github.com/tlsbench/tlsbench/results"
)

// Records fall into four groups that no table mixes: throughput cases,
// closed-loop handshake cases (waves of a concurrency), open-loop ones
// (a start rate), and the records of a search for a sustainable rate.
// The figures of each group mean different things: an open-loop case's
// samples are latencies from the intended start, not wall time per
// handshake, and its concurrency is not an axis at all.

// SearchRecord reports a record of a search for a sustainable rate: one
// of its steps, or its answer.
func SearchRecord(r *results.Record) bool {
	return r.Kind == results.KindRateStep || r.Kind == results.KindRateSearch
}

// OpenLoop reports an open-loop handshake case measured on its own (not
// as a step of a search): it has a start rate instead of a concurrency.
func OpenLoop(r *results.Record) bool {
	return r.Kind != results.KindThroughput && !SearchRecord(r) && r.RateTarget != nil
}

// ClosedLoop reports a handshake case started in waves.
func ClosedLoop(r *results.Record) bool {
	return r.Kind != results.KindThroughput && !SearchRecord(r) && r.RateTarget == nil
}

// openLoopLegend says what the open-loop table's columns measure: its
// latencies count from a schedule, which the closed-loop table's do not.
var openLoopLegend = []string{
	"rate: connections started per second, asked for / made; hs/s: completed handshakes per second",
	"p50, p99: latency of single handshakes from each connection's intended start, so that waiting behind a slow server counts; service: from its actual start",
	"start lateness: how late the generator itself started connections against the schedule (those counted late left out)",
	"late: connections that started after their intended start because the most connections allowed were open; dropped: never started before their window ended",
}

// openLoopPhaseNote says where an open-loop case's total starts, which
// is not where its other phases do: the wait for a free slot is in it.
const openLoopPhaseNote = "open-loop cases (a start rate): total counts from each connection's intended start, the other phases from its actual start"

// openLoopTable is one row per open-loop case: the schedule asked for and
// held, the latency from the intended start beside the service time, and
// the generator's own accuracy.
func openLoopTable(recs []*results.Record) (*Grid, []string) {
	t := &Grid{Cols: []Column{
		{Title: "name", Unit: "", Align: AlignLeft},
		{Title: "rate", Unit: "target / achieved /s", Align: AlignRight, Rank: 1},
		{Title: "hs/s", Unit: "", Align: AlignRight, Rank: 2},
		{Title: "p50", Unit: "µs", Align: AlignRight, Rank: 1},
		{Title: "p99", Unit: "µs", Align: AlignRight},
		{Title: "service", Unit: "p50 / p99 µs", Align: AlignRight, Rank: 3},
		{Title: "start lateness", Unit: "p50 / p99 µs", Align: AlignRight, Rank: 5},
		{Title: "late", Unit: "", Align: AlignRight, Rank: 3},
		{Title: "dropped", Unit: "", Align: AlignRight, Rank: 2},
		{Title: "resumed", Unit: resumedUnitOf(recs), Align: AlignRight, Rank: 2},
		{Title: "client CPU", Unit: "µs/hs", Align: AlignRight, Rank: 4},
		{Title: "server CPU", Unit: "µs/hs", Align: AlignRight, Rank: 4},
		{Title: "errors", Unit: "", Align: AlignRight, Rank: 4},
	}}
	flags := make([][]string, len(recs))
	for i, r := range recs {
		row := []string{
			CaseLabel(r),
			rateNumPtr(r.RateTarget) + " / " + numPtr(r.RateAchieved),
			Num(r.HandshakesPerSec),
			Num(r.P50US),
			Num(r.P99US),
			numPtr(r.ServiceP50US) + " / " + numPtr(r.ServiceP99US),
			numPtr(r.StartLatenessP50US) + " / " + numPtr(r.StartLatenessP99US),
			count(r.Late),
			count(r.Dropped),
			resumedCell(r),
			numPtr(r.ClientCPUUS),
			numPtr(r.ServerCPUUS),
			errorsCell(r),
		}
		if NotRun(r) {
			blankFigures(row)
			row[1] = rateNumPtr(r.RateTarget) + " / " + Null
		}
		t.Rows = append(t.Rows, row)
		flags[i] = rowFlags(r, nil)
	}
	return t, append(append([]string(nil), openLoopLegend...), rateFlagLegend(addFlags(t, flags))...)
}

// rateFlagLegend says, in the legend of a table of rate cases, that the
// rate they had to hold is a gate too.
func rateFlagLegend(legend []string) []string {
	for i, l := range legend {
		if strings.HasPrefix(l, "FAILED:") {
			legend[i] = "FAILED: the case failed a gate (the start rate it had to hold, dropped connections, or the error rate); its figures are kept but are not a result (see Notes)"
		}
	}
	return legend
}

// RateNum writes a rate in connections per second as the command line
// takes it: whole rates without decimals, others with four significant
// digits.
func RateNum(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

func rateNumPtr(v *float64) string {
	if v == nil {
		return Null
	}
	return RateNum(*v)
}

// count is a nullable count, unknown when absent.
func count(v *int64) string {
	if v == nil {
		return Null
	}
	return strconv.FormatInt(*v, 10)
}
