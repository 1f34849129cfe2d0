package compare

import (
	"bytes"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/report"
	"github.com/tlsbench/tlsbench/results"
)

func answer(slo string, sustained, failed float64) *results.Record {
	r := &results.Record{Name: "handshake/tls1.3/full/find-rate", Kind: results.KindRateSearch, SLO: slo, Steps: 6}
	if sustained > 0 {
		r.RateSustained = results.Float(sustained)
	}
	if failed > 0 {
		r.RateFailed = results.Float(failed)
	}
	return r
}

// TestCompareSearchVerdicts: brackets decide, and only brackets that do
// not overlap make a verdict (0 below: the side has no such rate).
func TestCompareSearchVerdicts(t *testing.T) {
	t.Parallel()
	const slo = "p99=20ms,error=0.1%"
	for _, tc := range []struct {
		name         string
		bs, bf       float64
		cs, cf       float64
		cslo         string
		want         SearchVerdict
		drop, change float64
	}{
		{"candidate met what the baseline failed", 3250, 3375, 3500, 3600, slo, RateHigher, math.NaN(), 3500.0/3250 - 1},
		{"candidate failed what the baseline met", 3250, 3375, 2000, 2500, slo, RateLower, 1 - 2500.0/3250, 2000.0/3250 - 1},
		{"failed exactly the rate the baseline met", 3250, 3375, 3000, 3250, slo, RateLower, 0, 3000.0/3250 - 1},
		{"overlapping brackets", 3250, 3375, 3300, 3400, slo, RateOverlap, math.NaN(), 3300.0/3250 - 1},
		{"baseline open above", 4000, 0, 6000, 6500, slo, RateOverlap, math.NaN(), 0.5},
		{"candidate met none, under the baseline's answer", 3250, 3375, 0, 100, slo, RateLower, 1 - 100.0/3250, math.NaN()},
		{"goals differ", 3250, 3375, 6000, 6500, "p99=50ms,error=0.1%", RateNotComparable, math.NaN(), math.NaN()},
		{"a side without an answer", 0, 0, 3250, 3375, slo, RateNotComparable, math.NaN(), math.NaN()},
	} {
		sc := compareSearch("s", answer(slo, tc.bs, tc.bf), answer(tc.cslo, tc.cs, tc.cf))
		if sc.Verdict != tc.want || !sameFloat(sc.MinDrop, tc.drop) || !sameFloat(sc.Change, tc.change) {
			t.Errorf("%s: verdict %q drop %v change %v, want %q %v %v", tc.name, sc.Verdict, sc.MinDrop, sc.Change, tc.want, tc.drop, tc.change)
		}
	}
}

func sameFloat(a, b float64) bool {
	return math.IsNaN(a) && math.IsNaN(b) || math.Abs(a-b) < 1e-12
}

func TestCompareSearches(t *testing.T) {
	t.Parallel()
	c := Compare(loadRecords(t, findRateFile), candidateSearches(t), CompareOptions{})
	for _, cc := range c.Cases {
		if cc.Kind == results.KindRateSearch || cc.Kind == results.KindRateStep {
			t.Errorf("%s (%s) compared as a case", cc.Name, cc.Kind)
		}
	}
	if len(c.Cases) != 2 || len(c.Searches) != 2 || len(c.OnlyBase)+len(c.OnlyCand) != 0 {
		t.Fatalf("%d cases, %d searches, %d/%d one-sided; want the 2 open-loop cases and 2 searches", len(c.Cases), len(c.Searches), len(c.OnlyBase), len(c.OnlyCand))
	}
	if c.Searches[0].Verdict != RateLower || c.Searches[1].Verdict != RateOverlap {
		t.Errorf("verdicts %q, %q", c.Searches[0].Verdict, c.Searches[1].Verdict)
	}
	var re *RegressionError
	if err := c.CheckRegressions(0.05); !errors.As(err, &re) || len(re.Searches) != 1 ||
		!strings.Contains(err.Error(), "between 3250/s (met) and 3375/s (failed), then between 2000/s (met) and 2500/s (failed)") {
		t.Errorf("gate at 5%%: %v", err)
	}
	if err := c.CheckRegressions(0.3); err != nil {
		t.Errorf("gate at 30%%, above the least drop (23%%): %v", err)
	}
	var buf bytes.Buffer
	if err := RenderComparison(&buf, report.Table, c); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"no statistical test", "lower", "brackets overlap", "at least 4000/s (none failed)",
		"the search ended before its bracket was narrow: the load generator could not hold 8000/s", "steps of searches for a sustainable rate (12 in the baseline, 12 in the candidate) are not compared one by one"} {
		if !strings.Contains(out, want) {
			t.Errorf("comparison lacks %q", want)
		}
	}
	if !strings.Contains(out, "Open-loop handshakes (mean ± 99.9% error of each window's mean latency from the intended start") || strings.Contains(out, "µs per handshake") {
		t.Errorf("open-loop cases are not compared under their own title:\n%s", out)
	}
	if strings.Contains(out, "not comparable") {
		t.Errorf("a search or step was called not comparable:\n%s", out)
	}
	for _, f := range CompareFormats() {
		var b bytes.Buffer
		if err := RenderComparison(&b, f, c); err != nil {
			t.Fatal(err)
		}
		checkGolden(t, filepath.Join("testdata", "compare-findrate."+string(f)+".golden"), b.Bytes())
	}
}
