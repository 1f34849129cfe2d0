package runner

import (
	"context"
	"errors"
	"maps"
	"strings"

	"github.com/tlsbench/tlsbench/internal/field"
	"github.com/tlsbench/tlsbench/loadgen"
	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/tlsconf"
)

// FindRate replaces each open-loop case of a plan by a search for the
// highest rate at which it meets SLO (see loadgen.SearchRate): each
// step is the case measured at one rate, as an open-loop case would be
// (Iterations windows, of Duration/Iterations when Duration is set),
// and writes a results.KindRateStep record; the search ends with a
// results.KindRateSearch record holding the answer and its bracket.
// The plan's single rate (Rates) is the first one tried.
type FindRate struct {
	SLO loadgen.SLO
	// Search bounds the search (growth, precision, steps, highest
	// rate); its Start comes from the plan's rate.
	Search loadgen.RateSearch
}

// FindRateSegment ends the name of a search: the case's name with the
// rate's segment replaced by it (handshake/tls1.3/full/find-rate); its
// steps add their rate's (…/find-rate/r1600).
const FindRateSegment = "find-rate"

// validateFindRate checks a plan's search.
func (p *Plan) validateFindRate() error {
	f := p.FindRate
	if f == nil {
		return nil
	}
	// The rates of a search are the plan's rules (validateOpen).
	switch {
	case !(f.SLO.Latency > 0) || !(f.SLO.Percentile > 0 && f.SLO.Percentile < 100):
		return plan.Errorf(plan.Settings.SLO, f.SLO.String(), "give a latency goal, e.g. p99=20ms")
	case f.SLO.MaxErrorRate < 0 || f.SLO.MaxErrorRate > 1:
		return plan.Errorf(plan.Settings.SLO, f.SLO.String(), "the error share must be from 0%% to 100%%")
	}
	s := f.Search
	s.Start = p.Rates[0]
	// The search's own checks, named by the plan's settings where a
	// setting gives the search's field (its start is the rate given).
	err := s.Validate()
	var fe *field.Error
	if errors.As(err, &fe) {
		switch fe.Field {
		case "Start":
			return plan.Errorf(plan.Settings.Rate, fe.Value, "%s", fe.Reason)
		case "MaxRate":
			return plan.Errorf(plan.Settings.MaxRate, fe.Value, "%s", fe.Reason)
		}
	}
	return err
}

// findRate runs the search of case c against srv: the records of its
// steps, then the answer's.
func (st *runState) findRate(ctx context.Context, c *Case, index, total int, srv *builtin) ([]*results.Record, error) {
	f := st.plan.FindRate
	name := searchName(c)
	var recs []*results.Record
	search := f.Search
	search.Start = c.Rate
	search.Words = st.plan.Words
	if p := st.plan; p.Duration > 0 && p.Iterations > 0 {
		// Below one connection per window a step would measure more
		// than its rate (a window starts at least one): stop there.
		// Above it, a window starts whole connections: the rates tried
		// are those the windows keep, or a step asked for 21.09/s
		// would run at 20/s and be judged as if it had run at 21.09/s.
		window := p.Duration.Seconds() / float64(p.Iterations)
		search.MinRate = max(search.MinRate, 1, 1/window)
		search.Resolution = float64(p.Iterations) / p.Duration.Seconds()
	}
	res, err := loadgen.SearchRate(ctx, search, func(ctx context.Context, rate float64) (loadgen.RateStep, error) {
		step := *c
		step.Rate = rate
		step.Name = name + "/r" + RateName(rate)
		step.Params = maps.Clone(c.Params)
		step.Params["rate"] = RateName(rate)
		got, err := st.measureCase(ctx, &step, index, total, srv)
		if len(got) == 0 {
			return loadgen.RateStep{}, err
		}
		rec := got[0]
		var rs loadgen.RateStep
		var serr error
		if err != nil && !isCaseFailure(err) {
			// The failure says nothing of the rate (the run
			// interrupted, a server that died): it ends the search.
			serr = err
		} else {
			rs = loadgen.JudgeStep(rec, err, f.SLO)
		}
		rec.Kind, rec.SLO, rec.SLOMet = results.KindRateStep, f.SLO.String(), &rs.Met
		if err == nil && !rs.Met {
			// A failed case's notes say why already.
			rec.Notes = append(rec.Notes, "goal not met: "+rs.Reason)
		}
		recs = append(recs, rec)
		return rs, serr
	})
	if len(res.Steps) > 0 {
		recs = append(recs, st.searchRecord(c, name, res))
	}
	return recs, err
}

// searchName is the name of c's search: its name with the rate's
// segment replaced.
func searchName(c *Case) string {
	seg := "/r" + RateName(c.Rate)
	return strings.TrimSuffix(c.Name, seg) + "/" + FindRateSegment
}

// searchRecord is the answer of c's search: its parameters (without a
// rate), the goal, the bracket and what ended the search.
func (st *runState) searchRecord(c *Case, name string, res loadgen.RateResult) *results.Record {
	sp := st.plan.sides()[0]
	rec := results.Record{Env: st.envOf(&sp), Target: sp.target.Addr, SessionStore: sessionStore(st.plan, &sp)}
	rec.Name, rec.Kind, rec.TLSVersion = name, results.KindRateSearch, tlsconf.VersionName(c.Version)
	rec.Resume, rec.Mutual = c.Resume, c.Mutual
	rec.Transport = TransportTCP
	c.Record(&rec)
	rec.Params = maps.Clone(rec.Params)
	delete(rec.Params, "rate")
	rec.SLO, rec.Steps, rec.SearchLimit = st.plan.FindRate.SLO.String(), len(res.Steps), res.Limit
	if res.Rate > 0 {
		rec.RateSustained = &res.Rate
	}
	if res.Failed > 0 {
		rec.RateFailed = &res.Failed
	}
	rec.Notes = append(rec.Notes, res.Answer(st.plan.FindRate.SLO))
	return &rec
}
