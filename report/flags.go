package report

import (
	"strings"

	"github.com/tlsbench/tlsbench/results"
)

// A row is flagged, in a column of its own, when its figures are not to
// be read as they stand: the case failed a gate, some connections failed,
// its error is too wide, it was not run. Each flag used is explained
// under its table, briefly in a narrow layout.

// Row flags, in the order they are shown, and their legend.
var flagLegend = []struct{ flag, meaning, brief string }{
	{"FAILED", "FAILED: the case failed a gate (resumption or error rate); its figures are kept but are not a result (see Notes)",
		"FAILED: failed a gate; its figures are not a result (see Notes)"},
	{"errors", "errors: some connections failed (see Errors by kind); per-handshake figures count the successful ones",
		"errors: some connections failed (see Errors by kind)"},
	{"noisy", "noisy: the error is above the case's target error (marked !), or, for a case measured without one, above 10% of the mean: measure longer (--case-time, --iterations) or on a quieter machine",
		"noisy: error above the target (!), or 10% without one; measure longer"},
	{"wall", "wall: measured without the handshake figure (an older tlsbench): mean to max are its wall time per connection, the exchange after the handshake included",
		"wall: an older tlsbench's wall time per connection, not the handshake's"},
	{"not run", "not run: the case cannot be measured in this setting; the reason is in Notes, and its figures are not zeros but absent",
		"not run: cannot be measured in this setting (see Notes)"},
}

// briefs are, item by item, the brief forms of the legends among items
// (see Block.Brief); nil when none has one.
func briefs(items []string) []string {
	var out []string
	for i, item := range items {
		b, ok := briefOf(item)
		if !ok {
			continue
		}
		if out == nil {
			out = make([]string, len(items))
		}
		out[i] = b
	}
	return out
}

// briefOf is the brief form of a legend.
func briefOf(item string) (string, bool) {
	for _, l := range flagLegend {
		if item == l.meaning {
			return l.brief, true
		}
	}
	b, ok := map[string]string{
		perIterationNote: perIterationBrief,
		targetNote:       "error (x%): the error as a share of the mean; ! above the target (noisy)",
		wallOnlyNote:     "written by an older tlsbench: mean to max are wall time per connection",
	}[item]
	return b, ok
}

// rowFlags are the flags of one record's row (achieved: achievedErrors).
func rowFlags(r *results.Record, achieved map[*results.Record]float64) []string {
	if NotRun(r) {
		return []string{"not run"}
	}
	var flags []string
	if r.Verdict == VerdictFailed {
		flags = append(flags, "FAILED")
	}
	if r.Errors > 0 {
		flags = append(flags, "errors")
	}
	if noisy(r, achieved) {
		flags = append(flags, "noisy")
	}
	return flags
}

// NotRun reports a record of a case that was not measured (a setting
// that cannot run): no iteration, so no figure.
func NotRun(r *results.Record) bool {
	return r.Iterations == 0 && len(r.SamplesUS) == 0 && r.Handshakes == 0 && r.MBps == nil && r.Verdict == ""
}

// blankFigures shows every cell of a row but the name as unknown: a case
// that did not run has no figures, and zeros would read as measured.
func blankFigures(row []string) []string {
	for i := 1; i < len(row); i++ {
		row[i] = Null
	}
	return row
}

// addFlags appends a "flags" column to t when any row has a flag, and
// returns the legend of the flags used (nothing when none is: a table of
// clean results looks as it always did).
func addFlags(t *Grid, flags [][]string) []string {
	used := map[string]bool{}
	for _, f := range flags {
		for _, x := range f {
			used[x] = true
		}
	}
	if len(used) == 0 {
		return nil
	}
	t.Cols = append(t.Cols, Column{Title: "flags", Unit: "", Align: AlignLeft})
	for i := range t.Rows {
		t.Rows[i] = append(t.Rows[i], strings.Join(flags[i], " "))
	}
	var legend []string
	for _, l := range flagLegend {
		if used[l.flag] {
			legend = append(legend, l.meaning)
		}
	}
	return legend
}
