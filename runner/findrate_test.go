package runner_test

import (
	"context"
	"crypto/tls"
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/testchild"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/runner"
)

// findRatePlan searches one TLS 1.3 full case against the built-in child
// server from 20 connections per second, each step one window of 2 s: a
// generator a few milliseconds late on a loaded machine still holds its
// schedule.
func findRatePlan(slo loadgen.SLO, search loadgen.RateSearch) runner.Plan {
	return runner.Plan{
		Versions:      []uint16{tls.VersionTLS13},
		Resume:        []bool{false},
		Rates:         []float64{20},
		Handshakes:    128, // unused: Duration sets the windows
		Duration:      2 * time.Second,
		Iterations:    1,
		MinResumption: 0.99,
		ConnTimeout:   10 * time.Second,
		ChildEnv:      []string{testchild.Env()},
		FindRate:      &runner.FindRate{SLO: slo, Search: search},
	}
}

func runSearch(t *testing.T, p runner.Plan) (steps []results.Record, answer results.Record) {
	t.Helper()
	var recs []results.Record
	err := runner.Run(context.Background(), p, func(r *results.Record) error {
		recs = append(recs, *r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := r.Validate(); err != nil {
			t.Errorf("%s: the record contradicts itself: %v", r.Name, err)
		}
	}
	if len(recs) < 2 || recs[len(recs)-1].Kind != results.KindRateSearch {
		t.Fatalf("%d records, the last of kind %q: want steps then the answer", len(recs), recs[len(recs)-1].Kind)
	}
	return recs[:len(recs)-1], recs[len(recs)-1]
}

// TestFindRateEveryRateMet: a goal every rate meets grows the rate to
// the bound: each step a rate-step record named after its rate, met,
// and an answer at the bound that says the search was bounded.
func TestFindRateEveryRateMet(t *testing.T) {
	t.Parallel()
	steps, answer := runSearch(t, findRatePlan(loadgen.SLO{Percentile: 99, Latency: 10 * time.Second, MaxErrorRate: 0.001},
		loadgen.RateSearch{MaxRate: 80}))
	wantRates := []string{"20", "40", "80"}
	if len(steps) != len(wantRates) {
		t.Fatalf("%d steps, want rates %v", len(steps), wantRates)
	}
	for i, s := range steps {
		name := "handshake/tls1.3/full/find-rate/r" + wantRates[i]
		if s.Kind != results.KindRateStep || s.Name != name || s.Params["rate"] != wantRates[i] ||
			s.SLO != "p99=10s,error=0.1%" || s.SLOMet == nil || !*s.SLOMet || s.RateTarget == nil {
			t.Errorf("step %d: kind %q name %q params %v slo %q met %v rate %v", i, s.Kind, s.Name, s.Params, s.SLO, s.SLOMet, s.RateTarget)
		}
	}
	if answer.Name != "handshake/tls1.3/full/find-rate" || answer.RateSustained == nil || *answer.RateSustained != 80 ||
		answer.RateFailed != nil || answer.Steps != 3 || !strings.Contains(answer.SearchLimit, "80/s") {
		t.Errorf("answer %s: sustained %v failed %v steps %d limit %q", answer.Name, answer.RateSustained, answer.RateFailed, answer.Steps, answer.SearchLimit)
	}
	if _, ok := answer.Params["rate"]; ok || answer.Params["tls_version"] != "1.3" {
		t.Errorf("answer params %v: the case's, without a rate", answer.Params)
	}
}

// TestFindRateWholeConnectionsPerWindow: windows of 200 ms start whole
// connections, so the rates a step can hold go in steps of 5/s. A bound
// of 21.09/s, which a window would run at 20/s, is never tried as if it
// were held: each step achieves what it asked for, and the answer says
// why the search stopped at 20/s.
func TestFindRateWholeConnectionsPerWindow(t *testing.T) {
	t.Parallel()
	p := findRatePlan(loadgen.SLO{Percentile: 99, Latency: 10 * time.Second, MaxErrorRate: 0.001}, loadgen.RateSearch{MaxRate: 21.09})
	p.Iterations = 10
	steps, answer := runSearch(t, p)
	for _, s := range steps {
		if s.RateTarget == nil || s.RateAchieved == nil {
			t.Fatalf("%s: no rate asked or achieved", s.Name)
		}
		if *s.RateAchieved < measure.MinRateShare**s.RateTarget {
			t.Errorf("%s: asked %v/s, achieved %v/s: a step judged at a rate it did not run at", s.Name, *s.RateTarget, *s.RateAchieved)
		}
	}
	if answer.RateSustained == nil || *answer.RateSustained != 20 ||
		!strings.Contains(answer.SearchLimit, "the highest allowed, 21.09/s, is no whole number of connections per window") {
		t.Errorf("answer: sustained %v limit %q, want 20/s and why 21.09/s was not tried", answer.RateSustained, answer.SearchLimit)
	}
}

// TestFindRateNothingMet: a goal no handshake can meet (p50 under 1 µs)
// lowers the rate until the floor, every step failed with its reason,
// and the answer has no sustained rate.
func TestFindRateNothingMet(t *testing.T) {
	t.Parallel()
	steps, answer := runSearch(t, findRatePlan(loadgen.SLO{Percentile: 50, Latency: time.Microsecond},
		loadgen.RateSearch{MinRate: 5}))
	if len(steps) != 3 {
		t.Fatalf("%d steps, want 20, 10 and 5 per second", len(steps))
	}
	for _, s := range steps {
		if s.SLOMet == nil || *s.SLOMet || !strings.Contains(strings.Join(s.Notes, "; "), "goal not met: p50 ") {
			t.Errorf("%s: met %v, notes %q: want failed, saying why", s.Name, s.SLOMet, s.Notes)
		}
	}
	if answer.RateSustained != nil || answer.RateFailed == nil || *answer.RateFailed != 5 ||
		!strings.Contains(answer.SearchLimit, "no rate down to 5/s met the goal") ||
		!strings.Contains(strings.Join(answer.Notes, "; "), "no rate measured met p50=1µs,error=0%") {
		t.Errorf("answer: sustained %v failed %v limit %q notes %q", answer.RateSustained, answer.RateFailed, answer.SearchLimit, answer.Notes)
	}
}

// TestValidateFindRate: a search that cannot run is refused by field.
func TestValidateFindRate(t *testing.T) {
	t.Parallel()
	good := loadgen.SLO{Percentile: 99, Latency: 20 * time.Millisecond}
	for _, tc := range []struct {
		name  string
		edit  func(p *runner.Plan)
		field string
	}{
		{"two rates", func(p *runner.Plan) { p.Rates = []float64{10, 20} }, "Rates"},
		{"no latency goal", func(p *runner.Plan) { p.FindRate.SLO = loadgen.SLO{} }, "FindRate.SLO"},
		{"a bound below the start", func(p *runner.Plan) { p.FindRate.Search.MaxRate = 10 }, "FindRate.Search.MaxRate"},
	} {
		p := findRatePlan(good, loadgen.RateSearch{})
		tc.edit(&p)
		err := p.Validate()
		fe, ok := err.(*plan.Error)
		if !ok || fe.Setting == nil || fe.Setting.Name != plan.OfField(tc.field).Name {
			t.Errorf("%s: %v, want an error naming %s", tc.name, err, tc.field)
		}
	}
}
