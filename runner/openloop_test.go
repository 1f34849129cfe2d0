package runner_test

import (
	"context"
	"crypto/tls"
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tlsbench/tlsbench/internal/testchild"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/runner"
	"github.com/tlsbench/tlsbench/stats"
)

func ratePlan() runner.Plan {
	return runner.Plan{
		Versions:      []uint16{tls.VersionTLS13},
		Resume:        []bool{false, true},
		Rates:         []float64{200},
		Handshakes:    40,
		Iterations:    2,
		Warmup:        1,
		MinResumption: 0.99,
		ConnTimeout:   10 * time.Second,
		ChildEnv:      []string{testchild.Env()},
	}
}

// TestRateAxis: rates replace concurrency as the last segment of a case
// name and in its params, beside the arrival shape.
func TestRateAxis(t *testing.T) {
	t.Parallel()
	p := ratePlan()
	p.Rates, p.Arrival = []float64{500, 2000, 0.5}, results.ArrivalPoisson
	var names []string
	for _, c := range p.Cases() {
		names = append(names, c.Name)
		if _, ok := c.Params["concurrency"]; ok || c.Params["arrival"] != "poisson" || c.Params["rate"] != runner.RateName(c.Rate) {
			t.Errorf("%s: params %v; want rate and arrival, no concurrency", c.Name, c.Params)
		}
	}
	want := []string{"handshake/tls1.3/full/r500", "handshake/tls1.3/full/r2000", "handshake/tls1.3/full/r0.5",
		"handshake/tls1.3/resume/r500", "handshake/tls1.3/resume/r2000", "handshake/tls1.3/resume/r0.5"}
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("cases %v, want %v", names, want)
	}
}

// TestValidateOpenLoop: what an open-loop plan cannot have is refused,
// naming the field and no flag.
func TestValidateOpenLoop(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		mutate func(*runner.Plan)
		want   string
	}{
		{"rate and concurrency", func(p *runner.Plan) { p.Concurrency = []int{8} }, "Rates"},
		{"zero rate", func(p *runner.Plan) { p.Rates = []float64{0} }, "Rates"},
		{"rate twice", func(p *runner.Plan) { p.Rates = []float64{100, 100} }, "Rates"},
		{"arrival", func(p *runner.Plan) { p.Arrival = "bursty" }, "Arrival"},
		{"arrival without rate", func(p *runner.Plan) { p.Rates, p.Concurrency, p.Arrival = nil, []int{1}, "poisson" }, "Arrival"},
		{"cap", func(p *runner.Plan) { p.MaxInflight = -1 }, "MaxInflight"},
		{"target error", func(p *runner.Plan) { p.TargetError = 0.02 }, "TargetError"},
		{"versus", func(p *runner.Plan) { p.Versus.Self = true }, "Rates"},
		{"proxy", func(p *runner.Plan) { p.Proxy.URL = runner.ProxyBuiltin }, "Rates"},
		{"empty windows", func(p *runner.Plan) { p.Rates, p.Duration, p.Iterations = []float64{1}, time.Second, 10 }, "Duration"},
		{"negative duration", func(p *runner.Plan) { p.Duration = -time.Second }, "Duration"},
		// Windows of 200 ms start 4 connections at 21.09/s: 20/s.
		{"a rate between whole connections per window", func(p *runner.Plan) {
			p.Rates, p.Duration, p.Iterations = []float64{21.09}, 2*time.Second, 10
		}, "Rates"},
		{"windows too short", func(p *runner.Plan) {
			p.Rates, p.Concurrency, p.Duration, p.Iterations = nil, []int{1}, 90*time.Millisecond, 10
		}, "Duration"},
		{"duration and target error", func(p *runner.Plan) {
			p.Rates, p.Concurrency, p.Duration, p.TargetError = nil, []int{1}, time.Second, 0.02
		}, "TargetError"},
	} {
		p := ratePlan()
		tt.mutate(&p)
		err := p.Validate()
		var fe *plan.Error
		if !errors.As(err, &fe) || fe.Setting == nil || fe.Setting.Name != plan.OfField(tt.want).Name || strings.Contains(err.Error(), "--") {
			t.Errorf("%s: error %v, want a field error naming %s (and no flag)", tt.name, err, tt.want)
		}
	}
}

// TestOpenLoopAgainstChildServer runs open-loop cases, full and resumed,
// against the built-in server in its own process: every scheduled
// connection starts, resumption is verified by both ends, and the record
// carries the schedule (concurrency 0, its cap, rate and arrival).
func TestOpenLoopAgainstChildServer(t *testing.T) {
	t.Parallel()
	var recs []results.Record
	err := runner.Run(context.Background(), ratePlan(), func(r *results.Record) error {
		recs = append(recs, *r)
		return nil
	})
	var re *measure.RateError
	if err != nil && (!errors.As(err, &re) || re.Cause == measure.CauseInflight) {
		t.Fatal(err)
	} else if err != nil {
		// A machine loaded by other work can leave the generator behind
		// its schedule; what is checked here is there either way.
		t.Logf("loaded machine: %v", err)
	}
	if len(recs) != 2 {
		t.Fatalf("%d records, want 2", len(recs))
	}
	for _, rec := range recs {
		want := 0.0
		if rec.Resume {
			want = 1
		}
		switch {
		case rec.ResumptionRate != want || rec.ServerResumed == nil || *rec.ServerResumed != rec.Resumed:
			t.Errorf("%s: resumed %d (%.2f), server %v; want rate %.0f by both counts", rec.Name, rec.Resumed, rec.ResumptionRate, rec.ServerResumed, want)
		case rec.Handshakes+rec.Errors != 80 || *rec.Dropped != 0:
			t.Errorf("%s: %d handshakes, %d errors, %d dropped; want all 80 scheduled started", rec.Name, rec.Handshakes, rec.Errors, *rec.Dropped)
		case rec.Concurrency != 0 || rec.MaxInflight != 4096 || *rec.RateTarget != 200 || rec.Arrival != "constant" || rec.Params["rate"] != "200":
			t.Errorf("%s: concurrency %d, cap %d, rate %v, arrival %q, params %v", rec.Name, rec.Concurrency, rec.MaxInflight, *rec.RateTarget, rec.Arrival, rec.Params)
		case rec.ServerCPUUS == nil || rec.ServiceP99US == nil || rec.StartLatenessP99US == nil:
			t.Errorf("%s: server CPU %v, service p99 %v, start lateness p99 %v: all measured", rec.Name, rec.ServerCPUUS, rec.ServiceP99US, rec.StartLatenessP99US)
		}
	}
}

// stallAfterWarmup stops the child server (SIGSTOP) 300 ms after the
// warm-up of the plan's case ends, for a second, then lets it go on
// (SIGCONT): a server that stalls. stalled is closed once it went on.
func stallAfterWarmup(t *testing.T, p *runner.Plan) (stalled chan struct{}) {
	var (
		mu   sync.Mutex
		pid  int
		once sync.Once
	)
	stalled = make(chan struct{})
	notice := regexp.MustCompile(`pid (\d+) on (\S+)`)
	p.Notice = func(s string) {
		if m := notice.FindStringSubmatch(s); m != nil {
			mu.Lock()
			pid, _ = strconv.Atoi(m[1])
			mu.Unlock()
		}
	}
	p.Progress = func(cp runner.CaseProgress) {
		if !cp.Progress.Warmup {
			return
		}
		once.Do(func() {
			mu.Lock()
			defer mu.Unlock()
			go func(pid int) {
				defer close(stalled)
				// After the first window's start: the iteration reads
				// the server's counters before it.
				time.Sleep(300 * time.Millisecond)
				if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
					t.Errorf("SIGSTOP %d: %v", pid, err)
				}
				time.Sleep(time.Second)
				syscall.Kill(pid, syscall.SIGCONT)
			}(pid)
		})
	}
	return stalled
}

// runStalled runs a one-case plan whose server stalls for a second and
// returns its record, whatever its gates said.
func runStalled(t *testing.T, p runner.Plan) results.Record {
	t.Helper()
	stalled := stallAfterWarmup(t, &p)
	var recs []results.Record
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	err := runner.Run(ctx, p, func(r *results.Record) error {
		recs = append(recs, *r)
		return nil
	})
	select {
	case <-stalled:
	default:
		t.Fatalf("the server was never stalled: %v", err)
	}
	if len(recs) != 1 {
		t.Fatalf("%d records (error %v), want the case's", len(recs), err)
	}
	t.Logf("%s: %v", recs[0].Name, err)
	return recs[0]
}

// latencyMaxUS is the largest latency in the record's histogram.
func latencyMaxUS(t *testing.T, rec results.Record) float64 {
	t.Helper()
	h, err := stats.DecodeLatency(rec.Histogram)
	if err != nil {
		t.Fatal(err)
	}
	return h.PercentileUS(100)
}

// TestStallOpenLoopShowsClosedLoopHides stops the real child server for a
// second in the middle of a measured window. Open loop (200 starts per
// second, at most 100 open): the connections due during the stall wait
// for it, each from its intended start, so the p99 and the maximum both
// reach 0.9 s, and the starts due once 100 were open are counted late.
// Closed loop (one handshake at a time): the stall holds up a single
// connection, the loop simply waits, and p99 and p99.9 stay far below
// it: at most the maximum shows it.
func TestStallOpenLoopShowsClosedLoopHides(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a timing test: a stalled server against open and closed loops, seconds of load")
	}
	t.Parallel()
	open := ratePlan()
	// One measured window (after the warm-up's): the stall falls in it,
	// 0.3 s into its 2.5 s, else the run ends before the stall does and
	// runStalled fails.
	open.Resume, open.Rates, open.Handshakes, open.MaxInflight, open.Iterations = []bool{false}, []float64{200}, 500, 100, 1
	open.MaxErrorRate = 1
	rec := runStalled(t, open)
	if rec.P99US < 900_000 || latencyMaxUS(t, rec) < 900_000 {
		t.Errorf("open loop: p99 %.0f µs, max %.0f µs; want both at least the stall's 0.9 s", rec.P99US, latencyMaxUS(t, rec))
	}
	if rec.Late == nil || *rec.Late == 0 {
		t.Errorf("open loop: late %v; the stall kept 100 connections open, so later starts waited", rec.Late)
	}
	t.Logf("open loop: p99 %.0f µs, max %.0f µs, late %d, dropped %d, service p99 %.0f µs", rec.P99US, latencyMaxUS(t, rec), *rec.Late, *rec.Dropped, *rec.ServiceP99US)

	closed := ratePlan()
	// One measured iteration of 2000: one stalled handshake is above
	// the p99.9 of 2000 latencies, as of the 4000 of two. Under the race
	// detector 1000 (p99.9 is then the 999th: still above one stalled
	// handshake, and the window still outlasts the stall); the warm-up,
	// as long as the iteration, is what the stall waits for.
	closedHandshakes := 2000
	if raceDetector {
		closedHandshakes = 1000
	}
	closed.Resume, closed.Rates, closed.Concurrency, closed.Handshakes, closed.Iterations = []bool{false}, nil, []int{1}, closedHandshakes, 1
	closed.MaxErrorRate = 1
	rec = runStalled(t, closed)
	// The one connection the stall caught shows it in the maximum only
	// when it was caught in its handshake (not in its ping or close):
	// logged, not asserted.
	if rec.P99US >= 900_000 || rec.P999US >= 900_000 {
		t.Errorf("closed loop: p99 %.0f µs, p99.9 %.0f µs; one stalled handshake of %d cannot reach them", rec.P99US, rec.P999US, rec.Handshakes)
	}
	t.Logf("closed loop: p99 %.0f µs, p99.9 %.0f µs, max %.0f µs over %d handshakes", rec.P99US, rec.P999US, latencyMaxUS(t, rec), rec.Handshakes)
}

// TestRateGateAgainstChildServer: 20,000 starts per second with one
// connection open at a time is more than any server can answer: the
// case fails the schedule's gates, blaming the in-flight cap, and its
// record is emitted marked failed, the run going on as for other gates.
func TestRateGateAgainstChildServer(t *testing.T) {
	t.Parallel()
	p := ratePlan()
	p.Resume, p.Rates, p.Handshakes, p.Iterations, p.Warmup, p.MaxInflight = []bool{false}, []float64{20000}, 1000, 1, 0, 1
	var recs []results.Record
	err := runner.Run(context.Background(), p, func(r *results.Record) error {
		recs = append(recs, *r)
		return nil
	})
	var fc *runner.FailedCases
	var re *measure.RateError
	if !errors.As(err, &fc) || !errors.As(err, &re) {
		t.Fatalf("error %v (%T); want the case failed by the schedule's gate", err, err)
	}
	if re.Cause != measure.CauseInflight || re.Dropped == 0 || !strings.Contains(re.Error(), "in-flight cap was reached") {
		t.Errorf("cause %q, dropped %d, error %q; want the cap blamed for the drops", re.Cause, re.Dropped, err)
	}
	if len(recs) != 1 || recs[0].Verdict != "failed" || *recs[0].Dropped != re.Dropped || *recs[0].Dropped+recs[0].Handshakes+recs[0].Errors != 1000 {
		t.Errorf("records %d: want the failed case's, its 1000 scheduled connections all counted", len(recs))
	}
}
