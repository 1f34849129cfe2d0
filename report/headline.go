package report

import (
	"math"

	"github.com/tlsbench/tlsbench/results"
)

// The headline of a closed-loop handshake case is the handshake: its
// connect and TLS handshake per handshake (handshake_mean_us and the
// rest), not the wall time per connection (mean_us), which includes the
// exchange after the handshake and the wait for the server's answer.
// Records written before the handshake figure existed, and open-loop
// cases (whose samples are latencies), are read by their own figures.

// CaseFigure is the per-iteration figure a report reads a case by.
type CaseFigure struct {
	Mean, stddev, median, min, max float64
	Err                            *float64
	Samples                        []float64
	// handshake is set for the handshake figure; otherwise the figure
	// is the record's own (mean_us ...).
	Handshake bool
}

// HasHandshakeFigure reports whether r has the handshake figure.
func HasHandshakeFigure(r *results.Record) bool {
	return r.HandshakeMeanUS != nil && r.HandshakeMedianUS != nil && r.HandshakeMinUS != nil &&
		r.HandshakeMaxUS != nil && r.HandshakeStddevUS != nil
}

// Headline is the figure r is read by: the handshake figure where it has
// one, its own otherwise.
func Headline(r *results.Record) CaseFigure {
	if HasHandshakeFigure(r) {
		return CaseFigure{Mean: *r.HandshakeMeanUS, stddev: *r.HandshakeStddevUS, median: *r.HandshakeMedianUS,
			min: *r.HandshakeMinUS, max: *r.HandshakeMaxUS, Err: r.HandshakeErrorUS, Samples: r.HandshakeSamplesUS, Handshake: true}
	}
	return WallFigure(r)
}

// pairHeadlines are the figures two records are compared by: the
// handshake figure when both have it, their wall times otherwise, so
// that a handshake time is never divided by a wall time (a record
// written before the handshake figure existed beside a newer one).
func pairHeadlines(a, b *results.Record) (CaseFigure, CaseFigure) {
	if HasHandshakeFigure(a) && HasHandshakeFigure(b) {
		return Headline(a), Headline(b)
	}
	return WallFigure(a), WallFigure(b)
}

// WallFigure is r's own figure: the wall time per connection of a
// closed-loop handshake case.
func WallFigure(r *results.Record) CaseFigure {
	return CaseFigure{Mean: r.MeanUS, stddev: r.StddevUS, median: r.MedianUS, min: r.MinUS, max: r.MaxUS, Err: r.ErrorUS, Samples: r.SamplesUS}
}

// lacksHandshakeFigure reports a closed-loop handshake record measured
// without the handshake figure: its headline is its wall time.
func lacksHandshakeFigure(r *results.Record) bool {
	return r.Kind == results.KindHandshake && r.RateTarget == nil && !HasHandshakeFigure(r) && !NotRun(r) && r.Iterations > 0
}

// ratioAgreement is how far (as a factor) the full/resumed ratio of the
// wall time per connection may lie from the handshake figure's for the
// two to be said to agree.
const ratioAgreement = 1.1

// ratiosAgree reports whether two ratios agree within ratioAgreement.
func ratiosAgree(a, b float64) bool {
	if !(a > 0) || !(b > 0) {
		return false
	}
	return math.Abs(math.Log(a/b)) <= math.Log(ratioAgreement)
}
