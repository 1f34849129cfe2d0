package plan_test

import (
	"errors"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/plan"
)

// TestOpenLoopCheck: the rules of open-loop cases, as the command line
// (which tells what was given) and a library plan (whose zero values are
// the defaults) state them, refuse with the setting at fault.
func TestOpenLoopCheck(t *testing.T) {
	t.Parallel()
	s := plan.Settings
	flag := func(s *plan.Setting) string { return "--" + s.Name }
	for _, tc := range []struct {
		name    string
		o       plan.OpenLoop
		setting *plan.Setting
		text    string
	}{
		{"closed loop", plan.OpenLoop{Duration: 10 * time.Second, Timed: true}, nil, ""},
		{"a rate", plan.OpenLoop{Rates: []float64{500}, RatesGiven: true, Arrival: "poisson", MaxInflight: 64}, nil, ""},
		{"negative duration", plan.OpenLoop{Duration: -time.Second, Timed: true}, s.Duration, "--duration -1s: must be positive, e.g. 10s"},
		{"arrival without a rate", plan.OpenLoop{Arrival: "poisson", ArrivalGiven: true}, s.Arrival, "--arrival spaces the starts of --rate cases: add --rate R"},
		{"rate and concurrency", plan.OpenLoop{Rates: []float64{5}, RatesGiven: true, Concurrency: true}, s.Rate,
			"--rate and --concurrency are two ways to load the server (starts per second, or waves of simultaneous handshakes): give one"},
		{"a search and concurrency", plan.OpenLoop{Rates: []float64{100}, FindRate: true, Concurrency: true}, s.FindRate,
			"--find-rate and --concurrency are two ways to load the server (starts per second, or waves of simultaneous handshakes): give one"},
		{"a rate too high", plan.OpenLoop{Rates: []float64{2e6}, RatesGiven: true}, s.Rate, "--rate 2000000: must be above 0 and at most 1000000 starts per second"},
		{"bad arrival", plan.OpenLoop{Rates: []float64{5}, RatesGiven: true, Arrival: "burst y", ArrivalGiven: true}, s.Arrival, `--arrival "burst y": want constant or poisson`},
		{"a cap of 0 given", plan.OpenLoop{Rates: []float64{5}, RatesGiven: true, MaxInflightGiven: true}, s.MaxInflight, "--max-inflight 0: must be at least 1, e.g. 4096"},
		{"versus", plan.OpenLoop{Rates: []float64{5}, RatesGiven: true, Versus: s.VersusSelf}, s.Rate,
			"--rate cannot be combined with --versus-self: open-loop cases measure one server, not interleaved sides; drop one of them"},
		{"a search of two rates", plan.OpenLoop{Rates: []float64{5, 10}, RatesGiven: true, FindRate: true}, s.Rate,
			"--rate with --find-rate is the first rate tried: give one, e.g. --rate 500"},
		{"a search of throughput", plan.OpenLoop{Throughput: true, FindRate: true, Rates: []float64{5}}, s.FindRate,
			"--find-rate searches handshake rates; throughput cases have none: drop --find-rate or --mode throughput"},
		{"search settings alone", plan.OpenLoop{SearchGiven: true}, s.SLO, "--slo and --max-rate set the search of --find-rate: add --find-rate"},
	} {
		err := tc.o.Check()
		var pe *plan.Error
		switch {
		case tc.setting == nil && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.setting != nil && (!errors.As(err, &pe) || pe.Setting != tc.setting || pe.Text(flag) != tc.text):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.text)
		}
	}
}
