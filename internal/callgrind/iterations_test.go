package callgrind

import "testing"

// TestIterations: the figures per handshake of each iteration and of
// the case, weighted by handshakes; none once an iteration is unknown,
// or when the iterations are not those of the case.
func TestIterations(t *testing.T) {
	t.Parallel()
	var it Iterations
	it.Keep(Between(new(int64(3000)), new(int64(1000))), 10)
	it.Keep(new(int64(9000)), 30)
	xs, mean := it.Figures(2)
	if len(xs) != 2 || xs[0] != 200 || xs[1] != 300 || mean == nil || *mean != 11000.0/40 {
		t.Errorf("figures %v, %v; want [200 300] and 275", xs, mean)
	}
	if xs, _ := it.Figures(3); xs != nil {
		t.Errorf("figures for 3 iterations of 2: %v", xs)
	}
	it.Keep(Between(nil, new(int64(1))), 10)
	if xs, mean := it.Figures(3); xs != nil || mean != nil {
		t.Errorf("an unknown iteration left figures %v, %v", xs, mean)
	}
}
