package runner

import (
	"math"
	"time"

	"github.com/tlsbench/tlsbench/internal/field"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/results"
)

// validateOpen checks the open-loop settings of a plan (Rates, Arrival,
// MaxInflight) and Duration, and what they do not go with.
func (p *Plan) validateOpen() error {
	if p.Duration < 0 {
		return field.Errorf("Duration", p.Duration, "must be positive")
	}
	if p.Duration > 0 && p.TargetError > 0 {
		return field.Errorf("TargetError", nil, "{Duration} fixes each case's measured time: drop {TargetError} or {Duration}")
	}
	if p.Duration > 0 && p.Iterations > 0 && p.Duration/time.Duration(p.Iterations) < measure.MinWindow {
		return field.Errorf("Duration", p.Duration, "%s", measure.ShortWindow(p.Duration, p.Iterations, "{Duration}", "{Iterations}"))
	}
	if len(p.Rates) == 0 {
		if p.Arrival != "" || p.MaxInflight != 0 {
			return field.Errorf("Rates", nil, "{Arrival} and {MaxInflight} shape the schedule of open-loop cases: give {Rates}")
		}
		return nil
	}
	for _, r := range p.Rates {
		if !(r > 0) || math.IsInf(r, 1) || r > maxRate {
			return field.Errorf("Rates", RateName(r), "must be above 0 and at most %s starts per second", RateName(maxRate))
		}
	}
	switch {
	case len(p.Concurrency) > 0:
		return field.Errorf("Rates", nil, "{Rates} and {Concurrency} are two ways to load the server (starts per second, or waves of simultaneous handshakes): give one")
	case p.Arrival != "" && p.Arrival != results.ArrivalConstant && p.Arrival != results.ArrivalPoisson:
		return field.Errorf("Arrival", p.Arrival, "must be constant or poisson")
	case p.MaxInflight < 0 || p.MaxInflight > maxInflight:
		return field.Errorf("MaxInflight", p.MaxInflight, "must be between 1 and %d", maxInflight)
	case p.TargetError > 0:
		return field.Errorf("TargetError", nil, "open-loop cases ({Rates}) measure {Iterations} windows of their schedule: drop {TargetError}")
	case p.Versus.enabled():
		return field.Errorf("Rates", nil, "open-loop cases ({Rates}) measure one server, not interleaved sides: drop {Versus} or {Rates}")
	case p.Proxy.URL != "":
		return field.Errorf("Rates", nil, "open-loop cases ({Rates}) connect to the server directly, not through a proxy: drop {Proxy.URL} or {Rates}")
	}
	if p.Duration > 0 && p.Iterations > 0 {
		window := p.Duration.Seconds() / float64(p.Iterations)
		for _, r := range p.Rates {
			if r*window < 0.5 {
				return field.Errorf("Duration", p.Duration, "split into %d windows, a window at %s per second would start no connection: lengthen {Duration} or lower {Iterations}", p.Iterations, RateName(r))
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
	return field.Errorf("Rates", RateName(r), "{Duration} %v split into %d windows of %v starts whole connections, %s a window: %s per second, %.1f%% off the rate asked; give a multiple of %s per second, lengthen {Duration} or lower {Iterations}",
		p.Duration, p.Iterations, window, loadgen.FormatRate(math.Round(got*window.Seconds())), loadgen.FormatRate(got), 100*off, loadgen.FormatRate(step))
}

// The most an open-loop plan may ask for: beyond these a single client
// process measures only itself.
const (
	maxRate     = 1_000_000
	maxInflight = 1 << 20
)
