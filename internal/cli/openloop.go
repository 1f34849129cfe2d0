package cli

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/tlsbench/tlsbench/internal/cli/command"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/runner"
)

// The flags of open-loop handshake cases (tlsbench run --rate) and of a
// fixed measured time (--duration, which throughput cases read their
// own way).

// defineOpenLoopFlags defines them on fs, into f.
func defineOpenLoopFlags(fs *command.FlagSet, f *runFlags) {
	fs.DefBool(&f.findRate, "find-rate", false)
	fs.DefString(&f.slo, "slo", "p99=20ms")
	fs.DefFloat64(&f.maxRate, "max-rate", 0)
	fs.Def("rate", command.List(&f.rates, parseRate, runner.RateName))
	fs.DefString(&f.arrival, "arrival", results.ArrivalConstant)
	fs.DefInt(&f.maxInflight, "max-inflight", measure.DefaultMaxInflight)
}

// parseRate reads one --rate value.
func parseRate(s string) (float64, error) {
	r, err := strconv.ParseFloat(s, 64)
	if err != nil || !(r > 0) || math.IsInf(r, 1) {
		return 0, fmt.Errorf("%q is not a rate above 0 (handshakes started per second, e.g. 2000)", s)
	}
	return r, nil
}

// validateOpenLoop checks --rate, --arrival, --max-inflight, the search
// of --find-rate and, for handshake cases, --duration, with what they do
// not go with: the plan's rules, told which flags were given.
func validateOpenLoop(fs *command.FlagSet, f *runFlags) error {
	o := plan.OpenLoop{
		Throughput: f.tp.mode != modeHandshake,
		Rates:      f.rates, RatesGiven: fs.IsSet("rate"), FindRate: f.findRate,
		SearchGiven: fs.IsSet("slo") || fs.IsSet("max-rate"), MaxRate: f.maxRate,
		Arrival: f.arrival, ArrivalGiven: fs.IsSet("arrival"),
		MaxInflight: f.maxInflight, MaxInflightGiven: fs.IsSet("max-inflight"),
		Duration: f.tp.duration, Timed: fs.IsSet("duration"), TargetError: fs.IsSet("target-error"),
		Handshakes: fs.IsSet("handshakes"), Concurrency: fs.IsSet("concurrency"),
		Proxy: f.proxy.URL != "",
	}
	for _, name := range []string{"versus", "versus-server", "versus-self"} {
		if fs.IsSet(name) {
			o.Versus = plan.Lookup(plan.Run, name)
			break
		}
	}
	if err := o.Check(); err != nil {
		return command.PlanUsage(err)
	}
	if f.findRate {
		slo, err := loadgen.ParseSLO(f.slo)
		if err != nil {
			return command.Usagef("--slo %v", err)
		}
		f.parsedSLO = slo
	}
	return nil
}

// openLoopDefaults applies the defaults that differ for --rate and
// --duration (after --quick's): open-loop cases measure 10 windows (5
// with --quick), and a case whose measured time is fixed (--rate,
// --duration) is not cut short by --case-time nor extended by
// --target-error unless they are given.
func openLoopDefaults(fs *command.FlagSet, f *runFlags) {
	if f.findRate {
		// Each rate tried is a short case of its own; a search of
		// about ten rates then takes about a minute.
		if !fs.IsSet("rate") {
			f.rates = []float64{100}
		}
		if !fs.IsSet("duration") && !fs.IsSet("handshakes") {
			f.tp.duration = 5 * time.Second
			if f.quick {
				f.tp.duration = 2 * time.Second
			}
		}
		if !fs.IsSet("iterations") {
			f.iterations = 5
		}
		if !fs.IsSet("warmup") {
			f.warmup = 1
		}
	}
	rate, timed := fs.IsSet("rate") || f.findRate, fs.IsSet("duration") && f.tp.mode == modeHandshake
	if rate && !fs.IsSet("iterations") && !f.quick {
		f.iterations = 10
	}
	if (rate || timed) && !fs.IsSet("case-time") {
		f.caseTime = 0
	}
	if (rate || timed) && !fs.IsSet("target-error") {
		f.targetError = 0
	}
}

// applyOpenLoop sets the plan's open-loop fields from valid flags.
func applyOpenLoop(fs *command.FlagSet, f *runFlags, p *runner.Plan) {
	if f.tp.mode == modeHandshake {
		p.Duration = f.tp.duration
	}
	if !fs.IsSet("rate") && !f.findRate {
		return
	}
	p.Rates, p.Concurrency = f.rates, nil
	p.Arrival, p.MaxInflight = f.arrival, f.maxInflight
	if f.findRate {
		p.FindRate = &runner.FindRate{SLO: f.parsedSLO, Search: loadgen.RateSearch{MaxRate: f.maxRate}}
	}
}
