package compare

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/tlsbench/tlsbench/report"
	"github.com/tlsbench/tlsbench/results"
)

// compareFormats are the formats a comparison can be rendered in. benchfmt
// is not one: benchstat makes its own comparison from two benchfmt files.
var compareFormats = []report.Format{report.Table, report.Markdown, report.JSON, report.CSV}

// CompareFormats returns the formats [RenderComparison] accepts.
func CompareFormats() []report.Format { return append([]report.Format(nil), compareFormats...) }

// ParseCompareFormat returns the comparison format named s. Its error lists
// the valid names.
func ParseCompareFormat(s string) (report.Format, error) {
	names := make([]string, len(compareFormats))
	for i, f := range compareFormats {
		if s == string(f) {
			return f, nil
		}
		names[i] = string(f)
	}
	return "", fmt.Errorf("unknown comparison format %q (valid: %s)", s, strings.Join(names, ", "))
}

// RenderComparison writes c to w in format f:
//
//   - table and markdown: a header naming the two sides and the test, a
//     loud warning listing every case whose resumption rates differ, the
//     two environments side by side, a table of handshake cases and one of
//     throughput cases (baseline and candidate mean ± error, change,
//     ratio and RatioSD, allocation change, p-value, sample counts,
//     resumption rates, verdict), the cases found on one side only, notes
//     (too few samples, pooled records) and a count of verdicts.
//   - json: one JSON object (see comparisonJSON); values that are not
//     known (NaN) are null.
//   - csv: one row per case, paired or one-sided; empty cells are unknown
//     values.
func RenderComparison(w io.Writer, f report.Format, c *Comparison) error {
	switch f {
	case report.Table:
		return report.WriteText(w, BuildCompareDocument(c))
	case report.Markdown:
		return report.WriteMarkdown(w, BuildCompareDocument(c))
	case report.JSON:
		b, err := json.MarshalIndent(comparisonToJSON(c), "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	case report.CSV:
		return writeCompareCSV(w, c)
	}
	_, err := ParseCompareFormat(string(f))
	return err
}

func BuildCompareDocument(c *Comparison) report.Document {
	d := report.Document{
		EnvTitle: "Comparison",
		Env: []report.KeyValue{
			{Key: "baseline", Value: c.BaseName},
			{Key: "candidate", Value: c.CandName},
			{Key: "test", Value: "Mann-Whitney U on per-iteration samples, alpha " + FormatAlpha(c.Alpha)},
		},
	}
	if c.Paired {
		d.Env = []report.KeyValue{
			{Key: "side a", Value: c.BaseName},
			{Key: "side b", Value: c.CandName},
			{Key: "test", Value: "Wilcoxon signed-rank on the per-round ratios side b / side a, alpha " + FormatAlpha(c.Alpha) + ", and the 99.9% interval of the ratio excluding 1"},
		}
	}
	if f := figureText(c.Cases); f != "" {
		d.Env = append(d.Env, report.KeyValue{Key: "figure", Value: f})
	}
	d.Env = append(d.Env, report.KeyValue{Key: "min effect", Value: minEffectText(c)})
	if mm := c.ResumptionMismatches(); len(mm) > 0 {
		items := make([]string, len(mm))
		for i, cc := range mm {
			items[i] = cc.ResumptionMessage()
		}
		d.Blocks = append(d.Blocks, report.Block{
			Title: fmt.Sprintf("WARNING: resumption differs between "+sidesText(c)+" in %d %s (marked !)", len(mm), report.Plural(int64(len(mm)), "case", "cases")),
			Items: items,
		})
	}
	if mm := c.Mismatched(); len(mm) > 0 {
		items := make([]string, len(mm))
		for i, cc := range mm {
			items[i] = cc.Name + ": " + strings.Join(cc.Mismatch, "; ")
		}
		d.Blocks = append(d.Blocks, report.Block{
			Title: fmt.Sprintf("WARNING: %d %s not comparable: a side has no valid result, or the two sides measured different work (left out of the regression gate)", len(mm), report.Plural(int64(len(mm)), "pair is", "pairs are")),
			Items: items,
		})
	}
	if nj := c.NotJudged(); len(nj) > 0 {
		d.Blocks = append(d.Blocks, report.Block{Title: notJudgedTitle(len(nj)), Items: notJudgedItems(nj)})
	}
	d.Blocks = append(d.Blocks, CompareEnvBlock(c))

	d.Blocks = append(d.Blocks, caseBlocks(c)...)
	d.Blocks = append(d.Blocks, metricsBlock(c)...)
	if len(c.Searches) > 0 {
		t, items := searchCompareTable(c)
		d.Blocks = append(d.Blocks, report.Block{Title: "Sustainable rate (each side is one search: compared by the rates it met and failed, no statistical test; higher is better)", Table: t, Items: items})
	}
	onlyBase, onlyCand := "Only in the baseline ("+c.BaseName+")", "Only in the candidate ("+c.CandName+")"
	if c.Paired {
		onlyBase, onlyCand = "Only in side a", "Only in side b"
	}
	d.Blocks = report.AppendItems(d.Blocks, onlyBase, oneSidedItems(c.OnlyBase))
	d.Blocks = report.AppendItems(d.Blocks, onlyCand, oneSidedItems(c.OnlyCand))
	notes := append([]string{}, c.Notes...)
	for _, cc := range c.Cases {
		for _, n := range cc.Notes {
			notes = append(notes, cc.Name+": "+n)
		}
	}
	d.Blocks = report.AppendItems(d.Blocks, "Notes", notes)
	d.Blocks = append(d.Blocks, report.Block{Title: "Summary", Items: []string{summaryLine(c)}})
	return d
}

// caseBlocks are the tables of the compared cases: closed-loop handshake
// cases, open-loop ones and throughput cases, each under its unit.
func caseBlocks(c *Comparison) []report.Block {
	var blocks []report.Block
	// Open-loop cases apart: their samples are latencies from the
	// intended start, which a title of time per handshake would misname.
	var hs, ol, tp []*CaseComparison
	for i := range c.Cases {
		switch cc := &c.Cases[i]; {
		case isThroughput(cc.Kind):
			tp = append(tp, cc)
		case cc.OpenLoop:
			ol = append(ol, cc)
		default:
			hs = append(hs, cc)
		}
	}
	if len(hs) > 0 {
		blocks = append(blocks, report.Block{Title: "Handshakes (mean ± 99.9% error, " + figureTitle(hs) + "; lower is faster)", Table: compareTable(hs, false, c.Paired)})
	}
	if len(ol) > 0 {
		blocks = append(blocks, report.Block{Title: "Open-loop handshakes (mean ± 99.9% error of each window's mean latency from the intended start, µs; lower is faster)", Table: compareTable(ol, false, c.Paired)})
	}
	if len(tp) > 0 {
		blocks = append(blocks, report.Block{Title: "Throughput (mean ± 99.9% error, MB/s; higher is faster)", Table: compareTable(tp, true, c.Paired)})
	}
	return blocks
}

// envRecorded reports whether e holds anything (hand-made or foreign
// records may carry no environment at all).
func envRecorded(e results.Env) bool {
	return e.TLSBenchVersion != "" || e.GoVersion != "" || e.GOOS != "" || e.GOARCH != "" || e.GOMAXPROCS != 0 ||
		e.NumCPU != 0 || e.CPUModel != "" || e.Kernel != "" || len(e.Peers) > 0 || e.Insecure || e.Started != ""
}

func CompareEnvBlock(c *Comparison) report.Block {
	if !envRecorded(c.BaseEnv) && !envRecorded(c.CandEnv) {
		return report.Block{Title: "Environment", Items: []string{"not recorded in either file"}}
	}
	b, cd := report.EnvHeader(c.BaseEnv), report.EnvHeader(c.CandEnv)
	vals := map[string][2]string{}
	var keys []string
	for _, kv := range b {
		keys = append(keys, kv.Key)
		vals[kv.Key] = [2]string{kv.Value, report.Null}
	}
	for _, kv := range cd {
		v, ok := vals[kv.Key]
		if !ok {
			keys = append(keys, kv.Key)
			v[0] = report.Null
		}
		v[1] = kv.Value
		vals[kv.Key] = v
	}
	bName, cName := "baseline", "candidate"
	if c.Paired {
		bName, cName = "side a", "side b"
	}
	t := &report.Grid{Cols: []report.Column{{Title: "", Unit: "", Align: report.AlignLeft}, {Title: bName, Unit: "", Align: report.AlignLeft}, {Title: cName, Unit: "", Align: report.AlignLeft}}}
	for _, k := range keys {
		t.Rows = append(t.Rows, []string{k, vals[k][0], vals[k][1]})
	}
	blk := report.Block{Title: "Environment", Table: t}
	if len(c.EnvDiffers) > 0 {
		blk.Items = []string{fmt.Sprintf("note: "+sidesText(c)+" differ in %s; a difference may come from the environment, not the change", strings.Join(c.EnvDiffers, ", "))}
	}
	return blk
}

// sidesText names the two sides in a sentence.
func sidesText(c *Comparison) string {
	if c.Paired {
		return "side a and side b"
	}
	return "baseline and candidate"
}

func minEffectText(c *Comparison) string {
	s := report.ThresholdPercent(c.MinEffect)
	if c.Paired {
		return s + ", or the noise floor measured in the run (side a2) when larger (a significant change no larger is within noise)"
	}
	return s + " (a significant change no larger is within noise)"
}

func compareTable(cases []*CaseComparison, throughput, paired bool) *report.Grid {
	if paired {
		return pairedTable(cases, throughput)
	}
	cols := []report.Column{
		{Title: "name", Unit: "", Align: report.AlignLeft},
		{Title: "baseline", Unit: "", Align: report.AlignRight},
		{Title: "candidate", Unit: "", Align: report.AlignRight},
		{Title: "change", Unit: "", Align: report.AlignRight},
		{Title: "ratio", Unit: "", Align: report.AlignRight},
		{Title: "ratio SD", Unit: "", Align: report.AlignRight},
	}
	if !throughput {
		cols = append(cols, report.Column{Title: "alloc change", Unit: "B/hs", Align: report.AlignRight})
	}
	cols = append(cols, report.Column{Title: "p", Unit: "", Align: report.AlignRight}, report.Column{Title: "n", Unit: "base/cand", Align: report.AlignRight})
	if !throughput {
		cols = append(cols, report.Column{Title: "resumed", Unit: "base/cand", Align: report.AlignRight})
	}
	cols = append(cols, report.Column{Title: "verdict", Unit: "", Align: report.AlignLeft})
	t := &report.Grid{Cols: cols}
	for _, cc := range cases {
		row := []string{
			cc.Name,
			meanError(cc.Base),
			meanError(cc.Cand),
			signedPercent(cc.Change),
			fixed3(cc.Ratio),
			fixed3(cc.RatioSD),
		}
		if !throughput {
			row = append(row, allocChange(cc))
		}
		row = append(row, pValue(cc.P), fmt.Sprintf("%d/%d", cc.Base.N, cc.Cand.N))
		t.Rows = append(t.Rows, withVerdict(row, cc, throughput))
	}
	return t
}

// pairedTable is the table of an interleaved run's cases: the ratio is
// the geometric mean of the per-round ratios, with its interval, and the
// floor is what the verdict held the change to.
func pairedTable(cases []*CaseComparison, throughput bool) *report.Grid {
	cols := []report.Column{
		{Title: "name", Unit: "", Align: report.AlignLeft},
		{Title: "side a", Unit: "", Align: report.AlignRight},
		{Title: "side b", Unit: "", Align: report.AlignRight},
		{Title: "change", Unit: "", Align: report.AlignRight},
		{Title: "ratio", Unit: "b/a", Align: report.AlignRight},
		{Title: "99.9% CI", Unit: "", Align: report.AlignRight},
	}
	if !throughput {
		cols = append(cols, report.Column{Title: "alloc change", Unit: "B/hs", Align: report.AlignRight})
	}
	cols = append(cols, report.Column{Title: "p", Unit: "", Align: report.AlignRight}, report.Column{Title: "floor", Unit: "", Align: report.AlignRight}, report.Column{Title: "pairs", Unit: "", Align: report.AlignRight})
	if !throughput {
		cols = append(cols, report.Column{Title: "resumed", Unit: "a/b", Align: report.AlignRight})
	}
	cols = append(cols, report.Column{Title: "verdict", Unit: "", Align: report.AlignLeft})
	t := &report.Grid{Cols: cols}
	for _, cc := range cases {
		row := []string{cc.Name, meanError(cc.Base), meanError(cc.Cand), signedPercent(cc.Change), fixed3(cc.Ratio), ciText(cc)}
		if !throughput {
			row = append(row, allocChange(cc))
		}
		row = append(row, pValue(cc.P), floorText(cc), pairsText(cc))
		t.Rows = append(t.Rows, withVerdict(row, cc, throughput))
	}
	return t
}

// withVerdict ends a comparison row: the resumption of both sides (for
// handshakes; "!" when they differ) and the verdict.
func withVerdict(row []string, cc *CaseComparison, throughput bool) []string {
	verdict := string(cc.Verdict)
	if cc.Verdict == OtherLoad {
		verdict = cc.Load + "; use an interleaved run"
	}
	if !throughput {
		res := report.Percent(cc.Base.ResumptionRate) + "/" + report.Percent(cc.Cand.ResumptionRate)
		if cc.ResumptionDiffers {
			res += "!"
			verdict += "!"
		}
		row = append(row, res)
	}
	return append(row, verdict)
}

func ciText(cc *CaseComparison) string {
	if math.IsNaN(cc.CILo) || math.IsNaN(cc.CIHi) {
		return report.Null
	}
	return fixed3(cc.CILo) + "–" + fixed3(cc.CIHi)
}

// floorText is the floor a change was held to; "(A/A)" when it was
// measured in the run.
func floorText(cc *CaseComparison) string {
	s := plusMinusPercent(cc.Floor)
	if cc.FloorMeasured {
		s += " (A/A)"
	}
	return s
}

func pairsText(cc *CaseComparison) string {
	if cc.Base.N == cc.Cand.N {
		return strconv.Itoa(cc.Base.N)
	}
	return fmt.Sprintf("%d/%d", cc.Base.N, cc.Cand.N)
}

// meanError is "mean ± error", or the mean alone when the error is
// unknown (fewer than two samples).
func meanError(s Side) string {
	if math.IsNaN(s.Mean) {
		return report.Null
	}
	if math.IsNaN(s.Error) {
		return report.Num(s.Mean)
	}
	return report.Num(s.Mean) + " ± " + report.Num(s.Error)
}

func allocChange(cc *CaseComparison) string {
	if math.IsNaN(cc.AllocDelta) {
		return report.Null
	}
	s := signedInt(cc.AllocDelta)
	if cc.Base.AllocBytes > 0 && s != "0" {
		s += " (" + signedPercent(cc.AllocDelta/cc.Base.AllocBytes) + ")"
	}
	return s
}

func signedInt(v float64) string {
	r := math.Round(v)
	if r > 0 {
		return "+" + report.Integer(r)
	}
	return report.Integer(r)
}

// signedPercent formats a relative change: "+12.3%", "-4.0%", "0%".
func signedPercent(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return report.Null
	}
	s := strconv.FormatFloat(f*100, 'f', 1, 64)
	switch {
	case s == "0.0" || s == "-0.0":
		return "0%"
	case f > 0:
		return "+" + s + "%"
	}
	return s + "%"
}

// pValue formats a p-value with three decimals, as benchstat does; null
// when there was no test.
func pValue(p float64) string {
	switch {
	case math.IsNaN(p):
		return report.Null
	case p < 0.001:
		return "<0.001"
	}
	return strconv.FormatFloat(p, 'f', 3, 64)
}

func fixed3(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return report.Null
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

func oneSidedItems(cases []OneSided) []string {
	items := make([]string, len(cases))
	for i, o := range cases {
		m := meanError(o.Side)
		if m != report.Null {
			m += " " + o.Unit
		}
		items[i] = fmt.Sprintf("%s: %s (%d %s)", o.Name, m, o.Side.N, report.Plural(int64(o.Side.N), "sample", "samples"))
	}
	return items
}

func summaryLine(c *Comparison) string {
	counts := c.Counts()
	var parts []string
	for _, v := range []Verdict{Faster, Slower, WithinNoise, NoChange, TooFewSamples, NotComparable, OtherLoad} {
		if n := counts[v]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, v))
		}
	}
	if len(parts) == 0 && len(c.Searches) == 0 {
		parts = append(parts, "no case on both sides")
	}
	if len(c.Searches) > 0 {
		parts = append(parts, searchSummary(c.Searches))
	}
	s := strings.Join(parts, ", ")
	baseWord, candWord := "the baseline", "the candidate"
	if c.Paired {
		baseWord, candWord = "side a", "side b"
	}
	if n := len(c.OnlyBase); n > 0 {
		s += fmt.Sprintf("; %d only in %s", n, baseWord)
	}
	if n := len(c.OnlyCand); n > 0 {
		s += fmt.Sprintf("; %d only in %s", n, candWord)
	}
	if n := len(c.ResumptionMismatches()); n > 0 {
		s += fmt.Sprintf("; %d with different resumption rates (meaningless until explained)", n)
	}
	return s
}

// The JSON form of a comparison. Field names are snake_case like the
// results file's; NaN (unknown) values are null.
type comparisonJSON struct {
	Alpha               float64       `json:"alpha"`
	ResumptionTolerance float64       `json:"resumption_tolerance"`
	Baseline            sideInfoJSON  `json:"baseline"`
	Candidate           sideInfoJSON  `json:"candidate"`
	EnvDiffers          []string      `json:"env_differs"`
	Cases               []caseJSON    `json:"cases"`
	OnlyBaseline        []oneSideJSON `json:"only_baseline"`
	OnlyCandidate       []oneSideJSON `json:"only_candidate"`
	Summary             string        `json:"summary"`
	AllowMismatch       bool          `json:"allow_mismatch"`
	AllowLoad           bool          `json:"allow_load"`
	Paired              bool          `json:"paired"`
	MinEffect           float64       `json:"min_effect"`
	Notes               []string      `json:"notes,omitempty"`
	Searches            []searchJSON  `json:"searches,omitempty"`
}

type sideInfoJSON struct {
	Name string      `json:"name"`
	Env  results.Env `json:"env"`
}

type sideJSON struct {
	Records        int      `json:"records"`
	N              int      `json:"n"`
	Mean           *float64 `json:"mean"`
	Error          *float64 `json:"error"`
	Resume         bool     `json:"resume"`
	Handshakes     int64    `json:"handshakes"`
	Resumed        int64    `json:"resumed"`
	ResumptionRate float64  `json:"resumption_rate"`
	AllocBytes     *float64 `json:"alloc_bytes"`
	Errors         int64    `json:"errors"`
}

type caseJSON struct {
	Name              string   `json:"name"`
	Kind              string   `json:"kind"`
	Unit              string   `json:"unit"`
	Better            string   `json:"better"`
	Baseline          sideJSON `json:"baseline"`
	Candidate         sideJSON `json:"candidate"`
	Ratio             *float64 `json:"ratio"`
	RatioSD           *float64 `json:"ratio_sd"`
	Change            *float64 `json:"change"`
	Slowdown          *float64 `json:"slowdown"`
	AllocDelta        *float64 `json:"alloc_delta"`
	P                 *float64 `json:"p"`
	MinSamples        int      `json:"min_samples"`
	Verdict           Verdict  `json:"verdict"`
	ResumptionDiffers bool     `json:"resumption_differs"`
	Mismatch          []string `json:"mismatch,omitempty"`
	Load              string   `json:"load,omitempty"`
	Notes             []string `json:"notes,omitempty"`
	Test              string   `json:"test"`
	Paired            bool     `json:"paired"`
	CILo              *float64 `json:"ci_lo"`
	CIHi              *float64 `json:"ci_hi"`
	Floor             float64  `json:"floor"`
	FloorMeasured     bool     `json:"floor_measured"`
	OpenLoop          bool     `json:"open_loop,omitempty"`
	Figure            string   `json:"figure,omitempty"`
	// Metrics are the costs per handshake of each end (see
	// MetricComparison); absent where the records hold none.
	Metrics []metricJSON `json:"metrics,omitempty"`
}

type oneSideJSON struct {
	Name string   `json:"name"`
	Kind string   `json:"kind"`
	Unit string   `json:"unit"`
	Side sideJSON `json:"side"`
}

// finite returns nil for NaN and infinities, which JSON cannot carry.
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func sideToJSON(s Side) sideJSON {
	return sideJSON{
		Records: s.Records, N: s.N, Mean: finite(s.Mean), Error: finite(s.Error),
		Resume: s.Resume, Handshakes: s.Handshakes, Resumed: s.Resumed,
		ResumptionRate: s.ResumptionRate, AllocBytes: finite(s.AllocBytes), Errors: s.Errors,
	}
}

func comparisonToJSON(c *Comparison) comparisonJSON {
	j := comparisonJSON{
		Alpha:               c.Alpha,
		ResumptionTolerance: c.ResumptionTolerance,
		Baseline:            sideInfoJSON{c.BaseName, c.BaseEnv},
		Candidate:           sideInfoJSON{c.CandName, c.CandEnv},
		EnvDiffers:          append([]string{}, c.EnvDiffers...),
		Cases:               []caseJSON{},
		OnlyBaseline:        []oneSideJSON{},
		OnlyCandidate:       []oneSideJSON{},
		Summary:             summaryLine(c),
		AllowMismatch:       c.AllowMismatch,
		AllowLoad:           c.AllowLoad,
		Paired:              c.Paired,
		MinEffect:           c.MinEffect,
		Notes:               c.Notes,
	}
	for _, cc := range c.Cases {
		better := "lower"
		if cc.HigherIsBetter {
			better = "higher"
		}
		j.Cases = append(j.Cases, caseJSON{
			Name: cc.Name, Kind: cc.Kind, Unit: cc.Unit, Better: better,
			Baseline: sideToJSON(cc.Base), Candidate: sideToJSON(cc.Cand),
			Ratio: finite(cc.Ratio), RatioSD: finite(cc.RatioSD), Change: finite(cc.Change),
			Slowdown: finite(cc.Slowdown), AllocDelta: finite(cc.AllocDelta), P: finite(cc.P),
			MinSamples: cc.MinSamples, Verdict: cc.Verdict, ResumptionDiffers: cc.ResumptionDiffers,
			Mismatch: cc.Mismatch, Load: cc.Load, Notes: cc.Notes,
			Test: cc.Test, Paired: cc.Paired, CILo: finite(cc.CILo), CIHi: finite(cc.CIHi),
			Floor: cc.Floor, FloorMeasured: cc.FloorMeasured, OpenLoop: cc.OpenLoop, Figure: cc.Figure,
			Metrics: metricsToJSON(cc.Metrics),
		})
	}
	for _, sc := range c.Searches {
		j.Searches = append(j.Searches, searchToJSON(sc))
	}
	for _, o := range c.OnlyBase {
		j.OnlyBaseline = append(j.OnlyBaseline, oneSideJSON{o.Name, o.Kind, o.Unit, sideToJSON(o.Side)})
	}
	for _, o := range c.OnlyCand {
		j.OnlyCandidate = append(j.OnlyCandidate, oneSideJSON{o.Name, o.Kind, o.Unit, sideToJSON(o.Side)})
	}
	return j
}

// compareCSVHeader are the columns of the comparison CSV: one row per case,
// "presence" saying whether it is on both sides or on one only.
var compareCSVHeader = []string{
	"name", "kind", "unit", "presence", "verdict",
	"base_records", "base_n", "base_mean", "base_error", "base_resume", "base_resumption_rate", "base_alloc_bytes",
	"cand_records", "cand_n", "cand_mean", "cand_error", "cand_resume", "cand_resumption_rate", "cand_alloc_bytes",
	"ratio", "ratio_sd", "change", "slowdown", "alloc_delta", "p", "min_samples", "resumption_differs", "notes",
	"mismatch", "test", "paired", "ci_lo", "ci_hi", "floor", "floor_measured",
}

func csvNum(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return report.CSVFloat(v)
}

func csvSide(s *Side) []string {
	if s == nil {
		return make([]string, 7)
	}
	return []string{
		strconv.Itoa(s.Records), strconv.Itoa(s.N), csvNum(s.Mean), csvNum(s.Error),
		strconv.FormatBool(s.Resume), report.CSVFloat(s.ResumptionRate), csvNum(s.AllocBytes),
	}
}

func writeCompareCSV(w io.Writer, c *Comparison) error {
	cw := csv.NewWriter(w)
	cw.Write(compareCSVHeader)
	for _, cc := range c.Cases {
		row := []string{cc.Name, cc.Kind, cc.Unit, "both", string(cc.Verdict)}
		row = append(row, csvSide(&cc.Base)...)
		row = append(row, csvSide(&cc.Cand)...)
		row = append(row, csvNum(cc.Ratio), csvNum(cc.RatioSD), csvNum(cc.Change), csvNum(cc.Slowdown),
			csvNum(cc.AllocDelta), csvNum(cc.P), strconv.Itoa(cc.MinSamples), strconv.FormatBool(cc.ResumptionDiffers),
			strings.Join(cc.Notes, "; "), strings.Join(cc.Mismatch, "; "),
			cc.Test, strconv.FormatBool(cc.Paired), csvNum(cc.CILo), csvNum(cc.CIHi), csvNum(cc.Floor), strconv.FormatBool(cc.FloorMeasured))
		cw.Write(report.PrintableRow(row))
	}
	for _, sc := range c.Searches {
		cw.Write(report.PrintableRow(searchCSVRow(sc)))
	}
	for _, list := range []struct {
		presence string
		cases    []OneSided
	}{{"baseline_only", c.OnlyBase}, {"candidate_only", c.OnlyCand}} {
		for _, o := range list.cases {
			row := []string{o.Name, o.Kind, o.Unit, list.presence, ""}
			if list.presence == "baseline_only" {
				row = append(row, csvSide(&o.Side)...)
				row = append(row, csvSide(nil)...)
			} else {
				row = append(row, csvSide(nil)...)
				row = append(row, csvSide(&o.Side)...)
			}
			row = append(row, make([]string, len(compareCSVHeader)-len(row))...)
			cw.Write(report.PrintableRow(row))
		}
	}
	cw.Flush()
	return cw.Error()
}

// figureText says which figure the handshake cases were compared on:
// connect + TLS handshake, or the wall time per connection for those
// whose records have no handshake figure; "" without such cases.
func figureText(cases []CaseComparison) string {
	var wall []string
	handshake := 0
	for _, cc := range cases {
		switch cc.Figure {
		case FigureWall:
			wall = append(wall, cc.Name)
		case FigureHandshake:
			handshake++
		}
	}
	const hs = "connect + TLS handshake per handshake (handshake_samples_us)"
	switch {
	case len(wall) == 0 && handshake == 0:
		return ""
	case len(wall) == 0:
		return hs
	case handshake == 0:
		return "wall time per connection, the exchange after the handshake included (samples_us): the records have no handshake figure (an older tlsbench)"
	}
	return hs + "; wall time per connection (no handshake figure in the records: an older tlsbench) for " + strings.Join(wall, ", ")
}

// figureTitle says what the handshake cases' means are of.
func figureTitle(cases []*CaseComparison) string {
	hs, wall := 0, 0
	for _, cc := range cases {
		switch cc.Figure {
		case FigureHandshake:
			hs++
		case FigureWall:
			wall++
		}
	}
	switch {
	case wall == 0:
		return "µs of connect + TLS handshake per handshake"
	case hs == 0:
		return "µs per handshake: the wall time per connection"
	}
	return "µs per handshake: of connect + TLS handshake, or the wall time per connection (see figure)"
}
