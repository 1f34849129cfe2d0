package loadgen

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/stats"
)

// JudgeStep reads one step of a search from the record of the case
// measured at its rate and the case's failure, if it failed: the goal's
// percentile and error share, or why the rate was not held. failure is
// one of the case's gates (measure's errors: the schedule not held,
// too many errors, resumption below its floor); an error that says
// nothing of the rate (the run interrupted, a server that died) is the
// caller's to end the search with, not a step's to judge.
func JudgeStep(rec *results.Record, failure error, slo SLO) RateStep {
	var rs RateStep
	var rateErr *measure.RateError
	switch {
	case errors.As(failure, &rateErr) && rateErr.Cause == measure.CauseClientCPU &&
		rateErr.ClientCores >= measure.SaturationShare*rateErr.Cores:
		// The client alone used its CPUs: what the server sustains
		// beyond this cannot be measured from here.
		rs.GeneratorLimited, rs.Reason = true, rateErr.Error()
		return rs
	case errors.As(failure, &rateErr):
		// The server was too slow (the in-flight cap), or the machine
		// that client and server share ran out of CPU: this rate is
		// beyond what is sustained here.
		rs.Reason = "the schedule was not held (" + rateErr.Cause + ")"
		return rs
	case failure != nil:
		// A gate failed at this rate (errors, resumption): the goal
		// is not met here, and a lower rate may meet it.
		rs.Reason = failure.Error()
		return rs
	}
	if n := rec.Handshakes + rec.Errors; n > 0 {
		rs.ErrorRate = float64(rec.Errors) / float64(n)
	}
	// The step is judged at the rate it achieved: one that started
	// fewer connections than asked did not show the rate is sustained.
	if t, a := rec.RateTarget, rec.RateAchieved; t != nil && (a == nil || *a < measure.MinRateShare**t) {
		achieved := 0.0
		if a != nil {
			achieved = *a
		}
		rs.Reason = fmt.Sprintf("started %s connections per second, below %.0f%% of the %s/s asked", FormatRate(achieved),
			100*measure.MinRateShare, FormatRate(*t))
		return rs
	}
	lat, derr := stats.DecodeLatency(rec.Histogram)
	if derr != nil || lat.Count() == 0 {
		rs.Reason = "no latency was measured"
		return rs
	}
	rs.Latency = time.Duration(lat.PercentileUS(slo.Percentile) * float64(time.Microsecond))
	switch {
	case rs.Latency > slo.Latency:
		rs.Reason = fmt.Sprintf("p%s %v above %v", strconv.FormatFloat(slo.Percentile, 'f', -1, 64), rs.Latency.Round(time.Microsecond), slo.Latency)
	case rs.ErrorRate > slo.MaxErrorRate:
		rs.Reason = fmt.Sprintf("%.3g%% of connections failed, above %.3g%%", 100*rs.ErrorRate, 100*slo.MaxErrorRate)
	default:
		rs.Met = true
	}
	return rs
}

// Answer says what a search found in one sentence, with its
// uncertainty: the bracket the sustainable rate lies in.
func (res RateResult) Answer(slo SLO) string {
	goal := slo.String()
	switch {
	case res.Rate == 0:
		return fmt.Sprintf("no rate measured met %s (lowest tried: %s/s)", goal, FormatRate(res.Failed))
	case res.Failed == 0:
		return fmt.Sprintf("%s/s met %s, the highest rate measured; the sustainable rate is at least that (%s)", FormatRate(res.Rate), goal, res.Limit)
	}
	return fmt.Sprintf("sustains %s/s within %s; %s/s did not: the sustainable rate lies between them", FormatRate(res.Rate), goal, FormatRate(res.Failed))
}
