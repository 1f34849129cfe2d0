package reportcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/tlsbench/tlsbench/internal/cli/command"
	"github.com/tlsbench/tlsbench/plan"
	"github.com/tlsbench/tlsbench/report"
	"github.com/tlsbench/tlsbench/report/compare"
	"github.com/tlsbench/tlsbench/results"
)

const compareUsage = `Usage: tlsbench compare [flags] BASE CANDIDATE
       tlsbench compare [flags] INTERLEAVED

Compares two results files case by case (cases are paired by name): the
baseline's and the candidate's mean ± error, the ratio candidate/baseline
with its standard deviation (RatioSD), the change in allocations, the
p-value of a Mann-Whitney U test on the per-iteration samples, and a
verdict: faster, slower, no significant change, or too few samples (then
rerun with more --iterations; no p-value is made up). Cases found in one
file only are listed. A case whose two sides resumed at different rates is
flagged loudly: its time comparison compares different handshake mixes.
A pair whose two sides differ in what sets the cost of the work (negotiated
group, key type, TLS version, mutual, transport, target, session store;
for throughput cipher, buffer, direction and the kTLS each end actually
used) is not comparable: it gets no ratio or verdict, and the regression
gate leaves it out, unless --allow-mismatch is given. Records of one name
in a file are pooled as separate runs; a file that holds the same record
more than once (one run concatenated with itself, whose copies are not
more samples) is refused.

Two separate runs cannot tell what changed on the machine between them
(other load, CPU frequency, caches) from the change itself. A pair of which
a side was measured while other processes took 10% or more of the CPUs
(other_cpu_share), or on a machine other load saturated, is not judged and
the regression gate leaves it out, unless --allow-load is given. With ONE file
written by an interleaved run (tlsbench run --versus, --versus-server or
--versus-self), compare judges side b against side a on the ratios of the
iterations measured in the same round: the geometric mean ratio with its
99.9% confidence interval and the p-value of a Wilcoxon signed-rank test.
A case is faster or slower only when the change is significant (p at most
--alpha and an interval that excludes 1) and larger than the noise floor:
--min-effect, or the A/A difference of side a2 measured in the same run
when that is larger. A significant change no larger than the floor is
"within noise"; two separate files are held to --min-effect the same way.

Where both sides' records hold each iteration's costs per handshake (the
client's CPU and allocations, the server's and the proxy's CPU, and under
run --count instructions each end's instructions), each is judged as the
time is, and a line per case says where the change is, e.g.
"server CPU +112% (2.12x, 1.98-2.27), client CPU unchanged, wall +41%".
A CPU time read from /proc moves in 10 ms ticks: it is judged only when the
median iteration of both sides measured at least 10 of them, and is "not
resolved" otherwise.

With --fail-on-regression, tlsbench exits 1 when any case is significantly
slower than the baseline by more than the given percentage, when a case
could not be tested, or when no comparable case was left to judge: a CI gate.
METRIC=PCT gates a cost instead of the time, e.g. --fail-on-regression
5%,server-cpu=10%; the metrics:
  METRICS

Examples:
  tlsbench compare before.jsonl after.jsonl
  tlsbench compare --format markdown before.jsonl after.jsonl >> $GITHUB_STEP_SUMMARY
  tlsbench compare --fail-on-regression 5% --alpha 0.01 main.jsonl pr.jsonl
  tlsbench run --versus-self --out aa.jsonl && tlsbench compare aa.jsonl
  tlsbench compare --min-effect 5% --fail-on-regression 5% ab.jsonl

Flags:
`

// CompareFlags are the flags of a comparison, shared by compare and (for
// run --baseline) run.
type CompareFlags struct {
	Alpha         float64
	gates         []plan.RegressionGate
	allowMismatch bool
	allowLoad     bool
	minEffect     float64 // a fraction; 0 means none
	minEffectSet  bool
}

func DefineCompareFlags(fs *command.FlagSet) *CompareFlags {
	cf := &CompareFlags{minEffect: compare.DefaultMinEffect}
	fs.DefFloat64(&cf.Alpha, "alpha", compare.DefaultAlpha)
	fs.Def("min-effect", command.NewPercentFlag(&cf.minEffect, &cf.minEffectSet))
	fs.Def("fail-on-regression", command.NewGatesFlag(&cf.gates))
	fs.DefBool(&cf.allowMismatch, "allow-mismatch", false)
	fs.DefBool(&cf.allowLoad, "allow-load", false)
	return cf
}

// Validate checks the comparison flags; call it after parsing, before
// reading any file.
func (cf *CompareFlags) Validate() error {
	if !(cf.Alpha > 0 && cf.Alpha < 1) {
		return command.Usagef("--alpha %v: want a significance level between 0 and 1 (exclusive), e.g. 0.05", cf.Alpha)
	}
	return nil
}

// options are the comparison options the flags say.
func (cf *CompareFlags) options(baseName, candName string) compare.CompareOptions {
	minEffect := cf.minEffect
	switch {
	case !cf.minEffectSet:
		minEffect = 0 // the defaults: the time's, and an instruction count's own
	case minEffect == 0:
		minEffect = -1 // --min-effect 0%: no minimum (0 would mean the default)
	}
	return compare.CompareOptions{Alpha: cf.Alpha, BaseName: baseName, CandName: candName, AllowMismatch: cf.allowMismatch, AllowLoad: cf.allowLoad, MinEffect: minEffect}
}

// compare compares cand with base as the flags say.
func (cf *CompareFlags) compare(base, cand []results.Record, baseName, candName string) *compare.Comparison {
	return compare.Compare(base, cand, cf.options(baseName, candName))
}

// finish warns on stderr about resumption differences (they are in the
// report too, but a CI log shows stderr even when stdout went to a file)
// and applies the regression gate: a *compare.RegressionError, which exits
// 1, when it fails.
func (cf *CompareFlags) finish(c *compare.Comparison, stderr io.Writer) error {
	sides := "baseline and candidate"
	if c.Paired {
		sides = "side a and side b"
	}
	if mm := c.ResumptionMismatches(); len(mm) > 0 {
		names := make([]string, len(mm))
		for i, cc := range mm {
			names[i] = fmt.Sprintf("%s (%s vs %s)", cc.Name, pct(cc.Base.ResumptionRate), pct(cc.Cand.ResumptionRate))
		}
		fmt.Fprintf(stderr, "tlsbench: WARNING: "+sides+" resumed at different rates in %d case(s); their comparison is meaningless: %s\n",
			len(mm), strings.Join(names, ", "))
	}
	if mm := c.Mismatched(); len(mm) > 0 {
		names := make([]string, len(mm))
		for i, cc := range mm {
			names[i] = fmt.Sprintf("%s (%s)", cc.Name, strings.Join(cc.Mismatch, "; "))
		}
		fmt.Fprintf(stderr, "tlsbench: WARNING: %d case(s) not comparable: a side has no valid result, or the two sides measured different work; left out (--allow-mismatch compares those that differ anyway): %s\n",
			len(mm), strings.Join(names, ", "))
	}
	if nj := c.NotJudged(); len(nj) > 0 {
		names := make([]string, len(nj))
		for i, cc := range nj {
			names[i] = fmt.Sprintf("%s (%s)", cc.Name, cc.Load)
		}
		fmt.Fprintf(stderr, "tlsbench: WARNING: %d case(s) not judged: a side was measured while other processes took 10%% or more of the machine, or saturated it (baseline / candidate), which two separate runs cannot tell from the change; left out of the regression gate: %s; measure both sides interleaved in one run (tlsbench run --versus-self or --versus), or judge them anyway with --allow-load\n",
			len(nj), strings.Join(names, ", "))
	}
	if len(cf.gates) == 0 {
		return nil
	}
	if len(c.Cases) == 0 {
		if c.Paired {
			return errors.New("regression gate: no case was measured on both sides, so nothing was checked")
		}
		return errors.New("regression gate: no case is in both files, so nothing was checked; do the case names match?")
	}
	gates := make([]compare.Gate, len(cf.gates))
	for i, g := range cf.gates {
		gates[i] = compare.Gate{Metric: g.Metric, Threshold: g.Threshold}
	}
	return c.CheckGates(gates)
}

func pct(f float64) string {
	return strings.TrimSuffix(strconv.FormatFloat(f*100, 'f', 1, 64), ".0") + "%"
}

// LoadBaseline reads run's --baseline file before any work is done, so
// that a wrong path fails in a second rather than after the run.
func LoadBaseline(path string) ([]results.Record, error) {
	recs, err := readResults(path, os.Stdin)
	if err != nil {
		var ue *command.UsageError
		if errors.As(err, &ue) {
			return nil, command.Usagef("--baseline: %s", ue.Msg)
		}
		return nil, err
	}
	if len(recs) == 0 {
		var ue *command.UsageError
		errors.As(noResults(path), &ue)
		return nil, command.Usagef("--baseline: %s", ue.Msg)
	}
	if err := refuseDuplicates(path, recs); err != nil {
		var ue *command.UsageError
		errors.As(err, &ue)
		return nil, command.Usagef("--baseline: %s", ue.Msg)
	}
	return recs, nil
}

// refuseDuplicates refuses one side of a comparison that holds the same
// record more than once: its records are pooled as independent runs, and
// copies of one would narrow the error and call noise a change.
func refuseDuplicates(name string, recs []results.Record) error {
	ds := report.Duplicates(recs)
	if len(ds) == 0 {
		return nil
	}
	return command.Usagef("results file %s holds the same record more than once: %s; copies of one run are not more samples (pooled, they would narrow the error and call noise a change): give each run once", displayName(name), report.DuplicatesText(ds))
}

// CompareAfterRun is run --baseline: it compares the records just measured
// with the baseline's and applies the gate. The comparison follows the
// report on stdout when that is a table or markdown; after json, csv,
// benchfmt or html, which programs read, it goes to stderr as a table, so
// that stdout stays one format.
func (cf *CompareFlags) CompareAfterRun(stdout, stderr io.Writer, f report.Format, baseName string, base, cand []results.Record) error {
	return cf.showAfterRun(stdout, stderr, f, cf.compare(base, cand, baseName, "this run"))
}

// ComparePairedAfterRun is run --versus, --versus-server or --versus-self:
// it compares the sides of the records just measured and applies the
// gate, laid out as CompareAfterRun lays out its comparison.
func (cf *CompareFlags) ComparePairedAfterRun(stdout, stderr io.Writer, f report.Format, recs []results.Record) error {
	c, err := compare.ComparePaired(recs, cf.options("", ""))
	if err != nil {
		return err
	}
	return cf.showAfterRun(stdout, stderr, f, c)
}

// showAfterRun writes a comparison after a run's report, where the
// run's format allows (see CompareAfterRun), and applies the gate.
func (cf *CompareFlags) showAfterRun(stdout, stderr io.Writer, f report.Format, c *compare.Comparison) error {
	w, cmpFormat := stdout, f
	if f != report.Table && f != report.Markdown {
		w, cmpFormat = stderr, report.Table
	}
	fmt.Fprintln(w)
	if err := compare.RenderComparison(w, cmpFormat, c); err != nil {
		return err
	}
	return cf.finish(c, stderr)
}

// Compare is tlsbench compare: a candidate results file against a
// baseline, case by case.
func Compare(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	usage := strings.Replace(compareUsage, "METRICS", strings.Join(results.Metrics(), ", "), 1)
	fs := command.NewUsageFlagSet("compare", usage, stdout)
	cf := DefineCompareFlags(fs)
	format := fs.String("format", "table", "`FORMAT` of the comparison: table, markdown, json, csv")
	out := fs.String("o", "", "write the comparison to `FILE` instead of standard output")
	fs.StringVar(out, "out", "", "the same as -o `FILE`")
	files, err := fs.ParseWithArgs(args)
	if err != nil {
		return err
	}
	f, err := compare.ParseCompareFormat(*format)
	if err != nil {
		return command.Usagef("--format: %v", err)
	}
	if err := cf.Validate(); err != nil {
		return err
	}
	if len(files) == 1 {
		return cf.comparePairedFile(stdout, stderr, f, files[0], *out)
	}
	if len(files) != 2 {
		return command.Usagef("want two results files, BASE and CANDIDATE, got %d, or one file written by tlsbench run --versus, --versus-server or --versus-self; usage: tlsbench compare [flags] BASE CANDIDATE | INTERLEAVED", len(files))
	}
	if files[0] == "-" && files[1] == "-" {
		return command.Usagef("BASE and CANDIDATE cannot both be standard input (-)")
	}
	if err := refuseOverwrite(*out, files); err != nil {
		return err
	}
	var sides [2][]results.Record
	for i, name := range files {
		if sides[i], err = readResults(name, os.Stdin); err != nil {
			return err
		}
		if len(sides[i]) == 0 {
			return noResults(name)
		}
		if err := refuseDuplicates(name, sides[i]); err != nil {
			return err
		}
		if report.Interleaved(sides[i]) {
			return command.Usagef("%s holds an interleaved run (its records name side a and side b): compare it on its own, tlsbench compare %s, or give two files of separate runs", displayName(name), name)
		}
	}
	c := cf.compare(sides[0], sides[1], files[0], files[1])
	var buf bytes.Buffer
	if err := compare.RenderComparison(&buf, f, c); err != nil {
		return err
	}
	if err := writeOutput(*out, "-o", buf.Bytes(), stdout); err != nil {
		return err
	}
	return cf.finish(c, stderr)
}

// comparePairedFile compares the sides of one results file written by an
// interleaved run.
func (cf *CompareFlags) comparePairedFile(stdout, stderr io.Writer, f report.Format, file, out string) error {
	if err := refuseOverwrite(out, []string{file}); err != nil {
		return err
	}
	recs, err := readResults(file, os.Stdin)
	if err != nil {
		return err
	}
	if len(recs) == 0 {
		return noResults(file)
	}
	if err := refuseDuplicates(file, recs); err != nil {
		return err
	}
	if !report.Interleaved(recs) {
		return command.Usagef("want two results files, BASE and CANDIDATE, got 1 (%s is not an interleaved run: none of its records names a side), or one file written by tlsbench run --versus, --versus-server or --versus-self; usage: tlsbench compare [flags] BASE CANDIDATE | INTERLEAVED", displayName(file))
	}
	c, err := compare.ComparePaired(recs, cf.options("", ""))
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := compare.RenderComparison(&buf, f, c); err != nil {
		return err
	}
	if err := writeOutput(out, "-o", buf.Bytes(), stdout); err != nil {
		return err
	}
	return cf.finish(c, stderr)
}

func displayName(file string) string {
	if file == "-" {
		return "standard input"
	}
	return file
}
