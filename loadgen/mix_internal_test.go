package loadgen

import (
	"math"
	"strings"
	"testing"

	"github.com/tlsbench/tlsbench/measure"
	"github.com/tlsbench/tlsbench/results"
)

// TestOffersSpreadEvenly: the first n connections of an iteration hold
// floor(n·f) offers for every n, so an iteration cut anywhere (a timed
// iteration, a window that dropped its tail) keeps its share to one
// connection, and no two offers of a share at most 1/2 are adjacent.
func TestOffersSpreadEvenly(t *testing.T) {
	t.Parallel()
	for _, f := range []float64{0, 0.1, 0.25, 0.29, 1.0 / 3, 0.5, 0.7, 0.8, 0.99, 1} {
		got, prev := 0, false
		for i := range 1000 {
			o := offers(i, f)
			if o {
				got++
			}
			if o && prev && f <= 0.5 {
				t.Errorf("share %g: connections %d and %d both offer", f, i-1, i)
			}
			prev = o
			if want := int(math.Floor(float64(i+1)*f + 1e-9)); got != want {
				t.Fatalf("share %g: %d offers among the first %d connections, want %d", f, got, i+1, want)
			}
		}
	}
}

// TestCPUSplit: a part's CPU per handshake is its own work per handshake
// plus an equal share of the rest, so the parts add up to the whole; with
// no work measured, or more work than the process used, there is no
// split, and a note says why.
func TestCPUSplit(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		s     measure.CPUSplit
		want  [2]float64 // -1: none
		notes string
	}{
		// 1000 µs in all over 10 handshakes: 300 of work on 2 full,
		// 200 on 8 resumed, 500 left: 50 each. (Shared in proportion
		// to the work it would have been 300 and 50.)
		{"split", measure.CPUSplit{Total: 1000, Handshakes: [2]int64{2, 8}, Work: [2]float64{300, 200}}, [2]float64{200, 75}, ""},
		{"no resumed", measure.CPUSplit{Total: 500, Handshakes: [2]int64{5, 0}, Work: [2]float64{400, 0}}, [2]float64{100, -1}, ""},
		{"all measured", measure.CPUSplit{Total: 500, Handshakes: [2]int64{1, 4}, Work: [2]float64{300, 200}}, [2]float64{300, 50}, ""},
		{"nothing measured", measure.CPUSplit{Who: "client", Total: 500, Handshakes: [2]int64{5, 5}}, [2]float64{-1, -1}, "cannot be measured"},
		{"more work than the process", measure.CPUSplit{Who: "server", Total: 100, Handshakes: [2]int64{1, 1}, Work: [2]float64{80, 80}}, [2]float64{-1, -1}, "more than the 100 µs"},
		{"blurred", measure.CPUSplit{Who: "client", Total: 1000, Handshakes: [2]int64{5, 5}, Work: [2]float64{300, 200}, Lost: 2}, [2]float64{110, 90}, "2 of 10 handshakes could not be measured whole"},
	} {
		var rec results.Record
		got := tt.s.PerHandshake(&rec)
		for i, w := range tt.want {
			switch {
			case w < 0 && got[i] != nil:
				t.Errorf("%s: part %d: %v, want none", tt.name, i, *got[i])
			case w >= 0 && (got[i] == nil || math.Abs(*got[i]-w) > 1e-9*w):
				t.Errorf("%s: part %d: %v, want %v", tt.name, i, got[i], w)
			}
		}
		if notes := strings.Join(rec.Notes, "; "); (tt.notes == "") != (notes == "") || !strings.Contains(notes, tt.notes) {
			t.Errorf("%s: notes %q, want %q", tt.name, notes, tt.notes)
		}
	}
}
