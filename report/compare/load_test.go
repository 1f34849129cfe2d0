package compare

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/results"
)

// loaded is r measured with other processes taking other of the
// machine, which was busy.
func loaded(r results.Record, other, busy float64) results.Record {
	r.CPUsAvailable, r.OtherCPUShare, r.MachineBusy = 2, results.Float(other), results.Float(busy)
	return r
}

// TestCompareOtherLoad: a pair of two separate runs of which a side was
// measured under other load (other_cpu_share of 10% or more, or a
// machine other load saturated) is not judged, and the regression gate
// does not fail for it, unless the load is allowed.
func TestCompareOtherLoad(t *testing.T) {
	t.Parallel()
	base := hs("handshake/tls1.3/full/c1", tenSamples...)
	slow := hs("handshake/tls1.3/full/c1", shift(tenSamples, 1.5)...)
	tests := []struct {
		name       string
		base, cand results.Record
		allow      bool
		want       Verdict
		load       string
	}{
		{"quiet", loaded(base, 0.02, 0.5), loaded(slow, 0.03, 0.6), false, Slower, ""},
		{"no machine figures", base, slow, false, Slower, ""},
		{"baseline loaded", loaded(base, 0.58, 1), loaded(slow, 0.03, 0.6), false, OtherLoad, "other load: 58% / 3%"},
		{"candidate loaded", base, loaded(slow, 0.12, 0.7), false, OtherLoad, "other load: — / 12%"},
		{"just below the threshold", loaded(base, 0.099, 0.5), loaded(slow, 0.05, 0.5), false, Slower, ""},
		{"saturated by other load", loaded(base, 0.07, 0.95), loaded(slow, 0.01, 0.5), false, OtherLoad, "other load: 7% / 1%"},
		{"saturated by the benchmark", loaded(base, 0.01, 0.99), loaded(slow, 0.01, 0.99), false, Slower, ""},
		{"allowed", loaded(base, 0.58, 1), loaded(slow, 0.12, 0.7), true, Slower, "other load: 58% / 12%"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := Compare([]results.Record{tt.base}, []results.Record{tt.cand}, CompareOptions{AllowLoad: tt.allow})
			cc := c.Cases[0]
			if cc.Verdict != tt.want || cc.Load != tt.load {
				t.Fatalf("verdict %q, load %q; want %q, %q (notes %q)", cc.Verdict, cc.Load, tt.want, tt.load, cc.Notes)
			}
			err := c.CheckRegressions(0.05)
			if tt.want == OtherLoad {
				if !math.IsNaN(cc.Ratio) || !math.IsNaN(cc.P) || !math.IsNaN(cc.Slowdown) {
					t.Errorf("ratio %v, p %v, slowdown %v of a pair not judged", cc.Ratio, cc.P, cc.Slowdown)
				}
				// The only pair left out: the gate judged nothing,
				// and says so rather than pass.
				var re *RegressionError
				if !errors.As(err, &re) || !re.NothingJudged || len(re.Cases) != 0 || len(c.NotJudged()) != 1 {
					t.Errorf("gate: %v, not judged %d; want nothing judged, the pair left out", err, len(c.NotJudged()))
				}
				return
			}
			var re *RegressionError
			if !errors.As(err, &re) || len(re.Cases) != 1 {
				t.Errorf("gate: %v, want the slower case", err)
			}
		})
	}
}

// TestCompareOtherLoadGate: pairs left unjudged for load neither fail
// the gate nor count as judged: when nothing else was judged (the rest
// not comparable, or no other pair), the gate fails.
func TestCompareOtherLoadGate(t *testing.T) {
	t.Parallel()
	a := loaded(hs("a", tenSamples...), 0.5, 1)
	b := hs("b", tenSamples...)
	bOther := b
	bOther.Group = "x25519"
	b.Group = "p256"
	c := Compare([]results.Record{a, b}, []results.Record{a, bOther}, CompareOptions{})
	var re *RegressionError
	if err := c.CheckRegressions(0.05); !errors.As(err, &re) || !re.NothingJudged {
		t.Errorf("gate: %v, want nothing judged", err)
	}
	c = Compare([]results.Record{a}, []results.Record{a}, CompareOptions{})
	if err := c.CheckRegressions(0.05); !errors.As(err, &re) || !re.NothingJudged || !strings.Contains(err.Error(), "--allow-load") {
		t.Errorf("gate with the only pair not judged for load: %v, want nothing judged, naming --allow-load", err)
	}
	// One pair judged beside one not judged for load: the gate passes
	// on the one it judged.
	d := hs("d", tenSamples...)
	c = Compare([]results.Record{a, d}, []results.Record{a, d}, CompareOptions{})
	if err := c.CheckRegressions(0.05); err != nil {
		t.Errorf("gate with one pair judged and one not: %v, want passed", err)
	}
}

// TestComparePairedIgnoresLoad: the sides of an interleaved run share the
// machine's load round by round; they are judged from their pairing.
func TestComparePairedIgnoresLoad(t *testing.T) {
	t.Parallel()
	a := loaded(hs("handshake/tls1.3/full/c1", tenSamples...), 0.6, 1)
	b := loaded(hs("handshake/tls1.3/full/c1", shift(tenSamples, 1.5)...), 0.6, 1)
	a.Side, b.Side = results.SideA, results.SideB
	c, err := ComparePaired([]results.Record{a, b}, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cc := c.Cases[0]; cc.Verdict != Slower || cc.Load != "" {
		t.Errorf("verdict %q, load %q; want slower, judged", cc.Verdict, cc.Load)
	}
}
