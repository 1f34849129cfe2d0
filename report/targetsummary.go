package report

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/tlsbench/tlsbench/results"
)

// missedTarget says a record's precision reached (e, from achievedErrors)
// is above its target error, or unknown: its error cell's "!", its row's
// noisy flag and the summary line's count all ask this, so they agree.
func missedTarget(r *results.Record, e float64) bool { return !(e <= *r.TargetError) }

// noisy: a case with a target missed it (side a of an interleaved case is judged on the
// other sides' rows), or one without has an error above NoisyError of its mean.
func noisy(r *results.Record, achieved map[*results.Record]float64) bool {
	if r.TargetError != nil {
		e, ok := achieved[r]
		return ok && missedTarget(r, e)
	}
	h := Headline(r)
	return h.Err != nil && h.Mean > 0 && *h.Err > NoisyError*h.Mean
}

// targetSummary is the report's last line: how many cases reached their target error, what
// stopped the others, how many ran under other load (its notes': 10% of the CPUs or more).
func targetSummary(recs []*results.Record, achieved map[*results.Record]float64) string {
	var judged, missed, caseTime, loaded int
	targets, what := map[float64]bool{}, "cases"
	for _, r := range recs {
		if e, ok := achieved[r]; ok && !NotRun(r) {
			judged++
			targets[*r.TargetError] = true
			if r.Side != "" {
				what = "sides" // each judged by its ratio to side a, on its row
			}
			if missedTarget(r, e) {
				missed++
				if r.StoppedBy == results.StoppedCaseTime {
					caseTime++
				}
				if r.OtherCPUShare != nil && *r.OtherCPUShare >= 0.1 {
					loaded++
				}
			}
		}
	}
	if judged == 0 {
		return ""
	}
	target := "their target error"
	for t := range targets {
		if len(targets) == 1 {
			target = "±" + ThresholdPercent(t)
		}
	}
	line := fmt.Sprintf("%d of %d %s reached %s", judged-missed, judged, what, target)
	if missed == 0 {
		return line
	}
	var causes []string
	if caseTime > 0 {
		causes = append(causes, "more --case-time")
	}
	if other := missed - caseTime; other > 0 {
		causes = append(causes, fmt.Sprintf("%d stopped otherwise, see Notes", other))
	}
	if loaded > 0 {
		causes = append(causes, fmt.Sprintf("%d of them ran under other load, see Notes", loaded))
	}
	return line + fmt.Sprintf("; %d did not (%s)", missed, strings.Join(causes, "; "))
}

// writeTargetSummary ends a text report with it, wrapped to width (0: none).
func writeTargetSummary(bw *bufio.Writer, d Document, width int) {
	if d.TargetSummary != "" {
		writeLines(bw, append([]string{""}, wrap(d.TargetSummary, width, "Target error: ", "  ")...))
	}
}

func writeMarkdownTargetSummary(bw *bufio.Writer, d Document) {
	if d.TargetSummary != "" {
		bw.WriteString("\n**Target error:** " + mdEscape(d.TargetSummary) + "\n")
	}
}
