package report

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"

	"github.com/tlsbench/tlsbench/results"
)

// A case measured towards a target error either reached it or did not,
// and the report says which in one way: the "!" of its error cell, the
// "noisy" flag of its row and the count of the summary line all come
// from missedTarget, so that they never disagree.

// otherLoadShare is the share of the CPUs taken by other processes from
// which a case's notes speak of other load on the machine.
const otherLoadShare = 0.1

// missedTarget says a record measured towards a target error did not
// reach it: the precision it reached (e, as achievedErrors has it) is
// above the target, or unknown.
func missedTarget(r *results.Record, e float64) bool {
	return !(e <= *r.TargetError)
}

// noisy says a row's mean is less precise than it should be: for a case
// measured towards a target error, that it missed it (side a of an
// interleaved case is judged on the other sides' rows, by their ratio to
// it); for one measured without a target, that its error is above
// NoisyError of its mean.
func noisy(r *results.Record, achieved map[*results.Record]float64) bool {
	if r.TargetError != nil {
		e, ok := achieved[r]
		return ok && missedTarget(r, e)
	}
	h := Headline(r)
	return h.Err != nil && h.Mean > 0 && *h.Err > NoisyError*h.Mean
}

// targetSummary is the report's one line on precision: how many of the
// cases measured towards a target error reached it, and what stopped
// the others; empty when no case had a target.
func targetSummary(recs []*results.Record, achieved map[*results.Record]float64) string {
	var judged, missed, caseTime, capped, loaded int
	targets := map[float64]bool{}
	interleaved := false
	for _, r := range recs {
		e, ok := achieved[r]
		if !ok || NotRun(r) {
			continue
		}
		judged++
		targets[*r.TargetError] = true
		interleaved = interleaved || r.Side != ""
		if !missedTarget(r, e) {
			continue
		}
		missed++
		switch r.StoppedBy {
		case results.StoppedCaseTime:
			caseTime++
		case results.StoppedIterationCap:
			capped++
		}
		if r.OtherCPUShare != nil && *r.OtherCPUShare >= otherLoadShare {
			loaded++
		}
	}
	if judged == 0 {
		return ""
	}
	what := "cases"
	if interleaved {
		// Side b (and a2) is judged by its ratio to side a: a row,
		// not a case, reached its target or not.
		what = "sides"
	}
	target := "their target error"
	if len(targets) == 1 {
		for t := range targets {
			target = "±" + ThresholdPercent(t)
		}
	}
	line := fmt.Sprintf("%d of %d %s reached %s", judged-missed, judged, what, target)
	if missed == 0 {
		return line
	}
	return line + fmt.Sprintf("; %d did not (%s)", missed, missedCauses(missed, caseTime, capped, loaded))
}

// missedCauses says what ended the cases that missed their target, and
// how many of them ran beside other load, which widens the error more
// than any time limit.
func missedCauses(missed, caseTime, capped, loaded int) string {
	var causes []string
	if caseTime > 0 {
		causes = append(causes, "more --case-time")
	}
	if capped > 0 {
		causes = append(causes, strconv.Itoa(capped)+" measured the most iterations a case may")
	}
	if rest := missed - caseTime - capped; rest > 0 {
		causes = append(causes, strconv.Itoa(rest)+" ended early, see Notes")
	}
	s := strings.Join(causes, "; ")
	if loaded > 0 {
		of := strconv.Itoa(loaded) + " of them"
		if loaded == missed {
			of = "all of them"
		}
		s += fmt.Sprintf("; %s ran under other load, see Notes", of)
	}
	return s
}

// writeTargetSummary ends a terminal report with d's summary line,
// wrapped to width (0: none).
func writeTargetSummary(bw *bufio.Writer, d Document, width int) {
	if d.TargetSummary != "" {
		bw.WriteString("\n")
		writeLines(bw, wrap(d.TargetSummary, width, "Target error: ", "  "))
	}
}

// writeMarkdownTargetSummary ends a markdown report with it.
func writeMarkdownTargetSummary(bw *bufio.Writer, d Document) {
	if d.TargetSummary != "" {
		bw.WriteString("\n**Target error:** " + mdEscape(d.TargetSummary) + "\n")
	}
}
