package compare

import (
	"fmt"
	"math"
	"strings"

	"github.com/tlsbench/tlsbench/report"
	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/stats"
)

// A/B comparison of two sets of results (tlsbench compare, run --baseline).
//
// Every number is derived from the records: per-iteration samples
// (samples_us) for handshake cases, the MB/s of each record for throughput
// cases. The comparison is data ([Comparison]); [RenderComparison] lays it
// out, and [Comparison.CheckRegressions] is the CI gate, so that a caller
// without the CLI (or `run --baseline`) gets the same verdicts.

// Defaults of [CompareOptions].
const (
	// DefaultAlpha is the significance level of the U test, benchstat's.
	DefaultAlpha = 0.05
	// DefaultResumptionTolerance is how far (as a fraction, 0.01 = one
	// percentage point) the two sides' resumption rates may differ before a
	// case is flagged. A resumed handshake costs about a third of a full
	// one, so a few points of resumption move the mean by more than most
	// changes being measured: the tolerance is small on purpose.
	DefaultResumptionTolerance = 0.01
)

// CompareOptions configures [Compare]. The zero value uses the defaults.
type CompareOptions struct {
	// Alpha is the significance level of the Mann-Whitney U test, in
	// (0, 1); 0 means DefaultAlpha.
	Alpha float64
	// ResumptionTolerance is the largest difference between the two
	// sides' resumption rates (a fraction) that is not flagged; 0 means
	// DefaultResumptionTolerance, a negative value flags any difference.
	ResumptionTolerance float64
	// BaseName and CandName name the two sides in reports (for example
	// their file names); empty means "baseline" and "candidate".
	BaseName, CandName string
	// MinEffect is the smallest relative change (a fraction, 0.02 = 2%)
	// called faster or slower; a significant change within it, or within
	// the noise floor measured in the same run when that is larger, is
	// WithinNoise. 0 means DefaultMinEffect; a negative value, none.
	MinEffect float64
	// AllowMismatch compares pairs whose two sides differ in a parameter
	// that changes the cost (see CaseComparison.Mismatch) instead of
	// marking them not comparable; the differences stay in the notes.
	AllowMismatch bool
	// AllowLoad judges pairs of separate runs of which a side was
	// measured under other load (see OtherLoad) instead of leaving them
	// unjudged; the load stays in the notes.
	AllowLoad bool
}

// Verdict is the outcome of comparing one case.
type Verdict string

// The verdicts. Faster and Slower are only given when the U test finds the
// difference significant; the direction is that of the mean, in the sense
// of the case's unit (less time per handshake, more MB/s is faster).
const (
	Faster   Verdict = "faster"
	Slower   Verdict = "slower"
	NoChange Verdict = "no significant change"
	// TooFewSamples: with this many samples the test could not have
	// reached Alpha however different they were; rerun with more
	// iterations. No p-value is made up for a side without samples.
	TooFewSamples Verdict = "too few samples"
	// NotComparable: the two sides differ in what the work costs (kind,
	// group, key type, TLS version, kTLS, session store, …: see
	// CaseComparison.Mismatch), or a sample holds a broken (NaN) value.
	NotComparable Verdict = "not comparable"
)

// Side is one side (baseline or candidate) of a compared case. When a
// results file holds several records of the same name (runs concatenated
// to get more samples), they are pooled: their samples are joined, their
// counts added.
type Side struct {
	// Records is how many records of the name were pooled.
	Records int
	// N is the number of samples the test used: per-iteration values of a
	// handshake case (a record without samples_us counts its mean once),
	// one MB/s value per record of a throughput case.
	N int
	// Mean and Error (half-width of the 99.9% confidence interval, as in
	// every tlsbench report) of the samples, in the case's unit. Error is
	// NaN with fewer than two samples; Mean is NaN without samples.
	Mean, Error float64
	// Resume is whether the case asked for resumption (from the first
	// pooled record); Handshakes and Resumed are summed over the records,
	// and ResumptionRate is Resumed/Handshakes (the first record's rate
	// when no handshakes were counted).
	Resume         bool
	Handshakes     int64
	Resumed        int64
	ResumptionRate float64
	// AllocBytes is the client's allocation per handshake, weighted by
	// handshakes over the pooled records; NaN for throughput cases.
	AllocBytes float64
	// Errors is the number of failed connections, summed.
	Errors int64
}

// CaseComparison compares one case present on both sides.
type CaseComparison struct {
	Name string
	Kind string // the baseline's kind; see Notes when the candidate's differs
	// Unit of Mean and Error: "µs/hs" (handshake) or "MB/s" (throughput).
	Unit string
	// HigherIsBetter is true for throughput (MB/s), false for time.
	HigherIsBetter bool
	// OpenLoop is set for a case with a start rate (the baseline's): its
	// samples are each window's mean latency from the intended start, not
	// a time per handshake.
	OpenLoop   bool
	Base, Cand Side
	// Ratio is mean(candidate)/mean(baseline), RatioSD its standard
	// deviation (see stats.Comparison: NaN with fewer than two samples per
	// side), P the U test's p-value (NaN when there was no test).
	Ratio, RatioSD, P float64
	// Change is Ratio-1: the relative change of the mean in the case's
	// unit (+0.10: the mean is 10% higher).
	Change float64
	// Slowdown is the relative increase in the time the work takes:
	// Ratio-1 for a time, 1/Ratio-1 for a rate. +0.05 is 5% slower,
	// negative is faster. --fail-on-regression compares it with its
	// threshold, so that the gate means the same for both kinds of case.
	Slowdown float64
	// AllocDelta is the change in allocated bytes per handshake
	// (candidate - baseline); NaN for throughput cases.
	AllocDelta float64
	// MinSamples is how many samples per side the test needs to be able
	// to reach Alpha; meaningful when Verdict is TooFewSamples.
	MinSamples int
	Verdict    Verdict
	// ResumptionDiffers flags a case whose two sides resumed at rates
	// further apart than the tolerance, or of which one side asked for
	// resumption and the other did not. Its time comparison compares
	// different mixes of full and resumed handshakes and means nothing
	// until the resumption difference is explained.
	ResumptionDiffers bool
	// Mismatch lists the parameters that change the cost of the work in
	// which the two sides differ, as "field: baseline vs candidate" (the
	// name pairs them, but they did not measure the same thing). Unless
	// the comparison allows mismatches, such a pair is NotComparable, has
	// no ratio, change or p-value, and the regression gate leaves it out.
	Mismatch []string
	// Load says the other load a side of two separate runs was measured
	// under ("other load: 58% / 12%", baseline / candidate), when it is
	// too much to judge the pair (see OtherLoad); "" otherwise.
	Load string
	// Notes explain anything unusual about the case, in words.
	Notes []string
	// Figure is what a closed-loop handshake case was compared on:
	// FigureHandshake, or FigureWall when a side's records lack the
	// handshake figure (a note says so); empty for other cases.
	Figure string

	// Paired is set for a case of an interleaved run, judged on its
	// per-round ratios (see ComparePaired); Ratio is then the geometric
	// mean of those ratios and RatioSD is NaN. CILo and CIHi bound the
	// 99.9% confidence interval of a paired Ratio (NaN when not paired
	// or with fewer than two pairs).
	Paired     bool
	CILo, CIHi float64
	// Floor is the smallest relative change called faster or slower (a
	// fraction): MinEffect, or the noise floor measured in the same run
	// when that is larger (FloorMeasured: from side a2).
	Floor         float64
	FloorMeasured bool
	// Test names the test behind P: "wilcoxon" (signed-rank, paired) or
	// "mann-whitney" (U test, two independent samples).
	Test string
	// Metrics compare the costs of each end per handshake that both
	// sides' records hold per iteration (client, server and proxy CPU,
	// allocations), with the same test as the time; nil for a pair not
	// judged.
	Metrics []MetricComparison
}

// Tests behind CaseComparison.P.
const (
	TestWilcoxon    = "wilcoxon"
	TestMannWhitney = "mann-whitney"
)

// OneSided is a case present on one side only.
type OneSided struct {
	Name, Kind, Unit string
	Side             Side
}

// Comparison is the comparison of a candidate's results with a baseline's.
type Comparison struct {
	Alpha               float64
	ResumptionTolerance float64
	BaseName, CandName  string
	AllowMismatch       bool
	AllowLoad           bool
	// BaseEnv and CandEnv are the environments of each side's first
	// record; EnvDiffers names the fields in which they differ (a
	// different CPU or kernel can explain a difference by itself).
	BaseEnv, CandEnv results.Env
	EnvDiffers       []string
	// Cases holds every name present on both sides, in the baseline's
	// order.
	Cases []CaseComparison
	// OnlyBase and OnlyCand are the cases found on one side only, in file
	// order: listed, not dropped, since a case that disappeared is itself
	// a finding.
	OnlyBase, OnlyCand []OneSided
	// Paired is set for the comparison of the sides of an interleaved
	// run (ComparePaired). MinEffect is the resolved minimum effect (a
	// fraction; 0 when none).
	Paired    bool
	MinEffect float64
	// Notes are remarks on the comparison as a whole, in words.
	Notes []string
	// Searches compares the answers of searches for a sustainable rate
	// found on both sides, by their brackets (see SearchComparison);
	// their steps are not among Cases.
	Searches []SearchComparison
}

// sequentialNote is the caveat of every comparison of two separate runs.
const sequentialNote = "these are two separate runs: what changed on the machine between them (other load, CPU frequency, caches) cannot be told apart from the change itself; for verdicts that hold on a busy machine, measure both sides interleaved in one run with tlsbench run --versus-self (the noise floor) or --versus"

// resolveMinEffect applies CompareOptions.MinEffect's defaults.
func resolveMinEffect(m float64) float64 {
	switch {
	case m == 0 || math.IsNaN(m):
		return DefaultMinEffect
	case m < 0:
		return 0
	}
	return m
}

// Compare pairs the records of base and cand by name and compares each
// pair. It never fails: what cannot be compared gets a verdict and a note
// that say why.
func Compare(base, cand []results.Record, opts CompareOptions) *Comparison {
	c := newComparison(opts, "baseline", "candidate")
	c.Notes = []string{sequentialNote}
	if len(base) > 0 {
		c.BaseEnv = base[0].Env
	}
	if len(cand) > 0 {
		c.CandEnv = cand[0].Env
	}
	if len(base) > 0 && len(cand) > 0 {
		c.EnvDiffers = report.EnvDiff([]results.Record{{Env: c.BaseEnv}, {Env: c.CandEnv}})
	}

	base, bAnswers, bSteps := splitSearches(base)
	cand, cAnswers, cSteps := splitSearches(cand)
	bNames, bGroups := groupByName(base)
	cNames, cGroups := groupByName(cand)
	for _, name := range bNames {
		b := bGroups[name]
		cr, ok := cGroups[name]
		if !ok {
			c.OnlyBase = append(c.OnlyBase, oneSided(b))
			continue
		}
		cc := compareCase(b, cr, c.Alpha, c.ResumptionTolerance, c.MinEffect)
		applyMismatch(&cc, b, cr, c.AllowMismatch)
		applyLoad(&cc, b, cr, c.AllowLoad)
		c.compareMetrics(&cc, b, cr, nil)
		c.Cases = append(c.Cases, cc)
	}
	for _, name := range cNames {
		if _, ok := bGroups[name]; !ok {
			c.OnlyCand = append(c.OnlyCand, oneSided(cGroups[name]))
		}
	}
	c.compareSearches(bAnswers, cAnswers, bSteps, cSteps)
	return c
}

// newComparison is a Comparison with opts and their defaults applied.
func newComparison(opts CompareOptions, baseName, candName string) *Comparison {
	c := &Comparison{
		Alpha:               opts.Alpha,
		ResumptionTolerance: opts.ResumptionTolerance,
		BaseName:            opts.BaseName,
		CandName:            opts.CandName,
		AllowMismatch:       opts.AllowMismatch,
		AllowLoad:           opts.AllowLoad,
		MinEffect:           resolveMinEffect(opts.MinEffect),
	}
	if !(c.Alpha > 0 && c.Alpha < 1) {
		c.Alpha = DefaultAlpha
	}
	switch {
	case c.ResumptionTolerance == 0 || math.IsNaN(c.ResumptionTolerance):
		c.ResumptionTolerance = DefaultResumptionTolerance
	case c.ResumptionTolerance < 0:
		c.ResumptionTolerance = 0
	}
	if c.BaseName == "" {
		c.BaseName = baseName
	}
	if c.CandName == "" {
		c.CandName = candName
	}
	return c
}

// groupByName returns the distinct names of recs in order of first
// appearance and the records of each.
func groupByName(recs []results.Record) ([]string, map[string][]*results.Record) {
	var names []string
	groups := map[string][]*results.Record{}
	for i := range recs {
		r := &recs[i]
		if _, ok := groups[r.Name]; !ok {
			names = append(names, r.Name)
		}
		groups[r.Name] = append(groups[r.Name], r)
	}
	return names, groups
}

func isThroughput(kind string) bool { return kind == results.KindThroughput }

func unitOf(kind string) string {
	if isThroughput(kind) {
		return "MB/s"
	}
	return "µs/hs"
}

// Figures a closed-loop handshake case is compared on
// (CaseComparison.Figure).
const (
	// FigureHandshake: connect + TLS handshake per handshake
	// (handshake_samples_us).
	FigureHandshake = "handshake"
	// FigureWall: the wall time per connection (samples_us), the
	// exchange after the handshake included: records written before
	// the handshake figure existed.
	FigureWall = "wall"
)

// figureOf is the figure the records of a case are compared on: the
// handshake figure when every one of them has it, the wall time when
// some closed-loop handshake record lacks it, "" for the others (an
// open-loop case's latencies, a throughput case's MB/s).
func figureOf(recs ...[]*results.Record) string {
	r0 := recs[0][0]
	if r0.Kind != results.KindHandshake || r0.RateTarget != nil {
		return ""
	}
	for _, rs := range recs {
		for _, r := range rs {
			if !report.HasHandshakeFigure(r) {
				return FigureWall
			}
		}
	}
	return FigureHandshake
}

// samplesOf are the values the U test compares: per-iteration µs per
// handshake (of figure), or one MB/s per throughput record. The kind is
// the first record's, so that a pool never mixes units.
func samplesOf(recs []*results.Record, kind, figure string) []float64 {
	var xs []float64
	for _, r := range recs {
		if isThroughput(kind) {
			if r.MBps != nil {
				xs = append(xs, *r.MBps)
			}
			continue
		}
		f := report.WallFigure(r)
		if figure == FigureHandshake {
			f = report.Headline(r)
		}
		switch {
		case len(f.Samples) > 0:
			xs = append(xs, f.Samples...)
		case f.Mean > 0:
			// Older or hand-made records without samples: the mean
			// is one observation, as in the benchfmt output.
			xs = append(xs, f.Mean)
		}
	}
	return xs
}

func side(recs []*results.Record, kind, figure string) (Side, []float64) {
	xs := samplesOf(recs, kind, figure)
	sum := stats.Summarize(xs)
	s := Side{
		Records:    len(recs),
		N:          len(xs),
		Mean:       sum.Mean,
		Error:      sum.Error,
		Resume:     recs[0].Resume,
		AllocBytes: math.NaN(),
	}
	var allocSum float64
	for _, r := range recs {
		s.Handshakes += r.Handshakes
		s.Resumed += r.Resumed
		s.Errors += r.Errors
		allocSum += r.AllocBytes * float64(r.Handshakes)
	}
	if s.Handshakes > 0 {
		s.ResumptionRate = float64(s.Resumed) / float64(s.Handshakes)
	} else {
		s.ResumptionRate = recs[0].ResumptionRate
	}
	if !isThroughput(kind) {
		if s.Handshakes > 0 {
			s.AllocBytes = allocSum / float64(s.Handshakes)
		} else {
			s.AllocBytes = recs[0].AllocBytes
		}
	}
	return s, xs
}

func oneSided(recs []*results.Record) OneSided {
	kind := recs[0].Kind
	s, _ := side(recs, kind, figureOf(recs))
	return OneSided{Name: recs[0].Name, Kind: kind, Unit: unitOf(kind), Side: s}
}

func compareCase(base, cand []*results.Record, alpha, tolerance, minEffect float64) CaseComparison {
	cc, bx, cx := newCaseComparison(base, cand, "baseline", "candidate")
	cc.MinSamples = stats.MinSamples(alpha)
	cc.Test = TestMannWhitney
	cc.Floor = minEffect

	st := stats.Compare(bx, cx, alpha)
	cc.Ratio, cc.RatioSD, cc.P = st.Ratio, st.RatioSD, st.P
	cc.setChange()

	switch {
	case cand[0].Kind != cc.Kind:
		cc.Verdict = NotComparable
		cc.P = math.NaN()
	case cc.Base.N == 0 || cc.Cand.N == 0:
		cc.Verdict = TooFewSamples
		cc.P = math.NaN()
		cc.Notes = append(cc.Notes, fmt.Sprintf("no samples on the %s side: nothing to test", emptySides(cc.Base.N, cc.Cand.N)))
	case math.IsNaN(cc.P) || math.IsNaN(cc.Ratio):
		cc.Verdict = NotComparable
		cc.Notes = append(cc.Notes, "a sample holds a value that is not a number; the results file is damaged")
	case cc.P <= alpha:
		cc.Verdict = cc.directed()
	case st.TooFew:
		cc.Verdict = TooFewSamples
	default:
		cc.Verdict = NoChange
	}
	if cc.Verdict == TooFewSamples && cc.Base.N > 0 && cc.Cand.N > 0 {
		what := "iterations (--iterations)"
		if cc.HigherIsBetter {
			what = "runs (concatenate results files)"
		}
		cc.Notes = append(cc.Notes, fmt.Sprintf("%d vs %d samples: the U test needs at least %d per side to reach alpha %s; rerun with more %s",
			cc.Base.N, cc.Cand.N, cc.MinSamples, FormatAlpha(alpha), what))
	}
	cc.checkResumption(tolerance)
	return cc
}

// newCaseComparison summarises the two sides of a case and notes what
// is unusual about them (pooled records, different iteration sizes).
func newCaseComparison(base, cand []*results.Record, baseName, candName string) (cc CaseComparison, bx, cx []float64) {
	kind := base[0].Kind
	cc = CaseComparison{
		Name:           base[0].Name,
		Kind:           kind,
		Unit:           unitOf(kind),
		HigherIsBetter: isThroughput(kind),
		OpenLoop:       base[0].RateTarget != nil,
		CILo:           math.NaN(),
		CIHi:           math.NaN(),
	}
	cc.Figure = figureOf(base, cand)
	cc.Base, bx = side(base, kind, cc.Figure)
	cc.Cand, cx = side(cand, kind, cc.Figure)

	if n := len(base); n > 1 {
		cc.Notes = append(cc.Notes, fmt.Sprintf("%s pools %d records of this name", baseName, n))
	}
	if n := len(cand); n > 1 {
		cc.Notes = append(cc.Notes, fmt.Sprintf("%s pools %d records of this name", candName, n))
	}
	if b, c := perIteration(base[0]), perIteration(cand[0]); b != c && b > 0 && c > 0 {
		// The name does not carry the iteration size, and waves of a
		// different size measure different queueing.
		cc.Notes = append(cc.Notes, fmt.Sprintf("settings differ: %d handshakes per iteration in the %s, %d in the %s", b, baseName, c, candName))
	}
	return cc, bx, cx
}

// setChange derives Change, Slowdown and AllocDelta from Ratio.
func (cc *CaseComparison) setChange() {
	cc.Change = cc.Ratio - 1
	cc.Slowdown = cc.Change
	if cc.HigherIsBetter {
		cc.Slowdown = 1/cc.Ratio - 1
	}
	cc.AllocDelta = cc.Cand.AllocBytes - cc.Base.AllocBytes
}

// directed is the verdict of a significant change: faster or slower when
// the effect is larger than the floor, within noise otherwise.
func (cc *CaseComparison) directed() Verdict {
	switch {
	case math.Abs(cc.Slowdown) <= cc.Floor || cc.Slowdown == 0:
		return WithinNoise
	case cc.Slowdown > 0:
		return Slower
	}
	return Faster
}

// checkResumption flags a handshake case whose two sides resumed at
// rates further apart than tolerance.
func (cc *CaseComparison) checkResumption(tolerance float64) {
	if cc.HigherIsBetter {
		return
	}
	d := math.Abs(cc.Base.ResumptionRate - cc.Cand.ResumptionRate)
	if cc.Base.Resume != cc.Cand.Resume || d > tolerance {
		cc.ResumptionDiffers = true
	}
}

func emptySides(nb, nc int) string {
	switch {
	case nb == 0 && nc == 0:
		return "baseline and candidate"
	case nb == 0:
		return "baseline"
	}
	return "candidate"
}

func FormatAlpha(a float64) string { return fmt.Sprintf("%g", a) }

// applyMismatch records what makes the two sides of a pair measure
// different work. Unless allowed, the pair is not comparable: its ratio,
// change and p-value are withdrawn, so that no number invites reading a
// difference of setup as a difference of speed.
func applyMismatch(cc *CaseComparison, base, cand []*results.Record, allow bool) {
	bad := append(unusable("the baseline", base), unusable("the candidate", cand)...)
	diffs := costDifferences(base, cand)
	cc.Mismatch = append(bad, diffs...)
	if len(cc.Mismatch) == 0 {
		return
	}
	what := mismatchText(bad, diffs)
	if allow && base[0].Kind == cand[0].Kind {
		cc.Notes = append(cc.Notes, "compared although "+what)
		return
	}
	cc.Verdict = NotComparable
	cc.Ratio, cc.RatioSD, cc.P, cc.Change, cc.Slowdown, cc.AllocDelta = math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()
	cc.Notes = append(cc.Notes, "not comparable: "+what)
}

// mismatchText says in one sentence why a pair does not compare: the
// sides with no valid result (each a clause of its own), then the
// parameters in which the two sides differ.
func mismatchText(unusable, diffs []string) string {
	parts := append([]string(nil), unusable...)
	if len(diffs) > 0 {
		parts = append(parts, "the two sides differ in "+strings.Join(diffs, "; "))
	}
	return strings.Join(parts, "; and ")
}

// unusable says why the records of one side are not a result to compare:
// a case that failed a gate (its figures describe something else than its
// name, e.g. full handshakes in a resume case), or one that was not run.
func unusable(side string, recs []*results.Record) []string {
	var out []string
	for _, r := range recs {
		switch {
		case r.Verdict == report.VerdictFailed:
			out = append(out, side+" failed a gate (see its notes): its figures are not a result")
		case report.NotRun(r):
			out = append(out, side+" was not run")
		default:
			continue
		}
		break
	}
	return out
}

// Mismatched returns the pairs left out as not comparable because their
// two sides differ in what the work costs (see CaseComparison.Mismatch).
func (c *Comparison) Mismatched() []*CaseComparison {
	var out []*CaseComparison
	for i := range c.Cases {
		if cc := &c.Cases[i]; cc.Verdict == NotComparable && len(cc.Mismatch) > 0 {
			out = append(out, cc)
		}
	}
	return out
}

// ResumptionMessage explains a flagged resumption difference in one line.
func (cc *CaseComparison) ResumptionMessage() string {
	if !cc.ResumptionDiffers {
		return ""
	}
	b, c := cc.Base, cc.Cand
	msg := fmt.Sprintf("%s: baseline resumed %s of handshakes, candidate %s", cc.Name, report.Percent(b.ResumptionRate), report.Percent(c.ResumptionRate))
	switch {
	case b.Resume != c.Resume:
		msg += fmt.Sprintf(" (resumption was %s in the baseline and %s in the candidate)", askedFor(b.Resume), askedFor(c.Resume))
	case b.Resume && (b.ResumptionRate == 0 || c.ResumptionRate == 0):
		who := "baseline"
		if c.ResumptionRate == 0 {
			who = "candidate"
		}
		msg += fmt.Sprintf(": the %s did not resume at all, so this compares full handshakes with resumed ones", who)
	default:
		msg += ": the two sides measured different mixes of full and resumed handshakes"
	}
	return msg + "; the time comparison is meaningless until that is explained"
}

func askedFor(resume bool) string {
	if resume {
		return "asked for"
	}
	return "off"
}

// ResumptionMismatches returns the cases whose resumption rates differ
// between the two sides (see CaseComparison.ResumptionDiffers).
func (c *Comparison) ResumptionMismatches() []*CaseComparison {
	var out []*CaseComparison
	for i := range c.Cases {
		if c.Cases[i].ResumptionDiffers {
			out = append(out, &c.Cases[i])
		}
	}
	return out
}

// Counts returns how many paired cases got each verdict.
func (c *Comparison) Counts() map[Verdict]int {
	m := map[Verdict]int{}
	for _, cc := range c.Cases {
		m[cc.Verdict]++
	}
	return m
}

// perIteration is the number of handshakes of one iteration of a
// handshake case (0 when unknown).
func perIteration(r *results.Record) int64 {
	if r.Kind != results.KindHandshake || r.Iterations == 0 {
		return 0
	}
	return (r.Handshakes + r.Errors) / int64(r.Iterations)
}
