package loadgen

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/client"
)

// kneeServer models a server whose p99 stays low up to its capacity and
// climbs past it: a step meets a 20 ms goal below capacity only.
func kneeServer(capacity float64, calls *[]float64) func(context.Context, float64) (RateStep, error) {
	return func(_ context.Context, rate float64) (RateStep, error) {
		*calls = append(*calls, rate)
		st := RateStep{Latency: 2 * time.Millisecond}
		if rate > capacity {
			st.Latency = time.Duration(float64(time.Second) * (rate/capacity - 1))
		}
		st.Met = st.Latency <= 20*time.Millisecond
		if !st.Met {
			st.Reason = "p99 above 20ms"
		}
		return st, nil
	}
}

func TestSearchRateFindsTheKnee(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		capacity float64
		search   RateSearch
	}{
		{capacity: 2345, search: RateSearch{}},
		{capacity: 37, search: RateSearch{Start: 1000}}, // the start already fails: shrink
		{capacity: 100, search: RateSearch{}},           // the start is exactly the capacity
		{capacity: 50000, search: RateSearch{Growth: 4, Precision: 0.01}},
	} {
		var calls []float64
		res, err := SearchRate(context.Background(), tc.search, kneeServer(tc.capacity, &calls))
		if err != nil {
			t.Fatal(err)
		}
		// The true answer, capacity*1.02 (where p99 reaches 20 ms),
		// lies in the bracket, which is within the precision.
		truth := tc.capacity * 1.02
		prec := tc.search.Precision
		if prec == 0 {
			prec = 0.05
		}
		if !(res.Rate <= truth && truth < res.Failed) || (res.Failed-res.Rate)/res.Rate > prec || res.Limit != "" {
			t.Errorf("capacity %v: found [%v, %v) limit %q, want a bracket within %v around %v", tc.capacity, res.Rate, res.Failed, res.Limit, prec, truth)
		}
		if len(res.Steps) != len(calls) {
			t.Errorf("capacity %v: %d steps kept, %d measured", tc.capacity, len(res.Steps), len(calls))
		}
		for i, st := range res.Steps {
			if st.Rate != calls[i] {
				t.Errorf("step %d: rate %v, measured %v", i, st.Rate, calls[i])
			}
		}
	}
}

func TestSearchRateLimits(t *testing.T) {
	t.Parallel()
	var calls []float64
	// Every rate meets the goal: the bound ends the search, said.
	res, err := SearchRate(context.Background(), RateSearch{MaxRate: 1000}, kneeServer(1e9, &calls))
	if err != nil || res.Rate != 1000 || res.Failed != 0 || !strings.Contains(res.Limit, "every rate up to the highest allowed, 1000/s, met the goal") {
		t.Errorf("max rate: %+v %v", res, err)
	}
	// No rate meets it.
	res, _ = SearchRate(context.Background(), RateSearch{}, kneeServer(0.1, &calls))
	if res.Rate != 0 || !strings.Contains(res.Limit, "no rate down to 1/s met the goal") {
		t.Errorf("nothing met: %+v", res)
	}
	// The generator saturates before the server: the answer is a
	// lower bound, said.
	gen := func(_ context.Context, rate float64) (RateStep, error) {
		return RateStep{Met: rate < 1500, GeneratorLimited: rate >= 1500}, nil
	}
	res, _ = SearchRate(context.Background(), RateSearch{}, gen)
	if res.Rate != 800 || res.Failed != 0 || !strings.Contains(res.Limit, "the load generator could not hold 1600/s") {
		t.Errorf("generator limited: %+v", res)
	}
	// A bound on steps.
	res, _ = SearchRate(context.Background(), RateSearch{MaxSteps: 3}, kneeServer(1e6, &calls))
	if len(res.Steps) != 3 || !strings.Contains(res.Limit, "stopped after 3 steps") {
		t.Errorf("max steps: %d steps, limit %q", len(res.Steps), res.Limit)
	}
	// A step's error ends the search with the steps so far.
	boom := errors.New("server died")
	n := 0
	res, err = SearchRate(context.Background(), RateSearch{}, func(context.Context, float64) (RateStep, error) {
		if n++; n == 3 {
			return RateStep{}, boom
		}
		return RateStep{Met: true}, nil
	})
	if !errors.Is(err, boom) || len(res.Steps) != 2 || res.Rate != 200 {
		t.Errorf("step error: %+v %v", res, err)
	}
	for _, bad := range []RateSearch{{Start: -1}, {Growth: 1}, {Precision: 1}, {MaxSteps: 1}, {Start: 100, MaxRate: 50}, {Start: math.Inf(1)}} {
		if _, err := SearchRate(context.Background(), bad, gen); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

// TestSearchRateResolution: with windows that start whole connections,
// every rate tried is one the schedule keeps (a multiple of the
// resolution), and a bracket with no such rate inside, or a bound
// between two of them, ends the search saying how to search finer.
func TestSearchRateResolution(t *testing.T) {
	t.Parallel()
	words := client.Words{Names: map[string]string{"Duration": "--duration", "Iterations": "--iterations"}}
	for _, tc := range []struct {
		name           string
		capacity       float64
		search         RateSearch
		rate, failed   float64
		limit          string
		steps          []float64
		withinPrecison bool
	}{
		{name: "narrow enough", capacity: 112, search: RateSearch{Start: 100, Resolution: 5},
			rate: 110, failed: 115, steps: []float64{100, 200, 150, 125, 115, 110}, withinPrecison: true},
		{name: "no rate in the bracket", capacity: 20, search: RateSearch{Start: 20, Resolution: 5, Words: words},
			rate: 20, failed: 25, steps: []float64{20, 40, 30, 25},
			limit: "no rate between 20/s and 25/s is a whole number of connections per window (rates go in steps of 5/s here, one connection per window: lengthen --duration or lower --iterations for finer ones)"},
		{name: "a bound between two rates", capacity: 1e9, search: RateSearch{Start: 20, MaxRate: 21.09, Resolution: 5, Words: words},
			rate: 20, steps: []float64{20},
			limit: "every rate up to 20/s met the goal; the highest allowed, 21.09/s, is no whole number of connections per window"},
		{name: "down in steps of 3/s", capacity: 5, search: RateSearch{Start: 30, Resolution: 3},
			rate: 3, failed: 6, steps: []float64{30, 15, 9, 6, 3}, limit: "no rate between 3/s and 6/s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var calls []float64
			res, err := SearchRate(context.Background(), tc.search, kneeServer(tc.capacity, &calls))
			if err != nil {
				t.Fatal(err)
			}
			if res.Rate != tc.rate || res.Failed != tc.failed || !strings.Contains(res.Limit, tc.limit) || (tc.limit == "") != (res.Limit == "") {
				t.Errorf("found [%v, %v) limit %q, want [%v, %v) limit %q", res.Rate, res.Failed, res.Limit, tc.rate, tc.failed, tc.limit)
			}
			if len(calls) != len(tc.steps) {
				t.Fatalf("rates tried %v, want %v", calls, tc.steps)
			}
			for i, r := range calls {
				if r != tc.steps[i] {
					t.Errorf("rates tried %v, want %v", calls, tc.steps)
					break
				}
			}
			if tc.withinPrecison && (res.Failed-res.Rate)/res.Rate > 0.05 {
				t.Errorf("bracket [%v, %v) wider than the precision", res.Rate, res.Failed)
			}
		})
	}
}

func TestParseSLO(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]SLO{
		"p99=20ms":               {Percentile: 99, Latency: 20 * time.Millisecond, MaxErrorRate: 0.001},
		"p99.9=1.5s,error=0%":    {Percentile: 99.9, Latency: 1500 * time.Millisecond},
		" error=2% , p50=300us ": {Percentile: 50, Latency: 300 * time.Microsecond, MaxErrorRate: 0.02},
	} {
		got, err := ParseSLO(in)
		if err != nil || got != want {
			t.Errorf("ParseSLO(%q) = %+v, %v; want %+v", in, got, err, want)
		}
		if again, err := ParseSLO(got.String()); err != nil || again != got {
			t.Errorf("ParseSLO(%q) = %+v, %v: does not read back %q", got.String(), again, err, in)
		}
	}
	for in, want := range map[string]string{
		"":                           "want NAME=VALUE terms",
		"p99":                        "want NAME=VALUE terms",
		"error=1%":                   "give a latency goal, e.g. p99=20ms",
		"p100=20ms":                  "the percentile must be above 0 and below 100",
		"px=20ms":                    "the percentile must be above 0 and below 100",
		"p99=fast":                   "want a positive duration, e.g. 20ms",
		"p99=-1ms":                   "want a positive duration",
		"p99=20ms,error=0.1":         "want a percentage from 0% to 100%",
		"p99=20ms,error=101%":        "want a percentage",
		"p99=20ms,p90=5ms":           "a latency goal is given twice",
		"p99=20ms,error=1%,error=2%": "error is given twice",
		"p99=20ms,colour=blue":       "the terms are a latency percentile",
	} {
		if _, err := ParseSLO(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseSLO(%q): %v, want %q", in, err, want)
		}
	}
}
