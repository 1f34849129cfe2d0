package compare

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tlsbench/tlsbench/report"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/stats"
)

// DefaultMinEffect is the smallest change (a fraction) called faster or
// slower when no noise floor was measured: smaller significant changes
// are "within noise".
const DefaultMinEffect = 0.02

// WithinNoise: the change is significant but no larger than the noise
// floor (the A/A difference measured in the same run, or MinEffect).
const WithinNoise Verdict = "within noise"

// ComparePaired compares the sides of an interleaved A/B run (records
// with Side set): side b against side a, case by case, on the paired
// per-iteration ratios (stats.ComparePaired). Where a case has a side
// a2, the A/A comparison of a2 against a is its measured noise floor.
// It fails only when recs hold no interleaved run.
//
// A case is significantly changed when the signed-rank test's p is at
// most Alpha and the ratio's 99.9% interval excludes 1; it is faster or
// slower only when, besides, the change exceeds the floor: MinEffect, or
// the largest change the A/A interval of side a2 allows when that is
// larger. Records that belong to no side are left out, with a note.
func ComparePaired(recs []results.Record, opts CompareOptions) (*Comparison, error) {
	if !report.Interleaved(recs) {
		return nil, errors.New("the records hold no interleaved run: none names a side")
	}
	c := newComparison(opts, report.SideAName(recs), "the other side")
	c.Paired = true
	var names []string
	groups := map[string]map[string][]*results.Record{}
	unsided := 0
	for i := range recs {
		r := &recs[i]
		if r.Side != results.SideA && r.Side != results.SideB && r.Side != results.SideA2 {
			unsided++
			continue
		}
		if groups[r.Name] == nil {
			names = append(names, r.Name)
			groups[r.Name] = map[string][]*results.Record{}
		}
		groups[r.Name][r.Side] = append(groups[r.Name][r.Side], r)
	}
	if unsided > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("%d %s of no side (a, b or a2) left out", unsided, report.Plural(int64(unsided), "record", "records")))
	}
	if vs := versusValues(recs); len(vs) > 1 {
		c.Notes = append(c.Notes, fmt.Sprintf("the records name %d different sides b (%s): they come from more than one run, and each case pairs only its own", len(vs), strings.Join(vs, "; ")))
	}
	for _, name := range names {
		g := groups[name]
		a, b := g[results.SideA], g[results.SideB]
		switch {
		case len(a) > 0 && len(b) > 0:
			c.setEnvs(a, b)
			c.Cases = append(c.Cases, c.comparePairedCase(a, b, g[results.SideA2]))
		case len(a) > 0:
			c.OnlyBase = append(c.OnlyBase, oneSided(a))
		case len(b) > 0:
			c.OnlyCand = append(c.OnlyCand, oneSided(b))
		default: // side a2 alone: nothing to compare it with
			c.OnlyBase = append(c.OnlyBase, oneSided(g[results.SideA2]))
		}
	}
	if opts.CandName == "" {
		if v := report.VersusOf(recs); v != "" {
			c.CandName = v
		}
	}
	return c, nil
}

// setEnvs takes the environments from the first case with both sides.
func (c *Comparison) setEnvs(a, b []*results.Record) {
	if envRecorded(c.BaseEnv) || envRecorded(c.CandEnv) {
		return
	}
	c.BaseEnv, c.CandEnv = a[0].Env, b[0].Env
	c.EnvDiffers = report.EnvDiff([]results.Record{{Env: c.BaseEnv}, {Env: c.CandEnv}})
}

// versusValues lists the different Versus values of recs, in order.
func versusValues(recs []results.Record) []string {
	var out []string
	for i := range recs {
		if v := recs[i].Versus; v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// pairedSkip are the differences an interleaved run makes between its
// sides on purpose: side b's address (--versus), and a setting side b
// overrides (--versus-set key-cache=off, early-data-policy=reject),
// which its Versus names.
func pairedSkip(a, b []*results.Record) map[string]bool {
	skip := map[string]bool{"target": true, "params.target": true, "params.versus": true}
	for _, r := range append(append([]*results.Record{}, a...), b...) {
		if strings.Contains(r.Versus, "key-cache") || strings.Contains(r.Versus, "key_cache") {
			skip["key_cache"] = true
			skip["params.key_cache"] = true
		}
		if strings.Contains(r.Versus, "early-data-policy") {
			skip["early_data_policy"] = true
		}
	}
	return skip
}

// comparePairedCase judges side b against side a of one case; a2, when
// given, sets the noise floor.
func (c *Comparison) comparePairedCase(a, b, a2 []*results.Record) CaseComparison {
	cc, ax, bx := newCaseComparison(a, b, "side a", "side b")
	cc.Paired = true
	cc.Test = TestWilcoxon
	cc.MinSamples = stats.PairedMinSamples(c.Alpha)
	cc.Floor = c.MinEffect
	cc.RatioSD = math.NaN()
	cc.P = math.NaN()
	cc.Ratio = math.NaN()
	if len(a2) > 0 {
		c.measureFloor(&cc, a, a2, ax)
	}

	bad := append(unusable("side a", a), unusable("side b", b)...)
	diffs := costDifferencesExcept(a, b, pairedSkip(a, b))
	cc.Mismatch = append(bad, diffs...)
	switch {
	case len(cc.Mismatch) > 0 && !(c.AllowMismatch && a[0].Kind == b[0].Kind):
		c.withdraw(&cc, "not comparable: "+mismatchText(bad, diffs))
		return cc
	case len(cc.Mismatch) > 0:
		cc.Notes = append(cc.Notes, "compared although "+mismatchText(bad, diffs))
	}
	if len(ax) != len(bx) {
		// Samples are paired by round: unequal counts mean the records
		// were not written by one interleaved run, or were cut.
		c.withdraw(&cc, fmt.Sprintf("not comparable: side a has %d samples and side b %d, but an interleaved run pairs them round by round; the results file was edited or cut", len(ax), len(bx)))
		return cc
	}
	c.judgePaired(&cc, ax, bx)
	cc.checkResumption(c.ResumptionTolerance)
	c.compareMetrics(&cc, a, b, a2)
	return cc
}

// withdraw makes cc not comparable for the reason note: no number is
// left to invite reading it as a result.
func (c *Comparison) withdraw(cc *CaseComparison, note string) {
	cc.Verdict = NotComparable
	cc.Ratio, cc.RatioSD, cc.P, cc.Change, cc.Slowdown, cc.AllocDelta = math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()
	cc.CILo, cc.CIHi = math.NaN(), math.NaN()
	cc.Notes = append(cc.Notes, note)
}

// judgePaired sets the paired figures and the verdict of cc.
func (c *Comparison) judgePaired(cc *CaseComparison, ax, bx []float64) {
	st := stats.ComparePaired(ax, bx, c.Alpha)
	cc.Ratio, cc.CILo, cc.CIHi, cc.P = st.Ratio, st.Lo, st.Hi, st.P
	cc.setChange()
	if st.Dropped > 0 {
		cc.Notes = append(cc.Notes, fmt.Sprintf("%d %s with a value that is not a positive number left out", st.Dropped, report.Plural(int64(st.Dropped), "pair", "pairs")))
	}
	excludesOne := cc.CILo > 1 || cc.CIHi < 1
	switch {
	case st.N == 0:
		cc.Verdict = TooFewSamples
		cc.P, cc.CILo, cc.CIHi = math.NaN(), math.NaN(), math.NaN()
		cc.Notes = append(cc.Notes, "no pairs of samples: nothing to test")
	case st.TooFew:
		// Untested: no p-value or interval invites reading one.
		cc.Verdict = TooFewSamples
		cc.P, cc.CILo, cc.CIHi = math.NaN(), math.NaN(), math.NaN()
		cc.Notes = append(cc.Notes, fmt.Sprintf("%d %s: the signed-rank test needs at least %d to reach alpha %s; rerun with more iterations (--iterations)",
			st.N, report.Plural(int64(st.N), "pair", "pairs"), cc.MinSamples, FormatAlpha(c.Alpha)))
	case cc.P <= c.Alpha && excludesOne:
		cc.Verdict = cc.directed()
	default:
		cc.Verdict = NoChange
	}
}

// measureFloor compares side a2 with side a, an A/A comparison within
// the same run, and raises cc.Floor to the largest change its 99.9%
// interval allows. An unusable a2 leaves the floor at MinEffect, noted.
func (c *Comparison) measureFloor(cc *CaseComparison, a, a2 []*results.Record, ax []float64) {
	why := strings.Join(append(append(unusable("side a2", a2), unusable("side a", a)...), costDifferencesExcept(a, a2, pairedSkip(a, a2))...), "; ")
	a2x := samplesOf(a2, a2[0].Kind, cc.Figure)
	switch {
	case why != "":
	case len(a2x) != len(ax):
		why = fmt.Sprintf("side a2 has %d samples and side a %d", len(a2x), len(ax))
	default:
		st := stats.ComparePaired(ax, a2x, c.Alpha)
		if math.IsNaN(st.Lo) || math.IsNaN(st.Hi) {
			why = "side a2 has fewer than two pairs"
			break
		}
		measured := math.Max(math.Abs(st.Lo-1), math.Abs(st.Hi-1))
		cc.Notes = append(cc.Notes, fmt.Sprintf("noise floor measured in this run (side a2 against side a): %s", plusMinusPercent(measured)))
		if measured > cc.Floor {
			cc.Floor, cc.FloorMeasured = measured, true
		}
		return
	}
	cc.Notes = append(cc.Notes, "no noise floor measured: "+why)
}

func plusMinusPercent(f float64) string {
	return "±" + strings.TrimPrefix(signedPercent(f), "+")
}
