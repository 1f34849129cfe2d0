package loadgen

import (
	"math"

	"github.com/tlsbench/tlsbench/results"
	"github.com/tlsbench/tlsbench/stats"
)

// setSummary stores the per-iteration samples of a case and their
// statistics s in rec; the error is null with fewer than two samples.
func setSummary(rec *results.Record, samples []float64, s stats.Summary) {
	rec.Iterations = len(samples)
	rec.SamplesUS = samples
	rec.MeanUS, rec.StddevUS, rec.MedianUS, rec.MinUS, rec.MaxUS = s.Mean, s.StdDev, s.Median, s.Min, s.Max
	rec.ErrorUS = nil
	if !math.IsNaN(s.Error) {
		rec.ErrorUS = results.Float(s.Error)
	}
}
