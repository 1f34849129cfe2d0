package compare

import (
	"bytes"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/results"
)

func pairedTestdata(t testing.TB, opts CompareOptions) *Comparison {
	t.Helper()
	c, err := ComparePaired(loadRecords(t, pairedFile), opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestComparePairedVerdicts(t *testing.T) {
	t.Parallel()
	c := pairedTestdata(t, CompareOptions{})
	want := map[string]Verdict{
		"handshake/tls1.3/full/c8":        Slower,
		"handshake/tls1.3/resume/c8":      NoChange,
		"handshake/tls1.2/full/c8":        WithinNoise,
		"handshake/tls1.3/full/mutual/c8": WithinNoise,
		"handshake/tls1.3/full/c1":        TooFewSamples,
		"handshake/tls1.3/full/c128":      NotComparable,
		"handshake/tls1.2/resume/c8":      NotComparable,
	}
	if !c.Paired || c.MinEffect != DefaultMinEffect || c.CandName != "self" {
		t.Errorf("Paired %v MinEffect %v CandName %q", c.Paired, c.MinEffect, c.CandName)
	}
	if len(c.Cases) != len(want) {
		t.Errorf("%d cases, want %d", len(c.Cases), len(want))
	}
	for _, cc := range c.Cases {
		if cc.Verdict != want[cc.Name] {
			t.Errorf("%s: verdict %q, want %q (p=%v, ratio %v [%v, %v], floor %v)", cc.Name, cc.Verdict, want[cc.Name], cc.P, cc.Ratio, cc.CILo, cc.CIHi, cc.Floor)
		}
		if !cc.Paired || cc.Test != TestWilcoxon || !math.IsNaN(cc.RatioSD) {
			t.Errorf("%s: Paired %v Test %q RatioSD %v", cc.Name, cc.Paired, cc.Test, cc.RatioSD)
		}
		if cc.Verdict == NotComparable && !math.IsNaN(cc.Ratio+cc.P+cc.CILo+cc.CIHi) {
			t.Errorf("%s: not comparable but ratio %v p %v CI %v..%v", cc.Name, cc.Ratio, cc.P, cc.CILo, cc.CIHi)
		}
		if cc.ResumptionDiffers {
			t.Errorf("%s: resumption flagged", cc.Name)
		}
	}
	byName := func(name string) *CaseComparison {
		for i := range c.Cases {
			if c.Cases[i].Name == name {
				return &c.Cases[i]
			}
		}
		t.Fatalf("no case %s", name)
		return nil
	}
	if cc := byName("handshake/tls1.3/full/c8"); math.Abs(cc.Ratio-2) > 0.01 || !(cc.CILo > 1.98 && cc.CIHi < 2.02) || cc.FloorMeasured || cc.Floor != DefaultMinEffect {
		t.Errorf("2x case: ratio %v [%v, %v] floor %v measured %v", cc.Ratio, cc.CILo, cc.CIHi, cc.Floor, cc.FloorMeasured)
	}
	if cc := byName("handshake/tls1.2/full/c8"); !cc.FloorMeasured || !(cc.Floor > 0.04 && cc.Floor < 0.1) || !(cc.P <= 0.05) || !(cc.CILo > 1) {
		t.Errorf("floor case: floor %v measured %v p %v CI [%v, %v]", cc.Floor, cc.FloorMeasured, cc.P, cc.CILo, cc.CIHi)
	}
	if cc := byName("handshake/tls1.3/full/c1"); cc.MinSamples != 6 || !slices.ContainsFunc(cc.Notes, func(n string) bool { return strings.Contains(n, "4 pairs: the signed-rank test needs at least 6") }) {
		t.Errorf("too few: MinSamples %d notes %q", cc.MinSamples, cc.Notes)
	}
	if cc := byName("handshake/tls1.2/resume/c8"); !slices.ContainsFunc(cc.Mismatch, func(m string) bool { return strings.Contains(m, "side b failed a gate") }) {
		t.Errorf("failed side: mismatch %q", cc.Mismatch)
	}
	if cc := byName("handshake/tls1.3/full/c128"); !slices.ContainsFunc(cc.Notes, func(n string) bool { return strings.Contains(n, "side a has 12 samples and side b 11") }) {
		t.Errorf("unequal counts: notes %q", cc.Notes)
	}
	if names := oneSidedNames(c.OnlyBase); !slices.Equal(names, []string{"handshake/tls1.3/full/c64"}) {
		t.Errorf("only side a: %q", names)
	}

	// The gate: the 2x case is a regression, the within-noise ones are
	// not, and the too-few case is untested.
	var re *RegressionError
	err := c.CheckRegressions(0.05)
	if !asRegression(err, &re) {
		t.Fatalf("CheckRegressions = %v", err)
	}
	if len(re.Cases) != 1 || re.Cases[0].Name != "handshake/tls1.3/full/c8" {
		t.Errorf("regressions %v", caseNames(re.Cases))
	}
	if names := caseNames(re.Untested); !slices.Equal(names, []string{"handshake/tls1.3/full/c1", "handshake/tls1.3/full/c128"}) {
		t.Errorf("untested %v", names)
	}
}

func asRegression(err error, re **RegressionError) bool {
	r, ok := err.(*RegressionError)
	*re = r
	return ok
}

func caseNames(cs []*CaseComparison) []string {
	var out []string
	for _, cc := range cs {
		out = append(out, cc.Name)
	}
	return out
}

func TestComparePairedMinEffect(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		minEffect float64
		mutual    Verdict // the 1.5% case
		floorCase Verdict // 4% against a measured floor of about 6%
	}{
		{0, WithinNoise, WithinNoise},    // default 2%
		{-1, Slower, WithinNoise},        // no minimum: the measured floor still holds
		{0.01, Slower, WithinNoise},      // 1% < 1.5%
		{0.10, WithinNoise, WithinNoise}, // 10% floor over both
		{0.001, Slower, WithinNoise},     // tiny
		{math.NaN(), WithinNoise, WithinNoise},
	} {
		c := pairedTestdata(t, CompareOptions{MinEffect: tt.minEffect})
		for _, cc := range c.Cases {
			switch cc.Name {
			case "handshake/tls1.3/full/mutual/c8":
				if cc.Verdict != tt.mutual {
					t.Errorf("MinEffect %v: 1.5%% case %q, want %q", tt.minEffect, cc.Verdict, tt.mutual)
				}
			case "handshake/tls1.2/full/c8":
				if cc.Verdict != tt.floorCase {
					t.Errorf("MinEffect %v: floor case %q, want %q", tt.minEffect, cc.Verdict, tt.floorCase)
				}
			case "handshake/tls1.3/full/c8":
				if want := tt.minEffect <= 0.10 || math.IsNaN(tt.minEffect); want && cc.Verdict != Slower {
					t.Errorf("MinEffect %v: 2x case %q", tt.minEffect, cc.Verdict)
				}
			}
		}
	}
}

func TestComparePairedErrorsAndEdges(t *testing.T) {
	t.Parallel()
	recs := loadRecords(t, pairedFile)
	for i := range recs {
		recs[i].Side = ""
	}
	if _, err := ComparePaired(recs, CompareOptions{}); err == nil {
		t.Error("records without sides: no error")
	}
	if _, err := ComparePaired(nil, CompareOptions{}); err == nil {
		t.Error("no records: no error")
	}

	// Unknown sides are left out with a note; a side b alone is listed.
	recs = loadRecords(t, pairedFile)
	recs[0].Side = "c"
	c, err := ComparePaired(recs, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(c.Notes, "1 record of no side (a, b or a2) left out") {
		t.Errorf("notes %q", c.Notes)
	}
	if names := oneSidedNames(c.OnlyCand); !slices.Equal(names, []string{"handshake/tls1.3/full/c8"}) {
		t.Errorf("only side b: %q", names)
	}

	// A side b at another address (--versus) is what the run is for, not
	// a mismatch; a different group is.
	recs = loadRecords(t, pairedFile)
	recs[0].Target, recs[1].Target = "127.0.0.1:8443", "127.0.0.1:9443"
	recs[3].Group = "P-256"
	c, _ = ComparePaired(recs, CompareOptions{})
	if c.Cases[0].Verdict != Slower || len(c.Cases[0].Mismatch) != 0 {
		t.Errorf("target of side b: %q %q", c.Cases[0].Verdict, c.Cases[0].Mismatch)
	}
	if c.Cases[1].Verdict != NotComparable || !slices.Contains(c.Cases[1].Mismatch, "group: X25519MLKEM768 vs P-256") {
		t.Errorf("group of side b: %q %q", c.Cases[1].Verdict, c.Cases[1].Mismatch)
	}
	c, _ = ComparePaired(recs, CompareOptions{AllowMismatch: true})
	if c.Cases[1].Verdict != NoChange {
		t.Errorf("allowed mismatch: %q", c.Cases[1].Verdict)
	}

	// key_cache differs by design when side b overrides it.
	recs = loadRecords(t, pairedFile)
	on, off := true, false
	for i := range recs {
		recs[i].Versus = "self with key-cache=off"
		recs[i].KeyCache = &on
		if recs[i].Side == results.SideB {
			recs[i].KeyCache = &off
		}
	}
	c, _ = ComparePaired(recs, CompareOptions{})
	if c.Cases[0].Verdict != Slower || len(c.Cases[0].Mismatch) != 0 {
		t.Errorf("key cache of side b: %q %q", c.Cases[0].Verdict, c.Cases[0].Mismatch)
	}

	// Records spliced from two runs (two sides b) say so.
	recs = loadRecords(t, pairedFile)
	for i := range recs {
		recs[i].Versus = "self"
	}
	recs[len(recs)-1].Versus = "server ./other"
	c, _ = ComparePaired(recs, CompareOptions{})
	if !slices.Contains(c.Notes, "the records name 2 different sides b (self; server ./other): they come from more than one run, and each case pairs only its own") {
		t.Errorf("spliced runs: notes %q", c.Notes)
	}

	// A failed or cut side a2 leaves the floor at the minimum effect.
	recs = loadRecords(t, pairedFile)
	for i := range recs {
		if recs[i].Side == results.SideA2 {
			recs[i].SamplesUS = recs[i].SamplesUS[:5]
		}
	}
	c, _ = ComparePaired(recs, CompareOptions{})
	for _, cc := range c.Cases {
		if cc.Name == "handshake/tls1.2/full/c8" && (cc.FloorMeasured || cc.Verdict != Slower ||
			!slices.Contains(cc.Notes, "no noise floor measured: side a2 has 5 samples and side a 12")) {
			t.Errorf("cut a2: floor %v measured %v verdict %q notes %q", cc.Floor, cc.FloorMeasured, cc.Verdict, cc.Notes)
		}
	}
}

func TestComparePairedGolden(t *testing.T) {
	t.Parallel()
	c := pairedTestdata(t, CompareOptions{})
	for _, f := range CompareFormats() {
		t.Run(string(f), func(t *testing.T) {
			var buf bytes.Buffer
			if err := RenderComparison(&buf, f, c); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, filepath.Join("testdata", "compare-paired."+string(f)+".golden"), buf.Bytes())
		})
	}
}

func TestSequentialWithinNoise(t *testing.T) {
	t.Parallel()
	// Ten steady samples, and the same 1.5% slower: fully separated.
	steady := []float64{100, 100.1, 100.2, 100.3, 100.4, 100.5, 100.6, 100.7, 100.8, 100.9}
	base := costRecord(false, steady)
	cand := costRecord(false, shift(steady, 1.015))
	for _, tt := range []struct {
		minEffect float64
		want      Verdict
	}{{0, WithinNoise}, {0.01, Slower}, {-1, Slower}} {
		c := Compare([]results.Record{base}, []results.Record{cand}, CompareOptions{MinEffect: tt.minEffect})
		if got := c.Cases[0].Verdict; got != tt.want {
			t.Errorf("MinEffect %v: %q (p %v, change %v), want %q", tt.minEffect, got, c.Cases[0].P, c.Cases[0].Change, tt.want)
		}
		if c.Paired || c.Cases[0].Test != TestMannWhitney || !math.IsNaN(c.Cases[0].CILo) || len(c.Notes) != 1 || !strings.Contains(c.Notes[0], "--versus-self") {
			t.Errorf("sequential: %+v %q", c.Cases[0], c.Notes)
		}
		if err := c.CheckRegressions(0); (err != nil) != (tt.want == Slower) {
			t.Errorf("MinEffect %v: gate %v", tt.minEffect, err)
		}
	}
}
