package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/tlsbench/tlsbench/results"
)

// compareFormats are the formats a comparison can be rendered in. benchfmt
// is not one: benchstat makes its own comparison from two benchfmt files.
var compareFormats = []Format{Table, Markdown, JSON, CSV}

// CompareFormats returns the formats [RenderComparison] accepts.
func CompareFormats() []Format { return append([]Format(nil), compareFormats...) }

// ParseCompareFormat returns the comparison format named s. Its error lists
// the valid names.
func ParseCompareFormat(s string) (Format, error) {
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
func RenderComparison(w io.Writer, f Format, c *Comparison) error {
	switch f {
	case Table:
		return writeText(w, buildCompareDocument(c))
	case Markdown:
		return writeMarkdown(w, buildCompareDocument(c))
	case JSON:
		b, err := json.MarshalIndent(comparisonToJSON(c), "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	case CSV:
		return writeCompareCSV(w, c)
	}
	_, err := ParseCompareFormat(string(f))
	return err
}

func buildCompareDocument(c *Comparison) document {
	d := document{
		envTitle: "Comparison",
		env: []keyValue{
			{"baseline", c.BaseName},
			{"candidate", c.CandName},
			{"test", "Mann-Whitney U on per-iteration samples, alpha " + formatAlpha(c.Alpha)},
		},
	}
	if c.Paired {
		d.env = []keyValue{
			{"side a", c.BaseName},
			{"side b", c.CandName},
			{"test", "Wilcoxon signed-rank on the per-round ratios side b / side a, alpha " + formatAlpha(c.Alpha) + ", and the 99.9% interval of the ratio excluding 1"},
		}
	}
	if f := figureText(c.Cases); f != "" {
		d.env = append(d.env, keyValue{"figure", f})
	}
	d.env = append(d.env, keyValue{"min effect", minEffectText(c)})
	if mm := c.ResumptionMismatches(); len(mm) > 0 {
		items := make([]string, len(mm))
		for i, cc := range mm {
			items[i] = cc.ResumptionMessage()
		}
		d.blocks = append(d.blocks, block{
			title: fmt.Sprintf("WARNING: resumption differs between "+sidesText(c)+" in %d %s (marked !)", len(mm), plural(int64(len(mm)), "case", "cases")),
			items: items,
		})
	}
	if mm := c.Mismatched(); len(mm) > 0 {
		items := make([]string, len(mm))
		for i, cc := range mm {
			items[i] = cc.Name + ": " + strings.Join(cc.Mismatch, "; ")
		}
		d.blocks = append(d.blocks, block{
			title: fmt.Sprintf("WARNING: %d %s not comparable: a side has no valid result, or the two sides measured different work (left out of the regression gate)", len(mm), plural(int64(len(mm)), "pair is", "pairs are")),
			items: items,
		})
	}
	if nj := c.NotJudged(); len(nj) > 0 {
		d.blocks = append(d.blocks, block{title: notJudgedTitle(len(nj)), items: notJudgedItems(nj)})
	}
	d.blocks = append(d.blocks, compareEnvBlock(c))

	d.blocks = append(d.blocks, caseBlocks(c)...)
	if len(c.Searches) > 0 {
		t, items := searchCompareTable(c)
		d.blocks = append(d.blocks, block{title: "Sustainable rate (each side is one search: compared by the rates it met and failed, no statistical test; higher is better)", table: t, items: items})
	}
	onlyBase, onlyCand := "Only in the baseline ("+c.BaseName+")", "Only in the candidate ("+c.CandName+")"
	if c.Paired {
		onlyBase, onlyCand = "Only in side a", "Only in side b"
	}
	d.blocks = appendItems(d.blocks, onlyBase, oneSidedItems(c.OnlyBase))
	d.blocks = appendItems(d.blocks, onlyCand, oneSidedItems(c.OnlyCand))
	notes := append([]string{}, c.Notes...)
	for _, cc := range c.Cases {
		for _, n := range cc.Notes {
			notes = append(notes, cc.Name+": "+n)
		}
	}
	d.blocks = appendItems(d.blocks, "Notes", notes)
	d.blocks = append(d.blocks, block{title: "Summary", items: []string{summaryLine(c)}})
	return d
}

// caseBlocks are the tables of the compared cases: closed-loop handshake
// cases, open-loop ones and throughput cases, each under its unit.
func caseBlocks(c *Comparison) []block {
	var blocks []block
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
		blocks = append(blocks, block{title: "Handshakes (mean ± 99.9% error, " + figureTitle(hs) + "; lower is faster)", table: compareTable(hs, false, c.Paired)})
	}
	if len(ol) > 0 {
		blocks = append(blocks, block{title: "Open-loop handshakes (mean ± 99.9% error of each window's mean latency from the intended start, µs; lower is faster)", table: compareTable(ol, false, c.Paired)})
	}
	if len(tp) > 0 {
		blocks = append(blocks, block{title: "Throughput (mean ± 99.9% error, MB/s; higher is faster)", table: compareTable(tp, true, c.Paired)})
	}
	return blocks
}

// envRecorded reports whether e holds anything (hand-made or foreign
// records may carry no environment at all).
func envRecorded(e results.Env) bool {
	return e.TLSBenchVersion != "" || e.GoVersion != "" || e.GOOS != "" || e.GOARCH != "" || e.GOMAXPROCS != 0 ||
		e.NumCPU != 0 || e.CPUModel != "" || e.Kernel != "" || len(e.Peers) > 0 || e.Insecure || e.Started != ""
}

func compareEnvBlock(c *Comparison) block {
	if !envRecorded(c.BaseEnv) && !envRecorded(c.CandEnv) {
		return block{title: "Environment", items: []string{"not recorded in either file"}}
	}
	b, cd := envHeader(c.BaseEnv), envHeader(c.CandEnv)
	vals := map[string][2]string{}
	var keys []string
	for _, kv := range b {
		keys = append(keys, kv.key)
		vals[kv.key] = [2]string{kv.value, null}
	}
	for _, kv := range cd {
		v, ok := vals[kv.key]
		if !ok {
			keys = append(keys, kv.key)
			v[0] = null
		}
		v[1] = kv.value
		vals[kv.key] = v
	}
	bName, cName := "baseline", "candidate"
	if c.Paired {
		bName, cName = "side a", "side b"
	}
	t := &table{cols: []column{{"", "", alignLeft}, {bName, "", alignLeft}, {cName, "", alignLeft}}}
	for _, k := range keys {
		t.rows = append(t.rows, []string{k, vals[k][0], vals[k][1]})
	}
	blk := block{title: "Environment", table: t}
	if len(c.EnvDiffers) > 0 {
		blk.items = []string{fmt.Sprintf("note: "+sidesText(c)+" differ in %s; a difference may come from the environment, not the change", strings.Join(c.EnvDiffers, ", "))}
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
	s := thresholdPercent(c.MinEffect)
	if c.Paired {
		return s + ", or the noise floor measured in the run (side a2) when larger (a significant change no larger is within noise)"
	}
	return s + " (a significant change no larger is within noise)"
}

func compareTable(cases []*CaseComparison, throughput, paired bool) *table {
	if paired {
		return pairedTable(cases, throughput)
	}
	cols := []column{
		{"name", "", alignLeft},
		{"baseline", "", alignRight},
		{"candidate", "", alignRight},
		{"change", "", alignRight},
		{"ratio", "", alignRight},
		{"ratio SD", "", alignRight},
	}
	if !throughput {
		cols = append(cols, column{"alloc change", "B/hs", alignRight})
	}
	cols = append(cols, column{"p", "", alignRight}, column{"n", "base/cand", alignRight})
	if !throughput {
		cols = append(cols, column{"resumed", "base/cand", alignRight})
	}
	cols = append(cols, column{"verdict", "", alignLeft})
	t := &table{cols: cols}
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
		t.rows = append(t.rows, withVerdict(row, cc, throughput))
	}
	return t
}

// pairedTable is the table of an interleaved run's cases: the ratio is
// the geometric mean of the per-round ratios, with its interval, and the
// floor is what the verdict held the change to.
func pairedTable(cases []*CaseComparison, throughput bool) *table {
	cols := []column{
		{"name", "", alignLeft},
		{"side a", "", alignRight},
		{"side b", "", alignRight},
		{"change", "", alignRight},
		{"ratio", "b/a", alignRight},
		{"99.9% CI", "", alignRight},
	}
	if !throughput {
		cols = append(cols, column{"alloc change", "B/hs", alignRight})
	}
	cols = append(cols, column{"p", "", alignRight}, column{"floor", "", alignRight}, column{"pairs", "", alignRight})
	if !throughput {
		cols = append(cols, column{"resumed", "a/b", alignRight})
	}
	cols = append(cols, column{"verdict", "", alignLeft})
	t := &table{cols: cols}
	for _, cc := range cases {
		row := []string{cc.Name, meanError(cc.Base), meanError(cc.Cand), signedPercent(cc.Change), fixed3(cc.Ratio), ciText(cc)}
		if !throughput {
			row = append(row, allocChange(cc))
		}
		row = append(row, pValue(cc.P), floorText(cc), pairsText(cc))
		t.rows = append(t.rows, withVerdict(row, cc, throughput))
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
		res := percent(cc.Base.ResumptionRate) + "/" + percent(cc.Cand.ResumptionRate)
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
		return null
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
		return null
	}
	if math.IsNaN(s.Error) {
		return num(s.Mean)
	}
	return num(s.Mean) + " ± " + num(s.Error)
}

func allocChange(cc *CaseComparison) string {
	if math.IsNaN(cc.AllocDelta) {
		return null
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
		return "+" + integer(r)
	}
	return integer(r)
}

// signedPercent formats a relative change: "+12.3%", "-4.0%", "0%".
func signedPercent(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return null
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
		return null
	case p < 0.001:
		return "<0.001"
	}
	return strconv.FormatFloat(p, 'f', 3, 64)
}

func fixed3(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return null
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

func oneSidedItems(cases []OneSided) []string {
	items := make([]string, len(cases))
	for i, o := range cases {
		m := meanError(o.Side)
		if m != null {
			m += " " + o.Unit
		}
		items[i] = fmt.Sprintf("%s: %s (%d %s)", o.Name, m, o.Side.N, plural(int64(o.Side.N), "sample", "samples"))
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
	return csvFloat(v)
}

func csvSide(s *Side) []string {
	if s == nil {
		return make([]string, 7)
	}
	return []string{
		strconv.Itoa(s.Records), strconv.Itoa(s.N), csvNum(s.Mean), csvNum(s.Error),
		strconv.FormatBool(s.Resume), csvFloat(s.ResumptionRate), csvNum(s.AllocBytes),
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
		cw.Write(printableRow(row))
	}
	for _, sc := range c.Searches {
		cw.Write(printableRow(searchCSVRow(sc)))
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
			cw.Write(printableRow(row))
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
