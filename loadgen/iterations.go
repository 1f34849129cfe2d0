package loadgen

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/stats"
)

// warmup runs the discarded iterations and, in a resume case, holds them
// to the minimum resumption. A case time bounds them too, as it does a
// throughput case's: once they have taken a quarter of it, no other
// starts (the first always runs; a resume case's sessions were primed
// before it). Under load an iteration of the default matrix takes up to
// 2 s, and two of them per case put the default run past a minute.
func (r *caseRunner) warmup(ctx context.Context) error {
	w := r.StartWarmup()
	defer func() { r.Budget = nil }()
	hc := r.Case
	began := time.Now()
	for i := 0; i < hc.Warmup; i++ {
		if r.warmupCut(i, 1, began) {
			break
		}
		if err := r.WarmOne(ctx, w, i); err != nil {
			return err
		}
	}
	return r.EndWarmup(w)
}

// warmupCut says warm-up iteration i (round i of sides, in an
// interleaved case) is not to start: those before it, begun at began,
// took a quarter of the case time (per side) or more. The first always
// runs. It notes the cut for the case's record.
func (r *caseRunner) warmupCut(i, sides int, began time.Time) bool {
	hc := r.Case
	took := time.Since(began)
	if i == 0 || hc.MaxDuration <= 0 || took < time.Duration(sides)*hc.MaxDuration/4 {
		return false
	}
	per := ""
	if sides > 1 {
		per = " per side"
	}
	r.warmNote = fmt.Sprintf("warm-up cut short after %d of %d iterations by %s %v%s, a quarter of which bounds it (they took %v)",
		i, hc.Warmup, hc.Words.Name("MaxDuration"), hc.MaxDuration, per, took.Round(time.Millisecond))
	return true
}

// measure runs the measured iterations until the stop rule ends them and
// returns what the kept ones add up to (m.stopErr says why measuring
// stopped early); it fails only when no iteration was kept.
func (r *caseRunner) measure(ctx context.Context) (*measure.Measured, error) {
	m := r.StartMeasure()
	defer func() { r.Budget = nil }()
	rule := r.stopRule(1, func() float64 {
		s := stats.Summarize(m.Headline())
		return s.Error / s.Mean
	})
	r.Measuring(true)
	began := time.Now()
	m.Began = began
	for m.StoppedBy == "" {
		p, err := r.RunOne(ctx, m)
		if err != nil {
			m.Stop(ctx, err)
			break
		}
		r.KeepOne(m, p)
		m.StoppedBy = rule.after(len(m.Samples), time.Since(began))
	}
	m.Ended = time.Now()
	r.Measuring(false)
	if r.warmNote != "" {
		m.Notes = append(m.Notes, r.warmNote)
	}
	m.Notes = append(m.Notes, rule.notes(m.StoppedBy, len(m.Samples), "of the mean", "")...)
	return r.MeasuredOrErr(ctx, m)
}

// stopRule decides when the measured iterations (or rounds of an
// interleaved case) end.
type stopRule struct {
	iterations int
	// given says the iterations were asked for: the time limit ends
	// only the iterations past them.
	given       bool
	maxDuration time.Duration // of all the rounds; 0: none
	perSide     time.Duration // the user's setting, for notes
	target      float64       // 0: none
	cap         int
	relError    func() float64 // the precision reached so far
	words       client.Words
}

// stopRule returns the rule of a case measured on sides sides (1 outside
// RunInterleaved), whose precision is relError.
func (r *caseRunner) stopRule(sides int, relError func() float64) *stopRule {
	hc := r.Case
	return &stopRule{iterations: hc.Iterations, given: hc.IterationsGiven, maxDuration: time.Duration(sides) * hc.MaxDuration, perSide: hc.MaxDuration,
		target: hc.TargetError, cap: max(hc.IterationCap(), hc.Iterations), relError: relError, words: hc.Words}
}

// after returns what ends measuring after kept iterations that took
// elapsed, or "" to go on. The time limit needs two iterations, so that
// a case always has an error, and all the iterations asked for, when
// they were.
func (s *stopRule) after(kept int, elapsed time.Duration) string {
	least := 2
	if s.given {
		least = max(least, s.iterations)
	}
	timeUp := s.maxDuration > 0 && kept >= least && s.spent(kept, elapsed)
	if s.target <= 0 {
		switch {
		case kept >= s.iterations:
			return results.StoppedIterations
		case timeUp:
			return results.StoppedCaseTime
		}
		return ""
	}
	if kept >= s.iterations && s.relError() <= s.target {
		return results.StoppedTargetError
	}
	switch {
	case timeUp:
		return results.StoppedCaseTime
	case s.maxDuration <= 0 && kept >= s.cap:
		return results.StoppedIterationCap
	}
	return ""
}

// spent says the time limit is used up after kept iterations that took
// elapsed: the next one, as long as the mean of those, would end further
// past the limit than the last one ends short of it. The iteration that
// ends nearest the limit is the last, so that a case measures about
// that long rather than up to an iteration more: under load an
// iteration of the default matrix takes up to a second or two, and
// every case went over by half of one on average.
func (s *stopRule) spent(kept int, elapsed time.Duration) bool {
	return elapsed+elapsed/time.Duration(2*kept) >= s.maxDuration
}

// notes say how the rule ended measuring after kept iterations, when it
// cut the planned iterations short or missed its target: of says what
// the error is relative to, per what the time limit is of ("" or " per
// side").
func (s *stopRule) notes(stoppedBy string, kept int, of, per string) []string {
	limit := fmt.Sprintf("%s %v%s", s.words.Name("MaxDuration"), s.perSide, per)
	cut := stoppedBy == results.StoppedCaseTime && kept < s.iterations
	// A case whose time ran out before its iterations, its error already
	// within the target, reached the target: only the cut is news.
	within := s.target > 0 && s.relError() <= s.target
	if s.target <= 0 || within || (stoppedBy != results.StoppedCaseTime && stoppedBy != results.StoppedIterationCap) {
		if cut {
			return []string{fmt.Sprintf("stopped by %s after %d of %d iterations", limit, kept, s.iterations)}
		}
		return nil
	}
	// One note says both: the target missed, and the iterations cut
	// short when they were.
	after := fmt.Sprintf("%d iterations", kept)
	if cut {
		after = fmt.Sprintf("%d of %d iterations", kept, s.iterations)
	}
	reached := "unknown"
	if e := s.relError(); !math.IsNaN(e) && !math.IsInf(e, 0) {
		reached = errorPercent(e)
	}
	why := "stopped by " + limit
	if stoppedBy == results.StoppedIterationCap {
		why = "the most a case measures"
	}
	return []string{fmt.Sprintf("%s %s not reached: the error was %s %s after %s, %s",
		s.words.Name("TargetError"), measure.Percent(s.target), reached, of, after, why)}
}

// errorPercent writes a reached error as a reader compares it with its
// target: a tenth of a percent above 1%, two figures below it (the
// target's own text keeps every digit given).
func errorPercent(e float64) string {
	if v := 100 * e; v >= 1 {
		return strconv.FormatFloat(v, 'f', 1, 64) + "%"
	}
	return strconv.FormatFloat(100*e, 'g', 2, 64) + "%"
}
