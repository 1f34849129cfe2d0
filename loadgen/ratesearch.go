package loadgen

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/tlsbench/tlsbench/client"
	"github.com/tlsbench/tlsbench/internal/field"
)

// SLO is the goal a rate must meet: a latency percentile (counted from
// each connection's intended start) at or under Latency, and a share of
// failed connections at or under MaxErrorRate.
type SLO struct {
	// Percentile is the latency percentile judged, e.g. 99 for p99.
	Percentile float64
	Latency    time.Duration
	// MaxErrorRate is the share of connections that may fail (0.001:
	// 0.1%).
	MaxErrorRate float64
}

// DefaultSLOErrorRate is the error share an SLO allows when it names
// none.
const DefaultSLOErrorRate = 0.001

// ParseSLO reads an SLO written as the command line takes it:
// "p99=20ms", "p99.9=50ms,error=0.1%". The latency term is required.
func ParseSLO(s string) (SLO, error) {
	slo := SLO{MaxErrorRate: DefaultSLOErrorRate}
	seen := map[string]bool{}
	for _, term := range strings.Split(s, ",") {
		name, value, ok := strings.Cut(strings.TrimSpace(term), "=")
		if !ok || value == "" {
			return SLO{}, fmt.Errorf("%q: want NAME=VALUE terms, e.g. p99=20ms,error=0.1%%", term)
		}
		key := name
		if strings.HasPrefix(name, "p") {
			key = "p"
		}
		if seen[key] {
			what := name
			if key == "p" {
				what = "a latency goal"
			}
			return SLO{}, fmt.Errorf("%q: %s is given twice", term, what)
		}
		seen[key] = true
		switch {
		case name == "error":
			v, err := parseShare(value)
			if err != nil {
				return SLO{}, fmt.Errorf("error=%s: %v", value, err)
			}
			slo.MaxErrorRate = v
		case strings.HasPrefix(name, "p"):
			p, err := strconv.ParseFloat(name[1:], 64)
			if err != nil || !(p > 0 && p < 100) {
				return SLO{}, fmt.Errorf("%s: the percentile must be above 0 and below 100, e.g. p99 or p99.9", name)
			}
			d, err := time.ParseDuration(value)
			if err != nil || d <= 0 {
				return SLO{}, fmt.Errorf("%s=%s: want a positive duration, e.g. 20ms", name, value)
			}
			slo.Percentile, slo.Latency = p, d
		default:
			return SLO{}, fmt.Errorf("%q: the terms are a latency percentile (p99=20ms) and error=SHARE (error=0.1%%)", term)
		}
	}
	if slo.Latency == 0 {
		return SLO{}, fmt.Errorf("%q: give a latency goal, e.g. p99=20ms", s)
	}
	return slo, nil
}

// parseShare reads a share written as a percentage ("0.1%") between 0
// and 100%.
func parseShare(s string) (float64, error) {
	t, ok := strings.CutSuffix(strings.TrimSpace(s), "%")
	v, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if !ok || err != nil || math.IsNaN(v) || v < 0 || v > 100 {
		return 0, errors.New("want a percentage from 0% to 100%, e.g. 0.1%")
	}
	return v / 100, nil
}

// String writes the SLO as ParseSLO reads it.
func (s SLO) String() string {
	return fmt.Sprintf("p%s=%v,error=%s%%", strconv.FormatFloat(s.Percentile, 'f', -1, 64), s.Latency,
		strconv.FormatFloat(s.MaxErrorRate*100, 'f', -1, 64))
}

// RateStep is one measured rate of a search: whether it met the SLO and
// the figures that decided it.
type RateStep struct {
	Rate float64
	// Latency is the SLO's percentile measured at this rate, and
	// ErrorRate the share of connections that failed.
	Latency   time.Duration
	ErrorRate float64
	// Met says the step met the SLO; Reason says why not.
	Met    bool
	Reason string
	// GeneratorLimited says the load generator, not the server, could
	// not hold the rate (its own CPU saturated): no higher rate can be
	// measured from this machine.
	GeneratorLimited bool
}

// RateSearch says how to search for the highest rate that meets an
// SLO: exponential growth from Start by Growth until a rate fails, then
// bisection until the bracket is within Precision of its lower end.
type RateSearch struct {
	Start     float64 // first rate tried, connections per second (default 100)
	Growth    float64 // factor between rates while none has failed (default 2)
	Precision float64 // bracket width at which the search ends, a share of its low end (default 0.05)
	MaxSteps  int     // bound on measured steps (default 24)
	MaxRate   float64 // no rate above this is tried (0: no bound)
	MinRate   float64 // below this the search gives up (default 1/s)
	// Resolution, when above 0, is the step between the rates a step
	// can hold exactly: windows of a fixed length start whole
	// connections, so only the multiples of one per window are rates
	// the schedule keeps. Every rate tried is then such a multiple, and
	// a bracket with none inside it ends the search, saying so: a rate
	// between them would run at a neighbour instead, and its step would
	// be judged at a rate it never ran at.
	Resolution float64
	// Words names the settings that set the windows (Duration,
	// Iterations) in what the search says.
	Words client.Words
}

// RateResult is what a search found. Rate is the highest rate that met
// the SLO (0 when none did) and Failed the lowest that did not (0 when
// none failed): the answer lies in [Rate, Failed). Steps are every
// measured step, in order. Limit says what ended the search when it
// ended before the bracket was narrow: the generator's limit, MaxRate,
// MaxSteps or MinRate.
type RateResult struct {
	Rate, Failed float64
	Steps        []RateStep
	Limit        string
}

// Validate reports a setting of s that cannot search (as a
// *field.Error naming it), with the defaults applied.
func (s RateSearch) Validate() error { return s.setDefaults() }

func (s *RateSearch) setDefaults() error {
	if s.Start == 0 {
		s.Start = 100
	}
	if s.Growth == 0 {
		s.Growth = 2
	}
	if s.Precision == 0 {
		s.Precision = 0.05
	}
	if s.MaxSteps == 0 {
		s.MaxSteps = 24
	}
	if s.MinRate == 0 {
		s.MinRate = 1
	}
	switch {
	case !(s.Start > 0) || math.IsInf(s.Start, 0):
		return field.Errorf("Start", s.Start, "must be a positive rate")
	case !(s.Growth > 1) || math.IsInf(s.Growth, 0):
		return field.Errorf("Growth", s.Growth, "must be above 1")
	case !(s.Precision > 0 && s.Precision < 1):
		return field.Errorf("Precision", s.Precision, "must be between 0 and 1, e.g. 0.05")
	case s.MaxSteps < 2:
		return field.Errorf("MaxSteps", s.MaxSteps, "must be at least 2")
	case s.MaxRate < 0 || (s.MaxRate > 0 && s.MaxRate < s.Start):
		return field.Errorf("MaxRate", s.MaxRate, "must be 0 (no bound) or at least the start rate")
	case s.Resolution < 0 || math.IsInf(s.Resolution, 0) || math.IsNaN(s.Resolution):
		return field.Errorf("Resolution", s.Resolution, "must be 0 (any rate) or a positive step between rates")
	}
	return nil
}

// snap returns the rate the schedule keeps nearest r (r itself without
// a Resolution): a multiple of Resolution, at least one, written with no
// more digits than it needs (a window of 1/3 s makes steps of 3 per
// second, and 3 times 1/3 in floating point is not 1).
func (s *RateSearch) snap(r float64) float64 {
	if s.Resolution <= 0 {
		return r
	}
	return s.multiple(max(1, math.Round(r/s.Resolution)))
}

func (s *RateSearch) multiple(k float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(k*s.Resolution, 'g', 12, 64), 64)
	return v
}

// below returns the highest rate the schedule keeps at or under r, false
// when there is none.
func (s *RateSearch) below(r float64) (float64, bool) {
	if s.Resolution <= 0 {
		return r, true
	}
	k := math.Floor(r/s.Resolution + 1e-9)
	return s.multiple(k), k >= 1
}

// between returns a rate strictly between lo and hi, near their middle,
// that the schedule keeps; false when there is none.
func (s *RateSearch) between(lo, hi float64) (float64, bool) {
	mid := (lo + hi) / 2
	if s.Resolution <= 0 {
		return mid, true
	}
	first := math.Floor(lo/s.Resolution+1e-9) + 1
	last := math.Ceil(hi/s.Resolution-1e-9) - 1
	if first > last {
		return 0, false
	}
	return s.multiple(min(max(math.Round(mid/s.Resolution), first), last)), true
}

// finer says how to make the windows' rates finer.
func (s *RateSearch) finer() string {
	return fmt.Sprintf("rates go in steps of %s/s here, one connection per window: lengthen %s or lower %s for finer ones",
		FormatRate(s.Resolution), s.Words.Name("Duration"), s.Words.Name("Iterations"))
}

// SearchRate finds the highest rate that meets the SLO, measuring each
// rate with step. A step's error ends the search (its steps so far are
// returned with it); a step that is generator-limited ends it too, with
// the rates measured so far as the answer and that limit said.
func SearchRate(ctx context.Context, s RateSearch, step func(ctx context.Context, rate float64) (RateStep, error)) (RateResult, error) {
	if err := s.setDefaults(); err != nil {
		return RateResult{}, err
	}
	var res RateResult
	try := func(rate float64) (bool, error) {
		if len(res.Steps) >= s.MaxSteps {
			res.Limit = fmt.Sprintf("stopped after %d steps", s.MaxSteps)
			return false, errStopSearch
		}
		st, err := step(ctx, rate)
		if err != nil {
			return false, err
		}
		st.Rate = rate
		res.Steps = append(res.Steps, st)
		switch {
		case st.Met:
			res.Rate = max(res.Rate, rate)
		case st.GeneratorLimited:
			res.Limit = fmt.Sprintf("the load generator could not hold %s/s: its CPU was saturated", FormatRate(rate))
			return false, errStopSearch
		default:
			if res.Failed == 0 || rate < res.Failed {
				res.Failed = rate
			}
		}
		return st.Met, nil
	}
	err := s.bracket(try, &res)
	if err == nil {
		err = s.bisect(try, &res)
	}
	if errors.Is(err, errStopSearch) {
		err = nil
	}
	return res, err
}

// errStopSearch ends a search early without failing it.
var errStopSearch = errors.New("search stopped")

// bracket grows the rate from Start until one fails (or shrinks it when
// Start already fails), so that res holds a met and a failed rate.
func (s *RateSearch) bracket(try func(float64) (bool, error), res *RateResult) error {
	rate := s.snap(s.Start)
	met, err := try(rate)
	if err != nil {
		return err
	}
	for met {
		next := max(s.snap(rate*s.Growth), s.snap(rate+s.Resolution))
		if s.MaxRate > 0 && next > s.MaxRate {
			top, _ := s.below(s.MaxRate)
			if rate >= top {
				res.Limit = s.boundLimit(rate)
				return errStopSearch
			}
			next = top
		}
		rate = next
		if met, err = try(rate); err != nil {
			return err
		}
	}
	for res.Rate == 0 {
		lower := rate / s.Growth
		if lower < s.MinRate {
			res.Limit = fmt.Sprintf("no rate down to %s/s met the goal", FormatRate(s.MinRate))
			return errStopSearch
		}
		if lower = s.snap(lower); lower >= rate {
			lower, _ = s.below(rate - s.Resolution)
		}
		if lower < s.MinRate || lower <= 0 {
			res.Limit = fmt.Sprintf("no rate down to %s/s met the goal", FormatRate(rate))
			return errStopSearch
		}
		rate = lower
		if _, err := try(rate); err != nil {
			return err
		}
	}
	return nil
}

// boundLimit is why a search that met every rate up to rate stopped
// there: the highest allowed, or the highest under it the schedule keeps.
func (s *RateSearch) boundLimit(rate float64) string {
	if rate >= s.MaxRate {
		return fmt.Sprintf("every rate up to the highest allowed, %s/s, met the goal", FormatRate(s.MaxRate))
	}
	return fmt.Sprintf("every rate up to %s/s met the goal; the highest allowed, %s/s, is no whole number of connections per window (%s)",
		FormatRate(rate), FormatRate(s.MaxRate), s.finer())
}

// bisect narrows [res.Rate, res.Failed) to within Precision.
func (s *RateSearch) bisect(try func(float64) (bool, error), res *RateResult) error {
	for (res.Failed-res.Rate)/res.Rate > s.Precision {
		mid, ok := s.between(res.Rate, res.Failed)
		if !ok {
			res.Limit = fmt.Sprintf("no rate between %s/s and %s/s is a whole number of connections per window (%s)",
				FormatRate(res.Rate), FormatRate(res.Failed), s.finer())
			return errStopSearch
		}
		if _, err := try(mid); err != nil {
			return err
		}
	}
	return nil
}

// FormatRate writes a rate in connections per second as the command
// line takes it: whole numbers without decimals, others with at most
// three significant decimals.
func FormatRate(r float64) string {
	if r == math.Trunc(r) {
		return strconv.FormatFloat(r, 'f', 0, 64)
	}
	return strconv.FormatFloat(r, 'g', 4, 64)
}
