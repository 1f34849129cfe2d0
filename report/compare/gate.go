package compare

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tlsbench/tlsbench/report"
	"github.com/tlsbench/tlsbench/results"
)

// The regression gate of a comparison (--fail-on-regression).

// Regressions returns the cases that are significantly slower than the
// baseline (Verdict Slower) by more than threshold (a fraction: 0.05 is
// 5%), judged by Slowdown.
func (c *Comparison) Regressions(threshold float64) []*CaseComparison {
	var out []*CaseComparison
	for i := range c.Cases {
		cc := &c.Cases[i]
		if cc.Verdict == Slower && cc.Slowdown > threshold {
			out = append(out, cc)
		}
	}
	return out
}

// CheckRegressions is the CI gate of --fail-on-regression: it returns a
// *RegressionError naming every case significantly slower than the
// baseline by more than threshold, or nil.
//
// A gate that could not test a case does not pass it: paired cases with
// too few samples for the test (or with broken samples) fail the gate too,
// listed in Untested, so that a CI job with too few iterations cannot go
// green without having checked anything. Pairs whose two sides measured
// different work (Mismatched) are left out of the gate, listed in
// Excluded; when nothing is left to judge, the gate fails. Pairs not
// judged for other load (NotJudged) are left out without failing it: the
// machine, not the change, decided them.
func (c *Comparison) CheckRegressions(threshold float64) error {
	regs := c.Regressions(threshold)
	excluded := c.Mismatched()
	var untested []*CaseComparison
	for i := range c.Cases {
		cc := &c.Cases[i]
		if v := cc.Verdict; (v == TooFewSamples || v == NotComparable) && len(cc.Mismatch) == 0 {
			untested = append(untested, cc)
		}
	}
	notJudged := c.NotJudged()
	nothing := len(c.Cases) > 0 && len(excluded)+len(notJudged) == len(c.Cases) && !c.anySearchJudged()
	searches := c.searchRegressions(threshold)
	if len(regs) == 0 && len(untested) == 0 && !nothing && len(searches) == 0 {
		return nil
	}
	return &RegressionError{Threshold: threshold, Alpha: c.Alpha, Cases: regs, Untested: untested, Excluded: excluded,
		NotJudged: notJudged, NothingJudged: nothing, Paired: c.Paired, Searches: searches}
}

// RegressionError is a failed regression gate. It is a benchmark outcome,
// not a usage error: tlsbench exits 1.
type RegressionError struct {
	Threshold float64 // as given, a fraction
	Alpha     float64
	Cases     []*CaseComparison
	// Untested are paired cases the test could not judge.
	Untested []*CaseComparison
	// Excluded are the pairs left out as not comparable, NotJudged
	// those left out for other load on the machine; NothingJudged is set
	// when they left the gate nothing to judge: a gate that judged
	// nothing does not pass.
	Excluded      []*CaseComparison
	NotJudged     []*CaseComparison
	NothingJudged bool
	// Paired: the gate judged an interleaved run, side b against side a.
	Paired bool
	// Searches are the searches whose sustainable rate fell by at least
	// the threshold for certain (see SearchComparison.MinDrop).
	Searches []*SearchComparison
}

func (e *RegressionError) Error() string {
	var msgs []string
	if len(e.Cases) > 0 {
		parts := make([]string, len(e.Cases))
		for i, cc := range e.Cases {
			parts[i] = fmt.Sprintf("%s (%s slower, p=%s)", cc.Name, signedPercent(cc.Slowdown), pValue(cc.P))
		}
		than := "the baseline"
		if e.Paired {
			than = "side a"
		}
		msgs = append(msgs, fmt.Sprintf("%d %s significantly slower than %s by more than %s (alpha %s): %s",
			len(e.Cases), report.Plural(int64(len(e.Cases)), "case is", "cases are"), than, report.ThresholdPercent(e.Threshold), FormatAlpha(e.Alpha), strings.Join(parts, ", ")))
	}
	if len(e.Untested) > 0 {
		names := make([]string, len(e.Untested))
		for i, cc := range e.Untested {
			names[i] = fmt.Sprintf("%s (%s)", cc.Name, cc.Verdict)
		}
		msgs = append(msgs, fmt.Sprintf("%d %s could not be tested, so the gate cannot pass them: %s; measure more iterations (--iterations, --case-time)",
			len(e.Untested), report.Plural(int64(len(e.Untested)), "case", "cases"), strings.Join(names, ", ")))
	}
	if e.NothingJudged && len(e.Excluded) > 0 {
		names := make([]string, len(e.Excluded))
		for i, cc := range e.Excluded {
			names[i] = fmt.Sprintf("%s (%s)", cc.Name, strings.Join(cc.Mismatch, "; "))
		}
		msgs = append(msgs, fmt.Sprintf("nothing left to judge: no paired case is comparable (a side has no valid result, or the two sides measured different work): %s; measure both sides with the same settings, or compare them anyway with --allow-mismatch",
			strings.Join(names, ", ")))
	}
	if e.NothingJudged && len(e.Excluded) == 0 {
		msgs = append(msgs, fmt.Sprintf("nothing left to judge: %d %s measured under other load on the machine, and no other; measure in an interleaved run (--versus, --versus-server, --versus-self), or judge them anyway with --allow-load",
			len(e.NotJudged), report.Plural(int64(len(e.NotJudged)), "pair was", "pairs were")))
	}
	if len(e.Searches) > 0 {
		parts := make([]string, len(e.Searches))
		for i, sc := range e.Searches {
			parts[i] = fmt.Sprintf("%s (%s, then %s)", sc.Name, bracketText(sc.Base), bracketText(sc.Cand))
		}
		msgs = append(msgs, fmt.Sprintf("%d %s a lower rate by at least %s: the candidate failed a rate the baseline met: %s",
			len(e.Searches), report.Plural(int64(len(e.Searches)), "search sustained", "searches sustained"), report.ThresholdPercent(e.Threshold), strings.Join(parts, ", ")))
	}
	return "regression gate: " + strings.Join(msgs, "; ")
}

// Gate is one regression gate: a metric (results.MetricWall, results.MetricClientCPU,
// ...) and the largest increase it may show (a fraction).
type Gate struct {
	Metric    string
	Threshold float64
}

// CheckGates applies every gate and joins their failures: the time's
// gate is CheckRegressions; a cost metric's fails a case whose metric is
// significantly higher than the baseline by more than its threshold, or
// that it could not test (the metric not measured on both sides, too
// few samples, readings too coarse), as the time's gate does.
func (c *Comparison) CheckGates(gates []Gate) error {
	var errs []error
	for _, g := range gates {
		var err error
		if g.Metric == results.MetricWall || g.Metric == "" {
			err = c.CheckRegressions(g.Threshold)
		} else {
			err = c.checkMetric(g)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == 1 {
		return errs[0]
	}
	return errors.Join(errs...)
}

// checkMetric is the gate of one cost metric.
func (c *Comparison) checkMetric(g Gate) error {
	e := &MetricRegressionError{Gate: g, Alpha: c.Alpha, Paired: c.Paired}
	for i := range c.Cases {
		cc := &c.Cases[i]
		if (cc.Verdict == NotComparable && len(cc.Mismatch) > 0) || cc.Verdict == OtherLoad || cc.Kind != results.KindHandshake {
			continue // left out of every gate, as of the time's; costs are judged per handshake
		}
		mc, ok := cc.Metric(g.Metric)
		switch {
		case cc.Verdict == NotComparable:
			e.Untested = append(e.Untested, cc.Name+" (its sides are not comparable: see its verdict)")
		case !ok:
			e.Untested = append(e.Untested, cc.Name+" (not measured on both sides: "+MetricLabel(g.Metric)+" needs each side's figure, e.g. --server-pid and --versus-pid for servers tlsbench did not start)")
		case mc.Verdict == NotResolved && mc.Note != "":
			e.Untested = append(e.Untested, fmt.Sprintf("%s (%s)", cc.Name, mc.Note))
		case mc.Verdict == TooFewSamples:
			e.Untested = append(e.Untested, fmt.Sprintf("%s (%s: measure more iterations, --iterations or --case-time)", cc.Name, mc.Verdict))
		case mc.Verdict == NotResolved || mc.Verdict == NotComparable:
			e.Untested = append(e.Untested, fmt.Sprintf("%s (%s)", cc.Name, mc.Verdict))
		case mc.Verdict == Slower && mc.Change > g.Threshold:
			e.Cases = append(e.Cases, fmt.Sprintf("%s (%s, p=%s)", cc.Name, signedPercent(mc.Change), pValue(mc.P)))
		}
	}
	if len(e.Cases) == 0 && len(e.Untested) == 0 {
		return nil
	}
	return e
}

// MetricRegressionError is a failed gate of a cost metric: a benchmark
// outcome (tlsbench exits 1), as RegressionError is.
type MetricRegressionError struct {
	Gate   Gate
	Alpha  float64
	Paired bool
	// Cases are the cases whose metric rose by more than the threshold,
	// Untested those the gate could not test, each with its figures or
	// why.
	Cases, Untested []string
}

func (e *MetricRegressionError) Error() string {
	label := MetricLabel(e.Gate.Metric)
	var msgs []string
	if len(e.Cases) > 0 {
		than := "the baseline"
		if e.Paired {
			than = "side a"
		}
		msgs = append(msgs, fmt.Sprintf("%d %s significantly more %s than %s, by more than %s (alpha %s): %s", len(e.Cases),
			report.Plural(int64(len(e.Cases)), "case uses", "cases use"), label, than, report.ThresholdPercent(e.Gate.Threshold), FormatAlpha(e.Alpha), strings.Join(e.Cases, ", ")))
	}
	if len(e.Untested) > 0 {
		msgs = append(msgs, fmt.Sprintf("%d %s could not be tested on %s, so the gate cannot pass them: %s", len(e.Untested),
			report.Plural(int64(len(e.Untested)), "case", "cases"), label, strings.Join(e.Untested, ", ")))
	}
	return "regression gate on " + label + ": " + strings.Join(msgs, "; ")
}
