package report

import (
	"fmt"
	"strings"

	"github.com/tlsbench/tlsbench/results"
)

// Formats that cannot say a record's verdict leave the record out rather
// than pass its figures off as a result: benchfmt has no place for a
// verdict (benchstat would pool a case that failed its gates with good
// ones and compare it as valid), and csv has its verdict column but
// nothing that tells a case that was not run from one measured as zeros.
// The formats for people (table, markdown, html) flag such rows, and json
// keeps every record as it is.

// Why a format leaves a record out.
const (
	omitFailed = "failed a gate"
	omitNotRun = "not run"
)

// omission is a record a format left out, and why.
type omission struct {
	label, why string
}

// leavesOut says why format f leaves r out, or "" when it does not.
func leavesOut(f Format, r *results.Record) string {
	switch {
	case f != Benchfmt && f != CSV:
		return ""
	case notRunCase(r):
		return omitNotRun
	case f == Benchfmt && r.Verdict == VerdictFailed:
		return omitFailed
	}
	return ""
}

// notRunCase reports a case that was not measured; the answer of a rate
// search, which has no figures of its own, is not one.
func notRunCase(r *results.Record) bool {
	return r.Kind != results.KindRateSearch && NotRun(r)
}

// LeftOut says, in one sentence, which records the stream left out
// because its format cannot show their verdict, or "" when it left out
// none.
func (s *Stream) LeftOut() string {
	n := len(s.omitted)
	if n == 0 {
		return ""
	}
	names := make([]string, n)
	for i, o := range s.omitted {
		names[i] = o.label + " (" + o.why + ")"
	}
	what := fmt.Sprintf("%d %s whose figures are not results (benchstat would compare them as valid; the table and json show them)", n, Plural(int64(n), "case", "cases"))
	if s.f == CSV {
		what = fmt.Sprintf("%d %s not run (csv cannot say so; the table and json show %s)", n, Plural(int64(n), "case", "cases"), Plural(int64(n), "it", "them"))
	}
	return fmt.Sprintf("%s leaves out %s: %s", s.f, what, strings.Join(names, ", "))
}
