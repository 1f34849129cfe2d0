package loadgen

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime/pprof"
	"time"

	"github.com/tlsbench/tlsbench/internal/field"
	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/results"
)

// RunInterleaved measures one case on two or three sides in one run: the
// sides' iterations alternate in ABBA order (round r runs the sides in
// their order when r is even, in reverse when odd), so that drift during
// the run hits every side alike, and each round's values are a pair
// (samples_us[i] of every record was measured in round i).
//
// sides[0] is side a; sides[1] side b; sides[2], when given, a second
// instance of side a (the noise floor). Each HandshakeCase is complete on
// its own (dialer, clients, observers, gates, Record with Side and Versus
// set by the caller); Iterations, Warmup, MaxDuration, IterationsGiven and
// TargetError are taken from sides[0]. MaxDuration is per side: the rounds stop once the
// measured rounds took sides×MaxDuration. With TargetError set, rounds
// go on past Iterations until the 99.9% confidence interval of the ratio
// of side b to side a (stats.ComparePaired) is at most TargetError of it.
//
// Every side primes and warms up (its warm-up rounds interleaved too);
// a round counts only when every side's iteration in it succeeded, so
// that the records always hold the same number of paired samples. The
// records come back in the order of sides, with the errors of the sides
// joined (each wrapped with its side's name), as RunHandshakes returns
// them: a record may come with an error, and a side whose warm-up failed
// has no record (nor has any side then: nothing was measured).
//
// What ended the rounds (Record.StoppedBy) is the same on every side's
// record. A side whose iteration failed outright fails, with its record
// of the rounds kept before; the other sides' records stop there too,
// noted but not failed. A side that fails a gate fails alone.
func RunInterleaved(ctx context.Context, sides []measure.HandshakeCase) ([]*results.Record, error) {
	ss, err := newSides(sides)
	if err != nil {
		return nil, err
	}
	labels := profiled(ss)
	for _, s := range ss {
		if labels {
			s.label(ctx)
		}
		defer s.r.startWorkers()()
	}
	if labels {
		defer pprof.SetGoroutineLabels(ctx)
	}
	recs := make([]*results.Record, len(ss))
	if err := warmupInterleaved(ctx, ss); err != nil {
		return recs, err
	}
	failed := measureInterleaved(ctx, ss)
	var errs []error
	for i, s := range ss {
		if len(s.m.Samples) == 0 {
			// Nothing was kept: the side that stopped the first round
			// says why; the others have no record and no error.
			if s.m.StopErr != nil || failed == nil {
				_, err := s.r.MeasuredOrErr(ctx, s.m)
				errs = append(errs, s.wrap(err))
			}
			continue
		}
		rec, err := s.r.Finish(ctx, s.m, s.r.Summarise(s.m))
		recs[i] = rec
		errs = append(errs, s.wrap(s.r.Case.ListenFailure(err, &s.m.Meter.Listen, rec)))
	}
	return recs, errors.Join(errs...)
}

// newSides checks the sides of an interleaved case and readies their
// runners: the stop settings are side a's.
func newSides(cases []measure.HandshakeCase) ([]*side, error) {
	if len(cases) < 2 || len(cases) > 3 {
		return nil, field.Errorf("Sides", len(cases), "an interleaved case has 2 or 3 sides (a, b and optionally a second a)")
	}
	ss := make([]*side, len(cases))
	for i := range cases {
		hc := cases[i]
		hc.MaxDuration, hc.TargetError, hc.Hooks = cases[0].MaxDuration, cases[0].TargetError, cases[0].Hooks
		hc.IterationsGiven = cases[0].IterationsGiven
		hc.Record.Side = cmp.Or(hc.Record.Side, sideNames[i])
		s := &side{name: hc.Record.Side, r: newCaseRunner(&hc)}
		if hc.Rate > 0 {
			// Rounds pair iterations of waves; a schedule's windows
			// would each need the other side to wait its length.
			return nil, s.wrap(field.Errorf("Rate", hc.Rate, "an open-loop case is measured alone, not interleaved"))
		}
		if err := hc.SetDefaults(); err != nil {
			return nil, s.wrap(err)
		}
		if i > 0 {
			if err := agree(ss[0], s); err != nil {
				return nil, s.wrap(err)
			}
		}
		ss[i] = s
	}
	return ss, nil
}

// agree checks that side s measures what side a does: the rounds pair
// their iterations, so they must be alike but for the server measured.
func agree(a, s *side) error {
	x, y := a.r.Case, s.r.Case
	for _, f := range []struct {
		name string
		a, s any
	}{
		{"Concurrency", x.Concurrency, y.Concurrency},
		{"Handshakes", x.Handshakes, y.Handshakes},
		{"Iterations", x.Iterations, y.Iterations},
		{"Warmup", x.Warmup, y.Warmup},
		{"Resume", x.Resume, y.Resume},
		{"Version", x.Version, y.Version},
	} {
		if f.a != f.s {
			return field.Errorf(f.name, f.s, "side %s has %v: the sides of an interleaved case must agree on it", a.name, f.a)
		}
	}
	return nil
}

// order is the order of the sides in round r: ABBA, so that every side
// runs first in every other round and drift within a round evens out.
func order(r, n int) []int {
	o := make([]int, n)
	for i := range o {
		o[i] = i
		if r%2 == 1 {
			o[i] = n - 1 - i
		}
	}
	return o
}

// warmupInterleaved primes every side, then runs the warm-up in rounds.
// A side whose warm-up fails stops the case: nothing is measured.
func warmupInterleaved(ctx context.Context, ss []*side) error {
	for _, s := range ss {
		if s.r.Case.Resume {
			if err := s.r.prime(ctx); err != nil {
				return s.wrap(err)
			}
		}
	}
	ws := make([]*measure.Warming, len(ss))
	for i, s := range ss {
		ws[i] = s.r.StartWarmup()
		defer func() { s.r.Budget = nil }()
	}
	began := time.Now()
	for round := 0; round < ss[0].r.Case.Warmup; round++ {
		if ss[0].r.warmupCut(round, len(ss), began) {
			break
		}
		for _, i := range order(round, len(ss)) {
			if err := ss[i].r.WarmOne(ctx, ws[i], round); err != nil {
				return ss[i].wrap(err)
			}
		}
	}
	var errs []error
	for i, s := range ss {
		errs = append(errs, s.wrap(s.r.EndWarmup(ws[i])))
	}
	return errors.Join(errs...)
}

// measureInterleaved runs the measured rounds until side a's stop rule
// ends them, keeping a round only when every side's iteration in it
// succeeded. It returns the side whose iteration failed, if one did.
func measureInterleaved(ctx context.Context, ss []*side) (failed *side) {
	for _, s := range ss {
		s.m = s.r.StartMeasure()
		s.m.Meter.WatchPeers(peerPIDs(ss, s))
		defer func() { s.r.Budget = nil }()
	}
	a := ss[0]
	rule := a.r.stopRule(len(ss), func() float64 {
		return a.r.Case.ComparePaired(ss[0].m.Headline(), ss[1].m.Headline(), pairedAlpha).RelError
	})
	for _, s := range ss {
		s.r.Measuring(true)
	}
	began := time.Now()
	stoppedBy := ""
	for stoppedBy == "" {
		ps, i, err := runRound(ctx, ss, len(a.m.Samples))
		if err != nil {
			failed = ss[i]
			stoppedBy = stopSides(ctx, ss, failed, err)
			break
		}
		for i, s := range ss {
			s.r.KeepOne(s.m, ps[i])
		}
		stoppedBy = rule.after(len(a.m.Samples), time.Since(began))
	}
	for _, s := range ss {
		s.r.Measuring(false)
	}
	notes := rule.notes(stoppedBy, len(a.m.Samples), "of the ratio of side b to side a", " per side")
	if a.r.warmNote != "" {
		notes = append([]string{a.r.warmNote}, notes...)
	}
	for _, s := range ss {
		s.m.StoppedBy = stoppedBy
		s.m.Notes = append(s.m.Notes, notes...)
	}
	return failed
}

// runRound runs one iteration of every side in round r's order. At the
// first error it stops and returns the index of the side that had it:
// the round's iterations are then dropped, on every side.
func runRound(ctx context.Context, ss []*side, r int) ([]measure.Pending, int, error) {
	ps := make([]measure.Pending, len(ss))
	labels := profiled(ss)
	for _, i := range order(r, len(ss)) {
		if labels {
			ss[i].label(ctx)
		}
		p, err := ss[i].r.RunOne(ctx, ss[i].m)
		if err != nil {
			return nil, i, err
		}
		ps[i] = p
	}
	return ps, 0, nil
}

// stopSides ends measuring on every side after side f's iteration failed
// with err, and returns what stopped them: ctx ended interrupts every
// side; otherwise f failed, and the others stop with it, unfailed.
func stopSides(ctx context.Context, ss []*side, f *side, err error) string {
	f.m.Stop(ctx, err)
	for _, s := range ss {
		switch {
		case s == f:
		case ctx.Err() != nil:
			s.m.Stop(ctx, ctx.Err())
		default:
			s.m.Notes = append(s.m.Notes, fmt.Sprintf("stopped after %d of %d iterations: side %s failed",
				len(s.m.Samples), s.r.Case.Iterations, f.name))
		}
	}
	return f.m.StoppedBy
}

// side is one side of an interleaved case in progress.
type side struct {
	name string // a, b, a2
	r    *caseRunner
	m    *measure.Measured
}

// peerPIDs are the process ids of the servers and proxies of the sides
// other than s, but for s's own: while s measures, they are the run's
// processes, not other load.
func peerPIDs(ss []*side, s *side) []int {
	own := map[int]bool{}
	for _, pid := range processIDs(s.r.Case) {
		own[pid] = true
	}
	var pids []int
	for _, o := range ss {
		if o == s {
			continue
		}
		for _, pid := range processIDs(o.r.Case) {
			if !own[pid] {
				own[pid] = true
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// processIDs are the local processes of hc's server and proxy whose ids
// are known.
func processIDs(hc *measure.HandshakeCase) []int {
	var pids []int
	if p, ok := hc.Server.(measure.ServerProcess); ok {
		pids = append(pids, p.ServerPID())
	}
	if p, ok := hc.Proxy.(measure.ProxyProcess); ok {
		pids = append(pids, p.ProxyPID())
	}
	return pids
}

// label marks the calling goroutine, and those it starts, as side s's
// in a CPU profile (label "side"): a profile of the client, one process
// running every side's connections, can then be split by side.
func (s *side) label(ctx context.Context) {
	pprof.SetGoroutineLabels(pprof.WithLabels(ctx, pprof.Labels("side", s.name)))
}

// profiled reports whether a side's measured iterations are profiled
// (one has a Measuring hook): only then are goroutines labelled.
func profiled(ss []*side) bool {
	for _, s := range ss {
		if s.r.Case.Measuring != nil {
			return true
		}
	}
	return false
}

// wrap names the side in err.
func (s *side) wrap(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("side %s: %w", s.name, err)
}

// sideNames are the sides' names by position, when their Records do not
// name them.
var sideNames = []string{results.SideA, results.SideB, results.SideA2}

// pairedAlpha is the significance level the target error's comparison is
// made at (its RelError does not depend on it).
const pairedAlpha = 0.05
