package runner

import (
	"math"
	"time"

	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/plan"
)

// validateOpen checks the open-loop settings of a plan (Rates, Arrival,
// MaxInflight, FindRate) and Duration by the plan's rules, then the
// windows they make.
func (p *Plan) validateOpen() error {
	o := plan.OpenLoop{
		Rates: p.Rates, RatesGiven: len(p.Rates) > 0, FindRate: p.FindRate != nil,
		Arrival: p.Arrival, ArrivalGiven: p.Arrival != "", MaxInflight: p.MaxInflight, MaxInflightGiven: p.MaxInflight != 0,
		Duration: p.Duration, Timed: p.Duration != 0, TargetError: p.TargetError > 0,
		Concurrency: len(p.Concurrency) > 0, Proxy: p.Proxy.URL != "",
	}
	if p.FindRate != nil {
		o.MaxRate = p.FindRate.Search.MaxRate
	}
	switch {
	case p.Versus.Target.Addr != "":
		o.Versus = plan.Settings.Versus
	case p.Versus.Executable != "":
		o.Versus = plan.Settings.VersusServer
	case p.Versus.Self:
		o.Versus = plan.Settings.VersusSelf
	}
	if err := o.Check(); err != nil {
		return err
	}
	if p.Duration > 0 && p.Iterations > 0 && p.Duration/time.Duration(p.Iterations) < measure.MinWindow {
		format, args := measure.ShortWindow(p.Duration, p.Iterations, plan.Settings.Duration, plan.Settings.Iterations)
		return plan.Errorf(plan.Settings.Duration, p.Duration, format, args...)
	}
	if len(p.Rates) == 0 {
		return nil
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
