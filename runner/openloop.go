package runner

import (
	"math"
	"time"

	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/results"
)

// validateOpen checks the open-loop settings of a plan (Rates, Arrival,
// MaxInflight) and Duration, and what they do not go with.
func (p *Plan) validateOpen() error {
	if p.Duration < 0 {
		return plan.Errorf(plan.Settings.Duration, p.Duration, "must be positive")
	}
	if p.Duration > 0 && p.TargetError > 0 {
		return plan.Errorf(plan.Settings.TargetError, nil, "%s fixes each case's measured time: drop %s or %s", plan.Settings.Duration, plan.Settings.TargetError, plan.Settings.Duration)
	}
	if p.Duration > 0 && p.Iterations > 0 && p.Duration/time.Duration(p.Iterations) < measure.MinWindow {
		format, args := measure.ShortWindow(p.Duration, p.Iterations, plan.Settings.Duration, plan.Settings.Iterations)
		return plan.Errorf(plan.Settings.Duration, p.Duration, format, args...)
	}
	if len(p.Rates) == 0 {
		if p.Arrival != "" || p.MaxInflight != 0 {
			return plan.Errorf(plan.Settings.Rate, nil, "%s and %s shape the schedule of open-loop cases: give %s", plan.Settings.Arrival, plan.Settings.MaxInflight, plan.Settings.Rate)
		}
		return nil
	}
	for _, r := range p.Rates {
		if !(r > 0) || math.IsInf(r, 1) || r > maxRate {
			return plan.Errorf(plan.Settings.Rate, RateName(r), "must be above 0 and at most %s starts per second", RateName(maxRate))
		}
	}
	switch {
	case len(p.Concurrency) > 0:
		return plan.Errorf(plan.Settings.Rate, nil, "%s and %s are two ways to load the server (starts per second, or waves of simultaneous handshakes): give one", plan.Settings.Rate, plan.Settings.Concurrency)
	case p.Arrival != "" && p.Arrival != results.ArrivalConstant && p.Arrival != results.ArrivalPoisson:
		return plan.Errorf(plan.Settings.Arrival, p.Arrival, "must be constant or poisson")
	case p.MaxInflight < 0 || p.MaxInflight > maxInflight:
		return plan.Errorf(plan.Settings.MaxInflight, p.MaxInflight, "must be between 1 and %d", maxInflight)
	case p.TargetError > 0:
		return plan.Errorf(plan.Settings.TargetError, nil, "open-loop cases (%s) measure %s windows of their schedule: drop %s", plan.Settings.Rate, plan.Settings.Iterations, plan.Settings.TargetError)
	case p.Versus.enabled():
		return plan.Errorf(plan.Settings.Rate, nil, "open-loop cases (%s) measure one server, not interleaved sides: drop %s or %s", plan.Settings.Rate, plan.OneOf{plan.Settings.Versus, plan.Settings.VersusServer, plan.Settings.VersusSelf}, plan.Settings.Rate)
	case p.Proxy.URL != "":
		return plan.Errorf(plan.Settings.Rate, nil, "open-loop cases (%s) connect to the server directly, not through a proxy: drop %s or %s", plan.Settings.Rate, plan.Settings.Proxy, plan.Settings.Rate)
	}
	if p.Duration > 0 && p.Iterations > 0 {
		window := p.Duration.Seconds() / float64(p.Iterations)
		for _, r := range p.Rates {
			if r*window < 0.5 {
				return plan.Errorf(plan.Settings.Duration, p.Duration, "split into %d windows, a window at %s per second would start no connection: lengthen %s or lower %s", p.Iterations, RateName(r), plan.Settings.Duration, plan.Settings.Iterations)
			}
			if err := p.wholeWindows(r); err != nil {
				return err
			}
		}
	}
	return nil
}

// wholeWindows refuses a rate that the windows of Duration/Iterations
// cannot hold to within measure.MaxRateRounding: each window starts
// whole connections, so such a case would run at another rate than
// its name, its record and its gates say.
func (p *Plan) wholeWindows(r float64) error {
	window := p.Duration / time.Duration(p.Iterations)
	got, off := measure.ScheduledRate(r, window)
	if off <= measure.MaxRateRounding {
		return nil
	}
	step := float64(p.Iterations) / p.Duration.Seconds()
	return plan.Errorf(plan.Settings.Rate, RateName(r), "%s %v split into %d windows of %v starts whole connections, %s a window: %s per second, %.1f%% off the rate asked; give a multiple of %s per second, lengthen %s or lower %s", plan.Settings.Duration, p.Duration, p.Iterations, window, loadgen.FormatRate(math.Round(got*window.Seconds())), loadgen.FormatRate(got), 100*off, loadgen.FormatRate(step), plan.Settings.Duration, plan.Settings.Iterations)
}

// The most an open-loop plan may ask for: beyond these a single client
// process measures only itself.
const (
	maxRate     = 1_000_000
	maxInflight = 1 << 20
)
