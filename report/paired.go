package report

import (
	"errors"

	"github.com/tlsbench/tlsbench/results"
)

// DefaultMinEffect is the smallest change (a fraction) called faster or
// slower when no noise floor was measured: smaller significant changes
// are "within noise".
const DefaultMinEffect = 0.02

// WithinNoise: the change is significant but no larger than the noise
// floor (the A/A difference measured in the same run, or MinEffect).
const WithinNoise Verdict = "within noise"

// Interleaved reports whether recs come from an interleaved A/B run
// (their records name a side).
func Interleaved(recs []results.Record) bool {
	for i := range recs {
		if recs[i].Side != "" {
			return true
		}
	}
	return false
}

// ComparePaired compares the sides of an interleaved A/B run (records
// with Side set): side b against side a, case by case, on the paired
// per-iteration ratios (stats.ComparePaired). Where a case has a side
// a2, the A/A comparison of a2 against a is its measured noise floor.
// It fails only when recs hold no interleaved run.
func ComparePaired(recs []results.Record, opts CompareOptions) (*Comparison, error) {
	return nil, errors.New("paired comparison is not implemented")
}
