package results

import (
	"math"

	"github.com/tlsbench/tlsbench/stats"
)

// SetHandshakeFigure stores the handshake figure's per-iteration samples
// in r with their statistics, computed as those of SamplesUS are (the
// error absent with fewer than two); no samples clear them all.
func (r *Record) SetHandshakeFigure(samples []float64) {
	r.HandshakeSamplesUS, r.HandshakeMeanUS, r.HandshakeErrorUS = nil, nil, nil
	r.HandshakeStddevUS, r.HandshakeMedianUS, r.HandshakeMinUS, r.HandshakeMaxUS = nil, nil, nil, nil
	if len(samples) == 0 {
		return
	}
	s := stats.Summarize(samples)
	r.HandshakeSamplesUS = samples
	r.HandshakeMeanUS, r.HandshakeStddevUS = Float(s.Mean), Float(s.StdDev)
	r.HandshakeMedianUS, r.HandshakeMinUS, r.HandshakeMaxUS = Float(s.Median), Float(s.Min), Float(s.Max)
	if !math.IsNaN(s.Error) {
		r.HandshakeErrorUS = Float(s.Error)
	}
}
