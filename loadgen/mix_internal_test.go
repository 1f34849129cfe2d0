package loadgen

import (
	"math"
	"testing"
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
