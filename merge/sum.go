package merge

import (
	"fmt"

	"github.com/tlsbench/tlsbench/results"
)

// adder adds one record's figures into its case's. A sum that overflows
// comes of the input, not of the merge (no run makes 2^63 handshakes, nor
// takes 1e308 µs): the first is kept as an *Error naming the record and
// the field, and the record is refused.
type adder struct {
	pos  Pos
	name string
	err  error
}

// refuse keeps the first reason the record cannot be added.
func (a *adder) refuse(field, format string, args ...any) {
	if a.err == nil {
		a.err = &Error{Pos: a.pos, Case: a.name, Field: field, Reason: fmt.Sprintf(format, args...)}
	}
}

// number is what the merge adds up: counts and measurements.
type number interface{ int | int64 | float64 }

// add returns total, the sum of field over the records before, plus v;
// when that overflows, it refuses the record and returns total.
func add[T number](a *adder, field string, total, v T) T {
	sum := total + v
	if overflows(total, v, sum) {
		a.refuse(field, "%v, added to the %v of the records before, overflows the sum: no run measures that much; was the line edited?", v, total)
		return total
	}
	return sum
}

// addAt is add for element i of a list field, whose name is only
// written when the sum overflows: samples are many.
func addAt[T number](a *adder, field string, i int, total, v T) T {
	if sum := total + v; !overflows(total, v, sum) {
		return sum
	}
	return add(a, fmt.Sprintf("%s[%d]", field, i), total, v)
}

// addKey is add for field prefix+key, a key of a map field, whose name
// is only written when the sum overflows: every record has some.
func addKey[T number](a *adder, prefix, key string, total, v T) T {
	if sum := total + v; !overflows(total, v, sum) {
		return sum
	}
	return add(a, prefix+key, total, v)
}

// overflows reports whether sum, computed as a+b, is not their sum:
// integers wrap around; a floating-point sum becomes infinite, and then
// sum-sum is NaN, unequal to itself (for an integer or a finite number it
// is 0).
func overflows[T number](a, b, sum T) bool {
	return b > 0 && sum < a || b < 0 && sum > a || sum-sum != sum-sum
}

// opt sums, or keeps the largest of, a figure that may be absent from a
// record: known when every record had it (all), or some record (any).
type opt[T int64 | float64] struct {
	v T
	n int // records that had it
}

func (o *opt[T]) sum(a *adder, field string, v *T) {
	if v != nil {
		o.v = add(a, field, o.v, *v)
		o.n++
	}
}

func (o *opt[T]) max(v *T) {
	if v != nil {
		if o.n == 0 || *v > o.v {
			o.v = *v
		}
		o.n++
	}
}

// all is the figure when every record had it.
func (o *opt[T]) all(records int) *T {
	if o.n != records {
		return nil
	}
	v := o.v
	return &v
}

// any is the figure when some record had it.
func (o *opt[T]) any() *T {
	if o.n == 0 {
		return nil
	}
	v := o.v
	return &v
}

// foldAcc folds one field with a fold rule (results.FoldedField) over a
// case's records.
type foldAcc struct {
	count  opt[int64]
	figure opt[float64]
	perHS  weighted
	// iters combines figures per iteration as an open-loop case's
	// samples are (Σ value·n / Σ n), and withIters counts the records
	// that had them.
	iters     *sampleAcc
	withIters int
}

func (acc *foldAcc) add(a *adder, f results.FoldedField, rec *results.Record) {
	switch {
	case f.Rule == results.FoldPerIteration:
		xs := f.Samples(rec)
		if xs == nil {
			return
		}
		if acc.iters == nil {
			acc.iters = &sampleAcc{open: true, field: f.Name}
		}
		acc.withIters++
		acc.iters.add(a, xs, rec.SampleHandshakes)
	case f.Rule == results.FoldPerHandshake:
		acc.perHS.add(a, f.Name, f.Figure(rec), rec.Handshakes)
	case f.Rule == results.FoldMax && f.Int:
		acc.count.max(f.Count(rec))
	case f.Rule == results.FoldMax:
		acc.figure.max(f.Figure(rec))
	case f.Int:
		acc.count.sum(a, f.Name, f.Count(rec))
	default:
		acc.figure.sum(a, f.Name, f.Figure(rec))
	}
}

// finish sets the field of the merged record: a sum or a figure per
// handshake when every one of the records had it, the largest when any
// did.
func (acc *foldAcc) finish(f results.FoldedField, rec *results.Record, records int) {
	switch {
	case f.Rule == results.FoldPerIteration:
		f.SetSamples(rec, nil)
		if acc.iters != nil && acc.withIters == records {
			var notes []string // the samples' own finish says the same
			xs, _ := acc.iters.finish(&notes)
			f.SetSamples(rec, xs)
		}
	case f.Rule == results.FoldPerHandshake:
		f.SetFigure(rec, acc.perHS.value(records))
	case f.Rule == results.FoldMax && f.Int:
		f.SetCount(rec, acc.count.any())
	case f.Rule == results.FoldMax:
		f.SetFigure(rec, acc.figure.any())
	case f.Int:
		f.SetCount(rec, acc.count.all(records))
	default:
		f.SetFigure(rec, acc.figure.all(records))
	}
}
