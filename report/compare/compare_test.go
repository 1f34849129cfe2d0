package compare

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/report"
	"github.com/tlsbench/tlsbench/results"
)

func compareTestdata(t testing.TB) *Comparison {
	t.Helper()
	return Compare(loadRecords(t, resultsFile), loadRecords(t, candidateFile),
		CompareOptions{BaseName: "results.jsonl", CandName: "candidate.jsonl"})
}

func TestCompareGolden(t *testing.T) {
	t.Parallel()
	c := compareTestdata(t)
	for _, f := range CompareFormats() {
		t.Run(string(f), func(t *testing.T) {
			var buf bytes.Buffer
			if err := RenderComparison(&buf, f, c); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, filepath.Join("testdata", "compare."+string(f)+".golden"), buf.Bytes())
		})
	}
}

func TestCompareTestdataVerdicts(t *testing.T) {
	t.Parallel()
	c := compareTestdata(t)
	want := map[string]Verdict{
		"handshake/tls1.3/full/c1":               Faster,
		"handshake/tls1.3/resume/c1":             Slower,
		"handshake/tls1.2/full/c128":             Slower,
		"handshake/tls1.2/resume/c128":           NoChange,
		"handshake/tls1.3/full/mutual/c8":        NoChange,
		"handshake/tls1.3/full/c1/memory":        TooFewSamples,
		"throughput/tls1.3/aes-128-gcm/16k/ktls": TooFewSamples,
		"throughput/tls1.3/aes-128-gcm/16k":      TooFewSamples,
	}
	if len(c.Cases) != len(want) {
		t.Errorf("%d paired cases, want %d", len(c.Cases), len(want))
	}
	for _, cc := range c.Cases {
		if cc.Verdict != want[cc.Name] {
			t.Errorf("%s: verdict %q, want %q (p=%v, ratio %v)", cc.Name, cc.Verdict, want[cc.Name], cc.P, cc.Ratio)
		}
		if got, want := cc.ResumptionDiffers, cc.Name == "handshake/tls1.3/resume/c1"; got != want {
			t.Errorf("%s: ResumptionDiffers = %v, want %v", cc.Name, got, want)
		}
	}
	if names := oneSidedNames(c.OnlyBase); !slices.Equal(names, []string{"handshake/tls1.3/resume/mutual/c8"}) {
		t.Errorf("only in baseline: %q", names)
	}
	if names := oneSidedNames(c.OnlyCand); !slices.Equal(names, []string{"handshake/tls1.3/resume/c8", "throughput/tls1.3/aes-128-gcm/64k/ktls"}) {
		t.Errorf("only in candidate: %q", names)
	}
	if !slices.Equal(c.EnvDiffers, []string{"tlsbench"}) {
		t.Errorf("EnvDiffers = %q, want [tlsbench]", c.EnvDiffers)
	}
}

func oneSidedNames(cs []OneSided) []string {
	var names []string
	for _, o := range cs {
		names = append(names, o.Name)
	}
	return names
}

func compareOne(t *testing.T, base, cand []results.Record) CaseComparison {
	t.Helper()
	c := Compare(base, cand, CompareOptions{})
	if len(c.Cases) != 1 {
		t.Fatalf("%d paired cases, want 1", len(c.Cases))
	}
	return c.Cases[0]
}

// TestCompareStatistics checks the verdicts the issue names: identical
// inputs show no change, shifted inputs a significant one in the right
// direction, tiny samples "too few" with no p-value made up.
func TestCompareStatistics(t *testing.T) {
	t.Parallel()
	t.Run("identical", func(t *testing.T) {
		r := hs("h", tenSamples...)
		cc := compareOne(t, []results.Record{r}, []results.Record{r})
		if cc.Verdict != NoChange || cc.Ratio != 1 || cc.P != 1 || cc.Change != 0 || cc.AllocDelta != 0 {
			t.Errorf("identical inputs: %+v", cc)
		}
	})
	t.Run("identical testdata", func(t *testing.T) {
		recs := loadRecords(t, resultsFile)
		c := Compare(recs, recs, CompareOptions{})
		for _, cc := range c.Cases {
			if cc.Verdict == Faster || cc.Verdict == Slower || cc.Ratio != 1 || cc.ResumptionDiffers {
				t.Errorf("%s compared with itself: verdict %q, ratio %v, resumption differs %v", cc.Name, cc.Verdict, cc.Ratio, cc.ResumptionDiffers)
			}
		}
		if len(c.OnlyBase)+len(c.OnlyCand) != 0 || len(c.Regressions(0)) != 0 {
			t.Errorf("a file compared with itself has one-sided cases or regressions")
		}
		// Its cases with too few samples cannot pass a gate, though.
		var re *RegressionError
		if err := c.CheckRegressions(0); err != nil && (!errors.As(err, &re) || len(re.Cases) != 0) {
			t.Errorf("gate on a file compared with itself: %v, want only untested cases", err)
		}
	})
	t.Run("shifted slower", func(t *testing.T) {
		cc := compareOne(t, []results.Record{hs("h", tenSamples...)}, []results.Record{hs("h", shift(tenSamples, 1.2)...)})
		if cc.Verdict != Slower || !(cc.P < 0.05) || math.Abs(cc.Slowdown-0.2) > 1e-9 || math.Abs(cc.Change-0.2) > 1e-9 {
			t.Errorf("20%% slower: verdict %q, p %v, slowdown %v", cc.Verdict, cc.P, cc.Slowdown)
		}
	})
	t.Run("shifted faster", func(t *testing.T) {
		cc := compareOne(t, []results.Record{hs("h", tenSamples...)}, []results.Record{hs("h", shift(tenSamples, 0.8)...)})
		if cc.Verdict != Faster || !(cc.P < 0.05) || !(cc.Slowdown < 0) {
			t.Errorf("20%% faster: verdict %q, p %v, slowdown %v", cc.Verdict, cc.P, cc.Slowdown)
		}
	})
	t.Run("tiny samples", func(t *testing.T) {
		// 2 vs 2 completely separated: the best possible p is 1/3.
		cc := compareOne(t, []results.Record{hs("h", 100, 101)}, []results.Record{hs("h", 200, 201)})
		if cc.Verdict != TooFewSamples || cc.MinSamples != 4 {
			t.Errorf("2 vs 2: verdict %q, MinSamples %d", cc.Verdict, cc.MinSamples)
		}
		if !slices.ContainsFunc(cc.Notes, func(n string) bool { return strings.Contains(n, "needs at least 4 per side") }) {
			t.Errorf("2 vs 2: notes %q do not say how many samples are needed", cc.Notes)
		}
	})
	t.Run("no samples", func(t *testing.T) {
		// A record without samples or handshakes is a case that did not
		// run: not comparable, with no p-value made up.
		cc := compareOne(t, []results.Record{hs("h", tenSamples...)}, []results.Record{hs("h")})
		if cc.Verdict != NotComparable || !math.IsNaN(cc.P) || pValue(cc.P) != report.Null ||
			!slices.ContainsFunc(cc.Mismatch, func(m string) bool { return strings.Contains(m, "candidate was not run") }) {
			t.Errorf("no candidate samples: verdict %q, p %v, mismatch %q", cc.Verdict, cc.P, cc.Mismatch)
		}
	})
	t.Run("failed side", func(t *testing.T) {
		// A case that failed a gate is not a result: never judged
		// faster or slower, and left out of the regression gate.
		failed := hs("h", tenSamples...)
		failed.Verdict = "failed"
		for _, pair := range [][2]results.Record{{failed, hs("h", tenSamples...)}, {hs("h", tenSamples...), failed}, {failed, failed}} {
			c := Compare([]results.Record{pair[0]}, []results.Record{pair[1]}, CompareOptions{})
			cc := c.Cases[0]
			if cc.Verdict != NotComparable || !math.IsNaN(cc.Ratio) ||
				!slices.ContainsFunc(cc.Mismatch, func(m string) bool { return strings.Contains(m, "failed a gate") }) {
				t.Errorf("failed side: verdict %q ratio %v mismatch %q", cc.Verdict, cc.Ratio, cc.Mismatch)
			}
			if err := c.CheckRegressions(0.05); err == nil || !strings.Contains(err.Error(), "nothing left to judge") {
				t.Errorf("gate over a failed pair: %v, want nothing left to judge", err)
			}
		}
	})
	t.Run("alpha", func(t *testing.T) {
		// 4 vs 4 separated reaches p = 2/70 = 0.029: significant at
		// 0.05, too few at 0.01.
		b, c := []results.Record{hs("h", 1, 2, 3, 4)}, []results.Record{hs("h", 5, 6, 7, 8)}
		if v := Compare(b, c, CompareOptions{Alpha: 0.05}).Cases[0].Verdict; v != Slower {
			t.Errorf("alpha 0.05: %q, want slower", v)
		}
		if v := Compare(b, c, CompareOptions{Alpha: 0.01}).Cases[0].Verdict; v != TooFewSamples {
			t.Errorf("alpha 0.01: %q, want too few samples", v)
		}
	})
	t.Run("throughput higher is faster", func(t *testing.T) {
		cc := compareOne(t, tp("t", 1000, 1010, 990, 1005, 995), tp("t", 1500, 1510, 1490, 1505, 1495))
		if cc.Verdict != Faster || !cc.HigherIsBetter || cc.Unit != "MB/s" || cc.Base.N != 5 || cc.Base.Records != 5 {
			t.Errorf("throughput up 50%%: %+v", cc)
		}
		if want := 1000.0/1500 - 1; math.Abs(cc.Slowdown-want) > 1e-9 {
			t.Errorf("Slowdown = %v, want %v", cc.Slowdown, want)
		}
		if !math.IsNaN(cc.AllocDelta) {
			t.Errorf("throughput AllocDelta = %v, want NaN", cc.AllocDelta)
		}
	})
	t.Run("pooled records", func(t *testing.T) {
		cc := compareOne(t, []results.Record{hs("h", 1, 2), hs("h", 3, 4, 5)}, []results.Record{hs("h", 1, 2, 3, 4, 5)})
		if cc.Base.Records != 2 || cc.Base.N != 5 || cc.Ratio != 1 || len(cc.Notes) == 0 {
			t.Errorf("pooled: %+v", cc)
		}
	})
	t.Run("kinds differ", func(t *testing.T) {
		b := hs("x", tenSamples...)
		c := tp("x", 1000)
		cc := compareOne(t, []results.Record{b}, c)
		if cc.Verdict != NotComparable || !math.IsNaN(cc.P) {
			t.Errorf("handshake vs throughput: verdict %q, p %v", cc.Verdict, cc.P)
		}
	})
}

func TestCompareResumption(t *testing.T) {
	t.Parallel()
	full := hs("full", tenSamples...)
	res := resumed(hs("res", tenSamples...), 1)
	tests := []struct {
		name       string
		base, cand results.Record
		flagged    bool
		says       string
	}{
		{"full cases", full, full, false, ""},
		{"both resumed", res, res, false, ""},
		{"within tolerance", res, resumed(hs("res", tenSamples...), 0.995), false, ""},
		{"candidate partly", res, resumed(hs("res", tenSamples...), 0.375), true, "different mixes"},
		{"candidate not at all", res, resumed(hs("res", tenSamples...), 0), true, "candidate did not resume at all"},
		{"baseline not at all", resumed(hs("res", tenSamples...), 0), res, true, "baseline did not resume at all"},
		{"asked for on one side", res, func() results.Record { r := hs("res", tenSamples...); return r }(), true, "asked for in the baseline and off in the candidate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cc := compareOne(t, []results.Record{tt.base}, []results.Record{tt.cand})
			if cc.ResumptionDiffers != tt.flagged {
				t.Fatalf("ResumptionDiffers = %v, want %v", cc.ResumptionDiffers, tt.flagged)
			}
			msg := cc.ResumptionMessage()
			if tt.flagged && (!strings.Contains(msg, tt.says) || !strings.Contains(msg, "meaningless")) {
				t.Errorf("message %q does not say %q and meaningless", msg, tt.says)
			}
			if !tt.flagged && msg != "" {
				t.Errorf("unflagged case has message %q", msg)
			}
		})
	}
	// The table leads with the warning, before any numbers.
	c := Compare([]results.Record{res}, []results.Record{resumed(hs("res", tenSamples...), 0)}, CompareOptions{})
	var buf bytes.Buffer
	if err := RenderComparison(&buf, report.Table, c); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if w, tbl := strings.Index(out, "WARNING: resumption differs"), strings.Index(out, "Handshakes"); w < 0 || w > tbl {
		t.Errorf("the resumption warning does not come before the table:\n%s", out)
	}
}

func TestRegressions(t *testing.T) {
	t.Parallel()
	c := compareTestdata(t)
	names := func(threshold float64) []string {
		var out []string
		for _, cc := range c.Regressions(threshold) {
			out = append(out, cc.Name)
		}
		return out
	}
	if got := names(0.05); !slices.Equal(got, []string{"handshake/tls1.3/resume/c1", "handshake/tls1.2/full/c128"}) {
		t.Errorf("regressions over 5%%: %q", got)
	}
	if got := names(0.2); !slices.Equal(got, []string{"handshake/tls1.3/resume/c1"}) {
		t.Errorf("regressions over 20%%: %q", got)
	}
	if got := names(2); len(got) != 0 {
		t.Errorf("regressions over 200%%: %q", got)
	}
	err := c.CheckRegressions(0.05)
	var re *RegressionError
	if !errors.As(err, &re) || len(re.Cases) != 2 {
		t.Fatalf("CheckRegressions(5%%) = %v, want a RegressionError with 2 cases", err)
	}
	msg := err.Error()
	for _, want := range []string{"2 cases are significantly slower", "more than 5%", "handshake/tls1.2/full/c128 (+10.0% slower, p=<0.001)"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("message %q is not one line", msg)
	}
	// Over 200% nothing regressed, but the cases with too few samples
	// still fail the gate: it cannot pass what it could not test.
	err = c.CheckRegressions(2)
	if !errors.As(err, &re) || len(re.Cases) != 0 || len(re.Untested) == 0 {
		t.Errorf("CheckRegressions(200%%) = %v, want only untested cases", err)
	}
	for _, cc := range re.Untested {
		if cc.Verdict != TooFewSamples && cc.Verdict != NotComparable {
			t.Errorf("%s (%s) listed as untested", cc.Name, cc.Verdict)
		}
	}
	// A faster or unchanged case never fails the gate, even at 0%.
	for _, cc := range c.Regressions(0) {
		if cc.Verdict != Slower {
			t.Errorf("%s (%s) counted as a regression", cc.Name, cc.Verdict)
		}
	}
}

func TestRenderComparisonJSON(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := RenderComparison(&buf, report.JSON, compareTestdata(t)); err != nil {
		t.Fatal(err)
	}
	var v struct {
		Alpha float64 `json:"alpha"`
		Cases []struct {
			Name    string   `json:"name"`
			RatioSD *float64 `json:"ratio_sd"`
			P       *float64 `json:"p"`
			Verdict string   `json:"verdict"`
		} `json:"cases"`
		OnlyBaseline  []struct{ Name string } `json:"only_baseline"`
		OnlyCandidate []struct{ Name string } `json:"only_candidate"`
	}
	dec := json.NewDecoder(&buf)
	dec.DisallowUnknownFields()
	if err := json.Unmarshal(buf.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	if v.Alpha != 0.05 || len(v.Cases) != 8 || len(v.OnlyBaseline) != 1 || len(v.OnlyCandidate) != 2 {
		t.Errorf("json: alpha %v, %d cases, %d/%d one-sided", v.Alpha, len(v.Cases), len(v.OnlyBaseline), len(v.OnlyCandidate))
	}
	for _, c := range v.Cases {
		if strings.HasPrefix(c.Name, "throughput/") && c.RatioSD != nil {
			t.Errorf("%s: ratio_sd %v from one sample per side, want null", c.Name, *c.RatioSD)
		}
		if c.P == nil || c.Verdict == "" {
			t.Errorf("%s: p %v, verdict %q", c.Name, c.P, c.Verdict)
		}
	}
}

func TestRenderComparisonCSV(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := RenderComparison(&buf, report.CSV, compareTestdata(t)); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+8+3 {
		t.Errorf("%d rows, want a header, 8 paired and 3 one-sided cases", len(rows))
	}
}

func TestParseCompareFormat(t *testing.T) {
	t.Parallel()
	for _, f := range CompareFormats() {
		if got, err := ParseCompareFormat(string(f)); err != nil || got != f {
			t.Errorf("ParseCompareFormat(%q) = %q, %v", f, got, err)
		}
	}
	for _, s := range []string{"benchfmt", "html", "xml"} {
		_, err := ParseCompareFormat(s)
		if err == nil || !strings.Contains(err.Error(), "table, markdown, json, csv") {
			t.Errorf("ParseCompareFormat(%q) error %v does not list the formats", s, err)
		}
	}
	if err := RenderComparison(&bytes.Buffer{}, report.Benchfmt, &Comparison{}); err == nil {
		t.Error("RenderComparison(benchfmt) succeeded")
	}
}

func TestCompareNotesDifferentIterationSize(t *testing.T) {
	t.Parallel()
	base := hs("h", tenSamples...)
	cand := hs("h", tenSamples...)
	cand.Handshakes = int64(8 * len(tenSamples))
	c := Compare([]results.Record{base}, []results.Record{cand}, CompareOptions{})
	if len(c.Cases) != 1 || !strings.Contains(strings.Join(c.Cases[0].Notes, ";"), "settings differ: 128 handshakes per iteration in the baseline, 8 in the candidate") {
		t.Errorf("notes %q: want the differing iteration size named", c.Cases[0].Notes)
	}
}
