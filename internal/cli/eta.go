package cli

import (
	"time"

	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/runner"
)

// The time left in a run is estimated from its plan, then from what its
// cases really took. The plan gives each case a budget: what its
// settings say it will take (case time per side, windows of a set
// length), and iterations whose length only the run can tell, counted
// in the iterations progress reports (an interleaved case reports side
// a's, one per round of all its sides). Before any case has finished the
// budgets are the estimate; each finished case then scales the budgets
// of those left by how far what the cases took differs from their
// budgets, the plan counting as one case more, so that one odd case does
// not swing the estimate.

// caseBudget is what the plan says one case takes: fixed, plus warm-up
// and measured iterations of the length the run shows, the warm-up's
// time at most warmupAtMost and the measured iterations' from atLeast to
// atMost (0: no bound).
type caseBudget struct {
	skip             bool // not runnable: reported, not run
	fixed            time.Duration
	warmup, measured int
	warmupAtMost     time.Duration
	atLeast, atMost  time.Duration
}

// length is the case's time with iterations of length iter (0: not
// known yet, when the bounds stand in for the iterations).
func (b caseBudget) length(iter time.Duration) time.Duration {
	warm := bound(time.Duration(b.warmup)*iter, 0, b.warmupAtMost)
	m := bound(time.Duration(b.measured)*iter, b.atLeast, b.atMost)
	if iter <= 0 && b.atMost > 0 {
		m = b.atMost
	}
	return b.fixed + warm + m
}

// bound is d within [lo, hi], hi 0 for no upper bound.
func bound(d, lo, hi time.Duration) time.Duration {
	if hi > 0 && d > hi {
		d = hi
	}
	return max(d, lo)
}

// findRateSteps is how many steps a rate search is planned to take: it
// doubles the rate until one fails, then halves the bracket to its
// precision, about ten steps from a start within a few doublings of the
// answer. Only a guess: the searches that finish correct it.
const findRateSteps = 10

// handshakeBudgets are the budgets of a handshake run's cases.
func handshakeBudgets(p *runner.Plan) []caseBudget {
	sides := time.Duration(planSides(p))
	var out []caseBudget
	for _, c := range p.Cases() {
		switch {
		case c.NotRunnable != "":
			out = append(out, caseBudget{skip: true})
		case p.Shard.Enabled():
			// Every shard gives each case the same slot.
			out = append(out, caseBudget{fixed: p.CaseSlot()})
		default:
			b := handshakeBudget(p, c.Rate, sides)
			if p.FindRate != nil {
				b.fixed *= findRateSteps
			}
			out = append(out, b)
		}
	}
	return out
}

// handshakeBudget is one handshake case's budget, measured on sides
// sides, open-loop at rate (0: closed loop).
func handshakeBudget(p *runner.Plan, rate float64, sides time.Duration) caseBudget {
	iters, warmup := max(p.Iterations, 1), time.Duration(p.Warmup)
	var window time.Duration
	switch {
	case p.Duration > 0:
		window = p.Duration / time.Duration(iters)
	case rate > 0:
		window = time.Duration(float64(max(p.Handshakes, 1)) / rate * float64(time.Second))
	}
	if window > 0 {
		// Windows of a set length; the case time may end the measured
		// ones early, after two, and bounds the warm-up: no window
		// starts past a quarter of it (the first always does).
		measured := window * time.Duration(iters)
		if p.CaseTime > 0 && !p.IterationsGiven {
			measured = min(measured, max(p.CaseTime, 2*window))
		}
		if q := p.CaseTime / 4; q > 0 && warmup > 0 {
			// Window k+1 starts while k windows took less than q.
			warmup = min(warmup, max(1, (q+window-1)/window))
		}
		return caseBudget{fixed: sides * (warmup*window + measured)}
	}
	b := caseBudget{warmup: p.Warmup, measured: iters}
	if p.CaseTime > 0 {
		// A quarter of the case time (per side) bounds the warm-up; the
		// iteration that crosses it still ends.
		b.warmupAtMost = sides * p.CaseTime / 4
	}
	switch {
	case p.CaseTime <= 0:
	case p.TargetError > 0 && p.IterationsGiven:
		// All the iterations, then towards the target error until the
		// case time.
		b.atLeast = sides * p.CaseTime
	case p.TargetError > 0:
		// Towards the target error until the case time: planned as
		// the whole of it.
		b.measured, b.fixed = 0, sides*p.CaseTime
	case !p.IterationsGiven:
		b.atMost = sides * p.CaseTime
	}
	return b
}

// planSides is how many sides the run measures each case of p on: one,
// two in an interleaved run, three when side a is measured twice beside
// another program or server.
func planSides(p *runner.Plan) int {
	v := &p.Versus
	switch {
	case v.Self && (v.Target.Addr != "" || v.Executable != ""):
		return 3
	case v.Self || v.Target.Addr != "" || v.Executable != "":
		return 2
	}
	return 1
}

// throughputBudgets are the budgets of a throughput run's cases: the
// case time bounds the warm-up to a quarter of it and the measured
// iterations to all of it.
func throughputBudgets(p *runner.ThroughputPlan) []caseBudget {
	var out []caseBudget
	for _, c := range p.Cases() {
		if c.NotRunnable != "" {
			out = append(out, caseBudget{skip: true})
			continue
		}
		b := caseBudget{warmup: p.Warmup, measured: max(p.Iterations, 1)}
		if p.CaseTime > 0 {
			b.warmupAtMost, b.atMost = p.CaseTime/4, p.CaseTime
		}
		if d := p.Duration; d > 0 {
			// Iterations of a set length.
			b = caseBudget{fixed: b.length(d)}
		}
		out = append(out, b)
	}
	return out
}

// estimate follows a run through its cases, in the plan's order, to
// tell the time left.
type estimate struct {
	budgets []caseBudget
	next    int       // the case running now (all before it are done)
	began   time.Time // when it began: when the one before ended
	// iters counts its iterations reported so far, the first at first.
	iters int
	first time.Time
	// iter is the length of an iteration, from the last case that
	// reported two; before any did, the first's time from its
	// beginning (its server's start with it); 0 before any iteration.
	iter time.Duration
	// planned and took sum the budgets of the finished cases and what
	// they took; finished counts them.
	planned, took time.Duration
	finished      int
	lastName      string // the last record's case
}

// newEstimate follows a run of the cases budgets, whose first case
// begins at start.
func newEstimate(budgets []caseBudget, start time.Time) *estimate {
	return &estimate{budgets: budgets, began: start}
}

// beginAt makes the first case begin at t when t is later than the
// run's start (a run told when to begin waits for it).
func (e *estimate) beginAt(t time.Time) {
	if e.next == 0 && t.After(e.began) {
		e.began = t
	}
}

// iteration notes an iteration reported at now by case index (1-based).
// Cases before it that left no record (they failed) are done.
func (e *estimate) iteration(index int, now time.Time) {
	for e.next < index-1 && e.next < len(e.budgets) {
		// A case that failed left no record: the one reporting now
		// began about now, and the failed one's time counts for
		// neither the case now running nor the scale of those left.
		e.next++
		e.iters, e.began = 0, now
	}
	e.iters++
	switch {
	case e.iters > 1:
		e.iter = now.Sub(e.first) / time.Duration(e.iters-1)
	case e.iter == 0:
		e.first, e.iter = now, now.Sub(e.began)
	default:
		e.first = now
	}
}

// caseDone notes the record of a case emitted at now: the case is done,
// unless the record is a step of a rate search (the search's own record
// ends the case) or another side's of the case just done.
func (e *estimate) caseDone(rec *results.Record, now time.Time) {
	if rec.Kind == results.KindRateStep || (e.lastName != "" && rec.Name == e.lastName) {
		return
	}
	e.lastName = rec.Name
	if e.next >= len(e.budgets) {
		return
	}
	if b := e.budgets[e.next]; !b.skip {
		e.planned += b.length(e.iter)
		e.took += now.Sub(e.began)
		e.finished++
	}
	e.next++
	e.began, e.iters = now, 0
}

// left is the time the run has left at now.
func (e *estimate) left(now time.Time) time.Duration {
	scale := e.scale()
	var left time.Duration
	for i := e.next; i < len(e.budgets); i++ {
		b := e.budgets[i]
		if b.skip {
			continue
		}
		d := time.Duration(scale * float64(b.length(e.iter)))
		if i == e.next {
			d = max(d-now.Sub(e.began), 0)
		}
		left += d
	}
	return left
}

// scale is how much longer than their budgets the cases take: 1 before
// any finished, then what the finished cases took over their budgets,
// the plan weighing as one more case of the mean budget.
func (e *estimate) scale() float64 {
	if e.finished == 0 {
		return 1
	}
	var sum time.Duration
	n := 0
	for _, b := range e.budgets {
		if !b.skip {
			sum += b.length(e.iter)
			n++
		}
	}
	prior := sum / time.Duration(max(n, 1))
	if prior+e.planned <= 0 {
		return 1
	}
	return float64(prior+e.took) / float64(prior+e.planned)
}

// shortDuration is d for a status line: whole seconds, whole minutes
// from an hour.
func shortDuration(d time.Duration) string {
	if d < time.Hour {
		return d.Round(time.Second).String()
	}
	s := d.Round(time.Minute).String()
	return s[:len(s)-2] // "1h2m0s" without its "0s"
}
