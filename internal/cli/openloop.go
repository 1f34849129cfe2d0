package cli

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/tlsbench/tlsbench/internal/cli/command"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/measure"
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

// validateOpenLoop checks --rate, --arrival, --max-inflight and, for
// handshake cases, --duration, with what they do not go with.
func validateOpenLoop(fs *command.FlagSet, f *runFlags) error {
	if err := validateFindRate(fs, f); err != nil {
		return err
	}
	rate := fs.IsSet("rate") || f.findRate
	// The flag that made the cases open-loop, for the messages.
	rateFlag := "--rate"
	if f.findRate && !fs.IsSet("rate") {
		rateFlag = "--find-rate"
	}
	switch {
	case f.tp.duration < 0:
		return command.Usagef("--duration %v: must be positive, e.g. 10s", f.tp.duration)
	case f.tp.mode == modeHandshake && fs.IsSet("duration") && fs.IsSet("target-error") && !rate:
		return command.Usagef("--target-error and --duration: --duration fixes each case's measured time; give one")
	case f.tp.mode == modeHandshake && fs.IsSet("duration") && fs.IsSet("handshakes"):
		return command.Usagef("--handshakes and --duration: give one (handshakes per iteration, or each case's measured time)")
	case !rate && fs.IsSet("arrival"):
		return command.Usagef("--arrival spaces the starts of --rate cases: add --rate R")
	case !rate && fs.IsSet("max-inflight"):
		return command.Usagef("--max-inflight bounds the connections of --rate cases: add --rate R")
	case !rate:
		return nil
	case fs.IsSet("concurrency"):
		return command.Usagef("%s and --concurrency are two ways to load the server (starts per second, or waves of simultaneous handshakes): give one", rateFlag)
	case f.arrival != results.ArrivalConstant && f.arrival != results.ArrivalPoisson:
		return command.Usagef("--arrival %s: want constant or poisson", command.ShownValue(f.arrival))
	case f.maxInflight < 1:
		return command.Usagef("--max-inflight %d: must be at least 1, e.g. 4096", f.maxInflight)
	case fs.IsSet("target-error"):
		return command.Usagef("--target-error does not apply to %s cases: they measure --iterations windows of their schedule; drop --target-error", rateFlag)
	case f.proxy.URL != "":
		return command.Usagef("%s cannot be combined with --proxy: open-loop cases connect to the server directly; drop one of them", rateFlag)
	}
	for _, name := range []string{"versus", "versus-server", "versus-self"} {
		if fs.IsSet(name) {
			return command.Usagef("%s cannot be combined with --%s: open-loop cases measure one server, not interleaved sides; drop one of them", rateFlag, name)
		}
	}
	return nil
}

// validateFindRate checks --find-rate, --slo and --max-rate.
func validateFindRate(fs *command.FlagSet, f *runFlags) error {
	switch {
	case !f.findRate && (fs.IsSet("slo") || fs.IsSet("max-rate")):
		return command.Usagef("--slo and --max-rate set the search of --find-rate: add --find-rate")
	case !f.findRate:
		return nil
	case f.tp.mode != modeHandshake:
		return command.Usagef("--find-rate searches handshake rates; throughput cases have none: drop --find-rate or --mode throughput")
	case len(f.rates) > 1:
		return command.Usagef("--rate with --find-rate is the first rate tried: give one, e.g. --rate 500")
	case f.maxRate < 0:
		return command.Usagef("--max-rate %v: must be 0 (no bound) or a rate above 0", f.maxRate)
	}
	slo, err := loadgen.ParseSLO(f.slo)
	if err != nil {
		return command.Usagef("--slo %v", err)
	}
	f.parsedSLO = slo
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
