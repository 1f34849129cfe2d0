package loadgen_test

import (
	"strings"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/stats"
)

// stepRecord is the record of a step: handshakes at latency each, errors
// failed, and the rate asked for and achieved.
func stepRecord(t *testing.T, handshakes, errors int64, latency time.Duration, target, achieved float64) *results.Record {
	t.Helper()
	l := stats.NewLatency()
	for range handshakes {
		l.Record(latency)
	}
	h, err := l.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return &results.Record{Handshakes: handshakes, Errors: errors, Histogram: h, RateTarget: &target, RateAchieved: &achieved}
}

// TestJudgeStep judges steps from records: a goal met, a percentile
// above it, an error share above it, a rate not achieved, a schedule the
// server could not hold and one the client's own CPUs could not.
func TestJudgeStep(t *testing.T) {
	t.Parallel()
	slo := loadgen.SLO{Percentile: 99, Latency: 20 * time.Millisecond, MaxErrorRate: 0.01}
	for _, tc := range []struct {
		name        string
		rec         *results.Record
		failure     error
		met, genLim bool
		reason      string
	}{
		{"met", stepRecord(t, 1000, 0, 5*time.Millisecond, 100, 100), nil, true, false, ""},
		{"slow", stepRecord(t, 1000, 0, 30*time.Millisecond, 100, 100), nil, false, false, "ms above 20ms"},
		{"errors", stepRecord(t, 900, 100, 5*time.Millisecond, 100, 100), nil, false, false, "10% of connections failed, above 1%"},
		{"not achieved", stepRecord(t, 1000, 0, 5*time.Millisecond, 100, 50), nil, false, false, "started 50 connections per second"},
		{"nothing measured", stepRecord(t, 0, 0, 0, 100, 100), nil, false, false, "no latency was measured"},
		{"in-flight cap", stepRecord(t, 1000, 0, 5*time.Millisecond, 100, 100),
			&measure.RateError{Cause: measure.CauseInflight}, false, false, "the schedule was not held (in-flight cap)"},
		{"client CPU", stepRecord(t, 1000, 0, 5*time.Millisecond, 100, 100),
			&measure.RateError{Cause: measure.CauseClientCPU, ClientCores: 2, Cores: 2}, false, true, ""},
		{"machine CPU", stepRecord(t, 1000, 0, 5*time.Millisecond, 100, 100),
			&measure.RateError{Cause: measure.CauseClientCPU, ClientCores: 0.5, Cores: 2}, false, false, "the schedule was not held (client CPU)"},
	} {
		rs := loadgen.JudgeStep(tc.rec, tc.failure, slo)
		if rs.Met != tc.met || rs.GeneratorLimited != tc.genLim || !strings.Contains(rs.Reason, tc.reason) || rs.Met != (rs.Reason == "") {
			t.Errorf("%s: met %v, generator-limited %v, reason %q; want %v, %v, %q", tc.name, rs.Met, rs.GeneratorLimited, rs.Reason, tc.met, tc.genLim, tc.reason)
		}
	}
}

// TestRateResultAnswer: the answer names the bracket, or the side of it
// that was measured.
func TestRateResultAnswer(t *testing.T) {
	t.Parallel()
	slo := loadgen.SLO{Percentile: 99, Latency: 20 * time.Millisecond, MaxErrorRate: 0.01}
	for _, tc := range []struct {
		res  loadgen.RateResult
		want string
	}{
		{loadgen.RateResult{Rate: 800, Failed: 1600}, "sustains 800/s within p99=20ms,error=1%; 1600/s did not"},
		{loadgen.RateResult{Failed: 20}, "no rate measured met p99=20ms,error=1% (lowest tried: 20/s)"},
		{loadgen.RateResult{Rate: 3200, Limit: "MaxRate"}, "3200/s met p99=20ms,error=1%, the highest rate measured; the sustainable rate is at least that (MaxRate)"},
	} {
		if got := tc.res.Answer(slo); !strings.Contains(got, tc.want) {
			t.Errorf("%+v: %q, want %q", tc.res, got, tc.want)
		}
	}
}
