package callgrind

// Iterations are a count's instructions per handshake in each kept
// iteration of a case, and over all of them. A count unknown in any
// iteration (not counted, a reading failed or went backwards) is unknown
// for the case: never filled in.
type Iterations struct {
	perHS     []float64
	sum, hs   int64
	unknown   bool
	iterCount int
}

// Keep adds an iteration of hs successful handshakes over which the
// count moved by n (nil: not known).
func (it *Iterations) Keep(n *int64, hs int64) {
	it.iterCount++
	if it.unknown = it.unknown || n == nil || *n < 0 || hs <= 0; it.unknown {
		return
	}
	it.perHS = append(it.perHS, float64(*n)/float64(hs))
	it.sum, it.hs = it.sum+*n, it.hs+hs
}

// Figures are the instructions per handshake of each iteration and of
// the case, nil unless every one of the iterations kept was counted
// and they are want in number.
func (it *Iterations) Figures(want int) ([]float64, *float64) {
	if it.unknown || it.iterCount != want || len(it.perHS) != want || want == 0 {
		return nil, nil
	}
	mean := float64(it.sum) / float64(it.hs)
	return it.perHS, &mean
}

// Between is the count from earlier to later, nil unless both are known.
func Between(later, earlier *int64) *int64 {
	if later == nil || earlier == nil {
		return nil
	}
	d := *later - *earlier
	return &d
}
