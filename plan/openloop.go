package plan

import (
	"strconv"
	"strings"
	"time"

	"github.com/tlsbench/tlsbench/results"
)

// OpenLoop is what the rules of open-loop handshake cases (rate, a rate
// search) and of a fixed measured time (duration) read: the settings'
// values and whether those were given whose default a command fills in
// before the rules run. The command line and a library plan check the
// same rules (Check), each telling them what it knows.
type OpenLoop struct {
	Throughput bool // the cases are throughput cases, which read duration their own way

	Rates      []float64 // the rates (with FindRate, the first rate tried)
	RatesGiven bool      // rate was given, not a search's default first rate
	FindRate   bool      // a rate search (find-rate)
	// SearchGiven: a setting of the search (slo, max-rate) was given.
	SearchGiven bool
	MaxRate     float64 // the search's bound; 0 for none

	Arrival      string // the arrival process; "" for the default
	ArrivalGiven bool
	MaxInflight  int // the cap on connections in flight; 0 for the default
	// MaxInflightGiven: the cap was given, so that 0 is refused too.
	MaxInflightGiven bool

	Duration    time.Duration // each case's measured time; 0 for none
	Timed       bool          // duration was given
	TargetError bool          // a target error was given
	Handshakes  bool          // handshakes was given
	Concurrency bool          // concurrency was given (waves, not a rate)

	Versus *Setting // the setting that makes side b (versus, versus-server, versus-self); nil for none
	Proxy  bool     // cases go through a proxy
}

// The most an open-loop plan may ask for: beyond these a single client
// process measures only itself.
const (
	MaxRate     = 1_000_000
	MaxInflight = 1 << 20
)

// Check refuses open-loop settings that cannot be measured as given,
// and settings that do not go with them. The schedule's windows (how
// duration splits into iterations) are the runner's to check: they need
// the load generator's pacing.
func (o OpenLoop) Check() error {
	if err := o.checkSearch(); err != nil {
		return err
	}
	open := o.RatesGiven || o.FindRate
	// The setting that made the cases open-loop, for the messages.
	rate := Settings.Rate
	if o.FindRate && !o.RatesGiven {
		rate = Settings.FindRate
	}
	handshake := !o.Throughput
	switch {
	case o.Duration < 0:
		return Errorf(Settings.Duration, o.Duration, "must be positive, e.g. 10s")
	case handshake && o.Timed && o.TargetError && !open:
		return Errorf(Settings.TargetError, nil, "%s and %s: %s fixes each case's measured time; give one", Settings.TargetError, Settings.Duration, Settings.Duration)
	case handshake && o.Timed && o.Handshakes:
		return Errorf(Settings.Handshakes, nil, "%s and %s: give one (handshakes per iteration, or each case's measured time)", Settings.Handshakes, Settings.Duration)
	case !open && o.ArrivalGiven:
		return Errorf(Settings.Arrival, nil, "%s spaces the starts of %s cases: add %s R", Settings.Arrival, Settings.Rate, Settings.Rate)
	case !open && o.MaxInflightGiven:
		return Errorf(Settings.MaxInflight, nil, "%s bounds the connections of %s cases: add %s R", Settings.MaxInflight, Settings.Rate, Settings.Rate)
	case !open:
		return nil
	}
	for _, r := range o.Rates {
		if !(r > 0) || r > MaxRate {
			return Errorf(Settings.Rate, RateName(r), "must be above 0 and at most %s starts per second", RateName(MaxRate))
		}
	}
	switch {
	case o.Concurrency:
		return Errorf(rate, nil, "%s and %s are two ways to load the server (starts per second, or waves of simultaneous handshakes): give one", rate, Settings.Concurrency)
	case o.Arrival != "" && o.Arrival != results.ArrivalConstant && o.Arrival != results.ArrivalPoisson:
		return Errorf(Settings.Arrival, Shown(o.Arrival), "want %s or %s", results.ArrivalConstant, results.ArrivalPoisson)
	case o.MaxInflight < 0 || o.MaxInflightGiven && o.MaxInflight < 1:
		return Errorf(Settings.MaxInflight, o.MaxInflight, "must be at least 1, e.g. 4096")
	case o.MaxInflight > MaxInflight:
		return Errorf(Settings.MaxInflight, o.MaxInflight, "must be between 1 and %d", MaxInflight)
	case o.TargetError:
		return Errorf(Settings.TargetError, nil, "%s does not apply to %s cases: they measure %s windows of their schedule; drop %s", Settings.TargetError, rate, Settings.Iterations, Settings.TargetError)
	case o.Proxy:
		return Errorf(rate, nil, "%s cannot be combined with %s: open-loop cases connect to the server directly; drop one of them", rate, Settings.Proxy)
	case o.Versus != nil:
		return Errorf(rate, nil, "%s cannot be combined with %s: open-loop cases measure one server, not interleaved sides; drop one of them", rate, o.Versus)
	}
	return nil
}

// checkSearch checks the settings of a rate search.
func (o OpenLoop) checkSearch() error {
	switch {
	case !o.FindRate && o.SearchGiven:
		return Errorf(Settings.SLO, nil, "%s and %s set the search of %s: add %s", Settings.SLO, Settings.MaxRate, Settings.FindRate, Settings.FindRate)
	case !o.FindRate:
		return nil
	case o.Throughput:
		return Errorf(Settings.FindRate, nil, "%s searches handshake rates; throughput cases have none: drop %s or %s throughput", Settings.FindRate, Settings.FindRate, Settings.Mode)
	case len(o.Rates) != 1:
		return Errorf(Settings.Rate, nil, "%s with %s is the first rate tried: give one, e.g. %s 500", Settings.Rate, Settings.FindRate, Settings.Rate)
	case o.MaxRate < 0:
		return Errorf(Settings.MaxRate, o.MaxRate, "must be 0 (no bound) or a rate above 0")
	}
	return nil
}

// Shown writes a value in an error as typed: quoted when it would not
// read as one word.
func Shown(v string) string {
	if v == "" || strings.ContainsAny(v, " \t\"'") || strconv.Quote(v) != `"`+v+`"` {
		return strconv.Quote(v)
	}
	return v
}
